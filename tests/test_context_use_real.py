"""Issue 29 item 10 in a real ipykernel with the real runtime: the session's context use against
the model's window in ``%dsh status``, per-run tokens in ``%dsh sessions``, and the figure kept
with the conversation across a kernel restart (the resumed runtime reports no window again).

The scripted model reports the usage (``Step.input_tokens``/``output_tokens``); the runtime
turns it into ``usage`` and sends the model's window in ``request/context``: every figure here
is what the runtime reported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer, Step

from .helpers.real_kernel import identity, kernel_python, on_one_ipykernel, start_kernel
from .kernels import Kernel

pytestmark = [pytest.mark.real_runtime]
__all__ = ["kernel_python"]  # the fixture, re-used

NB = "c" * 32
SESSION = f"nb-{NB[:12]}"
LAST_USE = "get_ipython()._dsh_notebook_magics.agent.last_run().view.transcript.snapshot()['header']['context_use']"


def context_use(kernel: Kernel) -> dict[str, object]:
    value = ast.literal_eval(kernel.value(LAST_USE))
    assert isinstance(value, dict), value
    return value


@on_one_ipykernel
def test_status_and_sessions_show_the_context_and_it_survives_a_restart(
    tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> None:
    scripted_model.register(
        "ctx_small", [Step(text="Small.", input_tokens=120_000, output_tokens=2_000)]
    )
    scripted_model.register(
        "ctx_big", [Step(text="Big.", input_tokens=850_000, output_tokens=1_000)]
    )
    scripted_model.register(
        "ctx_next", [Step(text="Next.", input_tokens=860_000, output_tokens=500)]
    )
    kernel = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        first = kernel.execute("%%dsh --wait\n[[scenario:ctx_small]] One.", metadata=identity(NB))
        assert first.error is None, first.error
        assert context_use(kernel) == {"tokens": 122_000, "window": 1_000_000, "fraction": 0.122}
        status = kernel.execute("%dsh status", metadata=identity(NB, "c2")).stdout
        assert (
            f"context: 12% · 122k / 1M tokens (session {SESSION}, after its latest step)" in status
        ), status
        assert "nearly full" not in status

        second = kernel.execute(
            "%%dsh --wait\n[[scenario:ctx_big]] Two.", metadata=identity(NB, "c3")
        )
        assert second.error is None, second.error
        assert context_use(kernel) == {"tokens": 851_000, "window": 1_000_000, "fraction": 0.851}
        status = kernel.execute("%dsh status", metadata=identity(NB, "c4")).stdout
        assert "context: 85% · 851k / 1M tokens" in status, status
        assert "nearly full: start a fresh conversation: %%dsh --new" in status, status
        listed = kernel.execute("%dsh sessions", metadata=identity(NB, "c5")).stdout
        row = next(line for line in listed.splitlines() if SESSION in line)
        assert "context 85% · 851k / 1M  (nearly full)" in row, listed
        assert "last run 851k, all runs 973k tokens" in row, listed
        assert row.endswith("[[scenario:ctx_small]] One."), listed
    finally:
        kernel.shutdown()

    again = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        # before any run: the figure kept with the conversation
        status = again.execute("%dsh status", metadata=identity(NB)).stdout
        assert f"context: 85% · 851k / 1M tokens (session {SESSION}" in status, status
        listed = again.execute("%dsh sessions", metadata=identity(NB, "c2")).stdout
        assert "last run 851k, all runs 973k tokens" in listed, listed
        # the resumed session's run: the runtime sends no request/context after a resume,
        # so the window is the one kept; the tokens are this run's own
        third = again.execute(
            "%%dsh --wait\n[[scenario:ctx_next]] Three.", metadata=identity(NB, "c3")
        )
        assert third.error is None, third.error
        assert context_use(again) == {"tokens": 860_500, "window": 1_000_000, "fraction": 0.8605}
        listed = again.execute("%dsh sessions", metadata=identity(NB, "c4")).stdout
        assert (
            "context 86% · 860.5k / 1M  (nearly full) · last run 860.5k, all runs 1.8M tokens"
            in listed
        ), listed
    finally:
        again.shutdown()
