"""Tournaments: the file (:mod:`~tournaments.file.config`), the schedule, the runner and its
executor, the journal and its audit, the standings and their report."""
