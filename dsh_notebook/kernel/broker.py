"""Who answers approvals and questions in a kernel: the person, a policy, or nobody.

Every approval or question the runtime raises is matched to the run it belongs to (by the session
tree) and answered according to that run's settings:

- ``--on-approval allow`` / ``reject``: answered at once by that policy (``decided_by="policy"``).
- ``ask`` in **background** mode: the request waits as a *pending* item until a click (widget) or
  ``%dsh allow ID`` / ``%dsh reject ID`` / ``%dsh answer ID …`` resolves it.
- ``ask`` in **wait** mode: the waiting cell asks on stdin (``input()``) when the frontend offers it,
  else the headless policy decides (default **reject**; questions are dismissed).

Thread-safety: requests arrive on the host loop; resolutions come from any thread and are handed
to the host loop through ``RuntimeHost.call_soon``. A pending item is resolved at most once; every
path that is not an explicit "allow" (closed widget, stopped run, kernel shutdown, lost transport)
ends rejected or dismissed. Notices about pending items go to ``notify`` (the UI pump).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from ..protocol import ApprovalRequest, UserQuestionAsk

__all__ = ["Broker", "MainThreadPrompt", "Pending", "RunPolicy"]

log = logging.getLogger(__name__)

ApprovalMode = Literal["ask", "allow", "reject"]


@dataclass
class RunPolicy:
    """How one run's requests are answered."""

    on_approval: ApprovalMode = "ask"
    wait_mode: bool = False
    stdin: bool = False
    headless_approval: Literal["reject", "allow"] = "reject"
    notify: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    prompts: queue.Queue[MainThreadPrompt] | None = None


@dataclass
class MainThreadPrompt:
    """A question for the waiting cell's thread to ask on stdin. ``answer`` is filled by it."""

    kind: Literal["approval", "question"]
    request: Any
    done: threading.Event = field(default_factory=threading.Event)
    answer: Any = None


@dataclass
class Pending:
    """A request waiting for the person."""

    key: str
    kind: Literal["approval", "question"]
    request: Any
    event: anyio.Event
    answer: Any = None
    decided_by: str = ""
    resolved: bool = False


class Broker:
    """Routes requests to the policy of the run they belong to. One per kernel."""

    def __init__(self, call_soon: Callable[..., None]) -> None:
        self._call_soon = call_soon
        self._policies: dict[str, RunPolicy] = {}
        self._pending: dict[str, Pending] = {}
        self._ids = itertools.count(1)
        self.parent_of: Callable[[str], str | None] = lambda session_id: None

    # -- runs ----------------------------------------------------------------------------------

    def attach(self, session_id: str, policy: RunPolicy) -> None:
        """The policy of the run that owns the session now (runs on a session are serialized)."""
        self._policies[session_id] = policy

    def detach(self, session_id: str, policy: RunPolicy | None = None) -> None:
        """Forget the session's policy (only if it is still ``policy``, when given)."""
        if policy is None or self._policies.get(session_id) is policy:
            self._policies.pop(session_id, None)

    def policy_for(self, session_id: str) -> RunPolicy | None:
        current: str | None = session_id
        seen = set()
        while current is not None and current not in seen:
            seen.add(current)
            policy = self._policies.get(current)
            if policy is not None:
                return policy
            current = self.parent_of(current)
        return None

    @property
    def pending(self) -> dict[str, Pending]:
        return dict(self._pending)

    # -- requests (host loop) ------------------------------------------------------------------

    async def approve(self, request: ApprovalRequest) -> str:
        policy = self.policy_for(request.session_id)
        if policy is None:  # a request outside any run of this kernel: nobody can answer
            return "rejected"
        key = f"a{next(self._ids)}"
        base = {"request_id": key, "session_id": request.session_id, "tool_name": request.tool_name,
                "call_id": request.call_id, "reason": request.reason}  # fmt: skip
        policy.notify("approval-requested", base)
        if policy.on_approval != "ask":
            outcome = "allowed-once" if policy.on_approval == "allow" else "rejected"
            policy.notify(
                "approval-decided", {"request_id": key, "outcome": outcome, "decided_by": "policy"}
            )
            return outcome
        if policy.wait_mode:
            if policy.stdin and policy.prompts is not None:
                answer = await self._ask_main_thread(policy.prompts, "approval", request)
                outcome = "allowed-once" if answer is True else "rejected"
                by = "you"
            else:
                outcome = "allowed-once" if policy.headless_approval == "allow" else "rejected"
                by = "policy"
            policy.notify(
                "approval-decided", {"request_id": key, "outcome": outcome, "decided_by": by}
            )
            return outcome
        pending = Pending(key, "approval", request, anyio.Event())
        self._pending[key] = pending
        try:
            await pending.event.wait()
        except BaseException:
            # cancelled (the runtime withdrew it, or shutdown): never a grant
            pending.resolved = True
            policy.notify(
                "approval-decided",
                {"request_id": key, "outcome": "cancelled", "decided_by": "runtime"},
            )
            raise
        finally:
            self._pending.pop(key, None)
        outcome = "allowed-once" if pending.answer is True else "rejected"
        policy.notify(
            "approval-decided",
            {"request_id": key, "outcome": outcome, "decided_by": pending.decided_by},
        )
        return outcome

    async def ask(self, request: UserQuestionAsk) -> Any:
        policy = self.policy_for(request.session_id)
        if policy is None:
            return None
        key = f"q{next(self._ids)}"
        questions = [
            q.model_dump(mode="json", by_alias=True, exclude_none=True) for q in request.questions
        ]
        policy.notify(
            "question-asked",
            {
                "request_id": key,
                "session_id": request.session_id,
                "questions": questions,
                "call_id": request.call_id,
            },
        )
        if policy.wait_mode:
            answer = None
            if policy.stdin and policy.prompts is not None:
                answer = await self._ask_main_thread(policy.prompts, "question", request)
            policy.notify("question-answered", {"request_id": key, "answers": answer})
            return answer
        pending = Pending(key, "question", request, anyio.Event())
        self._pending[key] = pending
        try:
            await pending.event.wait()
        except BaseException:
            pending.resolved = True
            policy.notify("question-cancelled", {"request_id": key})
            raise
        finally:
            self._pending.pop(key, None)
        policy.notify("question-answered", {"request_id": key, "answers": pending.answer})
        return pending.answer

    async def _ask_main_thread(
        self,
        prompts: queue.Queue[MainThreadPrompt],
        kind: Literal["approval", "question"],
        request: Any,
    ) -> Any:
        prompt = MainThreadPrompt(kind, request)
        prompts.put(prompt)
        # the waiting cell answers on its own thread; wait for it off our loop
        await anyio.to_thread.run_sync(prompt.done.wait, abandon_on_cancel=True)
        return prompt.answer

    # -- resolutions (any thread) --------------------------------------------------------------

    def resolve(self, key: str, answer: Any, decided_by: str = "you") -> bool:
        """Answer a pending item (``True``/``False`` for approvals; answers list or ``None``).

        Returns False when no such item is pending (already answered, withdrawn, or from a
        previous kernel): nothing happens then.
        """
        pending = self._pending.get(key)
        if pending is None or pending.resolved:
            return False
        pending.resolved = True

        def settle() -> None:
            pending.answer = answer
            pending.decided_by = decided_by
            pending.event.set()

        self._call_soon(settle)
        return True

    def reject_all(self, decided_by: str = "connection-lost") -> int:
        """Fail every pending item closed (kernel shutdown, stop, widget gone). Count resolved."""
        count = 0
        for key, pending in list(self._pending.items()):
            if self.resolve(key, False if pending.kind == "approval" else None, decided_by):
                count += 1
        return count
