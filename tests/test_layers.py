"""Imports go one way (docs/architecture.md): engine <- referee <- replays <- tournaments <- CLI;
the research package beside them, over the engine alone (its bot processes over the bot client).

Every import statement of every module, function-level ones included, is read with ``ast`` and
its target placed in a layer; a module may import only from its own layer and those below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "replays", "tournaments", "ginref", "ginref_rl", "sample_bots")

# What each layer may import from the project (besides itself and the standard library and
# third-party packages, which the rules below restrict further).
ALLOWED: dict[str, set[str]] = {
    "engine": {"engine"},
    "bots": {"bots", "errors"},
    "wire": {"wire"},
    "errors": {"engine", "errors"},
    "referee": {"engine", "bots", "wire", "errors", "referee"},
    "replays": {"engine", "bots", "wire", "errors", "referee", "replays"},
    "tournaments": {"engine", "bots", "wire", "errors", "referee", "replays", "tournaments"},
    "cli": {"engine", "bots", "wire", "errors", "referee", "replays", "tournaments", "cli"},
    "sample_bots": {"engine", "wire", "sample_bots"},
    "rl": {"engine", "rl"},
    # The research package's bot processes: a client, like the sample bots.
    "rl_bots": {"engine", "wire", "sample_bots", "rl", "rl_bots"},
}
# The modules of ginref_rl that are bot processes (the rest is the environment and encodings).
RL_BOTS = {"ginref_rl.policy_bot", "ginref_rl.reference_bot", "ginref_rl.strong_bot"}


def layer(module: str) -> str | None:
    """The layer of a project module, or None for anything else."""
    parts = module.split(".")
    top = parts[0]
    if top == "referee":
        if len(parts) == 1:
            return "referee"
        return {
            "engine": "engine",
            "bots": "bots",
            "wire": "wire",
            "errors": "errors",
        }.get(parts[1], "referee")
    if top == "ginref_rl":
        return "rl_bots" if ".".join(parts[:2]) in RL_BOTS else "rl"
    return {
        "replays": "replays",
        "tournaments": "tournaments",
        "ginref": "cli",
        "sample_bots": "sample_bots",
    }.get(top)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in a project file."""
    return imports_of(path, module_name(path), path.name == "__init__.py")


def imports_of(path: Path, name: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every import in the file of module ``name``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if is_package else name.rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # "from referee.engine import melds" imports referee.engine.melds
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
    return found


def modules() -> list[Path]:
    return sorted(
        p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if not p.name.endswith(("_pb2.py", "_pb2_grpc.py"))
    )


def test_every_project_module_has_a_layer() -> None:
    assert len(modules()) > 40
    for path in modules():
        assert layer(module_name(path)) is not None, path


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_go_one_way(path: Path) -> None:
    own = layer(module_name(path))
    assert own is not None
    wrong = []
    for line, target in imports(path):
        theirs = layer(target)
        if theirs is not None and theirs not in ALLOWED[own]:
            wrong.append(f"line {line}: {target} ({theirs})")
        if target.split(".")[0] == "click" and own != "cli":
            wrong.append(f"line {line}: click is imported only by the command line")
        if target.split(".")[0] in ("grpc", "grpc_health", "grpc_reflection") and own in (
            "engine",
            "bots",
            "errors",
            "rl",
        ):
            wrong.append(f"line {line}: {target}: no gRPC below the referee")
    assert not wrong, f"{path.relative_to(ROOT)} ({own}) imports against the layers: {wrong}"


def test_a_wrong_import_is_caught(tmp_path: Path) -> None:
    """The check itself: the imports it reads, and the layers it refuses."""
    module = tmp_path / "m.py"
    module.write_text(
        "import grpc\nfrom referee.server import RefereeServer\n"
        "def f():\n    from tournaments.journal import store\n"
    )
    found = [target for _, target in imports_of(module, "referee.engine.m")]
    assert {"grpc", "referee.server", "tournaments.journal.store"} <= set(found)
    assert layer("referee.server") == "referee" and "referee" not in ALLOWED["engine"]
    assert layer("tournaments.journal.store") not in ALLOWED["replays"]
    assert layer("replays.verify") in ALLOWED["tournaments"]
    assert layer("tournaments.runner") not in ALLOWED["replays"]
    assert layer("referee.bots.sandbox") == "bots" and "referee" not in ALLOWED["bots"]
    assert layer("ginref_rl.environment") == "rl" and "wire" not in ALLOWED["rl"]
    assert layer("ginref_rl.policy_bot") == "rl_bots" and "referee" not in ALLOWED["rl_bots"]
