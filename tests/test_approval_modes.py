"""Who answers a runtime's approval, by who drives the cell, in the in-process kernel (the runtime
a ``MockRuntime`` that asks for a sandbox escalation on ``[[approval]]``):

* a live page, background cell: the approval waits in ``%dsh pending`` and a later cell answers it
  (``%dsh allow``), once;
* Run All, two background cells on one session: the second waits for the first run and owns
  its approval, and neither result holds the other's turn;
* nbclient (no stdin): the cell waits and nobody is asked; ``headless_approval`` (reject by
  default) decides, and the one displayed transcript says so.

A ``--wait`` cell asking on stdin (``input_request`` on the kernel's stdin channel) and what
ipykernel 6 and 7 do with a background run's output stay in ``test_kernel_real``."""

from __future__ import annotations

import time

import pytest

from dsh_notebook.testing.kernel import InProcessKernel

PROMPT = "[[approval]] [[reply:done]] touch it"


def line(kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], command: str) -> str:
    """What ``%dsh command`` printed."""
    capsys.readouterr()
    kernel.shell.run_line_magic("dsh", command)
    return capsys.readouterr().out


def test_approval_answered_from_a_later_cell(
    dsh_live_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = dsh_live_kernel
    assert kernel.run_cell("--format markdown", PROMPT) is None  # background: returns at once
    handle = kernel.shell.user_ns["_dsh"]
    deadline = time.monotonic() + 30
    pending = ""
    while "a1" not in pending:
        assert time.monotonic() < deadline, "no approval was asked"
        pending = line(kernel, capsys, "pending")
        time.sleep(0.05)
    assert "approve bash" in pending
    assert line(kernel, capsys, "allow a1") == "dsh: a1 allowed once\n"
    assert handle.result(30).final_response == "done"
    assert kernel.peer.approvals == ["allowed-once"]  # the command ran
    assert "nothing is waiting" in line(kernel, capsys, "allow a1")


def test_two_background_cells_on_one_session_stay_apart(
    dsh_live_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run All: a second cell on the same session waits for the first (slow) run, owns its own
    approval, and neither result holds the other's turn."""
    kernel = dsh_live_kernel
    kernel.run_cell("-o first --format markdown", "[[delay:1]] [[reply:one]] first cell")
    kernel.run_cell("-o second --format markdown", f"{PROMPT} second cell")
    first, second = kernel.shell.user_ns["first"], kernel.shell.user_ns["second"]
    deadline = time.monotonic() + 30
    while "a1" not in line(kernel, capsys, "pending"):
        assert time.monotonic() < deadline, "the second run's approval never became pending"
        time.sleep(0.05)
    assert first.done()  # serialized: the first had settled
    assert line(kernel, capsys, "allow a1") == "dsh: a1 allowed once\n"
    assert second.result(30).finish_reason == "completed"
    assert kernel.peer.approvals == ["allowed-once"]
    assert [p["sessionId"] for p in kernel.peer.prompts] == [first.session, first.session]
    turns = [sum(e.type == "turn/start" for e in h.result().events) for h in (first, second)]
    assert turns == [1, 1]
    assert (first.result().final_response, second.result().final_response) == ("one", "done")


def test_wait_mode_without_stdin_uses_the_headless_policy(
    dsh_headless_kernel: InProcessKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(prompt: str = "") -> str:
        raise AssertionError(f"nobody is at the keyboard, but asked: {prompt}")

    monkeypatch.setattr("builtins.input", never)
    kernel = dsh_headless_kernel
    kernel.run_cell("", PROMPT)  # what nbclient/nbconvert run: the cell waits, nobody is asked
    assert kernel.shell.user_ns["_dsh"].done()
    assert kernel.peer.approvals == ["rejected"]
    kernel.agent.pump.flush(10)
    final = kernel.displayed[-1]
    assert "rejected" in final.data["text/markdown"].lower()
    assert final.metadata["dsh_notebook"]["run"] is True
