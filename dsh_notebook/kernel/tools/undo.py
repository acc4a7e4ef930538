"""The undo ledger: what each run changed in the notebook, so one action reverts a whole run.

Per run (in memory, this kernel's life only), in the order they were applied: ``edit`` (cell id,
before, after), ``insert`` (the new cell's id, its source), ``delete`` (the cell as read, its
index, the id of the cell above it) and agent cells (``run_python`` calls inserted as cells). Only
changes the page confirmed are recorded (the cell tools record ``applied`` replies; agent cells
once sent).

:meth:`UndoLedger.undo` (``%dsh undo [RUN]``, the page's "Undo this run") takes a run's entries
out of the ledger (so undoing twice does nothing the second time), sends them newest first in one
``undo_changes``, and when the page's ``undo_reply`` comes, keeps one bounded line for the next
prompt's context block (:meth:`take_note`) and hands the reply to the caller's report.

Thread-safety: every method may be called from any thread (the MCP server's workers record, the
main thread undoes, the page's reply arrives on whatever thread handles comm messages); one
lock, no callback under it. Bounds: :data:`MAX_RUNS` runs, :data:`MAX_CHANGES` changes each
(older ones are forgotten: JupyterLab's own undo still works per step).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ...frontend import FrontendLink
from ...page_protocol import UndoChange, UndoReply, undo_changes

__all__ = ["MAX_CHANGES", "MAX_RUNS", "RunChanges", "UndoLedger", "undone_line"]

MAX_RUNS = 64
MAX_CHANGES = 500
_NOTE_MAX = 300


@dataclass
class RunChanges:
    """What one run changed, oldest first."""

    run_id: str
    anchor: str | None
    """The ``%%dsh`` cell that started the run (``None``: not known)."""
    changes: list[UndoChange] = field(default_factory=list)


def undone_line(run_id: str, reply: UndoReply) -> str:
    """``Undone since your last prompt: run <id> — 3 changes reverted, 1 skipped (cell
    1a2b3c4d changed since)`` (bounded)."""
    skipped = reply["skipped"]
    line = f"run {run_id} — {reply['reverted']} change(s) reverted"
    if skipped:
        cells = ", ".join(f"cell {s['cell_id'][:8]} {s['reason'][:60]}" for s in skipped[:3])
        more = f", and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        line += f", {len(skipped)} skipped ({cells}{more})"
    return line[:_NOTE_MAX]


class UndoLedger:
    """One per kernel (see the module doc)."""

    def __init__(self, link: FrontendLink) -> None:
        self._link = link
        self._lock = threading.Lock()
        self._runs: OrderedDict[str, RunChanges] = OrderedDict()
        self._notes: list[str] = []

    def record(self, run_id: str, anchor: str | None, change: UndoChange) -> None:
        """A change of run ``run_id`` the page confirmed."""
        with self._lock:
            entry = self._runs.pop(run_id, None) or RunChanges(run_id, anchor)
            self._runs[run_id] = entry  # newest last
            entry.changes.append(change)
            del entry.changes[:-MAX_CHANGES]
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)

    def runs(self) -> list[RunChanges]:
        """The runs with changes, newest last (copies)."""
        with self._lock:
            return [RunChanges(r.run_id, r.anchor, list(r.changes)) for r in self._runs.values()]

    def find(self, run: str | None = None, *, anchor: str | None = None) -> str | None:
        """The newest run with changes whose id starts with ``run`` / started in cell
        ``anchor`` (neither: the newest of all), or ``None``."""
        with self._lock:
            for entry in reversed(self._runs.values()):
                if run is not None and not entry.run_id.startswith(run):
                    continue
                if anchor is not None and entry.anchor != anchor:
                    continue
                return entry.run_id
        return None

    def undo(self, run_id: str, report: Callable[[UndoReply], None] = lambda r: None) -> int:
        """Send the run's changes, newest first, to the page and drop them here. Returns how
        many were sent; ``-1`` when no page with ``edit_cells`` took the message (the changes
        stay), ``0`` when the run has none. ``report`` gets the page's reply (any thread)."""
        with self._lock:
            entry = self._runs.pop(run_id, None)
        if entry is None or not entry.changes:
            return 0
        message = undo_changes(self._link.request_id("u"), run_id, entry.changes[::-1])

        def replied(reply: UndoReply) -> None:
            with self._lock:
                self._notes.append(undone_line(run_id, reply))
                del self._notes[:-5]
            report(reply)

        if message is None or not self._link.undo_changes(message, replied):
            with self._lock:  # not sent: keep them (newest last again)
                self._runs[run_id] = entry
            return -1
        return len(entry.changes)

    def nothing_to_undo(self) -> bool:
        """Tell the page there is nothing the kernel can undo (an empty ``undo_changes``)."""
        message = undo_changes(self._link.request_id("u"), "", [])
        return message is not None and self._link.undo_changes(message, lambda reply: None)

    def note(self, line: str) -> None:
        """Keep one line about an undo for the next prompt's context block (bounded)."""
        with self._lock:
            self._notes.append(line[:_NOTE_MAX])
            del self._notes[:-5]

    def take_note(self) -> str | None:
        """What was undone since the last call, one bounded line for the context block, or
        ``None``; taken once."""
        with self._lock:
            notes, self._notes = self._notes, []
        if not notes:
            return None
        return ("Undone since your last prompt: " + "; ".join(notes))[: 2 * _NOTE_MAX]
