"""A kernel restart while a run waits for an approval, then Run All (issue 24, item 5), in a real
ipykernel with the real runtime and the scripted model: the skipped cell shows the run's last
live transcript marked interrupted, and a run that left no transcript says so, never that one
is "in the saved notebook"."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .kernels import Execution, Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

NOTEBOOK = "d" * 32
SESSION = f"nb-{NOTEBOOK[:12]}"  # the notebook's default session, from its identity
OTHER = "restart-other"
RUN_PYTHON = "mcp__notebook__run_python"
CELL = "%%dsh\n[[scenario:restart-pending]] Count the rows, please."
OTHER_CELL = f"%%dsh -s {OTHER}\n[[scenario:restart-pending]] Sum the sales, please."


def identity(cell_id: str) -> dict[str, object]:
    """The execute metadata the page extension sends: this notebook's id."""
    return {"dsh_notebook": {"v": 1, "id": NOTEBOOK, "path": "r.ipynb", "cell_id": cell_id}}


def kept_records(home: Path, session: str) -> list[dict[str, Any]]:
    folder = home / "dsh_notebook" / "ledger" / session
    records = []
    for path in folder.glob("*.json"):
        try:
            records.append(json.loads(path.read_text()))
        except ValueError:  # replaced while read: the next poll sees it whole
            pass
    return records


def wait_kept_pending(home: Path, session: str, timeout: float = 10) -> None:
    """Until the run's live transcript, with its card waiting, is kept (at once, by design), or
    ``timeout``: the cells after the restart say whether it was."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in kept_records(home, session):
            if record.get("interrupted") and "Approval" in str(record.get("bundle")):
                return
        time.sleep(0.1)


def wait_pending(k: Kernel, needles: tuple[str, ...], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = k.execute("%dsh pending", metadata=identity("p")).stdout
        if all(n in pending for n in needles):
            return
        time.sleep(0.2)
    raise TimeoutError(f"{needles!r} never became pending")


def shown_markdown(ran: Execution) -> str:
    return "".join(
        str(m["content"]["data"].get("text/markdown", ""))
        for m in ran.outputs
        if m["msg_type"] == "display_data"
    )


@pytest.fixture
def scripted(scripted_model: ScriptedModelServer) -> ScriptedModelServer:
    scripted_model.register(
        "restart-pending",
        Script(
            steps=(
                Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": "rows = 41 + 1\nrows"}),)),
                Step(text="There are 42 rows."),
            )
        ),
    )
    return scripted_model


def test_restart_while_an_approval_waits_then_run_all_shows_the_interrupted_transcript(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    with scripted_kernel(tmp_path, scripted.base_url) as k:
        first = k.execute(CELL, allow_stdin=True, metadata=identity("c1"))
        assert first.error is None, first.error
        wait_pending(k, ("a1: approve run_python",))
        wait_kept_pending(home, SESSION)
        sent = len(scripted.requests)

        # Restart kernel, as JupyterLab does: a shutdown request (the runtime closes at exit,
        # which cancels the card), then a new kernel process
        k.manager.restart_kernel(now=False)
        k.client.wait_for_ready(timeout=60)

        # Run All
        loaded = k.execute("%load_ext dsh_notebook", metadata=identity("c0"))
        assert loaded.error is None, loaded.error
        again = k.execute(CELL, allow_stdin=True, metadata=identity("c1"))
        assert again.reply["status"] == "ok", again.error
        shown = shown_markdown(again)
        assert "interrupted — the kernel stopped before this run ended" in shown, shown
        assert "Count the rows, please." in shown  # the prompt
        # the card as it was, honest (issue 48): nobody can decide it any more
        assert "**Approval** for `run_python`: not decided — the run was interrupted" in shown
        assert "awaiting a decision" not in shown and "waiting for you" not in shown, shown
        assert "\n**interrupted** · " in shown, shown  # the footer, not "waiting · 0 s"
        assert "rows = 41 + 1" in shown  # with the code it asked to run
        assert "saved notebook" not in shown + again.stderr
        assert "There are 42 rows." not in shown  # nothing after the restart is made up
        assert k.value("'rows' in globals()") == "False"  # the approval never ran
    assert len(scripted.requests) == sent  # nothing was sent again


def test_a_run_that_left_no_transcript_says_so_after_a_restart(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    with scripted_kernel(tmp_path, scripted.base_url) as k:
        first = k.execute(OTHER_CELL, allow_stdin=True, metadata=identity("c2"))
        assert first.error is None, first.error
        wait_pending(k, ("a1: approve run_python",))
        sent = len(scripted.requests)
        k.manager.restart_kernel(now=True)  # killed
        k.client.wait_for_ready(timeout=60)
        # as if it had been killed before it kept anything (within the run's first ms)
        shutil.rmtree(home / "dsh_notebook" / "ledger" / OTHER, ignore_errors=True)

        loaded = k.execute("%load_ext dsh_notebook", metadata=identity("c0"))
        assert loaded.error is None, loaded.error
        again = k.execute(OTHER_CELL, allow_stdin=True, metadata=identity("c2"))
        assert again.reply["status"] == "ok", again.error
        assert not shown_markdown(again)
        assert "already answered" in again.stderr, again.stderr
        assert "No transcript of that run was kept" in again.stderr, again.stderr
        assert "saved notebook" not in again.stderr
    assert len(scripted.requests) == sent
