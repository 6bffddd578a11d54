"""The rules engine is pure: standard library only, and no file, process, socket or database use.

A fresh interpreter (``-I``: no environment, no user site; ``-B``: no bytecode writing) records
audit events (PEP 578) from before the first ``referee`` import, imports every module of
:mod:`referee.engine`, then plays a whole random match under every profile, and a three-player
and a partnership match, through the engine alone. The only ``open`` events allowed are the
import system reading the engine's and the standard library's own modules; the modules loaded
must be the engine's and the standard library's, none of those that do I/O or concurrency. The
baseline is what that same interpreter had loaded before the hook went in, so nothing the
interpreter loads by itself is blamed on the engine.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Modules the engine must not load (top-level names), even though most are standard library.
FORBIDDEN = frozenset(
    {
        "asyncio",
        "click",
        "concurrent",
        "ftplib",
        "google",
        "grpc",
        "http",
        "json",
        "multiprocessing",
        "select",
        "selectors",
        "shutil",
        "socket",
        "sqlite3",
        "ssl",
        "subprocess",
        "tempfile",
        "threading",
        "tomllib",
        "urllib",
    }
)

CHILD = r"""
import os, sys

baseline = set(sys.modules)
root = sys.argv[1]
sys.path.insert(0, root)
names = []
for folder, subfolders, files in os.walk(os.path.join(root, "referee", "engine")):
    subfolders[:] = [d for d in subfolders if d != "__pycache__"]
    package = os.path.relpath(folder, root).replace(os.sep, ".")
    for f in files:
        if f.endswith(".py"):
            names.append(package if f == "__init__.py" else package + "." + f[:-3])
names.sort()
# The import system reads these files; anything else opened is the engine's doing.
code_dirs = tuple(os.path.join(os.path.abspath(p), "") for p in sys.path if p)
WATCHED = (
    "subprocess.", "os.system", "os.exec", "os.spawn", "os.fork", "os.posix_spawn", "os.startfile",
    "os.remove", "os.rename", "os.replace", "os.mkdir", "os.rmdir", "os.truncate", "pty.",
    "socket.", "sqlite3.", "urllib.", "ctypes.",
)
events = []
phase = ["import"]


def is_module_read(args):
    path, mode = args[0], args[1]
    return (
        isinstance(path, str)
        and mode in ("r", "rb")
        and path.endswith((".py", ".pyc", ".so"))
        and os.path.abspath(path).startswith(code_dirs)
    )


def hook(event, args):
    if (event == "open" and not is_module_read(args)) or event.startswith(WATCHED):
        events.append((phase[0], event, repr(args)[:200]))


sys.addaudithook(hook)
open(os.devnull).close()  # the hook must see this, or the test proves nothing
assert [e[1] for e in events] == ["open"], events
events.clear()
for name in names:
    __import__(name)
engine_loaded = set(sys.modules) - baseline

phase[0] = "play"
import random  # the player's, not the engine's

player = set(sys.modules) - baseline - engine_loaded
from referee.engine.actions import BigGin, Knock
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.rules import PROFILES, Rules

configs = [Rules.profile(p) for p in PROFILES]
# Paths no profile takes: the high cutter's choice (R2.2) and a declared defence (R6.6).
configs.append(Rules.profile("standard", first_dealer="cut_high_chooses", defender_play="declared"))
finished = []
rng = random.Random(20240611)
for rules in configs:
    match = Match(rules, rng.randrange(1 << 32))
    for _ in range(100_000):
        if match.result is not None:
            break
        legal = observe(match, match.to_act).legal_actions
        # Knock whenever possible, so that hands end in showdowns and matches reach the target.
        knocks = [a for a in legal if isinstance(a, Knock | BigGin)]
        match.apply(knocks[0] if knocks else rng.choice(legal))
    twin = match.copy()
    assert twin.fingerprint() == match.fingerprint()
    finished.append((rules.profile_name, match.result is not None, len(match.hand_results)))
# Three players and partnerships (R10.1, R10.2), every seat's view built at every step.
from referee.engine.group import GroupMatch
from referee.engine.observation import observe_seat

for rules in (Rules.profile("pagat", players=3), Rules.profile("pagat", players=4)):
    players = rules.players
    group = GroupMatch(rules, rng.randrange(1 << 32))
    for _ in range(100_000):
        if group.result is not None:
            break
        views = [observe_seat(group, seat) for seat in range(players)]
        legal = views[group.to_act].legal_actions
        knocks = [a for a in legal if isinstance(a, Knock | BigGin)]
        group.apply(knocks[0] if knocks else rng.choice(legal))
    assert group.copy().fingerprint() == group.fingerprint()
    finished.append((f"pagat/{players}", group.result is not None, len(group.hand_results)))

phase[0] = "done"
# What the engine loaded, on import or later while playing.
loaded = sorted(set(sys.modules) - baseline - player)
print(repr({"modules": names, "events": events, "loaded": loaded, "finished": finished}))
"""


def run_child() -> dict[str, list[object]]:
    out = subprocess.run(
        [sys.executable, "-I", "-B", "-c", CHILD, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    report: dict[str, list[object]] = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    return report


def test_engine_does_no_io_and_loads_only_pure_standard_library() -> None:
    report = run_child()
    modules = report["modules"]
    assert {"referee.engine.match", "referee.engine.rules", "referee.engine.melds"} <= set(modules)
    assert all(done for _, done, _ in report["finished"]), report["finished"]
    assert report["events"] == [], "the engine did I/O:\n" + "\n".join(map(str, report["events"]))
    loaded = [str(m) for m in report["loaded"]]
    tops = {m.split(".")[0] for m in loaded}
    assert not tops & FORBIDDEN, sorted(tops & FORBIDDEN)
    foreign = sorted(t for t in tops if t not in sys.stdlib_module_names and t != "referee")
    assert not foreign, f"not standard library: {foreign}"
    outside = sorted(m for m in loaded if m.startswith("referee.") and m not in modules)
    assert not outside, f"the engine imports the layers above it: {outside}"
