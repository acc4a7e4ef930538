"""The notebook bridge's own wire words: what the in-runtime plugin adds to the SDK protocol.

The bridge (``dsh_notebook/bridge/``, contract in its ``README.md``, version 1) relays the runtime's
in-process approval and question hooks as the seed's server→client requests (``approval/request``,
``user-question/ask``: see :mod:`.server_requests`) and adds the notifications named here. They are
the only spelling of these method names in the package; the client, the transcript and the tests
import them from this module.

Guarantees the bridge gives (see its README for the evidence):

- :data:`BRIDGE_READY` is sent once when the plugin attaches, before the ``initialize`` response;
  no ``bridge.ready`` by then means no bridge is loaded.
- :data:`APPROVAL_CANCELLED` and :data:`USER_QUESTION_CANCELLED` withdraw a pending request (by its
  ``requestId``); a later answer to it is ignored by the bridge.
- :data:`ASSISTANT_STREAM` carries every live model-stream frame, for every session, in order; all
  chunks of an attempt precede the ``session.event`` carrying its committed message.
"""

from __future__ import annotations

from typing import Any

from .base import WireModel

__all__ = [
    "APPROVAL_CANCELLED",
    "ASSISTANT_STREAM",
    "BRIDGE_READY",
    "USER_QUESTION_CANCELLED",
    "AssistantStreamParams",
    "UserQuestionCancelledParams",
]

BRIDGE_READY = "dsh_notebook/bridge.ready"
"""Notification ``{version, features, approvalTimeout, streamCoalesceMs}``: the bridge is loaded."""

APPROVAL_CANCELLED = "approval/cancelled"
"""Notification ``{requestId, sessionId, reason}``: the bridge stopped waiting for an approval
(``reason``: ``aborted`` | ``timeout`` | ``disposed``, informational)."""

USER_QUESTION_CANCELLED = "user-question.cancelled"
"""Notification ``{requestId, sessionId}``: the runtime stopped waiting for the user's answer."""

ASSISTANT_STREAM = "session.assistant_stream"
"""Notification ``{sessionId, frame}``: one live ``agent/assistant-stream`` frame."""


class UserQuestionCancelledParams(WireModel):
    """The params of :data:`USER_QUESTION_CANCELLED`."""

    request_id: str
    session_id: str | None = None


class AssistantStreamParams(WireModel):
    """A live model-stream frame (``start``, ``chunk``, ``end``) relayed by the notebook bridge."""

    session_id: str
    frame: dict[str, Any]
