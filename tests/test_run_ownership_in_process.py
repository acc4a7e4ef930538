"""Whose call is it: a ``run_python`` call is decided by the run whose agent made it, in the
in-process kernel (the extension in this worker's shell; the runtime a scripted peer whose calls
go over MCP to the kernel's own notebook tools server; the page played over the recorded link,
with execute metadata naming each cell).

- Two sessions in flight: A asks (the default), B (``--on-approval allow`` or ``reject``, newer,
  still streaming) never decides A's call: A's call waits for a click on A's card, the waiting
  signal names A's cell, the approved call's agent cell is anchored under A's cell, and B's
  transcript records no approval.
- Run All with two ``%%dsh`` cells on one session: the first asks, the second is queued behind
  it; the signal, the card and the agent cell are the first cell's.

A subagent's call, and what ``notebook_cells`` tells the model, with the real runtime:
``test_run_ownership_real``.
"""

from __future__ import annotations

import ast
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import Script, Step, ToolCall

from .helpers.in_process import InProcessSession, in_process_session
from .helpers.real_kernel import link_messages, pending_key, wait_for
from .kernels import identity, open_link

RUN_PYTHON = "mcp__notebook__run_python"
A_CODE = "owned_by = 'A'\nowned_by"
QUEUED_CODE = "queued_ran = True"


def run_python(code: str, delay: float = 0.0) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),), delay=delay)


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessSession]:
    with in_process_session(tmp_path, monkeypatch) as k:
        scripts = k.peer.scripts
        # A waits 3 s before its call, so B has started (and is the newest run) when it comes
        scripts["own-a"] = Script(steps=(run_python(A_CODE, 3.0), Step(text="A done")))
        scripts["slow-b"] = Script(steps=(Step(text="B done", delay=12.0),))
        scripts["queued-first"] = Script(steps=(run_python(QUEUED_CODE), Step(text="first done")))
        scripts["queued-second"] = Script(steps=(Step(text="second done"),))
        yield k


@pytest.mark.parametrize("b_policy", ["allow", "reject"])
def test_another_sessions_policy_never_decides_a_call(
    kernel: InProcessSession, b_policy: str
) -> None:
    comm_id = open_link(kernel)
    start = len(kernel.iopub)
    a = kernel.execute(
        "%%dsh -s analysis\n[[scenario:own-a]] go", allow_stdin=True, metadata=identity("cell-a")
    )
    b = kernel.execute(
        f"%%dsh -s report --on-approval {b_policy}\n[[scenario:slow-b]] go",
        allow_stdin=True,
        metadata=identity("cell-b"),
    )
    assert a.error is None and b.error is None, (a.error, b.error)
    # A's call waits for the person (B's policy neither granted nor rejected it)
    key = wait_for(kernel, "A's call never became pending", lambda: pending_key(kernel))
    assert kernel.value("'owned_by' in globals()") == "False"
    waiting = wait_for(
        kernel,
        "no waiting signal named a cell",
        lambda: [m for m in link_messages(kernel, comm_id, "waiting", start) if m.get("cells")],
    )
    assert [c["cell_id"] for c in waiting[-1]["cells"]] == ["cell-a"]
    assert kernel.execute(f"%dsh allow {key}").error is None
    wait_for(
        kernel, "A's code never ran", lambda: kernel.value("globals().get('owned_by')") == "'A'"
    )
    cells = wait_for(
        kernel, "no agent cell", lambda: link_messages(kernel, comm_id, "insert_cell", start)
    )
    assert [c["anchor"] for c in cells] == ["cell-a"] and cells[0]["session"] == "analysis"
    # B's run, settled, recorded no approval of A's call
    deadline = time.monotonic() + 60
    agent = "get_ipython().magics_manager.registry['DshMagics'].agent"
    while kernel.value(f"'report' in {agent}.results") != "True":
        assert time.monotonic() < deadline, "B never settled"
        time.sleep(0.3)
    b_events = kernel.value(f"[e.type for e in {agent}.results['report'].events]")
    assert "approval" not in b_events and "tool/call" not in b_events
    wait_for(
        kernel, "A never settled", lambda: kernel.value(f"'analysis' in {agent}.results") == "True"
    )
    assert kernel.value(f"{agent}.results['analysis'].final_response") == "'A done'"


def test_run_all_two_cells_on_one_session_the_first_owns_its_call(kernel: InProcessSession) -> None:
    comm_id = open_link(kernel)
    start = len(kernel.iopub)
    first = kernel.execute(
        "%%dsh -s shared\n[[scenario:queued-first]] go", allow_stdin=True, metadata=identity("c1")
    )
    second = kernel.execute(
        "%%dsh -s shared\n[[scenario:queued-second]] go", allow_stdin=True, metadata=identity("c2")
    )
    assert first.error is None and second.error is None
    key = wait_for(
        kernel, "the first cell's call never became pending", lambda: pending_key(kernel)
    )
    waiting = wait_for(
        kernel,
        "no waiting signal named a cell",
        lambda: [m for m in link_messages(kernel, comm_id, "waiting", start) if m.get("cells")],
    )
    assert [c["cell_id"] for c in waiting[-1]["cells"]] == ["c1"]
    # the queued cell reads "queued" (not "running · 0 turns") and names the cell it waits
    # behind by the In [k] the first cell ran as; its note carries that cell's id for "Show"
    second_view = "get_ipython()._dsh_notebook_magics.agent.runs.last().view.transcript"
    dumped = kernel.value(f"__import__('json').dumps({second_view}.snapshot())")
    snapshot = json.loads(ast.literal_eval(dumped))
    assert snapshot["header"]["state"] == "queued"
    [note] = [i for i in snapshot["items"] if i["kind"] == "note" and "queued" in i["text"]]
    k = first.reply["execution_count"]
    assert note["text"] == (
        f"queued behind the run of cell In [{k}] on session 'shared': this prompt is sent when "
        "it ends. If that run waits for your decision, its card is in that cell "
        "(`%dsh pending` lists it)."
    )
    assert note["cell"] == "c1"
    queued = kernel.value(f"print({second_view}.to_markdown())")
    assert f"In [{k}]" in queued and "`%dsh pending`" in queued
    assert kernel.execute(f"%dsh allow {key}").error is None
    wait_for(
        kernel, "the code never ran", lambda: kernel.value("globals().get('queued_ran')") == "True"
    )
    cells = wait_for(
        kernel, "no agent cell", lambda: link_messages(kernel, comm_id, "insert_cell", start)
    )
    assert [(c["anchor"], c["call"]) for c in cells] == [("c1", 1)]
    # its turn came: no longer "queued"
    wait_for(
        kernel,
        "the second run never left 'queued'",
        lambda: kernel.value(f"{second_view}.snapshot()['header']['state']") != "'queued'",
    )
