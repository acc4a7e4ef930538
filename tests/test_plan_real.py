"""The agent's plan (``todo_write``) and goal (``create_goal``) through the real runtime and the
scripted model: the transcript keeps the plan's latest state as a checklist (earlier states
folded), a subagent's plan nests under its subagent, the goal shows in the header (issue 46
item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.testing.harnesses import HarnessFactory
from dsh_notebook.transcript import Transcript

pytestmark = [pytest.mark.real_runtime, pytest.mark.anyio]


def _todos(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": c, "status": s} for c, s in pairs]}


FIRST = _todos(("Load sales.csv", "in_progress"), ("Plot monthly revenue", "pending"))
SECOND = _todos(("Load sales.csv", "completed"), ("Plot monthly revenue", "in_progress"))


def _reduce(result: Any, session_id: str) -> Transcript:
    transcript = Transcript(session_id)
    for notification in result.notifications:
        transcript.apply(notification)
    return transcript


async def test_two_todo_writes_leave_one_checklist_and_the_goal_in_the_header(
    real_harness: HarnessFactory, scripted_model: ScriptedModelServer
) -> None:
    scripted_model.register(
        "plan-twice",
        Script(
            steps=(
                Step(text="Planning.", tool_calls=(ToolCall("todo_write", FIRST),)),
                Step(tool_calls=(ToolCall("create_goal", {"objective": "Plot revenue"}),)),
                Step(text="Loaded.", tool_calls=(ToolCall("todo_write", SECOND),)),
                Step(text="Done."),
            )
        ),
    )
    async with real_harness() as harness:
        result = await harness.start_session("plan-1").run("[[scenario:plan-twice]] plan it")
    snap = _reduce(result, "plan-1").snapshot()

    plan = snap["plan"]
    assert plan is not None
    assert plan["todos"] == SECOND["todos"]
    assert plan["writes"] == 2
    assert plan["earlier"] == [FIRST["todos"]]
    assert snap["header"]["goal"] == {"objective": "Plot revenue", "phase": "active"}

    md = _reduce(result, "plan-1").to_markdown()
    checklist = "**Plan** · 1 of 2 done · 1 in progress\n\n- [x] Load sales.csv\n- [ ] **Plot monthly revenue** _(in progress)_"
    assert checklist in md
    assert md.count("- [x] Load sales.csv") == 1  # the earlier state is folded, not repeated
    assert "<details><summary>Earlier state of the plan (1)</summary>" in md
    assert "**Goal** Plot revenue (active)" in md
    # each todo_write call reads as one line, the plan itself is shown once
    assert (
        "**Tool** `todo_write` · done — update the plan: 0 of 2 done · 1 in progress · 1 pending"
        in md
    )
    assert '"todos"' not in md

    text = _reduce(result, "plan-1").to_text()
    assert (
        "Plan: 1 of 2 done · 1 in progress\n  [x] Load sales.csv\n  [~] Plot monthly revenue"
        in text
    )
    assert "Goal: Plot revenue (active)" in text


async def test_a_subagents_plan_nests_under_its_subagent(
    real_harness: HarnessFactory, scripted_model: ScriptedModelServer
) -> None:
    child_plan = _todos(("Read the file", "completed"), ("Summarize", "pending"))
    scripted_model.register(
        "plan-child",
        Script(
            steps=(Step(tool_calls=(ToolCall("todo_write", child_plan),)), Step(text="Child done."))
        ),
    )
    scripted_model.register(
        "plan-parent",
        Script(
            steps=(
                Step(
                    tool_calls=(
                        ToolCall(
                            "subagent",
                            {"description": "planner", "prompt": "[[scenario:plan-child]] go"},
                        ),
                    )
                ),
                Step(text="Waiting for the child."),
                Step(text="All done."),
                Step(text="All done."),
            )
        ),
    )
    async with real_harness() as harness:
        result = await harness.start_session("plan-2").run("[[scenario:plan-parent]] delegate")
    transcript = _reduce(result, "plan-2")
    snap = transcript.snapshot()
    assert snap["plan"] is None  # the root wrote none

    def subagents(items: list[Any]) -> list[Any]:
        out = []
        for item in items:
            if item["kind"] == "subagent":
                out.append(item)
            elif item["kind"] == "tool" and item["subagent"]:
                out.append(item["subagent"])
        return out

    (child,) = subagents(snap["items"])
    assert child["plan"] is not None and child["plan"]["todos"] == child_plan["todos"]
    md = transcript.to_markdown()
    assert "**Its plan** · 1 of 2 done · 1 pending" in md
    sub = md.index("**Subagent**")
    assert md.index("**Its plan**", sub) > sub  # under the subagent, not the run's plan
    assert "**Plan** ·" not in md
