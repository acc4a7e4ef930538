"""The cell tools in words (``transcript/cell_lines.py``, issue 48): the words of each outcome,
the run's summary line, and the note for the model that a person never reads (pinned to the
kernel's own text, ``kernel.tools.agent_cells.kept_note``)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.kernel.tools.agent_cells import kept_note
from dsh_notebook.transcript.cell_lines import (
    INTERRUPTED_DECISION,
    RunChanges,
    agent_cell_of,
    cell_line,
    result_for_reader,
    run_summary,
)
from dsh_notebook.transcript.schema import ApprovalItem, Item, ToolItem

DIFF = "--- cell 3 · id 00000003 · not run\n+++ cell 3 · id 00000003 · edited by dsh\n-a\n+b"


def card(**fields: Any) -> ApprovalItem:
    base: dict[str, Any] = {
        "kind": "approval", "id": "a", "rev": 1, "session_id": "s", "approval_id": None,
        "request_id": "a1", "call_id": "c", "tool_name": "edit_cell", "reason": DIFF,
        "state": "decided", "outcome": "allowed-once", "decided_by": "you", "proposed": None,
        "target": None, "note": None,
    }  # fmt: skip
    return base | fields  # type: ignore[return-value]


def call(name: str = "mcp__notebook__edit_cell", **fields: Any) -> ToolItem:
    base: dict[str, Any] = {
        "kind": "tool", "id": "t", "rev": 1, "call_id": "c", "name": name, "arguments": "{}",
        "args": {"cell_id": "00000003", "old_text": "a", "new_text": "b = 2\nmore"},
        "description": None, "summary": None, "state": "done", "result": "Applied: …",
        "is_error": False, "error_code": None, "job": None, "approval": card(),
        "question": None, "subagent": None, "figures": [],
    }  # fmt: skip
    return base | fields  # type: ignore[return-value]


def words(item: ToolItem) -> tuple[str, str | None, str]:
    line = cell_line(item)
    assert line is not None
    return line.action, line.snippet, line.outcome


def test_each_outcome_in_words() -> None:
    assert words(call()) == ("Edited cell 3", "b = 2", "applied by you")
    scope = call(approval=card(decided_by="scope"))
    assert words(scope)[2] == "applied for this run"
    rejected = call(state="rejected", result="rejected", is_error=True,
                    approval=card(outcome="rejected", note="use 2024"))  # fmt: skip
    assert words(rejected) == ("Edit cell 3", "b = 2", "rejected by you — note: use 2024")
    waiting = call(state="running", result=None, approval=card(state="pending", outcome=None))
    assert words(waiting)[2] == "waiting for you"
    dead = call(state="running", result=None, approval=card(state="undecided", outcome=None))
    assert words(dead) == ("Edit cell 3", "b = 2", INTERRUPTED_DECISION)
    stale = call(is_error=True, result="edit_cell: not applied: the cell changed. Its source:")
    assert words(stale)[2] == "not done: not applied: the cell changed"
    assert cell_line(call(name="bash")) is None  # other tools keep their own card


def test_a_run_ends_with_what_it_changed() -> None:
    ran = call(
        "run_cells", args={"cell_ids": ["a", "b"]},
        approval=card(tool_name="run_cells", reason="Run 2 cell(s):\ncell 3 · id a · x\ncell 4 · id b · y"),
        result="Ran 2 cell(s) in the notebook (ok, ok).\n\n## cell 3 · id a · ok\nstdout: 10",
    )  # fmt: skip
    line = cell_line(ran)
    assert line is not None and (line.action, line.output) == ("Ran cells 3\u20134", "10")
    python = call("mcp__notebook__run_python", args={"code": "x"}, approval=None,
                  result=kept_note(1) + "\n\nstdout:\n1")  # fmt: skip
    items: list[Item] = [call(), call(), ran, python]
    changes = run_summary(items)
    assert changes == RunChanges(edited=2, ran=2, added=1)
    assert changes.words() == "Edited 2 cells, ran 2, added 1" and changes.undoable
    assert RunChanges(ran=1).words() == "Ran 1 cell" and not RunChanges(ran=1).undoable
    assert RunChanges().words() is None


@pytest.mark.parametrize("number", [1, 12])
def test_the_note_for_the_model_is_left_out_of_what_a_person_reads(number: int) -> None:
    python = call("mcp__notebook__run_python", args={"code": "x"}, approval=None,
                  result=f"{kept_note(number)}\n\nstdout:\n42")  # fmt: skip
    assert result_for_reader(python) == "stdout:\n42"
    assert agent_cell_of(python) == number
    only = call("mcp__notebook__run_python", args={"code": "x"}, result=kept_note(number))
    assert result_for_reader(only) == ""
    other = call("bash", result=f"{kept_note(number)}\n\nstdout:\n42")
    assert result_for_reader(other) == other["result"]  # only run_python's note is ours


def test_a_ran_cell_shows_a_value_only_when_it_fits_on_one_line() -> None:
    """A Series or a table prints its header first ("station"): saying "Ran cell 4: station"
    tells nothing, so a multi-line value is left to the Outputs fold; a one-line value, a
    stream's first line and an error still show."""
    head = "Ran 1 cell(s) in the notebook (ok).\n\n## cell 4 · id a · In [8] · ok\n"

    def shown(result: str) -> str | None:
        line = cell_line(call("run_cells", args={"cell_ids": ["a"]}, result=result,
                              approval=card(tool_name="run_cells", reason="Run 1 cell(s):")))  # fmt: skip
        assert line is not None
        return line.output

    assert shown(head + "out: station\nDocks     10.0\nPark      12.5\nName: minutes") is None
    assert shown(head + "out: 10.5") == "10.5"
    assert shown(head + "out: 10.5\n\n## cell 5 · id b · In [9] · ok\nstdout: done") == "done"
    assert shown(head + "stream: x\nout: 42\n") == "42"
    assert shown(head + "error: KeyError: 'staton'") == "KeyError: 'staton'"
