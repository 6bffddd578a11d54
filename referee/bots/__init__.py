"""Bot processes: what to launch (:mod:`~referee.bots.spec`), the sandbox it runs in
(:mod:`~referee.bots.sandbox`, :mod:`~referee.bots.confine`), its cgroups
(:mod:`~referee.bots.cgroup`) and resource limits (:mod:`~referee.bots.limits`), the one exec
step before it (:mod:`~referee.bots.preexec`), its launch and end
(:mod:`~referee.bots.process`), and the ``/proc`` watch where there are no cgroups
(:mod:`~referee.bots.watch`). Nothing here knows the game: it imports only
:mod:`referee.errors`.
"""
