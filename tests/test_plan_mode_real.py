"""``%%dsh --plan`` in a real ipykernel against the real runtime and the scripted model (issue 46
item 2): the runtime's plan mode is entered only by its ``/plan`` command, which the SDK wire
does not reach (``session/prompt`` is a plain user message); the notebook's bridge plugin
selects it through the runtime's own plan-mode service at the prompt's first step. The model's
requests show it: the first carries the runtime's plan-mode guidance, and ``exit_plan_mode``
asks its plan-review question instead of failing "only available in plan mode"."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.scripted_model.notebook_calls import tool_results
from dsh_notebook.transcript.events import PLAN_MODE_OFF, PLAN_MODE_ON

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

PLAN = "# Plot the sales\n\n1. Read sales.csv\n2. Plot revenue by month"
GUIDANCE = "You are in plan mode."
"""The first words of the runtime's plan-mode section (dsh-base's plan-mode config)."""

SCRIPTS = {
    "plan-mode": Script(
        steps=(
            Step(tool_calls=(ToolCall("exit_plan_mode", {"plan": PLAN}),)),
            Step(text="Plan presented."),
        )
    ),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def _bodies(model: ScriptedModelServer, since: int = 0) -> list[Any]:
    """The bodies of the ``plan-mode`` requests from the ``since``-th request on (the server
    serves the whole module)."""
    return [r.body for r in model.requests[since:] if r.scenario == "plan-mode" and r.body]


def test_plan_starts_the_run_in_the_runtimes_plan_mode(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    since = len(scripted_model.requests)
    cell = kernel.execute(
        "%%dsh --plan --wait --format markdown\n[[scenario:plan-mode]] plot it",
        allow_stdin=True,
        stdin_answers=["1"],  # the plan review's first option: Approve
    )
    assert cell.error is None, cell.error
    assert "UsageError" not in cell.stderr, cell.stderr
    # the runtime's own plan-review question (exit_plan_mode), asked on stdin in a --wait cell
    assert len(cell.stdin_prompts) == 1, cell.stdin_prompts
    assert cell.stdin_prompts[0].startswith("dsh asks: Approve this plan and leave plan mode?")
    assert "1. Approve\n  2. Keep planning" in cell.stdin_prompts[0]
    shown = [
        str(m["content"]["data"].get("text/markdown", ""))
        for m in cell.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
    ][-1]
    assert "Approve this plan and leave plan mode? _(options: Approve, Keep planning)_ → " \
        "**Approve**" in shown  # fmt: skip
    assert f"```markdown\n{PLAN}\n```" in shown  # the plan the person approved, kept
    assert shown.index(PLAN_MODE_ON) < shown.index("**Question**")  # the runtime's plan/mode
    assert shown.index(PLAN_MODE_OFF) > shown.index("**Question**")  # approving left it
    bodies = _bodies(scripted_model, since)
    assert len(bodies) == 2, len(bodies)
    assert GUIDANCE in json.dumps(bodies[0])  # the first request already plans
    told = tool_results(bodies[1])
    assert told == [
        "Plan approved — plan mode exited; carry out the plan starting with your next step."
    ], told


def test_without_plan_the_run_is_not_in_plan_mode(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    since = len(scripted_model.requests)
    cell = kernel.execute("%%dsh --wait --format markdown\n[[scenario:plan-mode]] plot it")
    assert cell.error is None, cell.error
    bodies = _bodies(scripted_model, since)
    assert GUIDANCE not in json.dumps(bodies[0])
    told = tool_results(bodies[1])
    assert "only available in plan mode" in told[0], told
