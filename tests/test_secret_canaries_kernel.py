"""Every secret masked at every exit, end to end (issue 49 item 2): a real ipykernel whose
environment holds ``WAREHOUSE_TOKEN``, the real runtime, the scripted model calling
``run_python`` with code that prints a canary of each kind (the environment token whole and in
two pieces, an AWS access key id, a GitHub token, a private key block), then repeating them.
Every exit is read back and counted: the model's requests, the agent cell sent to the page, every
IOPub message of the run (widget state, static transcript, ``run_output``), ``%dsh export`` (md
and json), what the kernel keeps in ``DSH_HOME``, and the next prompt's context block (a cell of
the person's that printed them). Before the policy only ``DEEPSEEK_API_KEY`` was masked: each
kind leaked at each exit. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.secret_canaries import (
    AWS_KEY_ID,
    CANARY_CODE,
    ENV_NAME,
    ENV_TOKEN,
    GITHUB_TOKEN,
    LABELS,
    PRIVATE_KEY,
    leaked,
)
from .kernels import Kernel, identity, open_link, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

REPEATED = f"{ENV_TOKEN}\n{AWS_KEY_ID}\n{GITHUB_TOKEN}\n{PRIVATE_KEY}"

SCRIPTS = {
    "secret-canaries": Script(
        steps=(
            Step(tool_calls=(ToolCall(public_tool_name("run_python"), {"code": CANARY_CODE}),)),
            Step(text=f"The code printed:\n{REPEATED}"),  # a model that repeats what it read
        )
    ),
    "secret-context": Script(steps=(Step(text="Noted."),)),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    setup = f"import os\nos.environ[{ENV_NAME!r}] = {ENV_TOKEN!r}\n%load_ext dsh_notebook"
    with scripted_kernel(
        tmp_path, scripted_model.base_url, setup=setup, allow_stdin=True,
        metadata=identity("setup"),
    ) as k:  # fmt: skip
        yield k


def comm_data(messages: list[dict[str, Any]], comm_id: str, kind: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"]
        for m in messages
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("type") == kind
    ]


def test_no_canary_of_any_kind_reaches_any_exit(
    kernel: Kernel, scripted_model: ScriptedModelServer, tmp_path: Path
) -> None:
    comm_id = open_link(kernel)
    first = len(kernel.iopub)
    run = kernel.execute(
        "%%dsh --on-approval allow -s canaries\n[[scenario:secret-canaries]] check the secrets",
        allow_stdin=True, metadata=identity("dsh-cell"),
    )  # fmt: skip
    assert run.error is None, run.error
    deadline = time.monotonic() + 120
    while kernel.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run never settled"
        kernel.drain_iopub(0.5)
    kernel.drain_iopub(1.0)
    assert kernel.value("len(token)") == str(len(ENV_TOKEN))  # the code ran, unmasked
    messages = kernel.iopub[first:]
    found: dict[str, dict[str, int]] = {}

    # the model's requests: the tool result it read names each kind, never its value
    bodies = [r.body for r in scripted_model.requests if r.scenario == "secret-canaries"]
    assert len(bodies) == 2, bodies
    result = json.dumps(bodies[1], ensure_ascii=False)
    for label in LABELS.values():
        assert label in result, (label, result[-3000:])
    # (the history also holds the model's own call, whose code spells the canaries: the
    # model wrote them; what the kernel sends is the tool result and the prompts)
    sent = [m for body in bodies for m in body["messages"] if m["role"] == "user"]
    assert "tool_result" in json.dumps(sent), sent
    found["model requests"] = leaked(sent)

    cells = comm_data(messages, comm_id, "insert_cell")
    assert len(cells) == 1, cells
    found["agent cell"] = leaked(cells)

    static = [
        m["content"]["data"]["text/markdown"]
        for m in messages
        if m["msg_type"] in ("display_data", "update_display_data")
        and "text/markdown" in m["content"].get("data", {})
    ]
    assert static and "The code printed:" in static[-1], static
    found["static transcript"] = leaked(static[-1])
    found["run_output"] = leaked(comm_data(messages, comm_id, "run_output"))
    found["every IOPub message of the run"] = leaked(
        [{k: m[k] for k in ("msg_type", "content", "metadata")} for m in messages]
    )

    markdown = kernel.execute("%dsh export canaries")
    exported = kernel.execute("%dsh export canaries --format json")
    assert "The code printed:" in markdown.stdout and '"final_response"' in exported.stdout
    found["export md"] = leaked(markdown.stdout)
    found["export json"] = leaked(exported.stdout)

    for path in (tmp_path / "home" / "dsh_notebook").rglob("*.json"):
        found[str(path.relative_to(tmp_path / "home"))] = leaked(path.read_text())

    # the next prompt's context block lists the person's cell that printed them
    mine = kernel.execute(
        f"mine = {GITHUB_TOKEN!r}; print(os.environ[{ENV_NAME!r}], {AWS_KEY_ID!r})",
        metadata=identity("mine"),
    )
    assert mine.error is None, mine.error
    again = kernel.execute(
        "%%dsh --wait -s canaries\n[[scenario:secret-context]] and now?", metadata=identity("next")
    )
    assert again.error is None, again.error
    (request,) = [r.body for r in scripted_model.requests if r.scenario == "secret-context"]
    blocks = request["messages"][-1]["content"]
    block = next(b["text"] for b in blocks if b["text"].startswith("<notebook-context>"))
    assert "mine = '[masked: GitHub token]'" in block, block
    found["context block"] = leaked(blocks)

    assert {exit: kinds for exit, kinds in found.items() if kinds} == {}
