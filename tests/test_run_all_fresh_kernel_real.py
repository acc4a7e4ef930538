"""Run All on a fresh kernel (issue 49 item 5): the page's first ``hello_reply`` is queued on
the main shell behind every cell of the Run All, so the kernel knew the extension only after the
queue ran and every ``%%dsh`` cell of it got no page context. The extension sends ``hello_reply``
again on its own subshell once that started (``link.ts``, ``announceSubshell``), and the first
prompt from the page (its identity metadata) waits briefly for it.

A real ipykernel 7, the real runtime and the scripted model, which records what it receives; the
page is played by this test as JupyterLab 4.4+ plays it: the prompt is already running when the
page's subshell starts and its ``hello_reply`` comes there; the main-shell one waits in the
queue behind the prompt. The block the model gets gives the prompt's position (the page was
read), which it cannot without the page's answer."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ipykernel
import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step

from .fake_page import cell_id
from .helpers.page_window import page_reply
from .kernels import PAGE_CAPABILITIES, Kernel, identity, page_kernel

pytestmark = [
    pytest.mark.real_runtime,
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        int(ipykernel.__version__.split(".")[0]) < 7, reason="subshells are an ipykernel 7 feature"
    ),
]

PROMPT = "%%dsh --wait --format text -s runall\n[[scenario:answer]] where am I?"
LINK = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        scripted_model.register("answer", Script(steps=(Step(text="Noted."),), repeat_last=True))
        yield k


def control(k: Kernel, msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
    msg = k.client.session.msg(msg_type, content)
    k.client.control_channel.send(msg)
    while True:
        reply = k.client.control_channel.get_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return dict(reply["content"])


def test_the_first_prompt_of_a_run_all_on_a_fresh_kernel_gets_the_page(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    # the setup cell (%load_ext from the page) opened the link; nobody has answered its hello
    assert kernel.value(f"{LINK}.open()") == "True"
    assert kernel.value(f"{LINK}.present") == "False"
    comm_id = str(kernel.value(f"{LINK}._comm.comm_id")).strip("'")
    cells = [
        {"index": i, "id": cell_id(i + 1), "cell_type": "code", "source": source,
         "execution_count": None, "agent": False, "selected": False, "outputs": []}
        for i, source in enumerate(["%load_ext dsh_notebook", PROMPT])
    ]  # fmt: skip
    hello = {"v": 1, "type": "hello_reply", "version": "0.1.0",
             "capabilities": [*PAGE_CAPABILITIES, "read_notebook"]}  # fmt: skip

    def send(data: dict[str, Any], subshell: str | None = None) -> None:
        msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell is not None:
            msg["header"]["subshell_id"] = subshell
        kernel.client.shell_channel.send(msg)

    first = len(scripted_model.requests)
    content = {"code": PROMPT, "silent": False, "store_history": True,
               "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}  # fmt: skip
    request = kernel.client.session.msg("execute_request", content, metadata=identity(cell_id(2)))
    kernel.client.shell_channel.send(request)
    send(hello)  # the page's first answer: on the main shell, queued behind the prompt
    subshell: str | None = None
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the prompt did not finish"
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.1)
        except queue.Empty:
            continue
        mine = msg["parent_header"].get("msg_id") == request["header"]["msg_id"]
        if mine and msg["msg_type"] == "execute_input" and subshell is None:
            # the prompt runs: now the page's subshell starts and the page says hello there
            subshell = control(kernel, "create_subshell_request", {})["subshell_id"]
            send(hello, subshell)
            send({"v": 1, "type": "subshell_ready"}, subshell)
        data = msg["content"].get("data") if msg["msg_type"] == "comm_msg" else None
        if isinstance(data, dict) and data.get("type") == "read_notebook":
            send(page_reply(data, cells), subshell)
        if mine and msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    block = next(
        b["text"]
        for r in scripted_model.requests[first:]
        for m in (r.body or {}).get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "text" and b["text"].startswith("<notebook-context>")
    )
    assert "Notebook: a.ipynb (2 cells)" in block
    assert f"This prompt: cell 2, the %%dsh cell with id {cell_id(2)[:8]}" in block
