"""Kernel level (ipykernel 6 and 7 over jupyter_client): the identity the extension puts in each
execute_request is what ``current_identity`` reads in that cell, and ``FrontendLink`` speaks the
comm protocol exactly as the extension sees it."""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .kernels import Kernel, kernel_pythons

REPO = Path(__file__).resolve().parents[1]
ID_A = "a" * 32
ID_B = "0123456789abcdef0123456789abcdef"
PRINT_IDENTITY = (
    "from dsh_notebook.frontend.identity import current_identity\n"
    "print(repr(current_identity(get_ipython().kernel)))"
)


@pytest.fixture(params=kernel_pythons(), scope="module")
def kernel(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kernel]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    k = Kernel(env=env, cwd=str(tmp_path_factory.mktemp("kernel")), python=str(request.param))
    try:
        yield k
    finally:
        k.shutdown()


def identity(notebook_id: str, cell_id: str | None, **extra: Any) -> dict[str, Any]:
    return {"v": 1, "id": notebook_id, "path": "work/a.ipynb", "cell_id": cell_id, **extra}


def send_execute(k: Kernel, code: str, metadata: dict[str, Any]) -> str:
    content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
               "allow_stdin": False, "stop_on_error": True}  # fmt: skip
    msg = k.client.session.msg("execute_request", content, metadata=metadata)
    k.client.shell_channel.send(msg)
    return str(msg["header"]["msg_id"])


def collect(k: Kernel, msg_ids: list[str], timeout: float = 60) -> dict[str, list[dict[str, Any]]]:
    """iopub messages per request until every request went idle."""
    got: dict[str, list[dict[str, Any]]] = {m: [] for m in msg_ids}
    idle: set[str] = set()
    deadline = time.monotonic() + timeout
    while idle != set(msg_ids):
        assert time.monotonic() < deadline, f"requests did not finish: {set(msg_ids) - idle}"
        try:
            msg = k.client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            continue
        parent = msg["parent_header"].get("msg_id")
        if parent in got:
            got[parent].append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle.add(parent)
    return got


def stdout(messages: list[dict[str, Any]]) -> str:
    errors = [m["content"]["evalue"] for m in messages if m["msg_type"] == "error"]
    assert not errors, errors
    return "".join(
        m["content"]["text"]
        for m in messages
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    ).strip()


@pytest.mark.timeout(180)
def test_each_queued_request_reads_its_own_identity(kernel: Kernel) -> None:
    """Run All: requests queued back to back, each cell sees the metadata of its own request."""
    metadatas = [
        {"cellId": "c0", "dsh_notebook": identity(ID_A, "c0")},
        {"cellId": "c1", "dsh_notebook": identity(ID_B, "c1", forked_from=ID_A)},
        {"cellId": "c2"},  # no extension: no identity
        {"dsh_notebook": {**identity(ID_A, "c3"), "v": 2}},  # a future version: ignored
        {"cellId": "c2", "dsh_notebook": identity(ID_A, "c4")},
    ]
    ids = [send_execute(kernel, PRINT_IDENTITY, m) for m in metadatas]
    got = collect(kernel, ids)
    out = [stdout(got[i]) for i in ids]
    assert out[0] == (
        f"NotebookIdentity(id='{ID_A}', path='work/a.ipynb', cell_id='c0', forked_from=None, "
        "private=False)"
    )
    assert out[1] == (
        f"NotebookIdentity(id='{ID_B}', path='work/a.ipynb', cell_id='c1', forked_from='{ID_A}', "
        "private=False)"
    )
    assert out[2] == "None"
    assert out[3] == "None"
    assert f"id='{ID_A}'" in out[4] and "cell_id='c4'" in out[4]


def test_session_name_and_plain_execute(kernel: Kernel) -> None:
    # its own import: under pytest-xdist the module's earlier tests may run on another worker
    assert (
        kernel.execute("from dsh_notebook.frontend.identity import current_identity").error is None
    )
    assert kernel.value("current_identity(get_ipython().kernel)") == "None"
    ids = [
        send_execute(
            kernel,
            "print(current_identity(get_ipython().kernel).session_name)",
            {"dsh_notebook": identity(ID_B, "c9")},
        )
    ]
    assert stdout(collect(kernel, ids)[ids[0]]) == "nb-0123456789ab"


def test_frontend_link_over_a_real_comm(kernel: Kernel) -> None:
    opened = send_execute(
        kernel,
        "from dsh_notebook.frontend import FrontendLink\nlink = FrontendLink()\nprint(link.open())",
        {},
    )
    messages = collect(kernel, [opened])[opened]
    assert stdout(messages) == "True"
    comm_opens = [m for m in messages if m["msg_type"] == "comm_open"]
    assert len(comm_opens) == 1
    assert comm_opens[0]["content"]["target_name"] == "dsh_notebook.frontend"
    hello = comm_opens[0]["content"]["data"]
    assert hello["v"] == 1 and hello["type"] == "hello"
    comm_id = comm_opens[0]["content"]["comm_id"]

    # before the reply the link is a no-op
    assert kernel.value("link.present") == "False"
    assert (
        kernel.value("link.send_waiting([{'cell_id': 'c1', 'kind': 'approval', 'label': 'bash'}])")
        == "False"
    )

    # the extension answers, as JupyterLab sends it: a comm_msg on the shell channel
    def comm_msg(data: Any) -> None:
        msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        kernel.client.shell_channel.send(msg)

    comm_msg({"v": 1, "type": "unknown"})
    comm_msg(
        {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": ["identity", "waiting"]}
    )
    deadline = time.monotonic() + 30
    waiting: list[dict[str, Any]] = []
    while not waiting and time.monotonic() < deadline:  # the kept state is sent on the reply
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            continue
        if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm_id:
            waiting.append(msg["content"]["data"])
    assert waiting == [
        {"v": 1, "type": "waiting", "count": 1,
         "cells": [{"cell_id": "c1", "kind": "approval", "label": "bash"}]}
    ]  # fmt: skip
    assert kernel.value("(link.present, sorted(link.capabilities))") == (
        "(True, ['identity', 'waiting'])"
    )
    # from another thread (the UI pump's), as the kernel integration calls it
    threaded = send_execute(
        kernel,
        "import threading\n"
        "cell = {'cell_id': 'c2', 'kind': 'question', 'label': 'Which color?'}\n"
        "t = threading.Thread(target=lambda: print(link.send_waiting([cell])))\n"
        "t.start(); t.join()",
        {},
    )
    got = collect(kernel, [threaded])[threaded]
    deadline = time.monotonic() + 10
    sent = [m["content"]["data"] for m in got if m["msg_type"] == "comm_msg"]
    while not sent and time.monotonic() < deadline:  # ipykernel 7: no parent from a thread
        with contextlib.suppress(queue.Empty):
            msg = kernel.client.get_iopub_msg(timeout=0.2)
            if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm_id:
                sent.append(msg["content"]["data"])
    assert sent == [
        {"v": 1, "type": "waiting", "count": 1,
         "cells": [{"cell_id": "c2", "kind": "question", "label": "Which color?"}]}
    ]  # fmt: skip
    cleared = send_execute(kernel, "print(link.send_waiting([]))", {})
    messages = collect(kernel, [cleared])[cleared]
    assert stdout(messages) == "True"
    sent = [m["content"]["data"] for m in messages if m["msg_type"] == "comm_msg"]
    assert sent == [{"v": 1, "type": "waiting", "count": 0, "cells": []}]
