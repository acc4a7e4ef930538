"""Who answers approvals and questions in a kernel: the person, a policy, or nobody.

The broker is the kernel's one registry of requests waiting for the person. Every approval or
question the runtime raises (and every ``run_python`` call of the notebook tools) names the session
that asked; the run registry (:class:`PolicyLookup`, :mod:`.runs`) says which run holds that
session or its nearest ancestor (a notebook tool call comes with the run its origin was matched
to, :class:`PolicyOwner`, and is not looked up again), and the request is answered according to
that run's settings (no run holds it, or its run has settled: rejected, dismissed):

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
run's ``notify`` callback (the UI pump) as typed facts (:mod:`dsh_notebook.transcript.facts`),
built here, so a wrong field fails in the broker, not in the pump thread.

Scopes ("Allow for this run"). The protocol's only grant is ``allowed-once``; a scope is a policy
of ours on top of it. A person's click may allow an approval *for the rest of its run*
(:meth:`Broker.decide` with ``for_run=True``): that request is answered ``allowed-once``, and so
is every later request **of the same tool name** owned by **the same run's policy** (answered at
once, ``decided_by="scope"``, each one still shown on its own card). "The same tool name" is
its scope key (:func:`scope_key`): the four cell-editing tools share ``notebook-edits``. A scope

- lives on that run's :class:`RunPolicy` only: another run, even on the same session, has a new
  policy and asks again; a request of another tool asks again;
- ends when the run ends (:meth:`Broker.detach` at settle), and on every fail-closed path
  (:meth:`Broker.reject_all`: stop, kernel shutdown, lost transport);
- is only ever created by an explicit decision of the person (a click, ``%dsh allow ID --run``),
  never by a policy, a timeout or a cancellation.

Edits ("Edit, then run"). A request asked with :meth:`Broker.approve_call` ``(editable=True)`` —
the notebook tools' ``run_python`` — may be allowed with replacement code
(:meth:`Broker.decide` with ``code=``). The code is held on that request's own :class:`Pending`
(its key names one tool call) and returned only to the coroutine awaiting that very call, so an
edit can never apply to another call. A request that is not editable refuses an edit (nothing is
decided), so the runtime never runs the original while the person believes their edit ran.
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

from ...notebook_tools.refusals import NOTE_MAX, clean_note
from ...protocol import ApprovalOutcome, ApprovalRequest, UserQuestionAsk
from ...transcript import facts
from ...transcript.tool_table import EDIT_TOOL_NAMES, EDITS_SCOPE
from ..options.choices import ApprovalMode

ALLOW_FOR_RUN = "allowed-for-run"
"""A stdin answer meaning "allow, and the same tool for the rest of this run"."""

__all__ = [
    "ALLOW_FOR_RUN",
    "EDITS_SCOPE",
    "ApprovalMode",
    "Broker",
    "DecidedBy",
    "Decision",
    "MainThreadPrompt",
    "Pending",
    "PolicyLookup",
    "PolicyOwner",
    "RunPolicy",
    "SessionTree",
    "scope_key",
]

log = logging.getLogger(__name__)

DecidedBy = Literal[
    "you", "you-for-run", "you-edited", "scope", "policy", "runtime", "connection-lost"
]
"""Who decided, as the transcript records it (``transcript.DECIDED_BY``)."""

Answers = list[dict[str, Any]] | None
"""A question's answers (``[{id, selected, custom?}]``), or ``None``: dismissed."""


def scope_key(tool_name: str) -> str:
    """What "Allow for this run" on a card of ``tool_name`` allows: the four cell-editing tools
    (``transcript.tool_table``: the rows that edit the notebook) share :data:`EDITS_SCOPE`; every
    other tool (``run_cells``, ``run_python``, ``bash``…) is its own scope."""
    return EDITS_SCOPE if tool_name in EDIT_TOOL_NAMES else tool_name


class SessionTree(Protocol):
    """Where a session's parent is learned (the runtime host's view of the tree)."""

    def parent_of(self, session_id: str) -> str | None: ...


class PolicyLookup(Protocol):
    """Where the broker learns which run's policy answers a session's requests: the kernel's
    run registry (:class:`~dsh_notebook.kernel.registry.runs.Runs`), the one home of that answer."""

    def policy_for(self, session_id: str) -> RunPolicy | None:
        """The policy of the run holding ``session_id`` or its nearest ancestor, or None."""
        ...

    def live_policies(self) -> list[RunPolicy]:
        """The policies of every run not settled yet."""
        ...


class PolicyOwner(Protocol):
    """The run a caller already matched a request to (a :class:`~.runs.ActiveRun`): its policy
    answers the request while it has not settled."""

    @property
    def policy(self) -> RunPolicy: ...

    @property
    def settled(self) -> bool: ...


@dataclass
class RunPolicy:
    """How one run's requests are answered."""

    on_approval: ApprovalMode = "ask"
    read_only: bool = False
    """A read-only run: every approval is rejected by policy, before ``on_approval``, the
    headless answer and every scope (the notebook tools refuse their calls before any card)."""
    wait_mode: bool = False
    stdin: bool = False
    headless_approval: Literal["reject", "allow"] = "reject"
    notify: Callable[[facts.LocalFact], None] = lambda fact: None
    """Where the run's cards learn of its requests and decisions (the UI pump)."""
    prompts: queue.Queue[MainThreadPrompt] | None = None
    """Where wait mode hands stdin prompts to the waiting cell's thread."""
    allowed_for_run: set[str] = field(default_factory=set)
    """Scope keys (:func:`scope_key`) the person allowed for the rest of this run (host loop)."""
    ended: bool = False
    """The run is over (or failed closed): no scope of it grants anything any more."""

    def end_scopes(self) -> None:
        """Forget every scope of this run; none can be added afterwards."""
        self.ended = True
        self.allowed_for_run.clear()

    def covers(self, tool_name: str) -> bool:
        """Whether a scope of this run allows ``tool_name`` now."""
        return (
            not self.ended
            and not self.read_only
            and self.on_approval == "ask"
            and scope_key(tool_name) in self.allowed_for_run
        )


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
    policy: RunPolicy | None = None
    editable: bool = False
    """The caller runs the code it asked about and can run an edited version instead."""
    for_run: bool = False
    """Allowed for the rest of the run (a scope), not just this once."""
    code: str | None = None
    """The person's edited code (``editable`` requests only)."""
    note: str | None = None
    """The person's note on a rejection (told to the agent verbatim)."""
    person_only: bool = False
    """Its caller is not sure whose request it is: no scope may answer it, only the person."""
    changes: tuple[tuple[str, str], ...] | None = None
    """What the request's code will change (its card's Changes lines; ``%dsh pending``)."""


@dataclass(frozen=True)
class Decision:
    """How one approval was decided: the wire outcome, who decided, the edited code, and the
    person's note on a rejection. What the agent is told of it is
    :func:`dsh_notebook.notebook_tools.refusals.refusal_text`."""

    outcome: ApprovalOutcome
    decided_by: DecidedBy
    code: str | None = None
    """Replacement code the person approved instead of the request's (``None``: unedited)."""
    note: str | None = None
    """The person's note with a rejection (``None``: none), at most ``refusals.NOTE_MAX``."""


class Broker:
    """Routes requests to the policy of the run they belong to. One per kernel."""

    def __init__(self, runs: PolicyLookup) -> None:
        self.runs = runs
        self._pending: dict[str, Pending] = {}
        self._ids = itertools.count(1)
        self._resolving = threading.Lock()
        self.on_change: Callable[[dict[str, Pending]], None] = lambda pending: None
        """Called (on the host loop) with what waits for the person (:attr:`pending`) whenever an
        item starts or stops waiting: the waiting signal (:mod:`.waiting`)."""

    @property
    def pending(self) -> dict[str, Pending]:
        """A copy of what waits for the person now, by key."""
        return dict(self._pending)

    # -- requests (host loop) ------------------------------------------------------------------

    async def approve(self, request: ApprovalRequest) -> ApprovalOutcome:
        """Decide an approval by its run's policy; ``rejected`` when no run of ours owns it."""
        return (await self.approve_call(request)).outcome

    async def approve_call(
        self,
        request: ApprovalRequest,
        *,
        editable: bool = False,
        person_only: bool = False,
        proposed: str | None = None,
        target: str | None = None,
        owner: PolicyOwner | None = None,
        changes: tuple[tuple[str, str], ...] | None = None,
        analyse: Callable[[str], tuple[tuple[str, str], ...] | None] | None = None,
    ) -> Decision:
        """Decide an approval: a scope of its run, its run's policy, or the person.

        ``editable``: the caller will run :attr:`Decision.code` instead of the request's code
        when the person edited it (only then may a decision carry code). ``person_only``: the
        caller is not sure the request is this run's (see :mod:`.tool_calls`), so no scope and
        no ``--on-approval``/headless policy may grant it: the person decides, or, where nobody
        can answer, it is rejected; a for-run click on it allows this call only (no scope, and
        a scope made elsewhere never answers it). ``proposed``: the whole text "Edit, then …" opens on (a
        ``run_python`` call's code, a cell edit's new source); ``target``: a cell edit's cell id;
        both carried on its :class:`~..transcript.facts.ApprovalRequested`. ``owner``: the run
        the caller matched the request to (the notebook tools' claim): its policy answers, and the
        registry is not asked again; a settled owner answers nothing (rejected, as a request no
        run holds). ``changes``: what the code will change (the card's Changes lines);
        ``analyse``: what edited code will (called on a worker thread when the person edited
        the code, its lines carried on the :class:`~..transcript.facts.ApprovalDecided`)."""
        if owner is None:
            policy = self.runs.policy_for(request.session_id)
        else:
            policy = None if owner.settled else owner.policy
        if policy is None:  # a request outside any run of this kernel: nobody can answer
            return Decision("rejected", "policy")
        key = f"a{next(self._ids)}"
        policy.notify(
            facts.ApprovalRequested(key, request.session_id, request.tool_name, request.call_id,
                                    request.reason, proposed, target, changes)
        )  # fmt: skip
        outcome: ApprovalOutcome
        by: DecidedBy
        code: str | None = None
        note: str | None = None
        if policy.read_only:
            outcome, by = "rejected", "policy"  # read-only wins over every grant
        elif person_only and policy.wait_mode and not (policy.stdin and policy.prompts is not None):
            outcome, by = "rejected", "policy"  # nobody to ask, and no policy may grant it
        elif policy.covers(request.tool_name) and not person_only:
            outcome, by = "allowed-once", "scope"
        elif policy.on_approval != "ask" and not person_only:
            outcome, by = (
                ("allowed-once" if policy.on_approval == "allow" else "rejected"),
                "policy",
            )
        elif policy.wait_mode:
            if policy.stdin and policy.prompts is not None:
                answer = await self._ask_main_thread(policy.prompts, "approval", request)
                outcome, by = ("allowed-once" if answer == "allowed-once" else "rejected"), "you"
                if answer == ALLOW_FOR_RUN:  # typed "r" at the prompt: a click's equivalent
                    outcome, by = "allowed-once", "you-for-run"
                    if not policy.ended:
                        self._scope(policy, request.tool_name)
            else:
                outcome = "allowed-once" if policy.headless_approval == "allow" else "rejected"
                by = "policy"
        else:
            pending = await self._wait_for_person(
                key, "approval", request, policy, editable, person_only=person_only,
                changes=changes,
            )  # fmt: skip
            outcome, by, note = pending.outcome, pending.decided_by, pending.note
            if outcome == "allowed-once":
                code = pending.code if editable else None
                # a click on a card whose run is a guess allows that call, never a run's scope
                if pending.for_run and not policy.ended and not person_only:
                    self._scope(policy, request.tool_name)
        edited: tuple[tuple[str, str], ...] | None = None
        if code is not None and analyse is not None:
            try:  # the card then says what the person's code will change
                edited = await anyio.to_thread.run_sync(analyse, code)
            except Exception:  # a card without Changes, never a lost decision
                log.exception("dsh: reading what the edited code changes failed")
        policy.notify(
            facts.ApprovalDecided(key, outcome, by, code, note, edited)
        )  # the card shows the code that ran, or the person's note
        return Decision(outcome, by, code, note)

    def _scope(self, policy: RunPolicy, tool_name: str) -> None:
        """Allow ``tool_name``'s scope for the rest of ``policy``'s run, and answer what already
        waits in that scope."""
        key = scope_key(tool_name)
        policy.allowed_for_run.add(key)
        for other in list(self._pending.values()):
            if (
                other.kind == "approval"
                and other.policy is policy
                and not other.person_only
                and scope_key(other.request.tool_name) == key
            ):
                self._resolve(other, "scope", outcome="allowed-once")

    async def ask(self, request: UserQuestionAsk) -> Answers:
        """Answer a question by its run's policy; dismissed (``None``) when no run owns it."""
        policy = self.runs.policy_for(request.session_id)
        if policy is None:
            return None
        key = f"q{next(self._ids)}"
        questions = [
            q.model_dump(mode="json", by_alias=True, exclude_none=True) for q in request.questions
        ]
        policy.notify(facts.QuestionAsked(key, request.session_id, questions, request.call_id))
        answers: Answers = None
        if policy.wait_mode:
            if policy.stdin and policy.prompts is not None:
                answers = await self._ask_main_thread(policy.prompts, "question", request)
        else:
            answers = (await self._wait_for_person(key, "question", request, policy)).answers
        policy.notify(facts.QuestionAnswered(key, answers))
        return answers

    async def _wait_for_person(
        self,
        key: str,
        kind: Literal["approval", "question"],
        request: Any,
        policy: RunPolicy,
        editable: bool = False,
        *,
        person_only: bool = False,
        changes: tuple[tuple[str, str], ...] | None = None,
    ) -> Pending:
        pending = Pending(key, kind, request, anyio.Event(), asyncio.get_running_loop())
        pending.policy, pending.editable = policy, editable
        pending.person_only, pending.changes = person_only, changes
        self._pending[key] = pending
        self._changed()
        try:
            await pending.event.wait()
        except BaseException:
            # cancelled (the runtime withdrew it, or shutdown): never a grant
            with self._resolving:
                pending.resolved = True
            if kind == "approval":
                policy.notify(facts.ApprovalDecided(key, "cancelled", "runtime"))
            else:
                policy.notify(facts.QuestionCancelled(key))
            raise
        finally:
            self._pending.pop(key, None)
            self._changed()
        return pending

    def _changed(self) -> None:
        try:
            self.on_change(self.pending)
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

    def decide(
        self,
        key: str,
        outcome: ApprovalOutcome,
        decided_by: DecidedBy = "you",
        *,
        for_run: bool = False,
        code: str | None = None,
        note: str | None = None,
    ) -> bool:
        """Decide a pending approval. False when no approval is pending under ``key``, or when
        the decision is not one it can take (nothing is decided then).

        ``for_run`` (with ``allowed-once``): allow this tool for the rest of the request's run.
        ``code`` (with ``allowed-once``, editable requests only): run this code instead.
        ``note`` (with ``rejected`` only, at most ``refusals.NOTE_MAX`` characters): the
        person's reason, told to the agent verbatim.
        """
        pending = self._pending.get(key)
        if pending is None or pending.kind != "approval":
            return False
        if (for_run or code is not None) and outcome != "allowed-once":
            return False
        if note is not None and (outcome != "rejected" or len(note) > NOTE_MAX):
            return False
        if code is not None and (not pending.editable or for_run):
            return False
        if code is not None:
            decided_by = "you-edited" if decided_by == "you" else decided_by
        elif for_run:
            decided_by = "you-for-run" if decided_by == "you" else decided_by
        return self._resolve(
            pending, decided_by, outcome=outcome, for_run=for_run, code=code, note=note
        )

    def answer(self, key: str, answers: Answers, decided_by: DecidedBy = "you") -> bool:
        """Answer (or, with ``None``, dismiss) a pending question. False when none is pending."""
        pending = self._pending.get(key)
        if pending is None or pending.kind != "question":
            return False
        return self._resolve(pending, decided_by, answers=answers)

    def reject_all(self, decided_by: DecidedBy = "connection-lost") -> int:
        """Fail every pending item closed (kernel shutdown, stop, widget gone) and end every
        run's scopes. Count resolved."""
        for policy in self.runs.live_policies():
            policy.end_scopes()
        return sum(
            self._resolve(p, decided_by, outcome="rejected", answers=None)
            for p in list(self._pending.values())
        )

    def cancel_waiting_for(self, policy: RunPolicy) -> int:
        """Cancel what still waits under ``policy``, whose run has settled (any thread): its
        card can no longer be clicked (a settled view offers no pending card), so it would wait
        for ever. Only a guessed call can be left so: its run (the claim's guess) ended while the
        call, made by another run's session, waits; that caller is told the approval was
        cancelled before anyone decided. Count resolved."""
        return sum(
            self._resolve(p, "policy", outcome="cancelled", answers=None)
            for p in list(self._pending.values())
            if p.policy is policy
        )

    def _resolve(
        self,
        pending: Pending,
        decided_by: DecidedBy,
        *,
        outcome: ApprovalOutcome = "rejected",
        answers: Answers = None,
        for_run: bool = False,
        code: str | None = None,
        note: str | None = None,
    ) -> bool:
        with self._resolving:  # at most once, whichever threads decide at the same moment
            if pending.resolved:
                return False
            pending.resolved = True

        def settle() -> None:
            pending.outcome = outcome
            pending.answers = answers
            pending.decided_by = decided_by
            pending.for_run = for_run and outcome == "allowed-once"
            pending.code = code if outcome == "allowed-once" else None
            pending.note = clean_note(note) if outcome == "rejected" else None
            pending.event.set()

        with contextlib.suppress(RuntimeError):  # the loop is gone: its waiters are gone too
            pending.loop.call_soon_threadsafe(settle)
        return True
