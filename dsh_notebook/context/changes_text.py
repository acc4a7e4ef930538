"""A card's **Changes** section: :class:`~.consequences.Consequences` in a few short lines.

:func:`change_lines` turns what :func:`~.consequences.analyse` found into ``(kind, text)`` lines
(kinds: ``transcript.bounds.CHANGE_KINDS``), one per kind that has something, in a fixed order:
``unparsed``, ``rebinds``, ``mutates``, ``deletes``, ``creates``, ``files``, ``installs``,
``processes``, ``network``, ``unknown``; ``none`` alone when nothing was found. The transcript lays
them out (markdown, plain text, the widget's card: ``transcript.changes``).

Guarantees:

- **Bounded**: at most :data:`~dsh_notebook.transcript.bounds.CHANGE_ITEMS` items per line (the
  rest counted: "and 3 more"), each line at most
  :data:`~dsh_notebook.transcript.bounds.CHANGE_LINE_MAX` characters.
- **Bounded in time**: the values named (what a rebound, mutated or deleted name holds now) are
  described with :func:`~.describe.short_summary`, all of them within ``describe_seconds``
  (:func:`~.time_limit.call_with_time_limit`); past it, by their type's name only.
- Never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..transcript.bounds import CHANGE_ITEMS, CHANGE_LINE_MAX
from .consequences import Consequences, analyse
from .describe import short_summary, truncate
from .time_limit import TimedOut, call_with_time_limit

__all__ = ["ChangeLine", "change_lines", "changes_of"]

ChangeLine = tuple[str, str]
"""``(kind, text)``: one line of a card's Changes section."""

DESCRIBE_SECONDS = 0.5
"""How long describing every value a card names may take, at most."""


def changes_of(
    code: str, namespace: Mapping[str, Any], *, describe_seconds: float | None = DESCRIBE_SECONDS
) -> tuple[ChangeLine, ...]:
    """The Changes lines of ``code`` against ``namespace``: :func:`~.consequences.analyse`, then
    :func:`change_lines`. Never raises, never runs ``code``."""
    found = analyse(code, namespace)
    return change_lines(found, namespace, describe_seconds=describe_seconds)


def change_lines(
    found: Consequences,
    namespace: Mapping[str, Any],
    *,
    describe_seconds: float | None = DESCRIBE_SECONDS,
) -> tuple[ChangeLine, ...]:
    """``found`` as the card's lines (module docstring)."""
    try:
        now = _describe(found.touched, namespace, describe_seconds)
        return _lines(found, now)
    except Exception as exc:  # pragma: no cover - a card without Changes beats no card
        return (("unknown", f"Cannot tell: the analysis failed ({type(exc).__name__})"),)


def _describe(
    names: Sequence[str], namespace: Mapping[str, Any], seconds: float | None
) -> dict[str, str]:
    """What each name holds now, in one line each (type names only past ``seconds``)."""
    values: dict[str, Any] = {}
    for name in names[: CHANGE_ITEMS * 3]:
        try:
            values[name] = namespace.get(name)
        except Exception:
            continue

    def all_of() -> dict[str, str]:
        return {name: short_summary(value) for name, value in values.items()}

    try:
        described = call_with_time_limit(all_of, seconds)
    except Exception:
        described = TimedOut(seconds or 0.0)
    if isinstance(described, TimedOut):
        return {name: type(value).__name__ for name, value in values.items()}
    return described


def _items(label: str, items: Sequence[str]) -> str:
    shown = list(items[:CHANGE_ITEMS])
    text = f"{label} " + "; ".join(shown)
    if len(items) > len(shown):
        text += f"; and {len(items) - len(shown)} more"
    return truncate(text, CHANGE_LINE_MAX)[0]


def _lines(found: Consequences, now: Mapping[str, str]) -> tuple[ChangeLine, ...]:
    if found.unparsed is not None:
        return (
            ("unparsed", truncate(
                f"Does not parse ({found.unparsed}): what it would change is not known",
                CHANGE_LINE_MAX)[0]),
        )  # fmt: skip

    def held(name: str) -> str:
        return f"{name} (now {now[name]})" if name in now else name

    lines: list[ChangeLine] = []

    def add(kind: str, label: str, items: Sequence[str]) -> None:
        if items:
            lines.append((kind, _items(label, items)))

    add("rebinds", "Rebinds", [held(n) for n in found.rebinds])
    add("mutates", "Changes in place", [f"{held(m.name)} by {m.how}" for m in found.mutates])
    add("deletes", "Deletes", [held(n) for n in found.deletes])
    add("creates", "Creates", list(found.creates))
    add("files", "Files:", [
        f"{f.verb} {f.path}" if f.path is not None else f"{f.verb} a file named at run time "
        f"({f.via})" for f in found.files
    ])  # fmt: skip
    for kind, label in (("install", "Installs:"), ("process", "Runs:"), ("network", "Network:")):
        add(
            "installs" if kind == "install" else "processes" if kind == "process" else "network",
            label, [o.what for o in found.outside if o.kind == kind],
        )  # fmt: skip
    add("unknown", "Cannot tell:", list(found.unknown))
    if not lines:
        lines.append(("none", "Changes nothing the analysis can see: no existing name, file, "
                              "process or network"))  # fmt: skip
    return tuple(lines)
