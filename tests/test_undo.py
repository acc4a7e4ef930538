"""The undo ledger outside the cell tools: agent cells are a run's changes too, ``%dsh undo
[RUN]`` sends a run newest first and prints what it can, and the next prompt's context block
says what was undone (once)."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from dsh_notebook.context.notebook_context import NotebookFacts, notebook_context_block
from dsh_notebook.kernel.entry.commands import COMMANDS
from dsh_notebook.kernel.registry.runs import ApprovedCall
from dsh_notebook.kernel.tools.agent_cells import AgentCells
from dsh_notebook.kernel.tools.kernel_undo import KernelUndo
from dsh_notebook.kernel.tools.undo import UndoLedger
from dsh_notebook.notebook_tools.run_python import RunPythonResult

from .fake_page import FakePage
from .helpers.agent_cells import Run


def test_an_agent_cell_is_recorded_as_its_runs_change() -> None:
    page = FakePage(["x = 1"])
    ledger = UndoLedger(page.link)
    run = Run()
    owner = ApprovedCall(run, run.handle.session, "toolu_1")
    sink = AgentCells(page.link, enabled=lambda: True, undo=ledger)("a = 1", owner)
    assert sink is not None
    sink(RunPythonResult(cell_outputs=[]))
    (run,) = ledger.runs()
    (change,) = run.changes
    assert (run.run_id, run.anchor) == ("r1", "dsh-cell")
    assert change["kind"] == "agent_cell" and change["call"] == 1  # type: ignore[typeddict-item]
    assert change["source"].endswith("\na = 1")


def no_values() -> KernelUndo:
    """The kernel's half of undo with nothing kept (these runs changed no value)."""
    return KernelUndo(memory=lambda: 2**20, value_limit=lambda: 2**20)


def ledger_with_two_runs(page: FakePage) -> UndoLedger:
    ledger = UndoLedger(page.link)
    ledger.record("run-old", "c1", {"kind": "insert", "cell_id": "n1", "source": "1"})
    ledger.record("run-new", "c2", {"kind": "insert", "cell_id": "n2", "source": "2"})
    ledger.record("run-new", "c2", {"kind": "edit", "cell_id": "a", "before": "x",
                                    "after": "y"})  # fmt: skip
    return ledger


def test_dsh_undo_sends_the_newest_run_and_prints_what_it_can(
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = FakePage(["x = 1"])
    ledger = ledger_with_two_runs(page)
    agent: Any = SimpleNamespace(undo=ledger, frontend_link=page.link, kernel_undo=no_values())
    COMMANDS["undo"](agent, [])
    (sent,) = page.sent_of("undo_changes")
    assert sent["run"] == "run-new" and [c["kind"] for c in sent["changes"]] == ["edit", "insert"]
    out = capsys.readouterr().out
    assert "undoing run run-new: 2 change(s) sent to the notebook page" in out
    assert "next prompt's context says what was undone" in out  # no subshell: no wait
    page.link._replies_off_main = True  # the page answers on a subshell: the report prints
    page.undo_skip = [{"cell_id": "n1", "reason": "changed since it was inserted"}]
    COMMANDS["undo"](agent, ["run-o"])
    out = capsys.readouterr().out
    assert "0 reverted, 1 skipped" in out and "skipped cell n1: changed since it was" in out
    COMMANDS["undo"](agent, [])
    assert "nothing to undo" in capsys.readouterr().out  # both runs were taken out
    note = ledger.take_note()
    assert note is not None and note.startswith("Undone since your last prompt: run run-new —")
    block = notebook_context_block(NotebookFacts(path="a.ipynb", undone=note))
    assert "run run-old — 0 change(s) reverted, 1 skipped (cell n1 changed since" in block
    assert ledger.take_note() is None


def test_dsh_undo_without_a_page_keeps_the_changes(capsys: pytest.CaptureFixture[str]) -> None:
    page = FakePage(["x = 1"], capabilities=("waiting",))
    ledger = ledger_with_two_runs(page)
    COMMANDS["undo"](SimpleNamespace(undo=ledger, frontend_link=page.link,  # type: ignore[arg-type]
                                     kernel_undo=no_values()), [])  # fmt: skip
    assert "no notebook page with the dsh-notebook extension" in capsys.readouterr().out
    assert [r.run_id for r in ledger.runs()] == ["run-old", "run-new"]


def test_undo_replies_from_any_thread_are_noted_once() -> None:
    page = FakePage(["x = 1"])
    ledger = ledger_with_two_runs(page)
    done = threading.Event()
    thread = threading.Thread(target=lambda: ledger.undo("run-old", lambda r: done.set()))
    thread.start()
    thread.join(5)
    assert done.is_set() and (ledger.take_note() or "").endswith("1 change(s) reverted")
