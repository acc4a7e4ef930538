"""The notebook's cell tools in words: one line per call, what it changed folded under it.

A cell tool call (``edit_cell``, ``replace_cell``, ``insert_cell``, ``delete_cell``,
``run_cells``; :data:`.tool_table.CELL_TOOL_NAMES`) carries the same change three times: its
JSON arguments, its card's diff and a result written for the model ("Applied: Edited cell 3 ·
id … (approved; the page confirmed it; not run)"). A person reads one line instead:

- ``Edited cell 3 (`y = x * 20`) — applied by you``
- ``Inserted a markdown cell after cell 3 — applied by you``
- ``Deleted cell 5 — applied for this run``
- ``Ran cells 3\u20134: 10 — allowed by you`` (an en dash between the numbers)
- ``Edit cell 3 (`y = 2`) — rejected by you — note: …`` (not done: the verb is what was asked)
- ``Edit cell 3 (`y = 2`) — not decided — the run was interrupted``

and, folded under it, the diff the person decided on (and the source they applied instead), or
the cells that ran and their outputs. A run that changed the notebook ends with one line:
``Edited 2 cells, ran 2, added 1, deleted 1 — Undo this run (on the %%dsh cell) or `%dsh undo`
takes them back`` (:func:`run_summary`).

An approved ``run_python`` call's result begins with a note written for the model ("This code
is now a cell of the notebook: agent cell 1 … Do not repeat the code in your answer."): the
renderings show what ran and its output (:func:`result_for_reader`), and say "kept as agent
cell 1" in words (:func:`agent_cell_of`).

Guarantees: pure functions of the snapshot (deterministic); the words are plain text (the
markdown escapes them, code spans included); the snapshot keeps the raw arguments and result, so
``_dsh``, the JSON export and the model's own messages are unchanged. Cell numbers come from
the card's diff header (``cell 3 · id …``, the kernel's own text), else from the result, else
the call's cell id is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from .schema import ApprovalItem, Item, ToolItem
from .tool_table import CELL_TOOL_NAMES

__all__ = [
    "INTERRUPTED_DECISION",
    "UNDO_WORDS",
    "WAITING_DECISION",
    "CellLine",
    "Fold",
    "RunChanges",
    "agent_cell_of",
    "cell_line",
    "cell_tool",
    "result_for_reader",
    "run_summary",
]

INTERRUPTED_DECISION = "not decided — the run was interrupted"
"""A card nobody can decide any more (its run ended, or its kernel stopped, before a decision)."""
WAITING_DECISION = "waiting for you"
"""A card still waiting for the person's decision."""

_PREFIX = "mcp__notebook__"
_CELL_NO = re.compile(r"\bcell (\d+) · id ")
_RUN_HEAD = re.compile(r"^cell (\d+) · id ", re.MULTILINE)
_INSERTED = re.compile(r"^--- \(new (\w+) cell below cell (\d+) · id ")
_APPLIED_NO = re.compile(r"^Applied: \w+ cell (\d+) · id ")
_RAN_CELL = re.compile(r"^## cell (\d+) · id [^\n]*$", re.MULTILINE)
_OUTPUT = re.compile(r"^(stdout|out|error): (.*)$", re.MULTILINE)
_BLOCK_START = re.compile(r"(?:stdout|out|error|stream)\b|## ")
"""A line that starts an output block or a cell (what ends a multi-line value)."""
_KEPT_NOTE = re.compile(
    r"\AThis code is now a cell of the notebook: agent cell (\d+) of this run, below the "
    r"user's %%dsh prompt cell, with its output\. Do not repeat the code in your answer\.(?:\n\n|\n|\Z)"
)
"""The note ``kernel.tools.agent_cells.kept_note`` puts first in an approved ``run_python``
call's result, for the model (``tests/test_transcript_summary_real.py`` pins the two together)."""
_SNIPPET = 60
_EN_DASH = "\u2013"
"""Between the ends of a range of cells (``cells 3-4`` as typeset)."""
_WHO = {
    "you": "by you",
    "you-for-run": "by you, for the rest of this run",
    "you-edited": "by you, after your edit",
    "scope": "for this run",
    "policy": "by policy",
}
_DONE_VERBS = {"edit_cell": "Edited", "replace_cell": "Rewrote", "insert_cell": "Inserted",
               "delete_cell": "Deleted", "run_cells": "Ran"}  # fmt: skip
_ASKED_VERBS = {"edit_cell": "Edit", "replace_cell": "Rewrite", "insert_cell": "Insert",
                "delete_cell": "Delete", "run_cells": "Run"}  # fmt: skip
Change = Literal["edited", "added", "deleted", "ran"]


@dataclass(frozen=True)
class Fold:
    """Text shown behind a fold (the markdown's ``<details>``; indented in plain text)."""

    label: str
    body: str
    language: str


@dataclass(frozen=True)
class CellLine:
    """How one cell tool call reads."""

    action: str
    """``Edited cell 3`` / ``Edit cell 3`` (not done) / ``Inserted a markdown cell after cell 3``."""
    snippet: str | None
    """A short piece of the new source, shown as code (``y = x * 20``); ``None`` for none."""
    output: str | None
    """``run_cells``: the first line of output of the cells that ran (``10``)."""
    outcome: str
    """``applied by you``, ``rejected by you — note: …``, :data:`WAITING_DECISION`,
    :data:`INTERRUPTED_DECISION`, ``not applied: …``; ``""`` when nothing is known yet."""
    folds: tuple[Fold, ...] = field(default=())
    change: Change | None = None
    """What it did to the notebook once done (counted by :func:`run_summary`)."""
    cells: int = 1
    """How many cells it changed or ran."""


def cell_tool(name: str) -> str | None:
    """The cell tool ``name`` is (``edit_cell`` also as ``mcp__notebook__edit_cell``), or None."""
    bare = name.removeprefix(_PREFIX)
    return bare if bare in CELL_TOOL_NAMES else None


def _first_line(text: str, limit: int = _SNIPPET) -> str | None:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), None)
    if line is None:
        return None
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _output_summary(match: re.Match[str], result: str) -> str | None:
    """The line a ran cell shows for its last output: the first line of a stream or an error;
    a value only when it fits on one line (a table's or a Series' first line is a header, like
    "station", which says nothing on its own: its lines are in the Outputs fold)."""
    kind, first = match.group(1), match.group(2)
    after = result[match.end() :].split("\n", 2)
    following = after[1] if len(after) > 1 else ""
    if kind == "out" and following.strip() and not _BLOCK_START.match(following):
        return None
    return _first_line(first)


def _first_sentence(text: str) -> str:
    line = (_first_line(text, 400) or "").split(". ")[0].rstrip(".")
    return line if len(line) <= 160 else line[:159] + "…"


def _str(args: object, key: str) -> str | None:
    value = args.get(key) if isinstance(args, dict) else None
    return value if isinstance(value, str) else None


def _short(cell_id: str | None) -> str:
    return f"cell {cell_id[:8]}" if cell_id else "a cell"


def _cells_words(numbers: list[int]) -> str:
    """``cell 3``, ``cells 3-4`` (an en dash), ``cells 2, 5 and 7``."""
    if len(numbers) == 1:
        return f"cell {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"cells {numbers[0]}{_EN_DASH}{numbers[-1]}"
    return "cells " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"


def _lines(text: str) -> str:
    n = text.rstrip("\n").count("\n") + 1
    return f"{n} line" if n == 1 else f"{n} lines"


def _decision(approval: ApprovalItem | None, *, done: bool, verb: str) -> str:
    """The card's outcome in words, or ``""`` when there was no card."""
    if approval is None:
        return ""
    if approval["state"] == "pending":
        return WAITING_DECISION
    if approval["state"] == "undecided":
        return INTERRUPTED_DECISION
    who = _WHO.get(approval["decided_by"] or "", "")
    outcome = approval["outcome"] or ""
    if outcome == "allowed-once":
        return f"{verb} {who}".strip() if done else ""
    words = {"rejected": "rejected", "cancelled": "cancelled"}.get(outcome, outcome or "decided")
    if approval["decided_by"] in ("timeout", "connection-lost", "runtime", "cancelled-by-agent"):
        who = {"timeout": "(timed out)", "connection-lost": "(connection lost)",
               "runtime": "by the runtime", "cancelled-by-agent": "by the agent"}[
            approval["decided_by"] or ""]  # fmt: skip
    line = f"{words} {who}".strip()
    note = approval.get("note")
    return line + (f" — note: {note}" if note else "")


def cell_line(item: ToolItem) -> CellLine | None:
    """The line of a cell tool call, or ``None`` for any other tool (or arguments that are not
    an object)."""
    tool = cell_tool(item["name"] or "")
    args = item["args"]
    if tool is None or not isinstance(args, dict):
        return None
    approval = item["approval"]
    result = item["result"]
    failed = bool(item["is_error"]) or item["state"] in ("failed", "rejected")
    done = result is not None and not failed
    reason = (approval["reason"] if approval is not None else None) or ""
    verb = "allowed" if tool == "run_cells" else "applied"
    outcome = _decision(approval, done=done, verb=verb)
    if result is not None and failed and not outcome.startswith(("rejected", "cancelled")):
        why = _first_sentence(result)
        why = why.split(": ", 1)[1] if why.startswith(f"{tool}") and ": " in why else why
        outcome = f"not done: {why}" if why else "not done"
    elif result is None and not outcome and item["state"] == "waiting":
        outcome = WAITING_DECISION
    folds: list[Fold] = []
    if tool == "run_cells":
        return _run_line(item, reason, outcome, done)
    numbers = [int(n) for n in _CELL_NO.findall(reason.split("\n", 2)[0])]
    applied = _APPLIED_NO.match(result or "")
    snippet = None
    if tool == "insert_cell":
        inserted = _INSERTED.match(reason)
        kind = inserted.group(1) if inserted else (_str(args, "cell_type") or "code")
        where = f"cell {inserted.group(2)}" if inserted else _short(_str(args, "after_cell_id"))
        action = f"{_DONE_VERBS[tool] if done else _ASKED_VERBS[tool]} a {kind} cell after {where}"
        snippet = _first_line(_str(args, "source") or "")
    else:
        number = numbers[0] if numbers else int(applied.group(1)) if applied else None
        where = f"cell {number}" if number is not None else _short(_str(args, "cell_id"))
        action = f"{_DONE_VERBS[tool] if done else _ASKED_VERBS[tool]} {where}"
        if tool == "edit_cell":
            snippet = _first_line(_str(args, "new_text") or "") or None
        elif tool == "replace_cell":
            snippet = _first_line(_str(args, "source") or "") or None
    if reason.strip():
        folds.append(Fold(f"The change ({_lines(reason)})", reason, "diff"))
    if approval is not None and approval["decided_by"] == "you-edited" and approval["proposed"]:
        folds.append(Fold("The source you applied instead", approval["proposed"], "python"))
    change: Change = {"insert_cell": "added", "delete_cell": "deleted"}.get(tool, "edited")  # type: ignore[assignment]
    return CellLine(action, snippet, None, outcome, tuple(folds), change if done else None)


def _run_line(item: ToolItem, reason: str, outcome: str, done: bool) -> CellLine:
    result = item["result"] or ""
    numbers = [int(n) for n in _RUN_HEAD.findall(reason)] or [
        int(n) for n in re.findall(r"^## cell (\d+) · id ", result, re.MULTILINE)
    ]
    ids = item["args"].get("cell_ids") if isinstance(item["args"], dict) else None
    count = len(numbers) or (len(ids) if isinstance(ids, list) else 1)
    where = _cells_words(numbers) if numbers else f"{count} cell" + "s" * (count != 1)
    action = f"{'Ran' if done else 'Run'} {where}"
    folds: list[Fold] = []
    if reason.strip():
        body = reason.split("\n", 1)[1] if "\n" in reason else reason
        folds.append(Fold(f"What ran ({_lines(body)})", body, "diff"))
    output = None
    if done:
        outputs = list(_OUTPUT.finditer(result))
        output = _output_summary(outputs[-1], result) if outputs else None
        cells = _RAN_CELL.search(result)
        if cells is not None:
            body = result[cells.start() :].strip("\n")
            folds.append(Fold(f"Outputs ({_lines(body)})", body, "text"))
    return CellLine(action, None, output, outcome, tuple(folds), "ran" if done else None, count)


def result_for_reader(item: ToolItem) -> str | None:
    """The call's result as a person reads it: an approved ``run_python`` call's note for the
    model (where its code was kept, "Do not repeat the code") left out. ``None`` as the result."""
    result = item["result"]
    if result is None or not (item["name"] or "").endswith("run_python"):
        return result
    return _KEPT_NOTE.sub("", result, count=1)


def agent_cell_of(item: ToolItem) -> int | None:
    """The agent cell number an approved ``run_python`` call's code was kept as, or ``None``."""
    result = item["result"]
    if result is None or not (item["name"] or "").endswith("run_python"):
        return None
    match = _KEPT_NOTE.match(result)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class RunChanges:
    """What a run's cell tools (and kept agent cells) did to the notebook."""

    edited: int = 0
    ran: int = 0
    added: int = 0
    deleted: int = 0

    @property
    def undoable(self) -> bool:
        """Whether "Undo this run" has something to take back (edits, inserts, deletes, agent
        cells; what ran has had its effects)."""
        return bool(self.edited or self.added or self.deleted)

    def words(self) -> str | None:
        """``Edited 2 cells, ran 2, added 1, deleted 1``, or ``None`` when nothing changed."""
        counts = (
            (self.edited, "edited"), (self.ran, "ran"), (self.added, "added"),
            (self.deleted, "deleted"),
        )  # fmt: skip
        parts = [f"{word} {count}" for count, word in counts if count]
        if not parts:
            return None
        first = parts[0]
        parts[0] = first[0].upper() + first[1:] + (" cell" if first.endswith(" 1") else " cells")
        return ", ".join(parts)


UNDO_WORDS = ("Undo this run", "%dsh undo")
"""The two ways to take a run's changes back, as the summary line names them: the button on
the ``%%dsh`` cell (the page's) and the command."""


def run_summary(items: list[Item]) -> RunChanges:
    """Count what the run's cell tool calls did (each done call; ``run_cells`` by cells run)
    and the agent cells its ``run_python`` calls added, subagents' included."""
    counts = {"edited": 0, "ran": 0, "added": 0, "deleted": 0}
    for tool in _tool_items(items):
        line = cell_line(tool)
        if line is not None and line.change is not None:
            counts[line.change] += line.cells
        elif agent_cell_of(tool) is not None:
            counts["added"] += 1
    return RunChanges(**counts)


def _tool_items(items: list[Item]) -> list[ToolItem]:
    found: list[ToolItem] = []
    for item in items:
        if item["kind"] == "tool":
            found.append(item)
            if item["subagent"]:
                found += _tool_items(item["subagent"]["items"])
        elif item["kind"] == "subagent":
            found += _tool_items(item["items"])
    return found
