"""The replay tools: ``ginref verify`` (:mod:`~replays.verify`), the terminal view
(:mod:`~replays.view`), the HTML page (:mod:`~replays.html`) and ``--at``/``--ask``
(:mod:`~replays.position`, :mod:`~replays.ask`), and the spectator view (:mod:`~replays.spectate`),
each on the one walk of a log for any number of players (:mod:`referee.timeline`)."""
