"""The run registry and the origin of notebook tool calls, in process (no kernel, no runtime).

A request belongs to the run that *holds* its session (or its root's), never to the newest run;
a ``run_python`` call belongs to the session whose ``tool/call`` event it matches, and a run's
``allow``/``reject``/scope never decides another run's call. The real-kernel proofs are in
``test_run_ownership_real.py``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from dataclasses import asdict
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest

from dsh_notebook.kernel.registry.broker import Decision, RunPolicy
from dsh_notebook.kernel.registry.runs import ApprovedCall, Runs
from dsh_notebook.kernel.registry.waiting import WaitingSignal
from dsh_notebook.kernel.run import settle_run
from dsh_notebook.kernel.tools import tools_host as tools_host_module
from dsh_notebook.kernel.tools.tool_calls import CallOrigins, Origin
from dsh_notebook.notebook_tools.edits import Grant, Refusal
from dsh_notebook.notebook_tools.refusals import (
    CANCELLED_MESSAGE,
    NO_RUN_MESSAGE,
    REJECTED_MESSAGE,
    UNMATCHED_MESSAGE,
    refusal_text,
)
from dsh_notebook.protocol import SESSION_EVENT, ApprovalRequest, Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import PROPOSED_MAX

from .helpers.agent_cells import linked
from .helpers.loop_host import (
    RUN_PYTHON,
    LoopHost,
    approve,
    event,
    tool_call,
    tools,
)
from .run_registry import bare_run, broker_with_runs, hold


class Tree:
    def __init__(self, parents: dict[str, str]) -> None:
        self.parents = parents

    def parent_of(self, session_id: str) -> str | None:
        return self.parents.get(session_id)


# -- Runs ----------------------------------------------------------------------------------------


def test_a_queued_run_owns_nothing_the_holder_owns_its_session() -> None:
    runs = Runs()
    first, second = bare_run("s"), bare_run("s")  # Run All: two cells on one session
    runs.add(first)
    runs.hold(first)
    runs.add(second)  # queued behind the first: the newest, but not the holder
    assert runs.run_of("s") is first
    assert runs.last() is second
    assert runs.in_progress() == [first, second]
    runs.settle(first)
    assert runs.run_of("s") is None  # between the two: nobody's
    runs.hold(second)
    assert runs.run_of("s") is second
    assert runs.in_progress() == [second]


def test_a_child_session_belongs_to_the_run_holding_its_nearest_ancestor() -> None:
    runs = Runs(Tree({"grandchild": "child", "child": "root"}))
    root = hold(runs, "root")
    assert runs.run_of("grandchild") is root
    assert runs.run_of("elsewhere") is None
    runs.settle(root)
    assert runs.run_of("grandchild") is None


def test_a_settled_run_never_holds_again_and_its_scopes_end() -> None:
    runs = Runs()
    run = hold(runs, "s")
    run.policy.allowed_for_run.add("bash")
    runs.settle(run)
    runs.hold(run)  # a late on_start (the run failed before its turn came)
    assert runs.run_of("s") is None and not run.policy.covers("bash")


# -- CallOrigins -------------------------------------------------------------------------------


def tool_result(session: str, call_id: str) -> Notification:
    return event(session, "tool/result", {"message": {"toolCallId": call_id, "content": []}})


def test_a_call_is_matched_to_the_session_whose_tool_call_it_is() -> None:
    runs = Runs()
    a, b = hold(runs, "a"), hold(runs, "b")
    origins = CallOrigins()
    origins.observe(tool_call("b", "call-b", "x = 2"))
    origins.observe(tool_call("a", "call-a", "x = 1"))
    found = origins.claim(RUN_PYTHON, {"code": "x = 1"}, run_of=runs.run_of, timeout=0)
    assert found is not None and (found.session_id, found.call_id, found.certain) == (
        "a",
        "call-a",
        True,
    )
    assert runs.run_of(found.session_id) is a and runs.run_of("b") is b
    # claimed: the same call is not matched twice; another tool's name never matches
    assert origins.claim(RUN_PYTHON, {"code": "x = 1"}, run_of=runs.run_of, timeout=0) is None
    assert (
        origins.claim("mcp__other__run", {"code": "x = 2"}, run_of=runs.run_of, timeout=0) is None
    )


def test_a_call_waits_for_its_tool_call_event_and_gives_up_at_the_timeout() -> None:
    runs = Runs()
    hold(runs, "a")
    origins = CallOrigins()
    timer = threading.Timer(0.2, origins.observe, (tool_call("a", "late", "y = 1"),))
    timer.start()
    found = origins.claim(RUN_PYTHON, {"code": "y = 1"}, run_of=runs.run_of, timeout=5)
    assert found is not None and found.call_id == "late"
    assert origins.claim(RUN_PYTHON, {"code": "never"}, run_of=runs.run_of, timeout=0.1) is None


def test_identical_calls_of_two_runs_are_not_certain() -> None:
    runs = Runs()
    hold(runs, "a")
    hold(runs, "b")
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "same()"))
    origins.observe(tool_call("b", "2", "same()"))
    first = origins.claim(RUN_PYTHON, {"code": "same()"}, run_of=runs.run_of, timeout=0)
    second = origins.claim(RUN_PYTHON, {"code": "same()"}, run_of=runs.run_of, timeout=0)
    assert first is not None and not first.certain
    # the first claim was a guess: the one left may be the other's, so it is a guess too
    assert second is not None and not second.certain
    # identical calls of one run are certain: whichever is claimed, the run is the same
    origins.observe(tool_call("a", "3", "twice()"))
    origins.observe(tool_call("a", "4", "twice()"))
    third = origins.claim(RUN_PYTHON, {"code": "twice()"}, run_of=runs.run_of, timeout=0)
    assert third is not None and third.certain and third.call_id == "3"


def test_answered_calls_and_ended_turns_are_forgotten() -> None:
    runs = Runs()
    hold(runs, "a")
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "one()"))
    origins.observe(tool_result("a", "1"))
    origins.observe(tool_call("a", "2", "two()"))
    origins.observe(event("a", "turn/end", {"turn": 1, "reason": {"kind": "completed"}}))
    for code in ("one()", "two()"):
        assert origins.claim(RUN_PYTHON, {"code": code}, run_of=runs.run_of, timeout=0) is None


def test_non_mcp_tools_and_malformed_events_are_ignored() -> None:
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "x", name="bash"))
    origins.observe(event("a", "tool/call", {"name": RUN_PYTHON}))  # no call id
    origins.observe(Notification(SESSION_EVENT, {"sessionId": "a", "event": "junk"}))
    origins.observe(tool_call("a", "2", "x") if False else event("a", "tool/call", []))  # type: ignore[arg-type]
    assert origins.claim(RUN_PYTHON, {"code": "x"}, run_of=lambda s: None, timeout=0) is None


# -- the approval of a notebook tool call ---------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.asyncio_only  # the MCP server's loop is asyncio
@pytest.mark.parametrize("other_policy", ["allow", "reject"])
async def test_another_runs_policy_never_decides_a_call(host: LoopHost, other_policy: str) -> None:
    """The critical defect: B (``--on-approval allow``/``reject``, newer, still running) decided
    A's call. Now A's call waits for A's person, on A's card."""
    runs = Runs()
    notes: list[tuple[str, str, dict[str, Any]]] = []
    a = hold(runs, "analysis", RunPolicy(notify=lambda f: notes.append(("a", f.kind, asdict(f)))))
    hold(
        runs,
        "report",
        RunPolicy(
            on_approval=other_policy, notify=lambda f: notes.append(("b", f.kind, asdict(f)))
        ),
    )  # type: ignore[arg-type]
    origins = CallOrigins()
    origins.observe(tool_call("analysis", "toolu_a", "secret_work()"))
    tools_host, broker = tools(host, runs, origins)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            verdict: list[Any] = []

            async def call() -> None:
                verdict.append(await approve(tools_host, "secret_work()"))

            tg.start_soon(call)
            while not broker.pending:  # it waits for a click: nothing granted or rejected it
                await anyio.sleep(0.01)
            (pending,) = broker.pending.values()
            assert pending.policy is a.policy and pending.request.call_id == "toolu_a"
            assert broker.decide(pending.key, "allowed-once")
    assert verdict == [Grant(code=None, owner=ApprovedCall(a, "analysis", "toolu_a"))]
    assert [who for who, _, _ in notes] == ["a", "a"]  # B's transcript says nothing


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_call_the_kernel_cannot_tell_apart_waits_for_the_person(host: LoopHost) -> None:
    runs = Runs()
    hold(runs, "a")
    hold(runs, "b", RunPolicy(on_approval="allow"))
    origins = CallOrigins()
    origins.observe(tool_call("b", "1", "same()"))  # the allowed run's call is the older one
    origins.observe(tool_call("a", "2", "same()"))
    tools_host, broker = tools(host, runs, origins)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            verdict: list[Any] = []

            async def call() -> None:
                verdict.append(await approve(tools_host, "same()"))

            tg.start_soon(call)
            while not broker.pending:  # B's allow did not grant it
                await anyio.sleep(0.01)
            (pending,) = broker.pending.values()
            assert broker.decide(pending.key, "rejected")
    assert verdict == [Refusal(REJECTED_MESSAGE)]


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_call_no_run_owns_is_refused_and_says_why(
    host: LoopHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools_host_module, "ORIGIN_TIMEOUT", 0.5)
    runs = Runs()
    settled = hold(runs, "a", RunPolicy(on_approval="allow"))
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "late()"))
    runs.settle(settled)  # the call arrives after its run settled
    tools_host, _ = tools(host, runs, origins)
    assert await approve(tools_host, "late()") == Refusal(NO_RUN_MESSAGE)
    # no tool/call event at all (nothing the kernel watches made it)
    with anyio.fail_after(5):
        assert await approve(tools_host, "unseen()") == Refusal(UNMATCHED_MESSAGE)


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_subagents_call_is_decided_by_its_roots_run(host: LoopHost) -> None:
    runs = Runs(Tree({"child": "root"}))
    root = hold(runs, "root", RunPolicy(on_approval="allow"))
    hold(runs, "other")  # an asking run elsewhere changes nothing
    origins = CallOrigins()
    origins.observe(tool_call("child", "c1", "child_work()"))
    tools_host, broker = tools(host, runs, origins)
    with anyio.fail_after(10):
        assert await approve(tools_host, "child_work()") == Grant(
            owner=ApprovedCall(root, "child", "c1")
        )
    assert not broker.pending


@pytest.mark.anyio
@pytest.mark.asyncio_only
@pytest.mark.parametrize("lines", [400, 9_000])  # over LINE_MAX; over PROPOSED_MAX
async def test_a_run_python_card_holds_its_code_whole_for_the_editor_or_not_at_all(
    host: LoopHost, lines: int
) -> None:
    """The card's reason is capped at LINE_MAX (marked); "Edit, then run" opens on ``proposed``,
    which the kernel fills with the call's code: whole, or (too long) absent, never cut."""
    transcript = Transcript("analysis", prompt="p")
    runs = Runs()
    hold(runs, "analysis", RunPolicy(notify=transcript.apply_local))
    code = "\n".join(f"row_{i:05d} = compute({i})  # step" for i in range(lines))
    origins = CallOrigins()
    origins.observe(tool_call("analysis", "toolu_a", code))
    tools_host, broker = tools(host, runs, origins)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(approve, tools_host, code)
            while not broker.pending:
                await anyio.sleep(0.01)
            (card,) = [i for i in transcript.snapshot()["items"] if i["kind"] == "approval"]
            assert card["kind"] == "approval"
            assert card["reason"] is not None and "characters omitted" in card["reason"]
            assert card["proposed"] == (code if len(code) <= PROPOSED_MAX else None)
            (pending,) = broker.pending.values()
            assert broker.decide(pending.key, "rejected")


def test_a_claim_asks_the_registry_once_per_session_and_hands_back_the_run() -> None:
    """The owning run comes with the origin: the approval never looks it up again."""
    runs = Runs()
    a, b = hold(runs, "a"), hold(runs, "b")
    asked: list[str] = []

    def run_of(session_id: str) -> Any:
        asked.append(session_id)
        return runs.run_of(session_id)

    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "solo()"))
    found = origins.claim(RUN_PYTHON, {"code": "solo()"}, run_of=run_of, timeout=0)
    assert found is not None and found.run is a and found.certain
    assert asked == ["a"]
    asked.clear()
    origins.observe(tool_call("b", "2", "same()"))
    origins.observe(tool_call("a", "3", "same()"))
    found = origins.claim(RUN_PYTHON, {"code": "same()"}, run_of=run_of, timeout=0)
    assert found is not None and found.run is b and not found.certain
    assert sorted(asked) == ["a", "b"]


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_call_is_decided_with_one_registry_lookup(host: LoopHost) -> None:
    """The claim finds the run; the broker takes that run's policy from it, never asks again."""
    runs = Runs()
    a = hold(runs, "a", RunPolicy(on_approval="allow"))
    asked: list[str] = []
    lookup = runs.run_of

    def run_of(session_id: str) -> Any:
        asked.append(session_id)
        return lookup(session_id)

    runs.run_of = run_of  # type: ignore[method-assign]
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "once()"))
    tools_host, _ = tools(host, runs, origins)
    with anyio.fail_after(10):
        assert await approve(tools_host, "once()") == Grant(owner=ApprovedCall(a, "a", "1"))
    assert asked == ["a"]


@pytest.mark.anyio
async def test_a_call_whose_matched_run_settled_since_is_rejected() -> None:
    """The broker's own check on the run it is handed: a settled run answers nothing (its
    ``allow`` included), as a request no run holds."""
    broker, runs = broker_with_runs()
    run = hold(runs, "a", RunPolicy(on_approval="allow"))
    runs.settle(run)
    request = ApprovalRequest(session_id="a", tool_name="run_python", call_id="1", reason="x")
    decision = await broker.approve_call(request, owner=run)
    assert (decision.outcome, decision.decided_by) == ("rejected", "policy")


@pytest.mark.anyio
@pytest.mark.asyncio_only  # the broker's pending items wait on an asyncio loop
async def test_the_waiting_signal_names_the_cell_of_the_run_that_owns_the_request() -> None:
    """The broker hands what waits to the signal; the holder's cell is named (a queued run's
    is not), and the signal clears when the request is decided."""
    link, comm = linked(["waiting"])
    broker, runs = broker_with_runs()
    broker.on_change = WaitingSignal(runs, link)
    hold(runs, "s", cell_id="first")
    runs.add(bare_run("s", cell_id="queued"))  # Run All: the second cell waits its turn
    request = ApprovalRequest(session_id="s", tool_name="bash", call_id="1", reason="ls")
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(broker.approve_call, request)
            while not broker.pending:
                await anyio.sleep(0.01)
            (cell,) = comm.sent[-1]["cells"]
            assert cell == {"cell_id": "first", "kind": "approval", "label": "bash",
                            "request_id": "a1"}  # fmt: skip
            assert broker.decide("a1", "rejected")
    assert comm.sent[-1]["cells"] == []


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_call_whose_event_is_there_is_claimed_on_the_server_loop_a_late_one_waits(
    host: LoopHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the ordering barrier the call's event is there: claimed at once, no worker thread.
    An event seen only after the barrier (the carrier did not hold) is still waited for, off
    the server loop, but nothing proves it is this call's: the person decides, never the run's
    ``allow``."""
    runs = Runs()
    a = hold(runs, "a", RunPolicy(on_approval="allow"))
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "now()"))
    tools_host, broker = tools(host, runs, origins)
    threads: list[object] = []
    to_thread = tools_host_module.asyncio.to_thread

    async def counted(*args: Any, **kwargs: Any) -> Any:
        threads.append(args[0])
        return await to_thread(*args, **kwargs)

    monkeypatch.setattr(tools_host_module.asyncio, "to_thread", counted)
    with anyio.fail_after(10):
        assert await approve(tools_host, "now()") == Grant(owner=ApprovedCall(a, "a", "1"))
        assert threads == []
        timer = threading.Timer(0.2, origins.observe, (tool_call("a", "2", "late()"),))
        timer.start()
        late = asyncio.ensure_future(approve(tools_host, "late()"))
        while not broker.pending:
            await anyio.sleep(0.02)
        [(key, pending)] = broker.pending.items()
        assert pending.person_only and not late.done()  # the run's allow did not answer it
        assert broker.decide(key, "allowed-once")
        assert await late == Grant(owner=ApprovedCall(a, "a", "2"))
    assert len(threads) == 1


# -- known by cause (issue 43): equal arguments, the barrier, guesses kept, scopes --------------


def test_arguments_match_whole_never_as_a_subset() -> None:
    """A call with an argument more (or less) than the model's is another call."""
    runs = Runs()
    hold(runs, "a")
    origins = CallOrigins()
    origins.observe(event("a", "tool/call", {"callId": "1", "name": RUN_PYTHON,
                                             "arguments": {"code": "x()"}}))  # fmt: skip
    more = {"code": "x()", "timeout": 5}
    assert origins.claim(RUN_PYTHON, more, run_of=runs.run_of, timeout=0) is None
    origins.observe(event("a", "tool/call", {"callId": "2", "name": RUN_PYTHON,
                                             "arguments": more}))  # fmt: skip
    assert origins.claim(RUN_PYTHON, {"code": "x()"}, run_of=runs.run_of, timeout=0) == Origin(
        "a", "1", certain=True, run=runs.run_of("a")
    )
    found = origins.claim(RUN_PYTHON, more, run_of=runs.run_of, timeout=0)
    assert found is not None and found.call_id == "2" and found.certain


def test_every_candidate_of_a_guess_stays_a_guess() -> None:
    """Three identical calls of two runs: the first claim guesses, and so do the two after it,
    even when only one run's calls are left."""
    runs = Runs()
    hold(runs, "a")
    hold(runs, "b")
    origins = CallOrigins()
    for session, call in (("a", "1"), ("b", "2"), ("a", "3")):
        origins.observe(tool_call(session, call, "same()"))
    claims = [
        origins.claim(RUN_PYTHON, {"code": "same()"}, run_of=runs.run_of, timeout=0)
        for _ in range(3)
    ]
    assert [c is not None and c.certain for c in claims] == [False, False, False]


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_the_barrier_lets_the_event_written_before_the_call_be_seen(
    host: LoopHost,
) -> None:
    """The call's ``tool/call`` is still queued on the host loop when the call arrives (the
    race of issue 43): the ordering barrier is a round trip behind it, so the claim sees it and
    the run's ``allow`` decides — no wait, no guess. Without the barrier the claim would find
    nothing at once and the call would go to the person."""
    runs = Runs()
    a = hold(runs, "a", RunPolicy(on_approval="allow"))
    origins = CallOrigins()
    tools_host, broker = tools(host, runs, origins)

    def busy_then_observe() -> None:  # the host loop is behind: the event is read late
        time.sleep(0.3)
        origins.observe(tool_call("a", "1", "queued()"))

    host.loop.call_soon_threadsafe(busy_then_observe)
    with anyio.fail_after(10):
        assert await approve(tools_host, "queued()") == Grant(owner=ApprovedCall(a, "a", "1"))
    assert not broker.pending


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_a_scope_never_answers_a_guessed_call_nor_comes_from_one() -> None:
    """ "Allow for this run" on one card answers what waits in that scope of that run, except a
    call whose run is a guess; and a for-run click on a guessed card allows that call only."""
    broker, runs = broker_with_runs()
    hold(runs, "a")
    run = runs.run_of("a")
    assert run is not None

    def request(call: str) -> ApprovalRequest:
        return ApprovalRequest(session_id="a", tool_name="run_python", call_id=call, reason="x")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            decisions: dict[str, Any] = {}

            async def ask(call: str, person_only: bool) -> None:
                decisions[call] = await broker.approve_call(
                    request(call), person_only=person_only, owner=run
                )

            tg.start_soon(ask, "guess", True)
            tg.start_soon(ask, "sure", False)
            while len(broker.pending) < 2:
                await anyio.sleep(0.01)
            keys = {p.request.call_id: k for k, p in broker.pending.items()}
            assert broker.decide(keys["sure"], "allowed-once", for_run=True)
            await anyio.sleep(0.1)
            assert list(broker.pending) == [keys["guess"]]  # still waits for its own click
            assert broker.decide(keys["guess"], "rejected")
        assert decisions["guess"].outcome == "rejected"
        run.policy.allowed_for_run.clear()
        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, "guess2", True)
            while not broker.pending:
                await anyio.sleep(0.01)
            [key] = broker.pending
            assert broker.decide(key, "allowed-once", for_run=True)
        assert decisions["guess2"].outcome == "allowed-once"
        assert not run.policy.allowed_for_run  # no scope came from a guessed card


def test_identical_reads_credit_every_candidate_only_when_they_all_showed_the_same_view() -> None:
    """Two runs' identical reads at one moment: neither read alone credits anyone; once both
    reported and the views are equal, both runs are credited (whichever read was whose); a
    differing view credits no one."""
    runs = Runs()
    a, b = hold(runs, "a"), hold(runs, "b")
    origins = CallOrigins()
    origins.observe(tool_call("a", "1", "read"))
    origins.observe(tool_call("b", "2", "read"))
    first = origins.claim(RUN_PYTHON, {"code": "read"}, run_of=runs.run_of, timeout=0)
    second = origins.claim(RUN_PYTHON, {"code": "read"}, run_of=runs.run_of, timeout=0)
    assert first is not None and second is not None
    assert first.peers is not None and first.peers is second.peers
    assert first.peers.runs() == [a, b]
    assert first.peers.report(first.call_id, ("cells", "v1")) == []
    assert second.peers.report(second.call_id, ("cells", "v1")) == [a, b]
    assert second.peers.report(second.call_id, ("cells", "v1")) == []  # credited once
    origins.observe(tool_call("a", "3", "again"))
    origins.observe(tool_call("b", "4", "again"))
    third = origins.claim(RUN_PYTHON, {"code": "again"}, run_of=runs.run_of, timeout=0)
    fourth = origins.claim(RUN_PYTHON, {"code": "again"}, run_of=runs.run_of, timeout=0)
    assert third is not None and fourth is not None and third.peers is not None
    assert third.peers.report(third.call_id, "before an edit") == []
    assert third.peers.report(fourth.call_id, "after it") == []


class _Pump:
    """The UI pump as :func:`settle_run` uses it: nothing is shown."""

    def settle(self, view: object, finish_reason: object, error: object) -> None:
        pass

    def after(self, view: object, then: object) -> None:
        pass


@pytest.mark.anyio
@pytest.mark.asyncio_only  # the broker's pending items wait on an asyncio loop
async def test_a_card_still_waiting_when_its_run_settles_is_cancelled() -> None:
    """A guessed call's card lives in the run the claim chose; when that run settles first
    (the call was another run's), its settled view offers no card to click, so the call would
    wait for ever: the settle cancels it, and its caller reads that nobody decided."""
    broker, runs = broker_with_runs()
    run = hold(runs, "a")
    request = ApprovalRequest(session_id="a", tool_name="edit_cell", call_id="1", reason="x")
    agent = SimpleNamespace(runs=runs, broker=broker, results={}, ending=False, pump=_Pump())
    done: concurrent.futures.Future[Any] = concurrent.futures.Future()
    done.set_exception(RuntimeError("the turn ended"))
    decisions: list[Decision] = []
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:

            async def ask() -> None:
                decisions.append(await broker.approve_call(request, person_only=True, owner=run))

            tg.start_soon(ask)
            while not broker.pending:
                await anyio.sleep(0.01)
            settle_run(cast(Any, agent), run, done)
    assert not broker.pending
    [decision] = decisions
    assert (decision.outcome, decision.decided_by) == ("cancelled", "policy")
    assert refusal_text(decision.outcome, decision.decided_by, tool="edit_cell") == (
        CANCELLED_MESSAGE
    )
