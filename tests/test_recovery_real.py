"""Recovery after runtime deaths in a real ipykernel, against the real runtime and the scripted
model (issue 24, item 4): every SIGKILL of the runtime across one kernel's life is recovered by the
next ``%%dsh`` cell, also right after a recovery that served a turn and right after
``%dsh restart``; the conversation goes on with its history."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.testing.harnesses import group_alive

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

KILLS = 10
RESTART_BEFORE = 5  # ``%dsh restart`` before this kill (the kill follows it at once)


def kill_runtime(k: Kernel) -> int:
    """SIGKILL the kernel's runtime (its whole process group) and wait until it is gone."""
    pid = int(k.value("get_ipython()._dsh_notebook_magics.agent.host.harness.pid"))
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while group_alive(pid):
        assert time.monotonic() < deadline, "the killed runtime did not go away"
        time.sleep(0.05)
    return pid


def test_ten_deaths_ten_recoveries(tmp_path: Path, scripted_model: ScriptedModelServer) -> None:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        first = k.execute("%%dsh --wait\n[[scenario:plain]] remember the word MANGO")
        assert first.error is None, first.error
        recoveries = 0
        for n in range(KILLS):
            if n == RESTART_BEFORE:
                restarted = k.execute("%dsh restart")
                assert restarted.error is None, restarted.error
            killed = kill_runtime(k)  # within seconds of the last start: inside the old grace
            scripted_model.clear_requests()
            cell = k.execute(f"%%dsh --wait --format markdown\n[[scenario:plain]] round {n}")
            assert cell.error is None, cell.error
            shown = "".join(str(m["content"].get("data", {})) for m in cell.outputs)
            assert "the runtime exited" not in shown, f"death {n + 1} was not recovered"
            assert k.value("_dsh.result().finish_reason") == "'completed'"
            assert "MANGO" in str(scripted_model.requests[-1].body["messages"])  # history kept
            assert k.value("get_ipython()._dsh_notebook_magics.agent.host.harness.pid") != str(
                killed
            )
            recoveries += "a new one was started" in shown
        assert recoveries == KILLS
