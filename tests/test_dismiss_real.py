"""``%dsh dismiss ID`` on an approval, in a real ipykernel against the real runtime (issue 24,
item 8d): a dismissed approval is rejected, decided by you; nothing is left pending and the
call never runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import scripted_kernel

pytestmark = [pytest.mark.real_runtime]


def test_dismissing_an_approval_rejects_it(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    target = tmp_path / "outside" / "never.txt"
    target.parent.mkdir()
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        cell = k.execute(
            f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it", allow_stdin=True
        )
        assert cell.error is None, cell.error
        deadline = time.monotonic() + 60
        while "a1" not in k.execute("%dsh pending").stdout:
            assert time.monotonic() < deadline, "no approval was asked"
            time.sleep(0.2)
        dismissed = k.execute("%dsh dismiss a1")
        assert dismissed.error is None, dismissed.error
        assert "a1 rejected" in dismissed.stdout
        while k.value("_dsh.done()") != "True":
            assert time.monotonic() < deadline, "the run did not settle"
            time.sleep(0.2)
        assert "nothing is waiting" in k.execute("%dsh pending").stdout
        transcript = "get_ipython()._dsh_notebook_magics.agent.runs.last().view.transcript"
        assert "**rejected** (by you)" in k.value(f"{transcript}.to_markdown()")
        assert not target.exists()
