"""Corrupt files under ``DSH_HOME`` (issue 24, item 6), in the in-process kernel as nbclient drives
it (no stdin) with the page's notebook identity in each cell's metadata, the runtime a
``MockRuntime``: each cell shows one line that says what to fix, or a safe fallback, never a
traceback."""

from __future__ import annotations

import json
import time

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import ExecutionResult

from dsh_notebook.testing.kernel import InProcessKernel

NOTEBOOK = "c" * 32
SESSION = f"nb-{NOTEBOOK[:12]}"  # the notebook's default session, from its identity
CELL = "%%dsh --wait\n[[reply:ok]] Which region fell behind?"


def identity(cell_id: str = "c1") -> dict[str, object]:
    """The execute metadata the page extension sends: this notebook's id."""
    return {"dsh_notebook": {"v": 1, "id": NOTEBOOK, "path": "x.ipynb", "cell_id": cell_id}}


def execute(
    kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], code: str, cell_id: str
) -> tuple[ExecutionResult, str, str]:
    """Run ``code`` as the cell ``cell_id`` of the notebook: its result, stdout and stderr."""
    capsys.readouterr()
    kernel.driver.metadata = identity(cell_id)  # type: ignore[union-attr]
    ran = kernel.shell.run_cell(code)
    out = capsys.readouterr()
    return ran, out.out, out.err


def no_traceback(ran: ExecutionResult, shown: str) -> None:
    """Nothing but a one-line ``UsageError`` (IPython shows no traceback for it)."""
    assert "Traceback" not in shown and "Error:" not in shown.replace("UsageError:", ""), shown
    failure = ran.error_in_exec or ran.error_before_exec
    assert failure is None or isinstance(failure, UsageError), repr(failure)


def test_a_lock_path_that_is_a_folder_is_one_line_in_the_cell(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = dsh_headless_kernel
    home = kernel.agent.resolved_home() / "dsh_notebook"
    lock = home / "locks" / f"{SESSION}.lock"
    lock.mkdir(parents=True)
    ran, out, err = execute(kernel, capsys, CELL, "c1")
    assert not ran.success and kernel.peer.prompts == []
    no_traceback(ran, out + err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(lock) in lines[0] and "is a folder" in lines[0], lines
    lock.rmdir()  # what the line says to do
    again, out, err = execute(kernel, capsys, CELL, "c2")
    assert again.success, out + err
    assert kernel.peer.prompts


def test_restart_and_run_all_over_a_corrupt_kept_transcript_and_index(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run a prompt; restart; a kept transcript that is a JSON list and a conversations index
    with NaN and huge times: Run All skips the prompt with its one-line note, and
    ``%dsh sessions`` lists the conversation with a date."""
    kernel = dsh_headless_kernel
    home = kernel.agent.resolved_home() / "dsh_notebook"
    first, out, err = execute(kernel, capsys, CELL, "c1")
    assert first.success, out + err
    deadline = time.monotonic() + 20
    while not list((home / "ledger" / SESSION).glob("*.json")):  # kept after the settle
        assert time.monotonic() < deadline, "the transcript was never kept"
        time.sleep(0.05)
    kernel.reload()  # a restarted kernel: a new extension instance, the same DSH_HOME
    sent = len(kernel.peer.prompts)
    for kept in (home / "ledger" / SESSION).glob("*.json"):
        kept.write_text('["not", "a", "transcript"]')
    index = home / "conversations" / f"{SESSION}.json"
    data = json.loads(index.read_text())
    entries = data.get("sessions", data)  # the shape this version writes, or the one before
    entries[SESSION]["started"] = 1e308
    entries["other-session"] = {"first_prompt": "an older one", "prompts": 1}
    text = json.dumps(data).replace('"prompts": 1}', '"prompts": 1, "started": NaN}')
    index.write_text(text.replace("1e+308", "1e308"))
    skipped, out, err = execute(kernel, capsys, CELL, "c1")  # Run All
    assert skipped.success, out + err
    no_traceback(skipped, out + err)
    assert "already answered" in err and "--force" in err
    listed, out, err = execute(kernel, capsys, "%dsh sessions", "c2")
    assert listed.success, out + err
    no_traceback(listed, out + err)
    assert SESSION in out and "Which region fell behind?" in out
    assert len(kernel.peer.prompts) == sent  # nothing was sent again
