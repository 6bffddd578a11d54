"""The replay tools: ``ginref verify`` (:mod:`~replays.verify`), the terminal view
(:mod:`~replays.view`), the HTML page (:mod:`~replays.html`) and ``--at``/``--ask``
(:mod:`~replays.position`, :mod:`~replays.ask`), each on the one timeline walk of a log
(:mod:`referee.timeline`; for three players or partnerships :mod:`~replays.group_timeline`)."""
