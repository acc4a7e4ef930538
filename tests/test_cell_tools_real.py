"""The cell tools through a real ipykernel, the real runtime and the scripted model
(``notebook-calls``), the page played by this test over the kernel's own channels: the model is
offered the five cell tools, reads the notebook, calls ``edit_cell`` on cell 2 by its short id
(``@2``), the page gets ``apply_change`` and applies it, and the model's next request holds the
result saying the edit landed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .fake_page import CAPABILITIES, FakePage
from .helpers.real_kernel import play_page_until
from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = pytest.mark.timeout(300)

CALLS = [{"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}}]
PROMPT = "%%dsh --on-approval allow\n[[scenario:notebook-calls]] " + json.dumps(CALLS)
CELL_TOOLS = ("edit_cell", "replace_cell", "insert_cell", "delete_cell", "run_cells")


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def play_page(k: Kernel, model: ScriptedModelServer, comm_id: str, page: FakePage) -> None:
    """Answer the kernel's page messages (as ``page`` does) until the run is done."""
    seen = len(k.iopub)

    def answer() -> None:
        nonlocal seen
        k.drain_iopub(0.2)
        for msg in k.iopub[seen:]:
            content = msg["content"]
            if msg["msg_type"] != "comm_msg" or content.get("comm_id") != comm_id:
                continue
            page.sent.clear()
            replies: list[dict[str, Any]] = []
            page.receive = replies.append  # type: ignore[method-assign]
            page.send(content["data"])
            for reply in replies:
                out = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
                k.client.shell_channel.send(out)
        seen = len(k.iopub)

    # the model's requests: the first, after notebook_cells, after each call (its final text)
    play_page_until(k, model, "notebook-calls", len(CALLS) + 2, answer, since=0, timeout=120)


def test_the_model_edits_a_cell_by_its_short_id_and_reads_that_it_landed(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    comm_id = open_link(kernel, (*CAPABILITIES, "identity"))
    page = FakePage(["%load_ext dsh_notebook", "x = 1\nprint(x)", PROMPT])
    page.cells[2]["id"] = "dsh-cell"
    scripted_model.clear_requests()
    run = kernel.execute(PROMPT, allow_stdin=True, metadata=identity("dsh-cell"))
    assert run.error is None, run.error
    play_page(kernel, scripted_model, comm_id, page)
    assert page.source(2) == "x = 2\nprint(x)"  # the page applied it
    bodies = [r.body for r in scripted_model.requests if r.scenario == "notebook-calls" and r.body]
    offered = {tool["name"] for tool in bodies[-1].get("tools", [])}
    assert {f"mcp__notebook__{name}" for name in CELL_TOOLS} <= offered
    final = json.dumps(bodies[-1]["messages"][-1], ensure_ascii=False)
    assert "Applied: Edited cell 2 · id 00000002" in final, final[:2000]


TOOLS_BUDGET = 4_500
"""The notebook tools' definitions on every request (issue 49 item 5; 7,381 before)."""


def test_the_ten_notebook_tools_reach_the_model_verbatim_in_under_4500_characters(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """What the model is offered of the notebook server, read in the request the real runtime
    sends, back in ``tools/list`` form (name, description, inputSchema; JSON as the bench
    measures it): the ten tools, nothing dropped or added on the way, under the budget."""
    from dsh_notebook.notebook_tools.schemas import tool_definitions

    scripted_model.clear_requests()
    run = kernel.execute("%%dsh\n[[scenario:plain]] hello")
    assert run.error is None, run.error
    (body,) = [r.body for r in scripted_model.requests if r.scenario == "plain" and r.body]
    prefix = "mcp__notebook__"
    offered = [
        {"name": t["name"].removeprefix(prefix), "description": t.get("description"),
         "inputSchema": t.get("input_schema")}
        for t in body.get("tools", []) if t["name"].startswith(prefix)
    ]  # fmt: skip
    listed = [t.wire() for t in tool_definitions(run_python=True, max_chars=8000)]
    by_name = sorted(listed, key=lambda t: str(t["name"]))  # the runtime lists tools by name
    assert sorted(offered, key=lambda t: str(t["name"])) == by_name  # verbatim, all of them
    assert len(offered) == 10
    size = len(json.dumps(offered, ensure_ascii=False))
    assert size <= TOOLS_BUDGET, f"{size:,} characters of notebook tool definitions"
