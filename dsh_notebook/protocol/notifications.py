"""Server→client notifications (the seed's ``HarnessSdkNotificationMap``) plus the bridge's.

The bridge's own method names and params models live in :mod:`.bridge` and are re-exported here,
so :data:`NOTIFICATION_MODELS` covers every notification the client may receive.

:class:`Notification` is what the transport hands to subscribers: the method and the raw params
dict, cheap to route. :func:`parse_notification` turns it into the typed params model of its method
when one is known; unknown methods stay as they are (never an error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .base import WireModel
from .bridge import (
    ASSISTANT_STREAM,
    USER_QUESTION_CANCELLED,
    AssistantStreamParams,
    UserQuestionCancelledParams,
)
from .content import ContentBlock
from .events import SessionEvent

__all__ = [
    "ASSISTANT_STREAM",
    "AssistantStreamParams",
    "NOTIFICATION_MODELS",
    "Notification",
    "SESSION_EVENT",
    "SESSION_QUERY_COMPLETED",
    "SESSION_STATUS",
    "SUBAGENT_FINISHED",
    "SUBAGENT_STARTED",
    "SessionEventParams",
    "SessionQueryCompletedParams",
    "SessionStatusParams",
    "SubagentFinishedParams",
    "SubagentStartedParams",
    "USER_QUESTION_CANCELLED",
    "UserQuestionCancelledParams",
    "parse_notification",
]

SESSION_EVENT = "session.event"
SESSION_STATUS = "session.status"
SESSION_QUERY_COMPLETED = "session.query.completed"
SUBAGENT_STARTED = "subagent.started"
SUBAGENT_FINISHED = "subagent.finished"


@dataclass(frozen=True, slots=True)
class Notification:
    """One notification as received, in transport order. ``params`` is the wire dict, unmodified.

    (The transport may replace repeated short strings — method, ``sessionId``, event ``type`` — by
    one shared equal object, so kept notifications stay compact; values never change.)
    """

    method: str
    params: dict[str, Any]

    @property
    def session_id(self) -> str | None:
        """The session the notification is about (``sessionId``, or the parent for subagent ones)."""
        sid = self.params.get("sessionId")
        if sid is None:
            sid = self.params.get("parentSessionId")
        return sid if isinstance(sid, str) else None


class SessionEventParams(WireModel):
    session_id: str
    event: SessionEvent


class SessionStatusParams(WireModel):
    session_id: str
    status: str


class SessionQueryCompletedParams(WireModel):
    session_id: str
    command_id: str
    final_response: str | None = None
    finish_reason: str | None = None


class SubagentStartedParams(WireModel):
    parent_session_id: str
    child_session_id: str


class SubagentFinishedParams(WireModel):
    provider: str | None = None
    agent_id: str | None = None
    parent_session_id: str
    child_session_id: str
    status: str
    stop_reason: str | None = None
    last_assistant_message: list[ContentBlock] | None = None


NOTIFICATION_MODELS: dict[str, type[WireModel]] = {
    SESSION_EVENT: SessionEventParams,
    SESSION_STATUS: SessionStatusParams,
    SESSION_QUERY_COMPLETED: SessionQueryCompletedParams,
    SUBAGENT_STARTED: SubagentStartedParams,
    SUBAGENT_FINISHED: SubagentFinishedParams,
    USER_QUESTION_CANCELLED: UserQuestionCancelledParams,
    ASSISTANT_STREAM: AssistantStreamParams,
}


def parse_notification(notification: Notification) -> WireModel | None:
    """The typed params of a known notification; ``None`` for unknown methods or bad shapes."""
    model = NOTIFICATION_MODELS.get(notification.method)
    if model is None:
        return None
    try:
        return model.model_validate(notification.params)
    except ValidationError:
        return None
