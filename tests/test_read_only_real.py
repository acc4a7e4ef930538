"""``%%dsh --read-only`` in a real ipykernel, against the real runtime and the scripted model
(issue 46 item 3): under ``--on-approval allow`` too, ``run_python`` is refused before any card
with a reason that says read-only, the runtime runs with its ``read-only`` permission so
``write`` and ``bash`` change no file, and its sandbox escalation is rejected; the header says
read-only. The model's requests show what it was told."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.refusals import READ_ONLY_MESSAGE
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.scripted_model.notebook_calls import tool_results

from .fake_page import CAPABILITIES, FakePage
from .helpers.real_kernel import play_page_until
from .kernels import Kernel, identity, open_link, page_kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

RUN_PYTHON = "mcp__notebook__run_python"


def _steps(workspace: Path, outside: Path) -> Script:
    return Script(
        steps=(
            Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": "ro_marker = 1\nro_marker"}),)),
            Step(
                tool_calls=(
                    ToolCall("write", {"file_path": str(workspace / "ro.txt"), "content": "x\n"}),
                )
            ),
            Step(
                tool_calls=(
                    ToolCall(
                        "bash",
                        {
                            "description": "write in the workspace",
                            "command": f"echo hi > {workspace / 'ro_bash.txt'}",
                        },
                    ),
                )
            ),
            Step(
                tool_calls=(
                    ToolCall(
                        "bash",
                        {
                            "description": "escalate",
                            "command": f"touch {outside} && echo touched",
                            "sandbox_permissions": "danger-full-access",
                            "justification": "The test asks to write outside the workspace.",
                        },
                    ),
                )
            ),
            Step(text="I only read."),
        )
    )


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path / "escalated.txt"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer, outside: Path) -> Iterator[Kernel]:
    scripted_model.register("read-only", _steps(tmp_path / "ws", outside))
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def test_read_only_refuses_every_changing_tool_even_under_allow(
    kernel: Kernel, scripted_model: ScriptedModelServer, tmp_path: Path, outside: Path
) -> None:
    workspace = tmp_path / "ws"
    cell = kernel.execute(
        "%%dsh --read-only --on-approval allow --wait --format markdown\n"
        "[[scenario:read-only]] try to change things"
    )
    assert cell.error is None, cell.error
    assert "--on-approval allow" not in cell.stderr  # no allow warning: nothing is allowed
    # nothing changed: not the kernel, not the workspace, not outside it
    assert kernel.value("'ro_marker' in globals()") == "False"
    assert not (workspace / "ro.txt").exists()
    assert not (workspace / "ro_bash.txt").exists()
    assert not outside.exists()

    last = [r.body for r in scripted_model.requests if r.scenario == "read-only" and r.body][-1]
    told = tool_results(last)  # every tool result of the run, in order
    assert len(told) == 4, told
    assert told[0] == f"Error: {READ_ONLY_MESSAGE}"  # run_python: refused before any card
    assert "read-only" in told[1]  # write: the runtime's read-only sandbox denied it
    assert "read-only" in told[2]  # bash in the workspace: denied too
    assert "rejected" in told[3]  # the escalation: rejected, --on-approval allow or not

    shown = "".join(
        str(m["content"]["data"].get("text/markdown", ""))
        for m in cell.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
    )
    assert "**read-only**" in shown  # the header says the mode
    assert "Approval needed" not in shown and "approve run_python" not in shown
    pending = kernel.execute("%dsh pending").stdout
    assert "approve" not in pending


def test_the_read_only_setting_is_the_default(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    kernel.execute("%config DshMagics.read_only = True")
    cell = kernel.execute("%%dsh --on-approval allow --wait\n[[scenario:read-only]] again")
    assert cell.error is None, cell.error
    assert kernel.value("'ro_marker' in globals()") == "False"


CELL_CALLS = [
    {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}},
    {"tool": "replace_cell", "args": {"cell_id": "@2", "source": "x = 3"}},
    {"tool": "insert_cell", "args": {"after_cell_id": "@2", "source": "y = 1"}},
    {"tool": "delete_cell", "args": {"cell_id": "@2"}},
    {"tool": "run_cells", "args": {"cell_ids": ["@2"]}},
]


def test_read_only_refuses_every_cell_tool_before_any_card_even_under_allow(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    prompt = "%%dsh --read-only --on-approval allow\n[[scenario:notebook-calls]] " + json.dumps(
        CELL_CALLS
    )
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        comm_id = open_link(k, (*CAPABILITIES, "identity"))
        page = FakePage(["%load_ext dsh_notebook", "x = 1\nprint(x)", prompt])
        page.cells[2]["id"] = "dsh-cell"
        scripted_model.clear_requests()
        run = k.execute(prompt, allow_stdin=True, metadata=identity("dsh-cell"))
        assert run.error is None, run.error
        seen = len(k.iopub)
        asked: list[str] = []

        def answer() -> None:  # the page: reads answered, anything else recorded
            nonlocal seen
            k.drain_iopub(0.2)
            for msg in k.iopub[seen:]:
                content = msg["content"]
                if msg["msg_type"] != "comm_msg" or content.get("comm_id") != comm_id:
                    continue
                asked.append(str(content["data"].get("type")))
                replies: list[dict[str, Any]] = []
                page.receive = replies.append  # type: ignore[method-assign]
                page.send(content["data"])
                for reply in replies:
                    out = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
                    k.client.shell_channel.send(out)
            seen = len(k.iopub)

        play_page_until(
            k, scripted_model, "notebook-calls", len(CELL_CALLS) + 2, answer, since=0, timeout=120
        )
        assert page.source(2) == "x = 1\nprint(x)" and len(page.cells) == 3  # nothing changed
        assert not {"apply_change", "run_cells"} & set(asked), asked  # the page was never asked
        pending = k.execute("%dsh pending").stdout
        assert "approve" not in pending
    bodies = [r.body for r in scripted_model.requests if r.scenario == "notebook-calls" and r.body]
    told = tool_results(bodies[-1])[1:]  # after notebook_cells: one result per cell tool call
    assert told == [f"Error: {READ_ONLY_MESSAGE}"] * len(CELL_CALLS), told
