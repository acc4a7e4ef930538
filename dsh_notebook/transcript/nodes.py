"""The items of a transcript (and the cards nested in tool calls), with their snapshot form.

Each node's :meth:`to_dict` is its part of the snapshot (schema 1, see the package docstring).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .state import (
    ARGS_MAX,
    ARGS_PARSED_MAX,
    ASSISTANT_MAX,
    LABEL_MAX,
    LINE_MAX,
    TRUNCATION_MARK,
    ItemList,
    Node,
    UsageTotals,
    cap,
    json_copy,
    jsonable,
)

__all__ = [
    "ApprovalNode",
    "ErrorNode",
    "Item",
    "NoteNode",
    "QuestionNode",
    "SubagentNode",
    "TextNode",
    "ToolNode",
    "UserNode",
]


@dataclass(eq=False, kw_only=True)
class TextNode(Node):
    """Assistant text or reasoning. Grows from live deltas, then is replaced by the final text."""

    kind: str = "text"  # "text" | "reasoning"
    streaming: bool = False
    truncated: bool = False
    _parts: list[str] = field(default_factory=list, repr=False)
    _size: int = 0

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def set_text(self, text: str) -> None:
        self.truncated = len(text) > ASSISTANT_MAX
        text = cap(text, ASSISTANT_MAX)
        self._parts = [text]
        self._size = len(text)

    def append(self, delta: str) -> bool:
        """Append a live delta; ``False`` (nothing stored) once the cap is reached."""
        if not delta or self.truncated:
            return False
        if self._size + len(delta) > ASSISTANT_MAX:
            self.truncated = True
            delta = (
                delta[: ASSISTANT_MAX - self._size] + "\n" + TRUNCATION_MARK.format(omitted="more")
            )
        self._parts.append(delta)
        self._size += len(delta)
        return True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "id": self.id, "rev": self.rev}
        out["text"] = self.text
        out["streaming"] = self.streaming
        if self.kind == "reasoning":
            out["collapsed"] = True
        out["truncated"] = self.truncated
        return out


@dataclass(eq=False, kw_only=True)
class UserNode(Node):
    """A later human message in the same run (a queued prompt)."""

    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "user", "id": self.id, "rev": self.rev, "text": self.text}


@dataclass(eq=False, kw_only=True)
class ApprovalNode(Node):
    """An approval: the runtime's ``approval/asked``/``decided`` merged with the client's facts."""

    session_id: str = ""
    approval_id: str | None = None  # the runtime's id (approval/asked)
    request_id: str | None = None  # the client-side request (bridge id)
    call_id: str | None = None
    tool_name: str = ""
    reason: str | None = None
    state: str = "pending"  # "pending" | "decided"
    outcome: str | None = None  # allowed-once | rejected | cancelled | unavailable
    decided_by: str | None = None  # one of DECIDED_BY, or None when unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "approval",
            "id": self.id,
            "rev": self.rev,
            "session_id": self.session_id,
            "approval_id": self.approval_id,
            "request_id": self.request_id,
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "reason": self.reason,
            "state": self.state,
            "outcome": self.outcome,
            "decided_by": self.decided_by,
        }


@dataclass(eq=False, kw_only=True)
class QuestionNode(Node):
    """Questions to the user (``ask_user_question``) and their answers."""

    session_id: str = ""
    request_id: str | None = None
    call_id: str | None = None
    questions: list[dict[str, Any]] = field(default_factory=list)
    answers: list[dict[str, Any]] | None = None
    state: str = "pending"  # pending | answered | dismissed | cancelled | failed

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "question",
            "id": self.id,
            "rev": self.rev,
            "session_id": self.session_id,
            "request_id": self.request_id,
            "call_id": self.call_id,
            "questions": json_copy(self.questions),
            "answers": json_copy(self.answers),
            "state": self.state,
        }


@dataclass(eq=False, kw_only=True)
class SubagentNode(Node):
    """A child session: its own items, nested under the tool call that started it when known."""

    child_id: str = ""
    label: str | None = None
    description: str | None = None
    mode: str | None = None
    prompt: str | None = None
    state: str = "running"  # running | done | failed
    status: str | None = None  # subagent.finished status ("ok" | "error")
    stop_reason: str | None = None
    result: str | None = None
    turns: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    items: ItemList = field(default_factory=lambda: ItemList(None))

    def __post_init__(self) -> None:
        self.items.owner = self

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "subagent",
            "id": self.id,
            "rev": self.rev,
            "child_id": self.child_id,
            "label": self.label,
            "description": self.description,
            "mode": self.mode,
            "prompt": self.prompt,
            "state": self.state,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "result": self.result,
            "turns": self.turns,
            "usage": self.usage.to_dict(),
            "items": self.items.to_list(),
            "items_omitted": self.items.omitted,
        }


@dataclass(eq=False, kw_only=True)
class ToolNode(Node):
    """A tool call and what became of it. Approval, question and subagent cards nest here."""

    call_id: str = ""
    name: str = ""
    arguments: str = ""
    args: Any = None
    description: str | None = None
    summary: str | None = None
    state: str = "pending"  # streaming | pending | running | done | failed | rejected
    result: str | None = None
    is_error: bool | None = None
    error_code: str | None = None
    job: dict[str, Any] | None = None
    approval: ApprovalNode | None = None
    question: QuestionNode | None = None
    subagent: SubagentNode | None = None

    def set_arguments(self, raw: str) -> None:
        """Store the raw argument text (capped) and derive ``args``/``description``/``summary``."""
        self.arguments = cap(raw, ARGS_MAX)
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except ValueError:
            parsed = None
        self.args = jsonable(parsed, limit=LINE_MAX) if len(raw) <= ARGS_PARSED_MAX else None
        self.description = self.summary = None
        if isinstance(parsed, dict):
            desc = parsed.get("description")
            if isinstance(desc, str) and desc.strip():
                self.description = cap(" ".join(desc.split()), LINE_MAX)
            for key in ("description", "command", "path", "file_path", "pattern", "query", "url"):
                value = parsed.get(key)
                if isinstance(value, str) and value.strip():
                    self.summary = cap(" ".join(value.split()), LABEL_MAX)
                    break

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "tool",
            "id": self.id,
            "rev": self.rev,
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "args": json_copy(self.args),
            "description": self.description,
            "summary": self.summary,
            "state": self.state,
            "result": self.result,
            "is_error": self.is_error,
            "error_code": self.error_code,
            "job": json_copy(self.job),
            "approval": self.approval.to_dict() if self.approval else None,
            "question": self.question.to_dict() if self.question else None,
            "subagent": self.subagent.to_dict() if self.subagent else None,
        }


@dataclass(eq=False, kw_only=True)
class ErrorNode(Node):
    """A failed turn (``source="turn"``) or a client-side failure (``source="client"``)."""

    message: str = ""
    code: str | None = None
    status: int | None = None
    hint: str | None = None
    detail: str | None = None
    source: str = "turn"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "error",
            "id": self.id,
            "rev": self.rev,
            "source": self.source,
            "message": self.message,
            "code": self.code,
            "status": self.status,
            "hint": self.hint,
            "detail": self.detail,
        }


@dataclass(eq=False, kw_only=True)
class NoteNode(Node):
    """A small marker: ``retry``, ``compaction``, ``turn-end`` (non-error endings), ``subagent``."""

    note: str = ""
    text: str = ""
    count: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "note",
            "id": self.id,
            "rev": self.rev,
            "note": self.note,
            "text": self.text,
            "count": self.count,
        }


Item = (
    TextNode
    | UserNode
    | ToolNode
    | ApprovalNode
    | QuestionNode
    | SubagentNode
    | ErrorNode
    | NoteNode
)
