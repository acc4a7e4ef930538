"""Adapters from user callbacks to the server→client requests ``approval/request`` and
``user-question/ask``.

The same adapters serve a runtime that sends these requests natively and the notebook bridge that
relays the runtime's in-process hooks (both speak the seed's shapes).

Fail-closed guarantees for approvals: only an explicit ``allowed-once`` from the callback is sent
as a grant. A callback that raises, returns something outside the vocabulary, or does not answer
within ``approval_timeout`` produces ``rejected`` (errors) or ``cancelled`` (timeout). A request the
peer withdraws (``approval/cancelled`` or ``user-question.cancelled``) cancels the running callback
and is not answered; a late answer is never sent.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Union

import anyio
from pydantic import ValidationError

from ..protocol import (
    APPROVAL_OUTCOMES,
    ApprovalRequest,
    ApprovalResult,
    UserQuestionAnswer,
    UserQuestionAnswers,
    UserQuestionAsk,
    UserQuestionDismissed,
)
from ..transport import NoResponse, RequestHandler

__all__ = [
    "ApprovalHandler",
    "PendingRequests",
    "QuestionHandler",
    "make_approval_handler",
    "make_question_handler",
]

log = logging.getLogger(__name__)

ApprovalAnswer = Union[ApprovalResult, str, dict[str, Any]]  # noqa: UP007
QuestionAnswer = Union[  # noqa: UP007
    UserQuestionAnswers,
    UserQuestionDismissed,
    Sequence[Union[UserQuestionAnswer, dict[str, Any]]],  # noqa: UP007
    dict[str, Any],
    None,
]
ApprovalHandler = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer]]
QuestionHandler = Callable[[UserQuestionAsk], Awaitable[QuestionAnswer]]


class PendingRequests:
    """Cancel scopes of running handler calls, by request id, so the peer can withdraw them."""

    def __init__(self) -> None:
        self._scopes: dict[str, anyio.CancelScope] = {}
        self.withdrawn: set[str] = set()

    def register(self, request_id: str, scope: anyio.CancelScope) -> None:
        self._scopes[request_id] = scope

    def unregister(self, request_id: str) -> None:
        self._scopes.pop(request_id, None)

    def withdraw(self, request_id: str) -> bool:
        """The peer no longer waits: cancel the callback. True when one was running."""
        scope = self._scopes.pop(request_id, None)
        if scope is None:
            return False
        self.withdrawn.add(request_id)
        scope.cancel()
        return True

    def raise_if_withdrawn(self, request_id: str, scope: anyio.CancelScope) -> None:
        """Raise :class:`NoResponse` when the peer withdrew ``request_id`` while its callback ran
        in ``scope``: the peer no longer waits, so no answer may be sent."""
        if scope.cancelled_caught or request_id in self.withdrawn:
            self.withdrawn.discard(request_id)
            raise NoResponse

    def __len__(self) -> int:
        return len(self._scopes)


def _outcome_of(answer: Any) -> str:
    if isinstance(answer, ApprovalResult):
        return answer.outcome
    if isinstance(answer, str):
        return answer if answer in APPROVAL_OUTCOMES else "rejected"
    if isinstance(answer, dict):
        outcome = answer.get("outcome")
        if isinstance(outcome, str) and outcome in APPROVAL_OUTCOMES and len(answer) == 1:
            return outcome
    return "rejected"


def make_approval_handler(
    get_callback: Callable[[], ApprovalHandler | None],
    pending: PendingRequests,
    timeout: Callable[[], float | None],
) -> RequestHandler:
    """A transport handler for ``approval/request`` that never grants by accident."""

    async def handle(params: dict[str, Any], request_id: Any) -> dict[str, Any]:
        try:
            request = ApprovalRequest.model_validate(params)
        except ValidationError as exc:
            log.warning("malformed approval/request rejected: %s", exc)
            return {"outcome": "rejected"}
        callback = get_callback()
        if callback is None:
            return {"outcome": "rejected"}
        key = str(request_id)
        outcome = "rejected"
        with anyio.CancelScope() as scope:
            pending.register(key, scope)
            try:
                with anyio.fail_after(timeout()):  # None: no bound
                    answer = await callback(request)
                outcome = _outcome_of(answer)
            except TimeoutError:
                log.warning("approval for %s timed out: cancelled", request.tool_name)
                outcome = "cancelled"
            except Exception as exc:
                log.warning("approval callback failed (%s): rejected", exc)
                outcome = "rejected"
            finally:
                pending.unregister(key)
        pending.raise_if_withdrawn(key, scope)
        return {"outcome": outcome}

    return handle


def _answers_of(answer: Any, ask: UserQuestionAsk) -> dict[str, Any]:
    if answer is None or isinstance(answer, UserQuestionDismissed):
        return {"cancelled": True}
    if isinstance(answer, dict) and answer == {"cancelled": True}:
        return {"cancelled": True}
    if isinstance(answer, UserQuestionAnswers):
        parsed = answer
    elif isinstance(answer, dict):
        parsed = UserQuestionAnswers.model_validate(answer)
    else:
        parsed = UserQuestionAnswers(
            answers=[
                a if isinstance(a, UserQuestionAnswer) else UserQuestionAnswer.model_validate(a)
                for a in answer
            ]
        )
    asked = [q.id for q in ask.questions]
    given = [a.id for a in parsed.answers]
    if sorted(asked) != sorted(given):
        raise ValueError(
            f"the answers must name every question id exactly once: asked {asked}, got {given}"
        )
    return {"answers": [a.model_dump(mode="json", exclude_none=True) for a in parsed.answers]}


def make_question_handler(
    get_callback: Callable[[], QuestionHandler | None],
    pending: PendingRequests,
    timeout: Callable[[], float | None],
) -> RequestHandler:
    """A transport handler for ``user-question/ask``.

    A callback error or an invalid answer is answered with a JSON-RPC error (the runtime reports
    a provider error or ``BAD_ANSWER``); a timeout or ``None`` dismisses (``{cancelled: true}``).
    """

    async def handle(params: dict[str, Any], request_id: Any) -> dict[str, Any]:
        ask = UserQuestionAsk.model_validate(params)
        callback = get_callback()
        if callback is None:
            raise RuntimeError("no user-question handler is registered")
        key = ask.request_id
        result: dict[str, Any] = {"cancelled": True}
        with anyio.CancelScope() as scope:
            pending.register(key, scope)
            try:
                with anyio.fail_after(timeout()):  # None: no bound
                    answer = await callback(ask)
                result = _answers_of(answer, ask)
            except TimeoutError:
                result = {"cancelled": True}
            finally:
                pending.unregister(key)
        pending.raise_if_withdrawn(key, scope)
        return result

    return handle
