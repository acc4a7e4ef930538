"""The cell-editing tools' pure parts: what the conversation last saw, finding a cell by id, the
one-occurrence rule, the card's diff and the texts the model reads (``docs/cell-editing.md``).

:class:`SeenSources` is the stale ledger: per conversation (the root session of the calling
session), the full source of each cell as the model last saw it (every ``notebook_cells``
result, every change the page confirmed). Thread-safe (one lock), bounded
(:data:`MAX_CONVERSATIONS` conversations, :data:`MAX_SEEN_CELLS` cells each, oldest dropped:
a dropped cell counts as unseen, so the edit is refused and the model reads it again).

Everything else here is a pure function over plain data (the page's cells as mappings), no
threads, no I/O; texts are bounded (diff: :data:`DIFF_MAX_LINES` lines; sources quoted in
results: ``max_chars``). Agent-written and person-written text is returned as text.
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ..context.describe import truncate

__all__ = [
    "DIFF_MAX_LINES",
    "MAX_CONVERSATIONS",
    "MAX_SEEN_CELLS",
    "SeenSources",
    "cell_label",
    "change_diff",
    "fenced",
    "find_cell",
    "no_page_text",
    "replace_once",
    "run_cells_reason",
]

DIFF_MAX_LINES: Final = 400
"""The card's diff keeps its first lines, then one ``… N more lines`` line."""
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


def no_page_text(tool: str) -> str:
    """The one line a tool answers where no page with its capability is connected."""
    return (
        f"{tool} needs the notebook open in JupyterLab 4 or Notebook 7 with the dsh-notebook "
        "extension; none is connected to this kernel."
    )


def find_cell(cells: Sequence[Mapping[str, Any]], cell_id: str) -> Mapping[str, Any] | str:
    """The cell whose id is ``cell_id`` (full) or starts with it (a short id, 8+ characters),
    or the reason there is not exactly one."""
    wanted = cell_id.strip()
    exact = [c for c in cells if c.get("id") == wanted]
    if exact:
        return exact[0]
    matches = (
        [c for c in cells if str(c.get("id", "")).startswith(wanted)]
        if len(wanted) >= SHORT_ID
        else []
    )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        return (
            f"no cell of the notebook has the id {wanted!r} (use the short id notebook_cells "
            "shows, e.g. `id 1a2b3c4d`)"
        )
    return f"{len(matches)} cells have ids starting with {wanted!r}; give the full id"


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
        raise ValueError("old_text is empty; give the exact text to replace (or use replace_cell)")
    count = source.count(old_text)
    if count == 0:
        raise ValueError(
            "old_text does not occur in the cell (it must match exactly, whitespace included)"
        )
    if count > 1:
        raise ValueError(
            f"old_text occurs {count} times in the cell; include more surrounding text so it "
            "occurs exactly once"
        )
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


def run_cells_reason(cells: Sequence[Mapping[str, Any]], timeout_s: int) -> str:
    """``run_cells``' card: one line per cell, ``cell 4 · id 1a2b3c4d · In [3] · <first line>``."""
    lines = [f"Run {len(cells)} cell(s) in the notebook, in this order (up to {timeout_s} s):"]
    for cell in cells:
        source = str(cell.get("source", ""))
        first = next((ln.strip() for ln in source.splitlines() if ln.strip()), "(empty)")
        lines.append(f"{cell_label(cell)} · {truncate(first, 120)[0]}")
    return "\n".join(lines)


def fenced(text: str, max_chars: int, lang: str = "") -> str:
    """``text`` in a code fence no line of it can close, cut to ``max_chars`` characters."""
    shown = truncate(text, max(200, max_chars))[0]
    fence = "```"
    while fence in shown:
        fence += "`"
    return f"{fence}{lang}\n{shown}\n{fence}"
