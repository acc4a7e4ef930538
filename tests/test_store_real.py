"""Corrupt files under ``DSH_HOME`` in a real ipykernel with the real runtime (issue 24, item 6):
each cell shows one line that says what to fix, or a safe fallback, never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import Execution, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

NOTEBOOK = "c" * 32
SESSION = f"nb-{NOTEBOOK[:12]}"  # the notebook's default session, from its identity
CELL = "%%dsh --wait\n[[scenario:plain]] Which region fell behind?"


def identity(cell_id: str = "c1") -> dict[str, object]:
    """The execute metadata the page extension sends: this notebook's id."""
    return {"dsh_notebook": {"v": 1, "id": NOTEBOOK, "path": "x.ipynb", "cell_id": cell_id}}


def no_traceback(ran: Execution) -> None:
    shown = ran.stdout + ran.stderr + (ran.error or "")
    assert "Traceback" not in shown and "Error:" not in shown.replace("UsageError:", ""), shown
    tracebacks = [m for m in ran.outputs if m["msg_type"] == "error" and m["content"]["traceback"]]
    assert all(len(m["content"]["traceback"]) <= 1 for m in tracebacks), tracebacks


def test_a_lock_path_that_is_a_folder_is_one_line_in_the_cell(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    lock = tmp_path / "home" / "dsh_notebook" / "locks" / f"{SESSION}.lock"
    lock.mkdir(parents=True)
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        ran = k.execute(CELL, metadata=identity())
        assert ran.reply["status"] == "error" and not scripted_model.requests
        no_traceback(ran)
        lines = [line for line in ran.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and str(lock) in lines[0] and "is a folder" in lines[0], lines
        lock.rmdir()  # what the line says to do
        again = k.execute(CELL, metadata=identity("c2"))
        assert again.error is None, again.error
        assert scripted_model.requests


def test_restart_and_run_all_over_a_corrupt_kept_transcript_and_index(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """Run a prompt; restart; a kept transcript that is a JSON list and a conversations index
    with NaN and huge times: Run All skips the prompt with its one-line note, and
    ``%dsh sessions`` lists the conversation with a date."""
    home = tmp_path / "home" / "dsh_notebook"
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        first = k.execute(CELL, metadata=identity())
        assert first.error is None, first.error
        deadline = time.monotonic() + 20
        while not list((home / "ledger" / SESSION).glob("*.json")):  # kept after the settle
            assert time.monotonic() < deadline, "the transcript was never kept"
            time.sleep(0.1)
    sent = len(scripted_model.requests)
    for kept in (home / "ledger" / SESSION).glob("*.json"):
        kept.write_text('["not", "a", "transcript"]')
    index = home / "conversations" / f"{SESSION}.json"
    data = json.loads(index.read_text())
    entries = data.get("sessions", data)  # the shape this version writes, or the one before
    entries[SESSION]["started"] = 1e308
    entries["other-session"] = {"first_prompt": "an older one", "prompts": 1}
    text = json.dumps(data).replace('"prompts": 1}', '"prompts": 1, "started": NaN}')
    index.write_text(text.replace("1e+308", "1e308"))
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:  # Restart & Run All
        skipped = k.execute(CELL, metadata=identity())
        assert skipped.reply["status"] == "ok", skipped.error
        no_traceback(skipped)
        assert "already answered" in skipped.stderr and "--force" in skipped.stderr
        listed = k.execute("%dsh sessions", metadata=identity("c2"))
        assert listed.reply["status"] == "ok", listed.error
        no_traceback(listed)
        assert SESSION in listed.stdout and "Which region fell behind?" in listed.stdout
    assert len(scripted_model.requests) == sent  # nothing was sent again
