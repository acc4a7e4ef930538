"""No piece of the API key reaches any exit, end to end: a real ipykernel whose key is the
canary (``DEEPSEEK_API_KEY``), the real runtime, the scripted model calling ``run_python`` with
the three prints (the key, ``key[:12]``, the key in two halves on two lines) and then repeating
what it read; the page is played by this test (``tests/test_agent_cells_kernel.py``). Every
exit is read back and counted: the agent cell sent to the page, the model's requests, the
static transcript, every IOPub message of the run (widget state, ``run_output``), ``%dsh
export`` (md and json), the kept transcript and the conversations index; then every ``%dsh``
command's output (``%dsh pending`` listing a card whose code holds the key, the stdin prompt of
a ``--wait`` run, commands given the key as a word) and the errors they raise. Nothing leaves
127.0.0.1."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .canary import CANARY_CODE, KEY, PRINTED, key_pieces
from .kernels import Execution, Kernel, identity, open_link, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

PASTED_CALL = ToolCall(public_tool_name("run_python"), {"code": f"pasted = {KEY!r}\nlen(pasted)"})
"""A call whose code holds a key pasted in a cell (its card shows the code whole)."""

SCRIPTS = {
    "key-canary": Script(
        steps=(
            Step(tool_calls=(ToolCall(public_tool_name("run_python"), {"code": CANARY_CODE}),)),
            Step(text=f"The code printed:\n{PRINTED}"),  # a model that repeats what it read
        )
    ),
    "canary-context": Script(steps=(Step(text="Noted."),)),
    "canary-pending": Script(steps=(Step(tool_calls=(PASTED_CALL,)), Step(text="Not run."))),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(
        tmp_path,
        scripted_model.base_url,
        setup="%load_ext dsh_notebook",
        api_key=KEY,  # the scripted model takes any key; the kernel must mask this one
        allow_stdin=True,
        metadata=identity("setup"),
    ) as k:
        yield k


def comm_data(messages: list[dict[str, Any]], comm_id: str, kind: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"]
        for m in messages
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("type") == kind
    ]


def test_no_piece_of_the_key_reaches_any_exit(
    kernel: Kernel, scripted_model: ScriptedModelServer, tmp_path: Path
) -> None:
    comm_id = open_link(kernel)
    first = len(kernel.iopub)
    run = kernel.execute(
        "%%dsh --on-approval allow -s canary\n[[scenario:key-canary]] check the key",
        allow_stdin=True,
        metadata=identity("dsh-cell"),
    )
    assert run.error is None, run.error
    deadline = time.monotonic() + 120
    while kernel.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run never settled"
        kernel.drain_iopub(0.5)
    kernel.drain_iopub(1.0)
    assert kernel.value("'key' in globals() and len(key)") == str(len(KEY))  # the code ran
    messages = kernel.iopub[first:]
    counts: dict[str, int] = {}

    # the agent cell sent to the page (and saved with the notebook)
    cells = comm_data(messages, comm_id, "insert_cell")
    assert len(cells) == 1, cells
    counts["agent cell"] = key_pieces(cells)

    # the model's requests: the tool result it read
    bodies = [r.body for r in scripted_model.requests if r.scenario == "key-canary"]
    assert len(bodies) == 2 and "[masked: DEEPSEEK_API_KEY]" in json.dumps(bodies[1])
    counts["model requests"] = key_pieces(bodies)

    # the static transcript that replaced the widget (what the notebook saves)
    static = [
        m["content"]["data"]["text/markdown"]
        for m in messages
        if m["msg_type"] in ("display_data", "update_display_data")
        and "text/markdown" in m["content"].get("data", {})
    ]
    assert static and "The code printed:" in static[-1], static
    counts["static transcript"] = key_pieces(static[-1])
    counts["run_output"] = key_pieces(comm_data(messages, comm_id, "run_output"))
    counts["every IOPub message of the run"] = key_pieces(
        [{k: m[k] for k in ("msg_type", "content", "metadata")} for m in messages]
    )

    # %dsh export
    markdown = kernel.execute("%dsh export canary")
    exported = kernel.execute("%dsh export canary --format json")
    assert "The code printed:" in markdown.stdout and '"final_response"' in exported.stdout
    counts["export md"] = key_pieces(markdown.stdout)
    counts["export json"] = key_pieces(exported.stdout)

    # what the kernel keeps in DSH_HOME: the kept transcript, the conversations index
    for path in (tmp_path / "home" / "dsh_notebook").rglob("*.json"):
        counts[str(path.relative_to(tmp_path / "home"))] = key_pieces(path.read_text())
    assert any("ledger" in name for name in counts) and any("conversations" in n for n in counts)

    # the notebook context block of the next prompt lists the cells run since: one holds the key
    pasted = kernel.execute(f"pasted = {KEY!r}", metadata=identity("pasted"))
    assert pasted.error is None, pasted.error
    again = kernel.execute(
        "%%dsh --wait -s canary\n[[scenario:canary-context]] and now?", metadata=identity("next")
    )
    assert again.error is None, again.error
    (request,) = [r.body for r in scripted_model.requests if r.scenario == "canary-context"]
    blocks = request["messages"][-1]["content"]
    block = next(b["text"] for b in blocks if b["text"].startswith("<notebook-context>"))
    assert "pasted = '[masked: DEEPSEEK_API_KEY]'" in block, block  # the cell is listed, masked
    # (the history before it holds the scripted model's own reply, which repeats the key)
    counts["context block"] = key_pieces(blocks)

    assert counts == dict.fromkeys(counts, 0), counts  # every exit's count, then the details
    assert cells[0]["outputs"][0]["text"] == "[masked: DEEPSEEK_API_KEY]\n" * 4, cells[0]["outputs"]


def shown(run: Execution) -> dict[str, Any]:
    """Everything a cell's execution showed: its outputs (streams, displays, errors) and the
    prompts it asked on stdin (not ``execute_input``, the kernel's echo of the cell's code)."""
    outputs = [m["content"] for m in run.outputs if m["msg_type"] != "execute_input"]
    return {"outputs": outputs, "stdin": run.stdin_prompts}


def test_no_piece_of_the_key_in_any_dsh_command_output(kernel: Kernel) -> None:
    """``%dsh pending`` lists a card whose code holds the key; the stdin prompt of a ``--wait``
    run shows the same code; every other command prints, and some are given the key as a word
    (an id, a session, an unknown command): no piece of it in any output or error."""
    run = kernel.execute(
        "%%dsh -s pending\n[[scenario:canary-pending]] clean up", allow_stdin=True,
        metadata=identity("pending-cell"),
    )  # fmt: skip
    assert run.error is None, run.error
    deadline = time.monotonic() + 60
    while not re.search(r"^a\d+: approve run_python", kernel.execute("%dsh pending").stdout, re.M):
        assert time.monotonic() < deadline, "the card never became pending"
        time.sleep(0.2)
    counts: dict[str, int] = {}
    pending = kernel.execute("%dsh pending")
    assert "pasted = '[masked: DEEPSEEK_API_KEY]'" in pending.stdout, pending.stdout  # the card's code, masked
    counts["%dsh pending"] = key_pieces(shown(pending))
    commands = [
        "status", "sessions", "sessions --all", "config", "help", "cwd", f"allow {KEY}",
        f"reject {KEY} --note {KEY[:12]}", f"answer {KEY} yes", f"dismiss {KEY}", f"undo {KEY}",
        f"export {KEY}", f"resume {KEY}x/", f"new {KEY}", KEY, f"cwd /nowhere/{KEY}",
    ]  # fmt: skip
    for command in commands:
        counts[f"%dsh {command}"] = key_pieces(shown(kernel.execute(f"%dsh {command}")))
    key = re.search(r"^(a\d+):", pending.stdout, re.M)
    assert key is not None
    rejected = kernel.execute(f"%dsh reject {key.group(1)} --note 'not {KEY[:12]}'")
    assert "rejected" in rejected.stdout, rejected.stdout
    counts["%dsh reject"] = key_pieces(shown(rejected))
    counts["%dsh wait"] = key_pieces(shown(kernel.execute("%dsh wait")))  # the run, settled
    # a --wait run asks on stdin, showing the card's code: rejected there
    waited = kernel.execute(
        "%%dsh --wait -s pending-wait\n[[scenario:canary-pending]] clean up",
        allow_stdin=True, stdin_answers=["n"], metadata=identity("wait-cell"),
    )  # fmt: skip
    assert waited.error is None, waited.error
    assert waited.stdin_prompts and "pasted = '[masked: DEEPSEEK_API_KEY]'" in waited.stdin_prompts[0], waited
    counts["%%dsh --wait (stdin)"] = key_pieces(shown(waited))
    assert counts == dict.fromkeys(counts, 0), counts
