"""``%dsh dismiss ID`` on an approval (issue 24, item 8d), in the in-process kernel as a live page
drives it (the cell returns at once, the run goes on in the background), the runtime a
``MockRuntime`` that asks for a sandbox escalation (``[[approval]]``): a dismissed approval is
rejected, decided by you; nothing is left pending and the call never runs."""

from __future__ import annotations

import time

import pytest

from dsh_notebook.testing.kernel import InProcessKernel


def line(kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], command: str) -> str:
    """What ``%dsh command`` printed."""
    capsys.readouterr()
    kernel.shell.run_line_magic("dsh", command)
    return capsys.readouterr().out


def test_dismissing_an_approval_rejects_it(
    dsh_live_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = dsh_live_kernel
    assert kernel.run_cell("--format markdown", "[[approval]] [[reply:done]] touch it") is None
    handle = kernel.shell.user_ns["_dsh"]
    deadline = time.monotonic() + 30
    while "a1" not in line(kernel, capsys, "pending"):
        assert time.monotonic() < deadline, "no approval was asked"
        time.sleep(0.05)
    assert not handle.done()  # the run waits for the person
    assert "a1 rejected" in line(kernel, capsys, "dismiss a1")
    assert handle.result(30).final_response == "done"
    assert "nothing is waiting" in line(kernel, capsys, "pending")
    kernel.agent.pump.flush(10)  # the pump has shown every fact of the settled run
    transcript = kernel.agent.runs.last().view.transcript
    assert "**rejected** (by you)" in transcript.to_markdown()
    assert kernel.peer.approvals == ["rejected"]  # the runtime was told: the call never ran
