"""docs/rules.md is the rules reference the whole project cites: check both directions.

- Every rule number (R4.3), bare rule section (R6), section (§7, §12.1), worked example (E13) and
  appendix entry (A.3) cited anywhere in the project (code, tests, proto, bots, TOML, docs) is
  defined in docs/rules.md, as a heading.
- Every rule parameter and value named in the project exists: ``name = value`` in prose and
  comments, ``--set name=value``, a TOML ``[rules]`` table (files and the docs' examples),
  ``Rules.profile(...)`` keywords and profile names, rules dicts, and ``rules.name`` in Python.
  A misspelling is allowed only in a file that also expects the error quoting it (``'colour'``):
  that is a test of the error.
- docs/rules.md's parameter and profile tables and its per-parameter entries agree with the
  engine (``PARAMETERS``, ``CHOICES``, ``PROFILES``) and with :mod:`referee.engine.reference`.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.engine.reference import PARAMETER_DOCS, PROFILE_DOCS, format_value, profile_values
from referee.engine.rules import BOOLS, CHOICES, PARAMETERS, PROFILES, Rules, coerce
from referee.errors import RulesError

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = ROOT / "docs" / "rules.md"
SUFFIXES = {".py", ".proto", ".js", ".go", ".cc", ".h", ".java", ".toml", ".md"}
# Build output, installed packages and caches: not the project's own text.
SKIP_DIRS = {".git", ".venv", "node_modules", "out", "__pycache__", "build", "runs", "ginref-logs"}


def project_files() -> list[Path]:
    """Every source, build and documentation file of the project but this one (whose checks of
    the checks cite made-up rules on purpose)."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(p in SKIP_DIRS or p.startswith(".") or p.endswith(".egg-info") for p in parts[:-1]):
            continue
        if path.suffix in SUFFIXES and path.is_file() and path != Path(__file__).resolve():
            out.append(path)
    return out


FILES = project_files()
TEXTS = {path: path.read_text(encoding="utf-8", errors="replace") for path in FILES}


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# --- What docs/rules.md defines ---------------------------------------------------------------

DOC = RULES_MD.read_text(encoding="utf-8")
HEADINGS = re.findall(r"^(#{1,6}) (.+)$", DOC, re.MULTILINE)


def defined() -> dict[str, set[str]]:
    """The rule numbers, sections, examples and appendix entries that have a heading."""
    found: dict[str, set[str]] = {
        "rule": set(),
        "section": set(),
        "example": set(),
        "appendix": set(),
    }
    for _, title in HEADINGS:
        if m := re.match(r"R(\d+\.\d+) ", title):
            found["rule"].add(m.group(1))
        elif (m := re.match(r"§(\d+) ", title)) or (m := re.match(r"(\d+\.\d+) ", title)):
            found["section"].add(m.group(1))
        elif m := re.match(r"E(\d+) ", title):
            found["example"].add(m.group(1))
        elif m := re.match(r"A\.(\d+) ", title):
            found["appendix"].add(m.group(1))
    return found


DEFINED = defined()
RULE_SECTIONS = {number.split(".")[0] for number in DEFINED["rule"]}

CITATIONS = {
    # R4.3 (and R6.3a: a lettered item of R6.3).
    "rule": re.compile(r"(?<![\w.])R(\d+\.\d+)(?![\d.]\d)"),
    # R6 or R3-R7: the rules of a section.
    "rule_section": re.compile(r"(?<![\w.])R(\d+)(?![\w.]|\.\d)"),
    "section": re.compile(r"§ ?(\d+(?:\.\d+)?)"),
    # E1..E99; a lint code such as E402 has three digits.
    "example": re.compile(r"(?<![\w.])E(\d{1,2})(?!\w)"),
    "appendix": re.compile(r"(?<![\w.])A\.(\d+)(?!\w)"),
}


def citations(text: str) -> Iterator[tuple[str, str, int]]:
    """(kind, what is cited, offset) for every citation of the rules in ``text``."""
    for kind, pattern in CITATIONS.items():
        for m in pattern.finditer(text):
            yield kind, m.group(1), m.start()


def undefined_citations(path: Path, text: str) -> list[str]:
    bad = []
    for kind, cited, at in citations(text):
        if kind == "rule":
            ok = cited in DEFINED["rule"]
        elif kind == "rule_section":
            ok = cited in RULE_SECTIONS
        else:
            ok = cited in DEFINED[kind]
        if not ok:
            shown = {"rule": "R", "rule_section": "R", "section": "§", "example": "E"}
            label = shown.get(kind, "A.") + cited
            bad.append(f"{rel(path)}:{line_of(text, at)}: {label} is not defined in docs/rules.md")
    return bad


def test_rules_md_defines_every_numbered_rule_section_and_example() -> None:
    assert {
        f"{s}.{i}"
        for s, n in [("1", 10), ("4", 5), ("5", 9), ("6", 6), ("7", 5)]
        for i in range(1, n + 1)
    } <= DEFINED["rule"]
    assert {str(n) for n in range(16)} <= DEFINED["section"]
    assert {str(n) for n in range(1, 21)} == DEFINED["example"]
    assert {"1", "2", "3", "4"} == DEFINED["appendix"]


def test_every_rule_cited_in_the_project_is_defined_in_rules_md() -> None:
    assert (
        len(FILES) > 100
        and RULES_MD in FILES
        and ROOT / "proto/ginrummy/v1/ginrummy.proto" in FILES
    )
    bad = [line for path in FILES for line in undefined_citations(path, TEXTS[path])]
    assert not bad, "\n".join(bad)


def test_a_made_up_citation_is_caught() -> None:
    """The check itself: a rule, section or example that does not exist is reported."""
    made_up = "see R" + "4.9, R" + "13, §" + "12.9 and E" + "21; R4.3 and E13 are fine"
    bad = undefined_citations(ROOT / "x.py", made_up)
    assert [b.split(": ")[1] for b in bad] == [
        "R4.9 is not defined in docs/rules.md",
        "R13 is not defined in docs/rules.md",
        "§12.9 is not defined in docs/rules.md",
        "E21 is not defined in docs/rules.md",
    ]


# --- Parameters and values named in the project ----------------------------------------------

VALUE_WORDS = {v for values in CHOICES.values() for v in values if "_" in v}


def valid_value(name: str, value: object) -> bool:
    try:
        coerce(name, value)
    except RulesError:
        return False
    return True


def deliberate(text: str, word: str) -> bool:
    """A misspelling the file expects an error message to quote: a test of that error."""
    return f"'{word}'" in text or f"\\'{word}\\'" in text


ASSIGNMENT = re.compile(
    r"(?<![\w.\-])([a-z][a-z0-9_]*)\s?=\s?([\"']?)([A-Za-z0-9_\-]+)\2(?![\w.(\[\-;])"
)
# NAME=VALUE with a lower-case name: an upper-case one is a placeholder (--set NAME=VALUE).
SET_OPTION = re.compile(r"--set[ =\"',]+([a-z][a-z0-9_\-]*)=([\w\-]*)")


def named_in_text(path: Path, text: str) -> list[str]:
    """Problems with ``name = value`` and ``--set name=value`` anywhere in ``text``."""
    bad = []
    for m in ASSIGNMENT.finditer(text):
        name, value = m.group(1), m.group(3)
        where = f"{rel(path)}:{line_of(text, m.start())}"
        if name in PARAMETERS:
            if not valid_value(name, value) and not deliberate(text, value):
                bad.append(f"{where}: {name} = {value}: not a value of {name}")
        elif value in VALUE_WORDS and "_" in name and not deliberate(text, name):
            bad.append(f"{where}: {name} = {value}: {name} is not a rule parameter")
    for m in SET_OPTION.finditer(text):
        name, value = m.group(1).replace("-", "_"), m.group(2)
        where = f"{rel(path)}:{line_of(text, m.start())}"
        if name not in PARAMETERS:
            if not deliberate(text, m.group(1)):
                bad.append(f"{where}: --set {name}: not a rule parameter")
        elif value and not valid_value(name, value) and not deliberate(text, value):
            bad.append(f"{where}: --set {name}={value}: not a value of {name}")
    return bad


def toml_rules_tables(path: Path, text: str) -> Iterator[tuple[str, dict[str, object]]]:
    """Each TOML document in a .toml file or in a ```toml block of a .md file."""
    if path.suffix == ".toml":
        yield rel(path), tomllib.loads(text)
    elif path.suffix == ".md":
        for m in re.finditer(r"```toml\n(.*?)```", text, re.DOTALL):
            yield f"{rel(path)}:{line_of(text, m.start())}", tomllib.loads(m.group(1))


def named_in_toml(path: Path, text: str) -> list[str]:
    bad = []
    for where, data in toml_rules_tables(path, text):
        rules = data.get("rules")
        if not isinstance(rules, dict):
            continue
        profile = rules.get("profile")
        if profile is not None and profile not in PROFILES:
            bad.append(f"{where}: [rules] profile = {profile!r} is not a profile")
        table = rules.get("set", {})
        assert isinstance(table, dict)
        for name, value in table.items():
            if name not in PARAMETERS:
                bad.append(f"{where}: [rules.set] {name} is not a rule parameter")
            elif not valid_value(name, value):
                bad.append(f"{where}: [rules.set] {name} = {value!r} is not a value of {name}")
    return bad


RULES_ATTRIBUTES = {f.name for f in dataclasses.fields(Rules)} | {
    name for name in dir(Rules) if not name.startswith("_")
}


class PythonNames(ast.NodeVisitor):
    """Profiles, parameters and values named in Python code."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text, self.bad = path, text, []  # type: tuple[Path, str, list[str]]

    def report(self, node: ast.AST, message: str, word: str) -> None:
        if not deliberate(self.text, word):
            self.bad.append(f"{rel(self.path)}:{getattr(node, 'lineno', 0)}: {message}")

    def check_pair(self, node: ast.AST, name: str, value: ast.expr | None) -> None:
        if name not in PARAMETERS:
            self.report(node, f"{name} is not a rule parameter", name)
        elif isinstance(value, ast.Constant) and not valid_value(name, value.value):
            word = str(value.value)
            self.report(node, f"{name} = {value.value!r} is not a value of {name}", word)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        is_profile = (
            isinstance(func, ast.Attribute)
            and func.attr == "profile"
            and isinstance(func.value, ast.Name)
            and func.value.id == "Rules"
        )
        if is_profile:
            if node.args and isinstance(node.args[0], ast.Constant):
                name = node.args[0].value
                if isinstance(name, str) and name not in PROFILES:
                    self.report(node, f"profile {name!r} does not exist", name)
            for kw in node.keywords:
                if kw.arg is not None:
                    self.check_pair(node, kw.arg, kw.value)
        if isinstance(func, ast.Attribute) and func.attr == "with_overrides" and node.args:
            self.check_dict(node.args[0])
        for kw in node.keywords:
            if kw.arg in ("rules", "overrides", "rule_overrides"):
                self.check_dict(kw.value)
        self.generic_visit(node)

    def check_dict(self, node: ast.expr) -> None:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self.check_pair(node, key.value, value)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = node.value
        named_rules = (isinstance(owner, ast.Name) and owner.id == "rules") or (
            isinstance(owner, ast.Attribute) and owner.attr == "rules"
        )
        attr = node.attr
        # rules.CopyFrom, rules.get: a message or a dict named rules, not a Rules value.
        like_a_parameter = attr.islower() and (
            "_" in attr or difflib.get_close_matches(attr, PARAMETERS, cutoff=0.8)
        )
        if named_rules and like_a_parameter and attr not in RULES_ATTRIBUTES:
            self.report(node, f"rules.{node.attr} is not a rule parameter", node.attr)
        self.generic_visit(node)


def named_in_python(path: Path, text: str) -> list[str]:
    visitor = PythonNames(path, text)
    visitor.visit(ast.parse(text))
    return visitor.bad


def python_prose(text: str) -> str:
    """``text`` with everything but comments and string literals blanked (lines kept)."""
    keep = [" " * len(line) for line in text.splitlines()]
    lines = text.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            (r0, c0), (r1, c1) = token.start, token.end
            for r in range(r0, r1 + 1):
                line = lines[r - 1]
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(line)
                keep[r - 1] = keep[r - 1][:a] + line[a:b] + keep[r - 1][b:]
    return "\n".join(keep)


def parameter_problems(path: Path, text: str) -> list[str]:
    """Every profile, parameter or value named in ``text`` that does not exist."""
    if path.suffix == ".py":
        # Code is checked through its syntax tree (keywords such as Match(first_dealer=0) are
        # not rule parameters); comments and strings as prose.
        return named_in_text(path, python_prose(text)) + named_in_python(path, text)
    return named_in_text(path, text) + named_in_toml(path, text)


def test_every_rule_parameter_value_and_profile_named_in_the_project_exists() -> None:
    bad = [line for path in FILES for line in parameter_problems(path, TEXTS[path])]
    assert not bad, "\n".join(bad)


def test_a_made_up_parameter_or_value_is_caught() -> None:
    """The check itself, on each way of naming a parameter."""
    cases = {
        "x.md": "With `wall_rules = fiftieth_card_pagat` the other player ...",
        "y.md": "Under `wall_rule = fiftieth_card` the other player ...",
        "z.md": "ginref match a b --set knock_limt=5",
        "t.toml": '[rules]\nprofile = "gra"\n[rules.set]\ntarget = "high"\n',
        "p.py": 'r = Rules.profile("pagat", targte=50)\nif rules.wal_rule == "dead": pass\n',
        "q.py": 'm = run(bots, rules={"defender_play": "declaredd"})\n',
    }
    found = {name: parameter_problems(ROOT / name, text) for name, text in cases.items()}
    assert found["x.md"] == [
        "x.md:1: wall_rules = fiftieth_card_pagat: wall_rules is not a rule parameter"
    ]
    assert found["y.md"] == ["y.md:1: wall_rule = fiftieth_card: not a value of wall_rule"]
    assert found["z.md"] == ["z.md:1: --set knock_limt: not a rule parameter"]
    assert found["t.toml"] == [
        "t.toml:4: target = high: not a value of target",
        "t.toml: [rules] profile = 'gra' is not a profile",
        "t.toml: [rules.set] target = 'high' is not a value of target",
    ]
    assert found["p.py"] == [
        "p.py:1: targte is not a rule parameter",
        "p.py:2: rules.wal_rule is not a rule parameter",
    ]
    assert found["q.py"] == ["q.py:1: defender_play = 'declaredd' is not a value of defender_play"]


# --- docs/rules.md against the engine and the reference module -------------------------------


def section(start: str, end: str) -> str:
    """The text of docs/rules.md from heading ``start`` to heading ``end``."""
    begin = DOC.index(f"\n{start}")
    return DOC[begin : DOC.index(f"\n{end}", begin)]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``text``, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) > 2 and set(rows[1]) <= set("|-"), text[:200]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in [rows[0], *rows[2:]]]


def plain(cell: str) -> str:
    return re.sub(r"\[(.*?)\]\(.*?\)", r"\1", cell).replace("`", "").replace("**", "")


def test_reference_module_covers_every_parameter_and_profile_with_their_real_values() -> None:
    assert list(PARAMETER_DOCS) == list(PARAMETERS)
    assert list(PROFILE_DOCS) == list(PROFILES)
    for name, doc in PARAMETER_DOCS.items():
        values = [value for value, _ in doc.values]
        if name in CHOICES:
            assert values == list(CHOICES[name]), name
        elif name in BOOLS:
            assert values == ["on", "off"], name
        for rule in doc.rules:
            cited = rule.lstrip("R§")
            assert cited in DEFINED["rule"] | DEFINED["section"], (name, rule)
        assert not undefined_citations(RULES_MD, doc.summary + " ".join(m for _, m in doc.values))


def test_the_parameter_table_lists_every_parameter_with_its_values_and_default() -> None:
    header, *rows = table_rows(section("### 12.1 ", "#### "))
    assert header == ["Parameter", "Values", "`standard`", "Rules"]
    assert [plain(row[0]) for row in rows] == list(PARAMETERS)
    standard = profile_values("standard")
    for row in rows:
        name = plain(row[0])
        doc = PARAMETER_DOCS[name]
        if name in CHOICES or name in BOOLS:
            assert [plain(v).strip() for v in row[1].split("/")] == [v for v, _ in doc.values]
        assert plain(row[2]) == standard[name], name
        assert row[3] == ", ".join(doc.rules), name


def test_each_parameter_entry_says_what_the_reference_module_says() -> None:
    entries = re.split(r"\n#### ", section("#### ", "### 12.2 "))
    named = {}
    for entry in filter(None, entries):
        title, _, body = entry.strip().partition("\n")
        named[title.strip("`# ")] = body
    assert list(named) == list(PARAMETERS)
    for name, body in named.items():
        doc = PARAMETER_DOCS[name]
        text = " ".join(body.split())
        assert f"{doc.summary} Rules: {', '.join(doc.rules)}." in text, name
        _, *rows = table_rows(body)
        assert [(plain(v), m) for v, m in rows] == list(doc.values), name
        if doc.note:
            assert " ".join(doc.note.split()) in text, name


def test_the_profile_table_equals_the_engines_profiles() -> None:
    header, *rows = table_rows(section("### 12.2 ", "### 12.3 "))
    assert [plain(cell) for cell in header] == ["Parameter", *PROFILES]
    assert [plain(row[0]) for row in rows] == list(PARAMETERS)
    values = {profile: profile_values(profile) for profile in PROFILES}
    for row in rows:
        name = plain(row[0])
        for profile, cell in zip(PROFILES, row[1:], strict=True):
            assert plain(cell) == values[profile][name], (name, profile)
            differs = values[profile][name] != values["standard"][name]
            assert cell.startswith("**") == differs, (name, profile, "bold marks a difference")


def test_the_profile_list_says_what_each_profile_is_for() -> None:
    text = section("### 12.2 ", "### 12.3 ")
    listed = re.findall(r"^- \*\*`([\w-]+)`\*\*: (.+?)\.(?: |$)", text, re.MULTILINE)
    assert [(name, purpose) for name, purpose in listed] == [
        (name, doc.purpose) for name, doc in PROFILE_DOCS.items()
    ]


def test_format_value_spells_values_as_the_command_line_does() -> None:
    for profile in PROFILES:
        for name, value in Rules.profile(profile).to_dict().items():
            if name != "profile_name":
                assert coerce(name, format_value(value)) == value


# --- Links ----------------------------------------------------------------------------------


def slug(title: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", title.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def test_every_link_inside_rules_md_reaches_a_heading() -> None:
    anchors = {slug(title) for _, title in HEADINGS}
    links = re.findall(r"\]\(#([^)]+)\)", DOC)
    assert len(links) > 40
    missing = sorted({link for link in links if link not in anchors})
    assert not missing, missing


@pytest.mark.parametrize(
    "doc",
    [
        "README.md",
        "docs/writing-a-bot.md",
        "docs/bots-in-any-language.md",
        "docs/referee.md",
        "docs/tournaments.md",
    ],
)
def test_the_docs_that_discuss_rules_link_rules_md(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    target = "docs/rules.md" if doc == "README.md" else "rules.md"
    links = re.findall(r"\]\(([^)#]+)(#[^)]*)?\)", text)
    assert any(path == target for path, _ in links), doc
    anchors = {slug(title) for _, title in HEADINGS}
    for path, anchor in links:
        if path == target and anchor:
            assert anchor[1:] in anchors, (doc, anchor)
