"""The ``ginref`` command (:mod:`ginref.cli`)."""
