"""Tournaments: the file (:mod:`~tournaments.config`), the schedule, the runner and its executor,
the journal and its audit, the standings and their report."""
