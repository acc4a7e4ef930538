"""Who answers approvals and questions in a kernel: the person, a policy, or nobody.

The broker is the kernel's one registry of requests waiting for the person. Every approval or
question the runtime raises (and every ``run_python`` call of the notebook tools) is matched to
the run it belongs to — by its session, or the nearest ancestor in the session tree that has a
run — and answered according to that run's settings:

- ``--on-approval allow`` / ``reject``: answered at once by that policy (``decided_by="policy"``).
- ``ask`` in **background** mode: the request waits as a *pending* item until a click (widget) or
  ``%dsh allow ID`` / ``%dsh reject ID`` / ``%dsh answer ID …`` resolves it.
- ``ask`` in **wait** mode: the waiting cell asks on stdin (``input()``) when the frontend offers it,
  else the headless policy decides (default **reject**; questions are dismissed).

One vocabulary: an approval is decided with the protocol's :data:`ApprovalOutcome`
(``"allowed-once" | "rejected" | "cancelled"``) from the click to the wire; a question with its
answers, or ``None`` to dismiss it. One id: the key this broker gives a request (``a1``, ``q2``, …)
is what the transcript's pending list, the widget's messages and the ``%dsh`` commands use.

Thread-safety: requests arrive on the host loop; :meth:`Broker.decide`, :meth:`Broker.answer` and
:meth:`Broker.reject_all` may be called from any thread and hand the resolution to the loop the
request waits on (``call_soon_threadsafe``). A pending item is resolved at most once; every path
that is not an explicit ``allowed-once`` (closed widget, stopped run, kernel shutdown, lost
transport, cancellation) ends rejected, cancelled or dismissed. Notices about requests go to the
run's ``notify`` callback (the UI pump).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import anyio

from ..protocol import ApprovalOutcome, ApprovalRequest, UserQuestionAsk

__all__ = [
    "ApprovalMode",
    "Broker",
    "DecidedBy",
    "MainThreadPrompt",
    "Pending",
    "RunPolicy",
    "SessionTree",
]

log = logging.getLogger(__name__)

ApprovalMode = Literal["ask", "allow", "reject"]
DecidedBy = Literal["you", "policy", "runtime", "connection-lost"]
"""Who decided, as the transcript records it (``transcript.DECIDED_BY``)."""

Answers = list[dict[str, Any]] | None
"""A question's answers (``[{id, selected, custom?}]``), or ``None``: dismissed."""


class SessionTree(Protocol):
    """Where the broker learns a session's parent (the runtime host's view of the tree)."""

    def parent_of(self, session_id: str) -> str | None: ...


@dataclass
class RunPolicy:
    """How one run's requests are answered."""

    on_approval: ApprovalMode = "ask"
    wait_mode: bool = False
    stdin: bool = False
    headless_approval: Literal["reject", "allow"] = "reject"
    notify: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    prompts: queue.Queue[MainThreadPrompt] | None = None
    """Where wait mode hands stdin prompts to the waiting cell's thread."""


@dataclass
class MainThreadPrompt:
    """A question for the waiting cell's thread to ask on stdin. ``answer`` is filled by it:
    an :data:`ApprovalOutcome` for an approval, the answers (or ``None``) for a question."""

    kind: Literal["approval", "question"]
    request: Any
    done: threading.Event = field(default_factory=threading.Event)
    answer: Any = None


@dataclass
class Pending:
    """A request waiting for the person, on the loop of the call that waits for it."""

    key: str
    kind: Literal["approval", "question"]
    request: Any
    event: anyio.Event
    loop: asyncio.AbstractEventLoop
    outcome: ApprovalOutcome = "rejected"
    answers: Answers = None
    decided_by: DecidedBy = "you"
    resolved: bool = False


class _NoTree:
    def parent_of(self, session_id: str) -> str | None:
        return None


class Broker:
    """Routes requests to the policy of the run they belong to. One per kernel."""

    def __init__(self, tree: SessionTree | None = None) -> None:
        self.tree: SessionTree = tree or _NoTree()
        self._policies: dict[str, RunPolicy] = {}
        self._pending: dict[str, Pending] = {}
        self._ids = itertools.count(1)
        self.on_change: Callable[[], None] = lambda: None
        """Called (on the host loop) whenever an item starts or stops waiting for the person."""

    # -- runs ----------------------------------------------------------------------------------

    def attach(self, session_id: str, policy: RunPolicy) -> None:
        """The policy of the run that owns the session now (runs on a session are serialized)."""
        self._policies[session_id] = policy

    def detach(self, session_id: str, policy: RunPolicy | None = None) -> None:
        """Forget the session's policy (only if it is still ``policy``, when given)."""
        if policy is None or self._policies.get(session_id) is policy:
            self._policies.pop(session_id, None)

    def policy_for(self, session_id: str) -> RunPolicy | None:
        """The policy of the run of ``session_id`` or of its nearest ancestor that has one."""
        current: str | None = session_id
        seen = set()
        while current is not None and current not in seen:
            seen.add(current)
            policy = self._policies.get(current)
            if policy is not None:
                return policy
            current = self.tree.parent_of(current)
        return None

    @property
    def pending(self) -> dict[str, Pending]:
        """A copy of what waits for the person now, by key."""
        return dict(self._pending)

    # -- requests (host loop) ------------------------------------------------------------------

    async def approve(self, request: ApprovalRequest) -> ApprovalOutcome:
        """Decide an approval by its run's policy; ``rejected`` when no run of ours owns it."""
        policy = self.policy_for(request.session_id)
        if policy is None:  # a request outside any run of this kernel: nobody can answer
            return "rejected"
        key = f"a{next(self._ids)}"
        policy.notify(
            "approval-requested",
            {"request_id": key, "session_id": request.session_id, "tool_name": request.tool_name,
             "call_id": request.call_id, "reason": request.reason},
        )  # fmt: skip
        outcome: ApprovalOutcome
        by: DecidedBy
        if policy.on_approval != "ask":
            outcome, by = (
                ("allowed-once" if policy.on_approval == "allow" else "rejected"),
                "policy",
            )
        elif policy.wait_mode:
            if policy.stdin and policy.prompts is not None:
                answer = await self._ask_main_thread(policy.prompts, "approval", request)
                outcome, by = ("allowed-once" if answer == "allowed-once" else "rejected"), "you"
            else:
                outcome = "allowed-once" if policy.headless_approval == "allow" else "rejected"
                by = "policy"
        else:
            pending = await self._wait_for_person(key, "approval", request, policy)
            outcome, by = pending.outcome, pending.decided_by
        policy.notify("approval-decided", {"request_id": key, "outcome": outcome, "decided_by": by})
        return outcome

    async def ask(self, request: UserQuestionAsk) -> Answers:
        """Answer a question by its run's policy; dismissed (``None``) when no run owns it."""
        policy = self.policy_for(request.session_id)
        if policy is None:
            return None
        key = f"q{next(self._ids)}"
        questions = [
            q.model_dump(mode="json", by_alias=True, exclude_none=True) for q in request.questions
        ]
        policy.notify(
            "question-asked",
            {"request_id": key, "session_id": request.session_id, "questions": questions,
             "call_id": request.call_id},
        )  # fmt: skip
        answers: Answers = None
        if policy.wait_mode:
            if policy.stdin and policy.prompts is not None:
                answers = await self._ask_main_thread(policy.prompts, "question", request)
        else:
            answers = (await self._wait_for_person(key, "question", request, policy)).answers
        policy.notify("question-answered", {"request_id": key, "answers": answers})
        return answers

    async def _wait_for_person(
        self, key: str, kind: Literal["approval", "question"], request: Any, policy: RunPolicy
    ) -> Pending:
        pending = Pending(key, kind, request, anyio.Event(), asyncio.get_running_loop())
        self._pending[key] = pending
        self._changed()
        try:
            await pending.event.wait()
        except BaseException:
            # cancelled (the runtime withdrew it, or shutdown): never a grant
            pending.resolved = True
            if kind == "approval":
                policy.notify(
                    "approval-decided",
                    {"request_id": key, "outcome": "cancelled", "decided_by": "runtime"},
                )
            else:
                policy.notify("question-cancelled", {"request_id": key})
            raise
        finally:
            self._pending.pop(key, None)
            self._changed()
        return pending

    def _changed(self) -> None:
        try:
            self.on_change()
        except Exception:  # a signal, never a reason to lose the request
            log.exception("dsh: the pending-change callback failed")

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

    def decide(self, key: str, outcome: ApprovalOutcome, decided_by: DecidedBy = "you") -> bool:
        """Decide a pending approval. False when no approval is pending under ``key``."""
        pending = self._pending.get(key)
        if pending is None or pending.kind != "approval":
            return False
        return self._resolve(pending, decided_by, outcome=outcome)

    def answer(self, key: str, answers: Answers, decided_by: DecidedBy = "you") -> bool:
        """Answer (or, with ``None``, dismiss) a pending question. False when none is pending."""
        pending = self._pending.get(key)
        if pending is None or pending.kind != "question":
            return False
        return self._resolve(pending, decided_by, answers=answers)

    def reject_all(self, decided_by: DecidedBy = "connection-lost") -> int:
        """Fail every pending item closed (kernel shutdown, stop, widget gone). Count resolved."""
        return sum(
            self._resolve(p, decided_by, outcome="rejected", answers=None)
            for p in list(self._pending.values())
        )

    def _resolve(
        self,
        pending: Pending,
        decided_by: DecidedBy,
        *,
        outcome: ApprovalOutcome = "rejected",
        answers: Answers = None,
    ) -> bool:
        if pending.resolved:
            return False
        pending.resolved = True

        def settle() -> None:
            pending.outcome = outcome
            pending.answers = answers
            pending.decided_by = decided_by
            pending.event.set()

        with contextlib.suppress(RuntimeError):  # the loop is gone: its waiters are gone too
            pending.loop.call_soon_threadsafe(settle)
        return True
