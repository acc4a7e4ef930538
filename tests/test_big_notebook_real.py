"""A 1,000-cell notebook through the real runtime (issue 49 item 5): a real ipykernel, the real
runtime and the scripted model, which records what it receives; the page is played by this test
on a subshell of its own (as JupyterLab 4.4+ with ipykernel 7 does), answering each
``read_notebook`` with the cells it asks for (``helpers.page_window``: the mirror of the
extension's ``chosenPositions``, at most 500 cells a reply).

The prompt is cell 900: the context block gives its position and the notebook's size,
``notebook_cells`` lists it with its neighbours, and cell 950 is read by its short id."""

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

from .fake_page import cell_id
from .helpers.page_window import page_reply
from .kernels import PAGE_CAPABILITIES, Kernel, identity, open_link, page_kernel

pytestmark = [
    pytest.mark.real_runtime,
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        int(ipykernel.__version__.split(".")[0]) < 7, reason="subshells are an ipykernel 7 feature"
    ),
]

CELLS = "mcp__notebook__notebook_cells"
PROMPT = "%%dsh --wait --format text -s big\n[[scenario:big]] where am I?"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def control(k: Kernel, msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
    msg = k.client.session.msg(msg_type, content)
    k.client.control_channel.send(msg)
    while True:
        reply = k.client.control_channel.get_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return dict(reply["content"])


def notebook() -> list[dict[str, Any]]:
    cells = [
        {"index": i, "id": cell_id(i + 1), "cell_type": "code", "source": f"x_{i + 1} = {i + 1}",
         "execution_count": None, "agent": False, "selected": False, "outputs": []}
        for i in range(1000)
    ]  # fmt: skip
    cells[899].update(source=PROMPT, running=True, selected=True)
    return cells


def test_a_1000_cell_notebook_whose_prompt_is_cell_900(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    scripted_model.register(
        "big",
        Script(
            steps=(
                Step(tool_calls=(ToolCall(CELLS, {}),)),
                Step(tool_calls=(ToolCall(CELLS, {"cell_ids": [cell_id(950)[:8]]}),)),
                Step(text="read"),
            )
        ),
    )
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook"))
    subshell = control(kernel, "create_subshell_request", {})["subshell_id"]

    def page_send(data: dict[str, Any]) -> None:
        msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        msg["header"]["subshell_id"] = subshell
        kernel.client.shell_channel.send(msg)

    page_send({"v": 1, "type": "hello_reply", "version": "0.1.0",
               "capabilities": [*PAGE_CAPABILITIES, "read_notebook"]})  # fmt: skip
    link = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
    deadline = time.monotonic() + 10
    while kernel.value(f"{link}.replies_off_main") != "True":
        assert time.monotonic() < deadline, "the page's subshell was never seen"
        time.sleep(0.1)
    cells, first = notebook(), len(scripted_model.requests)
    content = {"code": PROMPT, "silent": False, "store_history": True,
               "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}  # fmt: skip
    request = kernel.client.session.msg("execute_request", content, metadata=identity(cell_id(900)))
    kernel.client.shell_channel.send(request)
    asked: list[dict[str, Any]] = []
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the prompt did not finish"
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.1)
        except queue.Empty:
            continue
        data = msg["content"].get("data") if msg["msg_type"] == "comm_msg" else None
        if isinstance(data, dict) and data.get("type") == "read_notebook":
            asked.append(data)
            reply = page_reply(data, cells)
            assert len(reply["cells"]) <= 500
            page_send(reply)
        if (
            msg["parent_header"].get("msg_id") == request["header"]["msg_id"]
            and msg["msg_type"] == "status"
            and msg["content"]["execution_state"] == "idle"
        ):
            break
    assert len(asked) == 3, asked  # the context block's read, then one per notebook_cells call
    assert asked[0]["around"] == cell_id(900)
    requests = scripted_model.requests[first:]
    block = next(
        b["text"]
        for m in (requests[0].body or {}).get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "text" and b["text"].startswith("<notebook-context>")
    )
    assert "Notebook: a.ipynb (1,000 cells)" in block
    assert f"This prompt: cell 900, the %%dsh cell with id {cell_id(900)[:8]}" in block
    results = [
        json.dumps(part.get("content"), ensure_ascii=False)
        for message in (requests[-1].body or {}).get("messages", [])
        for part in (message.get("content") if isinstance(message.get("content"), list) else [])
        if isinstance(part, dict) and part.get("type") == "tool_result"
    ]
    assert len(results) == 2, results
    listing, by_id = results
    assert "1000 cell(s)" in listing and "not listed: cells 1-" in listing
    assert f"## cell 900 · id {cell_id(900)[:8]} · code · running · THIS PROMPT" in listing
    assert "x_899 = 899" in listing and "x_901 = 901" in listing
    assert "Showing only the cells asked for (950)" in by_id and "x_950 = 950" in by_id
    assert "No cell has id" not in by_id
