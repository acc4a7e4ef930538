"""The ``%%dsh`` cell options, each declared once: a field of :class:`RunOptions`.

A field's metadata holds its flags and help; its type gives the rest: ``bool`` is a switch,
a ``tuple`` a repeatable option, a ``Literal`` the accepted values, the default the default.
:func:`cell_option_arguments` turns the fields into IPython ``@argument`` declarations (so
``%%dsh?`` shows their help) and :func:`parse_cell_options` parses a cell's first line into a
:class:`RunOptions`. The planner (:mod:`.run`) reads only the typed object.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .choices import ApprovalMode, Format

__all__ = ["RunOptions", "cell_option_arguments", "parse_cell_options"]


def _flags(*flags: str, help: str) -> dict[str, Any]:
    """An option's metadata: its flags (the long one last) and its help."""
    return {"flags": flags, "help": help}


@dataclass(frozen=True)
class RunOptions:
    """The ``%%dsh`` options of one cell."""

    session: str | None = field(
        default=None,
        metadata=_flags(
            "-s", "--session", help="Session name (default: one session per notebook)."
        ),
    )
    new: bool = field(
        default=False, metadata=_flags("--new", help="Start a fresh session and make it current.")
    )
    wait: bool = field(
        default=False, metadata=_flags("--wait", help="Return only when the run has settled.")
    )
    out: str | None = field(
        default=None,
        metadata=_flags(
            "-o", "--out", help="Bind the run handle to this variable (also always `_dsh`)."
        ),
    )
    images: tuple[str, ...] = field(
        default=(),
        metadata=_flags(
            "--image",
            help="Attach an image: a matplotlib Figure, a PIL image, PNG/JPEG bytes or a path (an "
            "expression; repeatable).",
        ),
    )
    model: str | None = field(
        default=None,
        metadata=_flags(
            "--model", help="Model for this kernel's runtime (restarts it when it changes)."
        ),
    )
    effort: str | None = field(
        default=None, metadata=_flags("--effort", help="Reasoning effort (off, low, high, max).")
    )
    cwd: str | None = field(
        default=None,
        metadata=_flags("--cwd", help="Set the session's working directory before sending."),
    )
    on_approval: ApprovalMode = field(
        default="ask",
        metadata=_flags(
            "--on-approval", help="Who decides approvals for this run (allow prints a warning)."
        ),
    )
    read_only: bool = field(
        default=False,
        metadata=_flags(
            "--read-only",
            help="Ask only: no tool may change the notebook, the kernel or files (wins over "
            "--on-approval allow).",
        ),
    )
    plan: bool = field(
        default=False,
        metadata=_flags(
            "--plan",
            help="Start in the runtime's plan mode: the agent explores, then presents a plan for "
            "review (exit_plan_mode) before it changes anything.",
        ),
    )
    max_tokens: str | None = field(
        default=None,
        metadata=_flags(
            "--max-tokens",
            help="Token budget of this run: stopped at the first step boundary past it (the "
            "work so far stays).",
        ),
    )
    max_time: str | None = field(
        default=None,
        metadata=_flags(
            "--max-time",
            help="Time budget of this run in seconds: stopped at the first step boundary past it.",
        ),
    )
    format: Format | None = field(
        default=None, metadata=_flags("--format", help="How the live run is shown.")
    )
    keep_widget: bool = field(
        default=False,
        metadata=_flags("--keep-widget", help="Keep the live view instead of freezing it."),
    )
    force: bool = field(
        default=False,
        metadata=_flags("--force", help="Send even if this prompt was answered before."),
    )
    show_context: bool = field(
        default=False,
        metadata=_flags(
            "--show-context",
            help="Print the notebook context block this prompt would send; send nothing.",
        ),
    )


def _argparse_kwargs(name: str, kind: Any, default: Any, long_flag: str) -> dict[str, Any]:
    """``argparse`` keywords for a field of type ``kind`` (see the module docstring)."""
    if get_origin(kind) in (Union, types.UnionType):
        (kind,) = [a for a in get_args(kind) if a is not type(None)]
    if kind is bool:
        return {"dest": name, "action": "store_true"}
    metavar = long_flag.lstrip("-").replace("-", "_").upper()
    if get_origin(kind) is tuple:
        return {"dest": name, "action": "append", "default": [], "metavar": metavar}
    if get_origin(kind) is Literal:
        return {"dest": name, "choices": list(get_args(kind)), "default": default}
    return {"dest": name, "default": default, "metavar": metavar}


def cell_option_arguments(func: Any) -> Any:
    """Declare every :class:`RunOptions` field on the magic ``func`` (``@magic_arguments``)."""
    hints = get_type_hints(RunOptions)
    for f in reversed(fields(RunOptions)):  # IPython applies them bottom-up
        flags = f.metadata["flags"]
        kwargs = _argparse_kwargs(f.name, hints[f.name], f.default, flags[-1])
        func = argument(*flags, help=f.metadata["help"], **kwargs)(func)
    return magic_arguments()(func)


def parse_cell_options(func: Callable[..., Any], line: str) -> RunOptions:
    """The options on a ``%%dsh`` line; a line they do not parse is a one-line ``UsageError``."""
    try:
        parsed = parse_argstring(func, line)
    except ValueError as exc:  # e.g. an unterminated quote in the options
        raise UsageError(f"cannot parse the %%dsh options {line!r}: {exc}") from None
    values: dict[str, Any] = {}
    for f in fields(RunOptions):
        value = getattr(parsed, f.name)
        values[f.name] = tuple(value) if isinstance(value, list) else value
    return RunOptions(**values)
