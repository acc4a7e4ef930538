"""The cell-editing tools' pure parts: what the conversation last saw, finding a cell by id, the
one-occurrence rule, the card's diff and the texts the model reads (``docs/cell-editing.md``).

:class:`SeenSources` is the stale ledger: per conversation (the root session of the calling
session), the full source of each cell as the model last saw it (every ``notebook_cells``
result, every change the page confirmed). Thread-safe (one lock), bounded
(:data:`MAX_CONVERSATIONS` conversations, :data:`MAX_SEEN_CELLS` cells each, oldest dropped:
a dropped cell counts as unseen, so the edit is refused and the model reads it again).

Everything else here is a pure function over plain data (the page's cells as mappings), no
threads, no I/O; texts are bounded (diff: :data:`DIFF_MAX_LINES` lines; ``run_cells``' card:
:data:`RUN_REASON_MAX` characters, else refused; sources quoted in results: ``max_chars``).
Agent-written and person-written text is returned as text.

A card shows what a click allows: ``run_cells``' card (:func:`run_cells_reason`) shows the whole
source of every code cell that changed since it last ran (or never ran), with the lines added
since marked, so an edit that a scope let through without a card ("Apply edits for this run")
is in front of the person before it runs.
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..context.describe import truncate
from ..context.private import private_cell_refusal
from ..transcript.bounds import DIFF_MAX
from . import cell_texts as texts
from .ran_cells import is_cut

__all__ = [
    "DIFF_MAX_LINES",
    "MAX_CONVERSATIONS",
    "MAX_SEEN_CELLS",
    "RUN_REASON_MAX",
    "RanSource",
    "SeenSources",
    "cell_label",
    "change_diff",
    "fenced",
    "find_cell",
    "replace_once",
    "run_cells_reason",
]

DIFF_MAX_LINES: Final = 400
"""The card's diff keeps its first lines, then one ``… N more lines`` line."""
RUN_REASON_MAX: Final = DIFF_MAX - 2_000
"""The longest ``run_cells`` card (characters): the transcript keeps a card's reason up to
``DIFF_MAX`` characters, and a card that cannot show what will run is refused instead."""
RanSource = Callable[[Mapping[str, Any]], "str | None"]
"""``page cell -> the whole source it had at its last run``, or ``None``: never run, not known
(:func:`~.ran_cells.source_at_run`)."""
MAX_CONVERSATIONS: Final = 64
MAX_SEEN_CELLS: Final = 2000
SHORT_ID: Final = 8


class SeenSources:
    """What each conversation last saw of each cell (see the module doc)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, OrderedDict[str, str]] = OrderedDict()

    def record(self, conversation: str, cells: Iterable[tuple[str, str]]) -> None:
        """``(full cell id, source)`` pairs as the model now saw them."""
        with self._lock:
            seen = self._seen.pop(conversation, None) or OrderedDict()
            self._seen[conversation] = seen
            for cell_id, source in cells:
                seen.pop(cell_id, None)
                seen[cell_id] = source
            while len(seen) > MAX_SEEN_CELLS:
                seen.popitem(last=False)
            while len(self._seen) > MAX_CONVERSATIONS:
                self._seen.popitem(last=False)

    def seen(self, conversation: str, cell_id: str) -> str | None:
        """The source ``conversation`` last saw of ``cell_id``; ``None``: never seen."""
        with self._lock:
            seen = self._seen.get(conversation)
            return seen.get(cell_id) if seen is not None else None


def find_cell(cells: Sequence[Mapping[str, Any]], cell_id: str) -> Mapping[str, Any] | str:
    """The cell whose id is ``cell_id`` (full) or starts with it (a short id, 8+ characters),
    or the reason there is not exactly one."""
    wanted = cell_id.strip()
    exact = [c for c in cells if c.get("id") == wanted]
    if exact:
        return _unless_private(exact[0])
    matches = (
        [c for c in cells if str(c.get("id", "")).startswith(wanted)]
        if len(wanted) >= SHORT_ID
        else []
    )
    if len(matches) == 1:
        return _unless_private(matches[0])
    if not matches:
        return texts.no_such_id_text(wanted)
    return texts.ambiguous_id_text(len(matches), wanted)


def _unless_private(cell: Mapping[str, Any]) -> Mapping[str, Any] | str:
    """``cell``, or why it cannot be the target: it is private (``dsh-private``)."""
    return private_cell_refusal(cell_label(cell)) if cell.get("private") else cell


def cell_label(cell: Mapping[str, Any]) -> str:
    """``cell 7 · id 1a2b3c4d · In [12]`` (``not run`` / the type for other cells)."""
    label = f"cell {int(cell.get('index', 0)) + 1} · id {str(cell.get('id', ''))[:SHORT_ID]}"
    if cell.get("cell_type", "code") != "code":
        return f"{label} · {cell.get('cell_type')}"
    count = cell.get("execution_count")
    return f"{label} · In [{count}]" if isinstance(count, int) else f"{label} · not run"


def replace_once(source: str, old_text: str, new_text: str) -> str:
    """``source`` with the one occurrence of ``old_text`` replaced; raises ``ValueError`` with
    the reason the model reads when it occurs 0 or several times (or is empty)."""
    if not old_text:
        raise ValueError(texts.OLD_TEXT_EMPTY)
    count = source.count(old_text)
    if count == 0:
        raise ValueError(texts.OLD_TEXT_MISSING)
    if count > 1:
        raise ValueError(texts.old_text_count_text(count))
    return source.replace(old_text, new_text, 1)


def _capped(lines: list[str]) -> str:
    if len(lines) > DIFF_MAX_LINES:
        more = len(lines) - DIFF_MAX_LINES
        lines = [*lines[:DIFF_MAX_LINES], f"… {more} more line{'s' * (more != 1)}"]
    return "\n".join(line.rstrip("\n") for line in lines)


def change_diff(
    kind: str, cell: Mapping[str, Any], before: str, after: str, *, cell_type: str = "code"
) -> str:
    """The card's reason: a unified diff (3 lines of context) under two header lines naming the
    cell; ``insert`` (``cell`` is the one above): every line ``+``; ``delete``: every line
    ``-``. At most :data:`DIFF_MAX_LINES` lines and a closing count."""
    label = cell_label(cell)
    if kind == "insert":
        head = [f"--- (new {cell_type} cell below {label})", "+++ new cell · written by dsh"]
        return _capped(head + ["+" + line for line in after.splitlines()])
    if kind == "delete":
        head = [f"--- {label}", f"+++ {label.split(' · In [')[0]} · deleted by dsh"]
        return _capped(head + ["-" + line for line in before.splitlines()])
    body = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=3))[
        2:
    ]  # difflib's own ---/+++ lines: ours name the cell
    head = [f"--- {label}", f"+++ {label.split(' · In [')[0]} · edited by dsh"]
    return _capped(head + (body or ["(no change)"]))


def run_cells_reason(
    cells: Sequence[Mapping[str, Any]],
    timeout_s: int,
    ran_source: RanSource | None = None,
) -> str:
    """``run_cells``' card: what will run. A first line, then per cell a header line
    (:func:`cell_label`, then what is known of it) and, for a code cell that changed since it
    last ran, its whole source, one line each, marked as in a diff against the source that ran
    (``ran_source``: :func:`~.ran_cells.source_at_run`): ``" "`` unchanged, ``"+"`` added since,
    ``"-"`` removed since (left out, and counted, when the card would be too long otherwise). A
    cell that never ran, or whose last run this kernel does not know, has every line marked
    ``+``. An unchanged cell is one line: ``cell 4 · id 1a2b3c4d · In [3] · unchanged since it
    ran · <first line>``; a markdown cell too (it is rendered, not run).

    Raises ``ValueError`` with the reason the model reads when a card cannot show what would run:
    a code cell the page sent cut, or sources longer than :data:`RUN_REASON_MAX` characters."""
    head = f"Run {len(cells)} cell(s) in the notebook, in this order (up to {timeout_s} s):"
    for cell in cells:
        if cell.get("cell_type", "code") == "code" and is_cut(str(cell.get("source", ""))):
            raise ValueError(texts.cut_cell_text(cell_label(cell)))
    shapes = [_run_shape(cell, ran_source) for cell in cells]
    for removed in (True, False):
        lines = [head]
        for shape in shapes:
            lines += shape.lines(removed=removed)
        text = "\n".join(lines)
        if len(text) <= RUN_REASON_MAX:
            return text
    changed = sum(len(shape.body) for shape in shapes)
    raise ValueError(texts.too_many_changed_lines_text(changed))


@dataclass(frozen=True)
class _RunShape:
    """One cell of a ``run_cells`` card: its header and, when it changed, its marked lines."""

    header: str
    body: tuple[str, ...] = ()
    """``" "`` / ``"+"`` / ``"-"`` and the line; empty: the header says it all."""

    def lines(self, *, removed: bool) -> list[str]:
        if not self.body:
            return [self.header]
        kept = [line for line in self.body if removed or not line.startswith("-")]
        header = self.header
        if len(kept) < len(self.body):
            header += " (the removed lines are not shown)"
        return [header, *kept]


def _run_shape(cell: Mapping[str, Any], ran_source: RanSource | None) -> _RunShape:
    label, source = cell_label(cell), str(cell.get("source", ""))
    lines = source.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "(empty)")
    if cell.get("cell_type", "code") != "code":
        return _RunShape(f"{label} · {truncate(first, 120)[0]}")
    before = ran_source(cell) if ran_source is not None else None
    if before is None:
        if not lines:
            return _RunShape(f"{label} · (empty)")
        why = (
            "every line is new"  # the label says "not run"
            if not isinstance(cell.get("execution_count"), int)
            else "its last run is not known to this kernel: every line is marked new"
        )
        return _RunShape(f"{label} · {why}", tuple("+" + line for line in lines))
    if before.rstrip() == source.rstrip():
        return _RunShape(f"{label} · unchanged since it ran · {truncate(first, 120)[0]}")
    body: list[str] = []
    old = before.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, lines).get_opcodes():
        if tag == "equal":
            body += [" " + line for line in lines[j1:j2]]
            continue
        body += ["-" + line for line in old[i1:i2]]
        body += ["+" + line for line in lines[j1:j2]]
    added = sum(line.startswith("+") for line in body)
    removed = sum(line.startswith("-") for line in body)
    header = (
        f"{label} · changed since it ran: {added} line{'s' * (added != 1)} added, {removed} removed"
    )
    return _RunShape(header, tuple(body))


def fenced(text: str, max_chars: int, lang: str = "") -> str:
    """``text`` in a code fence no line of it can close, cut to ``max_chars`` characters."""
    shown = truncate(text, max(200, max_chars))[0]
    fence = "```"
    while fence in shown:
        fence += "`"
    return f"{fence}{lang}\n{shown}\n{fence}"
