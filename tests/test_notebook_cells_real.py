"""``notebook_cells``' choices through the real runtime (issue 25): a real ipykernel, the real
runtime and the scripted model, which records what it receives; the page is played by this test
(execute metadata with cell ids, the extension's ``hello_reply`` and ``read_notebook_reply``).

The model gets a schema with ``cell_ids``/``start``/``end``/``brief``; a call with ``cell_ids``
returns that cell alone, whole, marked ``edited since In [k]`` because the page's source differs
from what the kernel ran; ``brief`` returns one line per cell; an earlier ``%%dsh`` cell is one
line in the default call, not its transcript."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ipykernel
import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import answers_reads, play_page_until
from .kernels import PAGE_CAPABILITIES, Kernel, identity, open_link, page_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

CELLS = "mcp__notebook__notebook_cells"
ANSWER = Script(steps=(Step(text="Noted."),), repeat_last=True)
IDS = (
    "a1a1a1a1-0000-4000-8000-000000000001",
    "b2b2b2b2-0000-4000-8000-000000000002",
    "c3c3c3c3-0000-4000-8000-000000000003",
    "d4d4d4d4-0000-4000-8000-000000000004",
)
LONG = "\n".join(f"part_{i} = {i}  # " + "w" * 70 for i in range(60))  # ~5,500 characters
TRANSCRIPT = "\n".join(f"earlier answer line {i}" for i in range(30))


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        scripted_model.register("answer", ANSWER)
        yield k


def ran_as(k: Kernel, code: str, cell_id: str) -> int:
    """Run ``code`` as the page would for the cell ``cell_id``; its execution count."""
    ran = k.execute(code, metadata={**identity(cell_id), "cellId": cell_id})
    assert ran.error is None, ran.error
    return int(ran.reply["execution_count"])


def test_the_model_reads_chosen_cells_whole_brief_lines_and_edited_marks(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    scripted_model.register(
        "choose-cells",
        Script(
            steps=(
                Step(tool_calls=(ToolCall(CELLS, {"cell_ids": [IDS[0][:8]]}),)),
                Step(tool_calls=(ToolCall(CELLS, {"brief": True}),)),
                Step(tool_calls=(ToolCall(CELLS, {}),)),
                Step(text="read"),
            )
        ),
    )
    first_count = ran_as(kernel, LONG, IDS[0])
    second_count = ran_as(kernel, "y = 2", IDS[1])
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook"))
    page = [  # the first cell was edited on the page after it ran; the third is an earlier prompt
        (IDS[0], LONG + "\nextra = 1", first_count, []),
        (IDS[1], "y = 2", second_count, []),
        (IDS[2], "%%dsh -s old\nWhat is in y?\nShort please.", second_count + 1,
         [{"output_type": "display_data", "mime": ["text/markdown"], "text": TRANSCRIPT}]),
        (IDS[3], "%%dsh -s cells\n[[scenario:choose-cells]] read", None, []),
    ]  # fmt: skip
    start, first = len(kernel.iopub), len(scripted_model.requests)
    run = kernel.execute(
        "%%dsh -s cells\n[[scenario:choose-cells]] read",
        allow_stdin=True,
        metadata=identity(IDS[3]),
    )
    assert run.error is None, run.error
    answer = answers_reads(kernel, comm_id, start, page)

    play_page_until(kernel, scripted_model, "choose-cells", 4, answer, since=first)
    requests = scripted_model.requests[first:]
    tools = {t.get("name"): t for t in (requests[0].body or {}).get("tools", [])}
    schema = tools[CELLS]["input_schema"]["properties"]
    assert {"cell_ids", "start", "end", "brief"} <= set(schema)
    messages = (requests[-1].body or {}).get("messages", [])
    results = [
        json.dumps(block.get("content"), ensure_ascii=False)
        for message in messages
        for block in (message.get("content") if isinstance(message.get("content"), list) else [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert len(results) == 3, results
    chosen, brief, default = results
    assert "Showing only the cells asked for (1)" in chosen
    assert f"## cell 1 · id a1a1a1a1 · code · edited since In [{first_count}]" in chosen
    assert "part_59 = 59" in chosen and "extra = 1" in chosen  # whole
    assert "cell 2 " not in chosen
    assert f"cell 2 · id b2b2b2b2 · code · In [{second_count}]: y = 2" in brief
    assert "cell 3 · id c3c3c3c3 · code" in brief and "dsh transcript (30 lines)" in brief
    assert "cell 4 · id d4d4d4d4 · code · not run · THIS PROMPT" in brief
    assert "(dsh transcript: 30 lines, not repeated)" in default
    assert "earlier answer line" not in default


def control(k: Kernel, msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
    msg = k.client.session.msg(msg_type, content)
    k.client.control_channel.send(msg)
    while True:
        reply = k.client.control_channel.get_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return dict(reply["content"])


@pytest.mark.skipif(
    int(ipykernel.__version__.split(".")[0]) < 7, reason="subshells are an ipykernel 7 feature"
)
def test_the_context_block_names_the_cells_edited_since_they_ran(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """A page that sends on a subshell of its own (JupyterLab 4.4+ with ipykernel 7) is read from
    inside the ``%%dsh`` cell: the block the model gets gives the prompt's position and the cell
    whose page source differs from what ran, and not the cell that is unchanged."""
    edited_count = ran_as(kernel, "total = 1", IDS[0])
    same_count = ran_as(kernel, "y = 2", IDS[1])
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook"))
    subshell = control(kernel, "create_subshell_request", {})["subshell_id"]

    def page_send(data: dict[str, Any]) -> None:
        msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        msg["header"]["subshell_id"] = subshell
        kernel.client.shell_channel.send(msg)

    hello = {"v": 1, "type": "hello_reply", "version": "0.1.0",
             "capabilities": [*PAGE_CAPABILITIES, "read_notebook"]}  # fmt: skip
    page_send(hello)
    link = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
    deadline = time.monotonic() + 10
    while kernel.value(f"{link}.replies_off_main") != "True":
        assert time.monotonic() < deadline, "the page's subshell was never seen"
        time.sleep(0.1)
    prompt = "%%dsh --wait --format text -s ctx\n[[scenario:answer]] what changed?"
    page = [
        (IDS[0], "total = 1 + 1", edited_count),
        (IDS[1], "y = 2", same_count),
        (IDS[2], prompt, None),
    ]
    content = {"code": prompt, "silent": False, "store_history": True,
               "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}  # fmt: skip
    request = kernel.client.session.msg("execute_request", content, metadata=identity(IDS[2]))
    kernel.client.shell_channel.send(request)
    asked = 0
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the prompt did not finish"
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.1)
        except queue.Empty:
            continue
        data = msg["content"].get("data") if msg["msg_type"] == "comm_msg" else None
        if isinstance(data, dict) and data.get("type") == "read_notebook":
            asked += 1
            page_send({"v": 1, "type": "read_notebook_reply", "request_id": data["request_id"],
                       "path": "a.ipynb", "total_cells": len(page), "cells": [
                           {"index": i, "id": cell_id, "cell_type": "code", "source": source,
                            "execution_count": count, "agent": False, "selected": False,
                            "outputs": [], **({"running": True} if count is None else {})}
                           for i, (cell_id, source, count) in enumerate(page)]})  # fmt: skip
        if (
            msg["parent_header"].get("msg_id") == request["header"]["msg_id"]
            and msg["msg_type"] == "status"
            and msg["content"]["execution_state"] == "idle"
        ):
            break
    assert asked == 1
    block = next(
        b["text"]
        for r in reversed(scripted_model.requests)
        for m in (r.body or {}).get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "text" and b["text"].startswith("<notebook-context>")
    )
    assert "This prompt: cell 3, the %%dsh cell with id c3c3c3c3" in block
    assert (
        "Cells edited since they ran (their outputs are from the older source):\n"
        f"  cell 1 · id a1a1a1a1 · In [{edited_count}]: total = 1 + 1\n"
    ) in block
    assert "b2b2b2b2" not in block
