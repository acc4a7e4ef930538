"""A session's plan (the runtime's ``todo_write`` tool, its ``todo/write`` event) and the root
session's goal (``goal/change``), as the reducer keeps them.

Guarantees:

- The plan shown is the one the latest ``todo/write`` of the session wrote, whole (within
  :data:`~.bounds.PLAN_TODOS_MAX` steps); each earlier state is kept (the newest
  :data:`~.bounds.PLAN_EARLIER_MAX`, older ones counted) so a saved transcript can fold them.
- A write equal to the current state changes nothing (``writes`` still counts it: the agent
  wrote its plan again).
- A step's status outside :data:`~.schema.TodoStatus` reads as ``pending``; a step without text
  is dropped. Every string is capped; nothing here raises on a malformed payload (it is ignored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args

from . import schema
from .bounds import LABEL_MAX, LINE_MAX, PLAN_EARLIER_MAX, PLAN_TODOS_MAX, cap

__all__ = ["PlanState", "goal_of", "plan_counts", "todos_of"]

_STATUSES: tuple[str, ...] = get_args(schema.TodoStatus)


def todos_of(data: Any) -> tuple[list[schema.Todo], int] | None:
    """The steps of a ``todo/write`` event's ``data`` (or ``todo_write`` arguments) and how many
    were cut; ``None`` when it holds no ``todos`` list."""
    todos = data.get("todos") if isinstance(data, dict) else None
    if not isinstance(todos, list):
        return None
    out: list[schema.Todo] = []
    for todo in todos:
        if not isinstance(todo, dict):
            continue
        content = todo.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        status = todo.get("status")
        out.append(
            {
                "content": cap(" ".join(content.split()), LINE_MAX),
                "status": status if status in _STATUSES else "pending",
            }
        )
    return out[:PLAN_TODOS_MAX], max(len(out) - PLAN_TODOS_MAX, 0)


def plan_counts(todos: list[schema.Todo]) -> tuple[int, int, int]:
    """``(completed, in progress, pending)`` of ``todos``."""
    done = sum(t["status"] == "completed" for t in todos)
    doing = sum(t["status"] == "in_progress" for t in todos)
    return done, doing, len(todos) - done - doing


def goal_of(data: Any) -> schema.Goal | None:
    """The goal a ``goal/change`` event's ``data`` leaves (``None``: it has none, e.g. cleared)."""
    goal = data.get("goal") if isinstance(data, dict) else None
    if not isinstance(goal, dict):
        return None
    objective = goal.get("objective")
    if not isinstance(objective, str) or not objective.strip():
        return None
    phase = goal.get("phase")
    return {
        "objective": cap(" ".join(objective.split()), LINE_MAX),
        "phase": cap(phase, LABEL_MAX) if isinstance(phase, str) else None,
    }


@dataclass(eq=False)
class PlanState:
    """One session's plan: the latest steps and the earlier states (see the module docstring)."""

    todos: list[schema.Todo] = field(default_factory=list)
    todos_omitted: int = 0
    writes: int = 0
    earlier: list[list[schema.Todo]] = field(default_factory=list)
    earlier_omitted: int = 0

    def write(self, todos: list[schema.Todo], omitted: int) -> None:
        """Apply one ``todo/write``: the current state becomes an earlier one if it changed."""
        if self.writes and (todos != self.todos or omitted != self.todos_omitted):
            self.earlier.append(self.todos)
            if len(self.earlier) > PLAN_EARLIER_MAX:
                self.earlier.pop(0)
                self.earlier_omitted += 1
        self.todos, self.todos_omitted = todos, omitted
        self.writes += 1

    def to_dict(self) -> schema.Plan:
        return {
            "todos": [dict(t) for t in self.todos],  # type: ignore[misc]
            "todos_omitted": self.todos_omitted,
            "writes": self.writes,
            "earlier": [[dict(t) for t in state] for state in self.earlier],  # type: ignore[misc]
            "earlier_omitted": self.earlier_omitted,
        }
