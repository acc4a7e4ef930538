"""Whose call is it: a ``run_python`` call is decided by the run whose agent made it, in a real
ipykernel with the real runtime and the scripted model, the page played by this test over the
kernel's own channels (execute metadata with cell ids, the extension's ``hello_reply``).

- A subagent's call belongs to its root's run.
- ``notebook_cells`` marks the prompt cell of the run that asked, as the model reads it.

Two sessions in flight and Run All on one session (the kernel's side alone) are in
``test_run_ownership_in_process``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import link_messages, pending_key, play_page_until, wait_for
from .kernels import PAGE_CAPABILITIES, Kernel, identity, open_link, page_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

RUN_PYTHON = "mcp__notebook__run_python"
CHILD_CODE = "child_ran = 'by the child'"


def run_python(code: str, delay: float = 0.0) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),), delay=delay)


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    child_prompt = "[[scenario:own-child]] run it"
    scripted_model.register(
        "own-root",
        Script(
            steps=(
                Step(
                    tool_calls=(ToolCall("subagent", {"description": "c", "prompt": child_prompt}),)
                ),
                Step(text="root waits"),
            ),
            after_last=Step(text="root done"),
        ),
    )
    scripted_model.register(
        "own-child", Script(steps=(run_python(CHILD_CODE, 3.0), Step(text="child done")))
    )
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def test_a_subagents_call_belongs_to_its_roots_run(kernel: Kernel) -> None:
    """The child's call waits for a click in its root's cell, though a newer run on another
    session (``--on-approval reject``) is streaming when it comes."""
    comm_id = open_link(kernel)
    start = len(kernel.iopub)
    root = kernel.execute(
        "%%dsh -s parent\n[[scenario:own-root]] go", allow_stdin=True, metadata=identity("root")
    )
    other = kernel.execute(
        "%%dsh -s other --on-approval reject\n[[scenario:slow-b]] go",
        allow_stdin=True,
        metadata=identity("other"),
    )
    assert root.error is None and other.error is None
    key = wait_for(kernel, "the child's call never became pending", lambda: pending_key(kernel))
    waiting = wait_for(
        kernel,
        "no waiting signal named a cell",
        lambda: [m for m in link_messages(kernel, comm_id, "waiting", start) if m.get("cells")],
    )
    assert [c["cell_id"] for c in waiting[-1]["cells"]] == ["root"]
    assert kernel.execute(f"%dsh allow {key}").error is None
    wait_for(
        kernel,
        "the child's code never ran",
        lambda: kernel.value("globals().get('child_ran')") == "'by the child'",
    )
    cells = wait_for(
        kernel, "no agent cell", lambda: link_messages(kernel, comm_id, "insert_cell", start)
    )
    assert [c["anchor"] for c in cells] == ["root"]


CELL_IDS = ("3f9a1c2e-0000-4000-8000-00000000aaaa", "77aa01bb-0000-4000-8000-00000000bbbb")


def test_notebook_cells_marks_the_prompt_cell_of_the_run_that_asked(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """Through the real runtime: the model's ``notebook_cells`` result gives each cell its short
    id and marks the calling run's ``%%dsh`` cell THIS PROMPT (the page is played here)."""
    scripted_model.register(
        "read-cells",
        Script(
            steps=(
                Step(tool_calls=(ToolCall("mcp__notebook__notebook_cells", {}),)),
                Step(text="read"),
            )
        ),
    )
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook"))
    start = len(kernel.iopub)
    first = len(scripted_model.requests)
    run = kernel.execute(
        "%%dsh -s cells\n[[scenario:read-cells]] which cell am I?",
        allow_stdin=True,
        metadata=identity(CELL_IDS[1]),
    )
    assert run.error is None, run.error
    answered: set[str] = set()

    def answer() -> None:
        for ask in link_messages(kernel, comm_id, "read_notebook", start):
            if ask["request_id"] not in answered:
                answered.add(ask["request_id"])
                reply = {"v": 1, "type": "read_notebook_reply", "request_id": ask["request_id"],
                         "path": "a.ipynb", "total_cells": 2, "cells": [
                             {"index": i, "id": cell_id, "cell_type": "code",
                              "source": "x = 1" if i == 0 else "%%dsh -s cells\nwhich cell am I?",
                              "execution_count": None, "agent": False, "selected": i == 1,
                              "outputs": []}
                             for i, cell_id in enumerate(CELL_IDS)]}  # fmt: skip
                msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
                kernel.client.shell_channel.send(msg)

    play_page_until(kernel, scripted_model, "read-cells", 2, answer, since=first)
    results = [
        block
        for request in scripted_model.requests[first:]
        for message in (request.body or {}).get("messages", [])
        for block in (message.get("content") if isinstance(message.get("content"), list) else [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    text = json.dumps(results, ensure_ascii=False)
    assert "## cell 1 · id 3f9a1c2e · code" in text
    assert "## cell 2 · id 77aa01bb · code · not run · THIS PROMPT" in text
    assert text.count("THIS PROMPT") == 1
