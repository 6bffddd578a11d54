"""What an option of the ``ginref`` command line is (:class:`Option`, declared in
:mod:`ginref.option_table`), the decorator that gives a command its options
(:func:`with_options`), and the values the command receives (:class:`Given`).

An option's ``key`` is where its value goes: a key of the tournament file, which
:meth:`Given.apply` sets in the file's config the way the file sets it (the command line beats
the file, which beats the default), or none, a plain argument of the command.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypedDict, TypeVar, cast

import click

from referee.settings import RefereeOptions
from tournaments.file.config import SETTABLE_KEYS, TournamentConfig, key_changes

T = TypeVar("T")
V = TypeVar("V", covariant=True)  # an option of tuples is an option of sequences
Command = Callable[..., None]


class _Unset(enum.Enum):
    UNSET = "unset"  # no default given: click's own (None, False for a flag, () if multiple)


UNSET = _Unset.UNSET


class Variant(TypedDict, total=False):
    """What an option is on one command where that differs from the table's entry."""

    key: str | None
    type: Any
    default: Any
    show_default: bool
    help: str
    required: bool


@dataclass(frozen=True, eq=False)  # an option is itself, so it keys the values it is given
class Option(Generic[V]):
    """One option: its flags, click type, default and help, and the file key it sets."""

    flags: tuple[str, ...]
    help: str
    key: str | None = None  # the tournament file's key (SETTABLE_KEYS); None: the command's own
    type: Any = None
    default: Any = UNSET
    show_default: bool = False
    metavar: str | None = None
    multiple: bool = False
    is_flag: bool = False
    required: bool = False
    # The command line's value as the file's key takes it (NAME=VALUE items as a table, say).
    convert: Callable[[Any], Any] | None = None
    # By command (as :func:`with_options` names it): how the option differs there.
    variants: Mapping[str, Variant] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key in (self.key, *(v.get("key") for v in self.variants.values())):
            if key is not None and key not in SETTABLE_KEYS:
                raise ValueError(
                    f"option {self.flags[-1]}: {key!r} is not a key of the tournament file "
                    f"that the command line can set (one of: {', '.join(SETTABLE_KEYS)})"
                )

    @property
    def name(self) -> str:
        """The value's name: the long flag's words joined by ``_`` (``--move-time``:
        ``move_time``)."""
        long = next(f for f in self.flags if f.startswith("--"))
        return long.split("/")[0].removeprefix("--").replace("-", "_")

    def on(self, command: str) -> Option[V]:
        """This option as ``command`` has it."""
        variant = self.variants.get(command)
        return self if variant is None else replace(self, variants={}, **variant)

    def click_option(self) -> Callable[[Command], Command]:
        """The click option, given exactly what was declared (click's defaults otherwise)."""
        declared: dict[str, Any] = {
            "type": self.type,
            "show_default": self.show_default or None,
            "metavar": self.metavar,
            "multiple": self.multiple or None,
            "is_flag": self.is_flag or None,
            "required": self.required or None,
        }
        kwargs = {k: v for k, v in declared.items() if v is not None}
        if self.default is not UNSET:
            kwargs["default"] = self.default
        return click.option(*self.flags, self.name, help=self.help, **kwargs)


class Given:
    """The values of a command's options, as click parsed them."""

    def __init__(self, command: str, values: Mapping[Option[Any], Any]) -> None:
        self.command = command
        self._values = dict(values)

    def __getitem__(self, option: Option[T]) -> T:
        return cast(T, self._values[option])

    def required(self, option: Option[T | None]) -> T:
        """The value of an option that always has one on this command (a default of its own,
        or required)."""
        value = self[option]
        if value is None:
            raise ValueError(f"{self.command}: {option.flags[-1]} has no value")
        return value

    def file_values(self) -> dict[str, Any]:
        """What the command line gave, by key of the tournament file (an option left out is
        not there: the file's value stands)."""
        out: dict[str, Any] = {}
        for option, value in self._values.items():
            key = option.on(self.command).key
            if key is None or value is None or value == ():
                continue
            out[key] = option.convert(value) if option.convert else value
        return out

    def apply(self, config: TournamentConfig) -> TournamentConfig:
        """``config`` (the file's) with the command line's values on top, validated again."""
        return config.with_keys(self.file_values())

    def referee_options(self) -> RefereeOptions:
        """The referee's options of a command without a tournament file: the defaults with
        the command line's clock, faults, limits and sandbox."""
        defaults = RefereeOptions()
        return replace(defaults, **key_changes(defaults, self.file_values())).validate()


# Each command's name and entries of the table, as :func:`with_options` was given them (what
# the table's tests walk).
DECLARED: dict[Command, tuple[str, tuple[Option[Any], ...]]] = {}


def with_options(command: str, *table: Option[Any]) -> Callable[[Command], Command]:
    """Give the decorated click command these options, as ``command`` has them, in this order;
    it receives their values as ``given``, its arguments as before."""
    on = tuple(option.on(command) for option in table)
    for kind, words in (("name", [o.name for o in on]), ("flag", [f for o in on for f in o.flags])):
        twice = {w for w in words if words.count(w) > 1}
        if twice:
            raise ValueError(f"{command}: options share the {kind} {', '.join(sorted(twice))}")

    def decorate(function: Command) -> Command:
        @functools.wraps(function)
        def run(**kwargs: Any) -> None:
            values = {option: kwargs.pop(option.name) for option in table}
            function(**kwargs, given=Given(command, values))

        for option in reversed(on):
            run = option.click_option()(run)
        DECLARED[run] = (command, table)
        return run

    return decorate
