"""Approval scopes and edited ``run_python`` in a real ipykernel, against the real runtime and the
scripted model; clicks arrive as the ``comm_msg`` a browser sends (issue 15, last section).

- "Allow for this run" answers the rest of the run's calls of the same tool, never another tool,
  and never a later run.
- "Edit, then run": the kernel runs the edited code, the agent is told so and what ran, and an
  edit applies to the call it was made on only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_pending
from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

RUN_PYTHON = "mcp__notebook__run_python"
COUNT = "scoped_calls = globals().get('scoped_calls', 0) + 1\nscoped_calls"
AGENT_CODE = "edited_by = 'agent'\nedited_by"
PERSON_CODE = "edited_by = 'person'\nprint('the person wrote this')\nedited_by"
SECOND_CODE = "second_call = edited_by + '!'\nsecond_call"


def run_python(code: str) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),))


def escalate(target: Path) -> Step:
    return Step(
        tool_calls=(
            ToolCall(
                "bash",
                {
                    "description": "Touch a file outside the workspace",
                    "command": f"touch {target} && echo touched",
                    "sandbox_permissions": "danger-full-access",
                    "justification": "The test must write outside the workspace.",
                },
            ),
        )
    )


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path / "scoped.txt"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer, outside: Path) -> Iterator[Kernel]:
    scripted_model.register(
        "scope-run",
        Script(steps=(run_python(COUNT), run_python(COUNT), escalate(outside), Step(text="done"))),
    )
    scripted_model.register(
        "edit-run",
        Script(steps=(run_python(AGENT_CODE), run_python(SECOND_CODE), Step(text="done"))),
    )
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def widget_comms(k: Kernel) -> list[str]:
    """The run widgets' comm ids, oldest first."""
    k.drain_iopub()
    return [
        str(m["content"]["comm_id"])
        for m in k.iopub
        if m["msg_type"] == "comm_open"
        and {"snapshot", "_esm"} <= set(m["content"].get("data", {}).get("state", {}))
    ]


def newest_widget(k: Kernel, known: int = 0, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        comms = widget_comms(k)
        if len(comms) > known:
            return comms[-1]
        time.sleep(0.1)
    raise TimeoutError("no widget comm was opened")


def click(k: Kernel, comm_id: str, content: dict[str, Any]) -> None:
    time.sleep(0.6)  # the card is inert for ~0.5 s after it appears (a browser waits too)
    data = {"method": "custom", "content": {"type": "approval", **content}}
    k.client.shell_channel.send(
        k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
    )


def final_markdown(k: Kernel, cell_outputs: list[dict[str, Any]]) -> str:
    display_id = next(
        m["content"]["transient"]["display_id"]
        for m in cell_outputs
        if m["msg_type"] == "display_data"
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        k.drain_iopub()
        finals = [
            m["content"]["data"] for m in k.iopub
            if m["msg_type"] == "update_display_data"
            and m["content"]["transient"]["display_id"] == display_id
            and "text/markdown" in m["content"]["data"]
        ]  # fmt: skip
        if finals:
            return str(finals[-1]["text/markdown"])
        time.sleep(0.2)
    raise TimeoutError("the widget was not replaced by the static transcript")


def test_allow_for_this_run_covers_the_same_tool_of_this_run_only(
    kernel: Kernel, outside: Path
) -> None:
    cell = kernel.execute("%%dsh\n[[scenario:scope-run]] count twice", allow_stdin=True)
    assert cell.error is None, cell.error
    comm = newest_widget(kernel)
    wait_pending(kernel, "a1: approve run_python")
    click(kernel, comm, {"request_id": "a1", "decision": "allowed-once", "scope": "run"})
    # the second run_python call is answered by the scope; the bash call is another tool: asks
    pending = wait_pending(kernel, "approve bash")
    assert "run_python" not in pending
    assert kernel.value("scoped_calls") == "2"
    assert not outside.exists()
    rejected = kernel.execute(f"%dsh reject {pending.split(':')[0]}")
    assert "rejected" in rejected.stdout
    wait_done(kernel)
    assert not outside.exists()
    shown = final_markdown(kernel, cell.outputs)
    assert "by you, for the rest of this run" in shown
    assert "**allowed** (for this run)" in shown  # the auto-answered card says so

    # the next run (same session, same tool) asks again: the scope died with its run
    again = kernel.execute("%%dsh\n[[scenario:scope-run]] count again", allow_stdin=True)
    assert again.error is None, again.error
    pending = wait_pending(kernel, "approve run_python")
    assert kernel.value("scoped_calls") == "2"
    kernel.execute("%dsh stop")
    wait_done(kernel)
    assert kernel.value("scoped_calls") == "2"


def test_dsh_allow_run_is_the_terminal_path_to_a_scope(kernel: Kernel) -> None:
    cell = kernel.execute("%%dsh\n[[scenario:scope-run]] count twice", allow_stdin=True)
    assert cell.error is None, cell.error
    wait_pending(kernel, "a1: approve run_python")
    allowed = kernel.execute("%dsh allow a1 --run")
    assert allowed.stdout == "dsh: a1 allowed for the rest of this run\n"
    pending = wait_pending(kernel, "approve bash")
    assert kernel.value("scoped_calls") == "2"
    kernel.execute(f"%dsh reject {pending.split(':')[0]}")
    wait_done(kernel)


def test_edit_then_run_runs_the_edited_code_of_that_call_only(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    cell = kernel.execute("%%dsh\n[[scenario:edit-run]] set it", allow_stdin=True)
    assert cell.error is None, cell.error
    comm = newest_widget(kernel)
    wait_pending(kernel, "a1: approve run_python")
    click(kernel, comm, {"request_id": "a1", "decision": "allowed-once", "code": PERSON_CODE})
    wait_pending(kernel, "a2: approve run_python")
    assert kernel.value("edited_by") == "'person'"  # the edit ran, the agent's code did not
    # a late edit of the decided call is refused; the next call runs its own code
    click(kernel, comm, {"request_id": "a1", "decision": "allowed-once", "code": "edited_by = 'x'"})
    click(kernel, comm, {"request_id": "a2", "decision": "allowed-once"})
    wait_done(kernel)
    assert kernel.value("(edited_by, second_call)") == "('person', 'person!')"
    # what the agent was told: that the person edited it, and exactly what ran with its output
    told = [
        r.body
        for r in scripted_model.requests
        if r.scenario == "edit-run" and r.body and "the person wrote this" in str(r.body)
    ]
    assert told, "the model never received the edited call's result"
    text = str(told[0]["messages"][-1])
    assert "The user edited your code before approving it" in text
    assert "edited_by = 'person'" in text
    shown = final_markdown(kernel, cell.outputs)
    assert "by you, after editing the code" in shown
    assert "print('the person wrote this')" in shown  # the card records what ran


def test_r_at_the_stdin_prompt_allows_for_this_run(kernel: Kernel, outside: Path) -> None:
    """A ``--wait`` cell asks on stdin; "r" is "Allow for this run" there (the empty answer to
    the bash call is a reject, as ever)."""
    cell = kernel.execute(
        "%%dsh --wait\n[[scenario:scope-run]] count on stdin",
        allow_stdin=True,
        stdin_answers=["r", ""],
    )
    assert cell.error is None, cell.error
    assert len(cell.stdin_prompts) == 2, cell.stdin_prompts
    assert (
        "allow run_python" in cell.stdin_prompts[0] and "r = for this run" in cell.stdin_prompts[0]
    )
    assert "allow bash" in cell.stdin_prompts[1]
    assert kernel.value("scoped_calls") == "2"
    assert not outside.exists()
