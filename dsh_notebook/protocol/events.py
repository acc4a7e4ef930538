"""``SessionEvent``: the durable session-log events the runtime forwards in ``session.event``.

The event vocabulary is an open set. :class:`SessionEvent` keeps every event whatever its ``type``
(``data`` stays a plain dict, unknown envelope fields are kept), and :meth:`SessionEvent.typed_data`
parses ``data`` into a typed model for the types this client reads. A type without a model, or a
``data`` that does not fit its model, is returned as the raw dict: reading never fails on a
well-formed envelope.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .base import WireModel
from .content import ContentBlock, TextBlock

__all__ = [
    "ApprovalAskedData",
    "ApprovalDecidedData",
    "AssistantMessageData",
    "EVENT_DATA_MODELS",
    "InboxItem",
    "InboxSplicedData",
    "JobData",
    "Message",
    "SessionEvent",
    "SubagentCatalogData",
    "ToolCallData",
    "ToolResultData",
    "TurnEndData",
    "TurnEndReason",
    "TurnFailure",
    "TURN_END_KINDS",
    "TurnStartData",
    "Usage",
    "WorkingDirectoryChangeData",
    "turn_end_problem",
]


class Usage(WireModel):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None


class Message(WireModel):
    """A model-visible message. ``source`` says where it came from (``source["kind"]``)."""

    id: str | None = None
    role: str | None = None
    content: list[ContentBlock] = []
    source: dict[str, Any] | None = None
    tool_call_id: str | None = None
    is_error: bool | None = None

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


class InboxItem(WireModel):
    id: str | None = None
    role: str | None = None
    content: list[ContentBlock] = []
    source: dict[str, Any] | None = None


class InboxSplicedData(WireModel):
    """``agent/inbox/spliced``: the receipt of a prompt is the splice that inserts its message id."""

    target: str | None = None
    start: int | None = None
    removed_count: int | None = None
    inserted: list[InboxItem] = []
    outcome: str | None = None


class TurnStartData(WireModel):
    turn: int


class TurnFailure(WireModel):
    message: str | None = None
    code: str | None = None
    status: int | None = None


TURN_END_KINDS: frozenset[str] = frozenset(
    {"completed", "aborted", "blocked", "error", "max-tokens", "interrupted", "forked"}
)
"""The runtime's ``TurnEndReasonMap`` kinds (0.2.1): the TypeScript client accepts these only."""


def turn_end_problem(reason: Any) -> str | None:
    """Why ``data.reason`` of a ``turn/end`` is malformed, or ``None`` when it is well formed.

    Follows the runtime's ``TurnEndReasonMap``: ``kind`` is one of :data:`TURN_END_KINDS`;
    ``error`` requires ``error: {message: str, code: str}``; ``aborted`` requires
    ``reason: {kind: str}``. Other fields are allowed (the map is merge-extensible).
    """
    if not isinstance(reason, dict):
        return "data.reason is not an object"
    kind = reason.get("kind")
    if not isinstance(kind, str):
        return "data.reason.kind is not a string"
    if kind not in TURN_END_KINDS:
        return f"unknown data.reason.kind {kind!r}"
    if kind == "error":
        error = reason.get("error")
        if not isinstance(error, dict) or not all(
            isinstance(error.get(key), str) for key in ("message", "code")
        ):
            return "an error reason requires error.message and error.code strings"
    elif kind == "aborted":
        cause = reason.get("reason")
        if not isinstance(cause, dict) or not isinstance(cause.get("kind"), str):
            return "an aborted reason requires reason.kind (its cause)"
    return None


class TurnEndReason(WireModel):
    kind: str
    error: TurnFailure | None = None


class TurnEndData(WireModel):
    turn: int | None = None
    reason: TurnEndReason


class AssistantMessageData(WireModel):
    turn: int | None = None
    step: int | None = None
    message: Message
    usage: Usage | None = None
    interrupted: bool | None = None


class ToolCallData(WireModel):
    turn: int | None = None
    step: int | None = None
    call_id: str
    name: str
    arguments: str


class ToolResultData(WireModel):
    turn: int | None = None
    step: int | None = None
    message: Message
    meta: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class JobData(WireModel):
    job_id: str
    owner: str | None = None
    kind: str | None = None
    label: str | None = None
    status: str | None = None
    detail: str | None = None


class ApprovalAskedData(WireModel):
    id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None


class ApprovalDecidedData(WireModel):
    id: str
    outcome: str


class SubagentCatalogData(WireModel):
    child_id: str
    mode: str | None = None
    label: str | None = None


class WorkingDirectoryChangeData(WireModel):
    cwd: str


EVENT_DATA_MODELS: dict[str, type[WireModel]] = {
    "agent/inbox/spliced": InboxSplicedData,
    "turn/start": TurnStartData,
    "turn/end": TurnEndData,
    "assistant/message": AssistantMessageData,
    "user/message": Message,
    "system/message": AssistantMessageData,
    "tool/call": ToolCallData,
    "tool/result": ToolResultData,
    "job/registered": JobData,
    "job/settled": JobData,
    "approval/asked": ApprovalAskedData,
    "approval/decided": ApprovalDecidedData,
    "subagent/catalog": SubagentCatalogData,
    "working-directory/change": WorkingDirectoryChangeData,
}


class SessionEvent(WireModel):
    """One durable session-log event. ``seq`` is per session; gaps on the wire are normal.

    ``seq`` and ``time`` are optional here: peer runtimes omit them and the official SDKs never read
    them, so their absence must not fail a run.
    """

    type: str
    seq: int | None = None
    time: int | float | None = None
    data: dict[str, Any] = {}
    ignorable: bool | None = None
    surface_op: Any = None
    source_event_seqs: list[int] | None = None

    def typed_data(self) -> WireModel | dict[str, Any]:
        """``data`` as its typed model when this client models the type, else the raw dict."""
        model = EVENT_DATA_MODELS.get(self.type)
        if model is None:
            return self.data
        try:
            return model.model_validate(self.data)
        except ValidationError:
            return self.data
