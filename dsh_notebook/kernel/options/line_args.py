"""Declared arguments of the ``%dsh`` line commands: one frozen dataclass per command.

A field is declared with :func:`positional`, :func:`switch` or :func:`option`; its type says the
rest (a ``tuple`` positional takes every remaining word, a ``Literal`` value lists the accepted
words). :class:`Command` joins such a dataclass to its handler and its one-line summary; from
that one declaration come the parser (:meth:`Command.parse`), the usage line and the ``%dsh
help`` entry. A word that is not a declared flag is a positional (so free text such as an
answer is taken as typed). Every parse failure is one line: what is wrong, then the usage.

Before any of that, the magic's line is bounded (:func:`check_line`): a line longer than
:data:`LINE_MAX` is refused at once, before IPython's ``$var``/``{var}`` expansion (quadratic in
the line's length: a 40,000-character line took 8 s, a 1 MB one would take hours) and before
``shlex``; the magic expands variables itself (:func:`expand_variables`) only in a line that
fits. A word of the person's that an answer or an error names is quoted by :func:`quoted`: at
most :data:`QUOTE_MAX` characters of it, never the whole of a long word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Generic, Literal, TypeVar, get_args, get_origin, get_type_hints

from IPython.core.error import UsageError
from IPython.utils.text import DollarFormatter

__all__ = [
    "LINE_MAX",
    "QUOTE_MAX",
    "Command",
    "NoArgs",
    "check_line",
    "expand_variables",
    "option",
    "positional",
    "quoted",
    "switch",
]

LINE_MAX = 4_096
"""The longest ``%dsh`` or ``%%dsh`` line the magic reads (characters): room for the longest
note (500) or path, and IPython's variable expansion of a line this long takes a tenth of a
second at most. The ``%%dsh`` cell's body (the prompt) is not bounded by it."""

QUOTE_MAX = 40
"""The most characters of a word of the person's that a message quotes (:func:`quoted`)."""


def quoted(word: str, limit: int = QUOTE_MAX) -> str:
    """``repr(word)``, or when it is longer than ``limit`` characters the ``repr`` of its first
    ``limit`` followed by ``…`` and its length: an error never echoes a long word whole."""
    if len(word) <= limit:
        return repr(word)
    return f"{word[:limit]!r}… ({len(word):,} characters)"


def check_line(line: str, magic: str) -> None:
    """Refuse ``line`` when it is longer than :data:`LINE_MAX`: a one-line ``UsageError`` that
    quotes none of it (``magic``: ``%dsh`` or ``%%dsh``, as the person typed it). Constant time:
    nothing of the line is read but its length."""
    if len(line) > LINE_MAX:
        raise UsageError(
            f"this {magic} line is {len(line):,} characters long, more than the {LINE_MAX:,} a "
            f"{magic} line may hold (a note, an id or a path is far shorter): nothing was done"
        )


_DOLLAR = DollarFormatter()


def expand_variables(line: str, user_ns: dict[str, Any], local_ns: dict[str, Any] | None) -> str:
    """``line`` with ``$name`` and ``{expression}`` expanded from the notebook's variables (the
    local ones first), as IPython expands a magic's line; left as typed when the expansion fails.
    A line with neither ``$`` nor ``{`` is returned at once. Call it on a line that passed
    :func:`check_line` only (the expansion's cost grows with the square of the length)."""
    if "$" not in line and "{" not in line:
        return line
    names = dict(user_ns)
    names.update(local_ns or {})
    try:
        return str(_DOLLAR.vformat(line, args=[], kwargs=names))
    except Exception:  # as IPython: a line that cannot be expanded is passed as typed
        return line


A = TypeVar("A")
Agent = TypeVar("Agent")


def positional(metavar: str, *, optional: bool = False, help: str = "") -> Any:
    """A positional word (``ID``); ``optional`` ones default to ``None`` (a tuple: to ``()``)."""
    meta = {"kind": "positional", "metavar": metavar, "help": help}
    return field(default=None, metadata=meta) if optional else field(metadata=meta)


def switch(flag: str, *, help: str = "") -> Any:
    """A flag without a value (``--run``): ``True`` when given."""
    return field(default=False, metadata={"kind": "switch", "flag": flag, "help": help})


def option(flag: str, metavar: str, *, default: Any = None, help: str = "") -> Any:
    """A flag followed by one word (``--to FILE``)."""
    meta = {"kind": "value", "flag": flag, "metavar": metavar, "help": help}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class NoArgs:
    """A command that takes no arguments."""


@dataclass(frozen=True)
class _Spec:
    name: str
    kind: str
    metavar: str
    flag: str
    required: bool
    many: bool
    choices: tuple[str, ...]


def _specs(args: type[Any]) -> list[_Spec]:
    hints = get_type_hints(args)
    specs = []
    for f in fields(args):
        kind = hints[f.name]
        choices = tuple(get_args(kind)) if get_origin(kind) is Literal else ()
        many = get_origin(kind) is tuple
        required = f.default is MISSING and f.default_factory is MISSING
        specs.append(
            _Spec(
                f.name, f.metadata["kind"], f.metadata.get("metavar", ""),
                f.metadata.get("flag", ""), required, many, choices,
            )
        )  # fmt: skip
    return specs


@dataclass(frozen=True)
class Command(Generic[Agent, A]):
    """One ``%dsh`` command: its name, its declared arguments, its summary and its handler.

    Calling it with ``(agent, argv)`` parses ``argv`` (a ``UsageError`` of one line when it does
    not fit the declaration) and runs the handler with the typed arguments.
    """

    name: str
    args: type[A]
    run: Callable[[Agent, A], None]
    summary: str
    hint: str = ""
    """Appended to a usage error, e.g. ``(see %dsh pending)``."""

    def usage(self) -> str:
        """``%dsh NAME`` and its arguments, e.g. ``%dsh export [ID] [--format md|text|json]``."""
        words = [f"%dsh {self.name}"]
        for spec in _specs(self.args):
            if spec.kind == "positional":
                word = spec.metavar + ("..." if spec.many else "")
                words.append(word if spec.required else f"[{word}]")
            elif spec.kind == "switch":
                words.append(f"[{spec.flag}]")
            else:
                shown = "|".join(spec.choices) or spec.metavar
                words.append(f"[{spec.flag} {shown}]")
        return " ".join(words)

    def help_lines(self) -> list[str]:
        """This command's entry in ``%dsh help``: the usage, then the summary beside or below."""
        usage = self.usage().removeprefix("%dsh ")
        first, *more = self.summary.splitlines()
        lines = (
            [f"  {usage:22s} {first}"] if len(usage) <= 22 else [f"  {usage}", f"{'':25s}{first}"]
        )
        return lines + [f"{'':25s}{line}" for line in more]

    def fail(self, problem: str | None = None) -> UsageError:
        """A one-line usage error: ``problem``, if any, then the usage and the hint."""
        usage = f"usage: {self.usage()}" + (f"   {self.hint}" if self.hint else "")
        return UsageError(f"{problem}; {usage}" if problem else usage)

    def parse(self, argv: Sequence[str]) -> A:
        """The typed arguments in ``argv``, or a :meth:`fail` error."""
        specs = _specs(self.args)
        flags = {s.flag: s for s in specs if s.kind != "positional"}
        values: dict[str, Any] = {}
        words: list[str] = []
        rest = iter(argv)
        for word in rest:
            spec = flags.get(word)
            if spec is None:
                words.append(word)
            elif spec.kind == "switch":
                values[spec.name] = True
            else:
                given = next(rest, None)
                if given is None:
                    raise self.fail(f"{word} needs a value")
                if spec.choices and given not in spec.choices:
                    raise self.fail(f"{word} must be one of {', '.join(spec.choices)}")
                values[spec.name] = given
        for spec in (s for s in specs if s.kind == "positional"):
            if spec.many:
                if spec.required and not words:
                    raise self.fail()
                values[spec.name], words = tuple(words), []
            elif words:
                values[spec.name] = words.pop(0)
            elif spec.required:
                raise self.fail()
        if words:
            raise self.fail()
        return self.args(**values)

    def __call__(self, agent: Agent, argv: Sequence[str]) -> None:
        self.run(agent, self.parse(argv))
