"""Server→client requests (the seed's ``HarnessSdkClientRequestMap``) and their answers.

Both are opt-in on ``initialize``: ``approvalRequests: true`` and ``capabilities.userQuestions:
true``. Only ``{"outcome": "allowed-once"}`` grants anything; every other answer, an error
response, a timeout or a lost transport leaves the operation denied.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from .base import WireModel

__all__ = [
    "APPROVAL_OUTCOMES",
    "APPROVAL_REQUEST",
    "USER_QUESTION_ASK",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalResult",
    "QuestionOption",
    "UserQuestion",
    "UserQuestionAnswer",
    "UserQuestionAnswers",
    "UserQuestionAsk",
    "UserQuestionDismissed",
]

APPROVAL_REQUEST = "approval/request"
USER_QUESTION_ASK = "user-question/ask"

ApprovalOutcome = Literal["allowed-once", "rejected", "cancelled"]
APPROVAL_OUTCOMES: tuple[str, ...] = ("allowed-once", "rejected", "cancelled")


class ApprovalRequest(WireModel):
    """``approval/request`` params: a tool call needs the user's consent to proceed."""

    session_id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None


class ApprovalResult(WireModel):
    outcome: ApprovalOutcome


class QuestionOption(WireModel):
    label: str
    description: str | None = None


class UserQuestion(WireModel):
    """One question. ``intent`` (e.g. plan review) is kept as given."""

    id: str
    question: str
    header: str | None = None
    detail: str | None = None
    options: list[QuestionOption] | None = None
    multi_select: bool | None = None
    intent: dict[str, Any] | None = None


class UserQuestionAsk(WireModel):
    """``user-question/ask`` params."""

    request_id: str
    session_id: str
    questions: list[UserQuestion]
    call_id: str | None = None
    """The ``ask_user_question`` tool call (an addition of the notebook bridge; not in the seed)."""


class UserQuestionAnswer(WireModel):
    """The answer to one question: chosen option labels and/or free text. Empty = skipped."""

    id: str
    selected: list[str] = []
    custom: str | None = None


class UserQuestionAnswers(WireModel):
    """Exactly one answer per question id."""

    answers: list[UserQuestionAnswer]


class UserQuestionDismissed(WireModel):
    """The user dismissed the questions: exactly ``{"cancelled": true}``, no other field."""

    model_config = ConfigDict(extra="forbid")
    cancelled: Literal[True] = True
