"""The replay tools: ``ginref verify`` (:mod:`~replays.verify`), the terminal view
(:mod:`~replays.view`), the HTML page (:mod:`~replays.html`) and ``--ask``
(:mod:`~replays.ask`), each on the one timeline walk of a log (:mod:`referee.timeline`)."""
