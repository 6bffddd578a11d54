"""``python -m ginref``: the ``ginref`` command."""

from ginref.cli import main

main()
