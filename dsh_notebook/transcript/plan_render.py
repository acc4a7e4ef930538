"""The plan, the goal, the mode and the cost in words: one home for how the saved transcript
(markdown and plain text) says them; ``js/src/plan.ts`` and ``js/src/header.ts`` say the same
in the widget.

A plan reads as a checklist of its latest state (``- [x]`` done, ``- [ ]`` to do, the step in
progress marked so), with its counts; its earlier states are folded (markdown) or counted
(text). Every string from the agent goes through :func:`~.sanitize.escape_inline` in markdown.
Pure; deterministic.
"""

from __future__ import annotations

from collections.abc import Callable

from .plan import plan_counts
from .pricing import format_usd
from .sanitize import escape_inline
from .schema import Header, Plan, Todo

__all__ = [
    "cost_words",
    "goal_words",
    "plan_markdown",
    "plan_text",
    "plan_words",
]

_MARK_TEXT = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


def plan_words(plan: Plan) -> str:
    """``2 of 5 done · 1 in progress · 2 pending`` (the parts that are not zero, done always)."""
    todos = plan["todos"]
    done, doing, waiting = plan_counts(todos)
    parts = [f"{done} of {len(todos) + plan['todos_omitted']} done"]
    if doing:
        parts.append(f"{doing} in progress")
    if waiting:
        parts.append(f"{waiting} pending")
    return " · ".join(parts)


def _checklist_md(todos: list[Todo]) -> str:
    lines = []
    for todo in todos:
        box = "[x]" if todo["status"] == "completed" else "[ ]"
        text = escape_inline(todo["content"])
        if todo["status"] == "in_progress":
            text = f"**{text}** _(in progress)_"
        lines.append(f"- {box} {text}")
    return "\n".join(lines)


def plan_markdown(plan: Plan, fold: Callable[[str, str], str], *, label: str = "Plan") -> str:
    """The plan's latest state as a task list under ``**label**`` with its counts; earlier
    states below it, newest first, in ``fold(summary, body)`` (the markdown's ``details``)."""
    head = f"**{label}** · {plan_words(plan)}"
    blocks = [head, _checklist_md(plan["todos"]) or "_(no steps)_"]
    if plan["todos_omitted"]:
        blocks.append(f"_{plan['todos_omitted']} more steps not kept._")
    earlier = plan["earlier"]
    if earlier:
        states = [
            f"_Before update {len(earlier) - n + plan['earlier_omitted']}_\n\n"
            + (_checklist_md(state) or "_(no steps)_")
            for n, state in enumerate(reversed(earlier))
        ]
        if plan["earlier_omitted"]:
            states.append(f"_{plan['earlier_omitted']} older states not kept._")
        count = len(earlier) + plan["earlier_omitted"]
        word = "state" if count == 1 else "states"
        blocks.append(fold(f"Earlier {word} of the plan ({count})", "\n\n".join(states)))
    return "\n\n".join(blocks)


def plan_text(plan: Plan, *, label: str = "Plan") -> str:
    """The plan's latest state as plain text lines (``[x]``, ``[~]`` in progress, ``[ ]``)."""
    lines = [f"{label}: {plan_words(plan)}"]
    lines += [f"  {_MARK_TEXT.get(t['status'], '[ ]')} {t['content']}" for t in plan["todos"]]
    earlier = len(plan["earlier"]) + plan["earlier_omitted"]
    if earlier:
        lines.append(f"  ({earlier} earlier {'state' if earlier == 1 else 'states'} not shown)")
    return "\n".join(lines)


def goal_words(h: Header) -> str | None:
    """``Plot revenue (active)``: the root session's goal, or ``None``."""
    goal = h.get("goal")
    if not goal:
        return None
    return goal["objective"] + (f" ({goal['phase']})" if goal["phase"] else "")


def cost_words(h: Header) -> str | None:
    """``~$0.0012 estimated (deepseek-flash prices of 2025-09-05)``, or ``None`` (no price)."""
    cost = h.get("cost")
    if not cost:
        return None
    return f"{format_usd(cost['usd'])} estimated ({cost['model']} prices of {cost['as_of']})"
