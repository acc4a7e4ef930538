"""Approvals without fatigue, still fail-closed (issue 15): "Allow for this run" scopes and
"Edit, then run", at the broker and the widget's message check (no kernel, no runtime).

The real-kernel proofs (scopes end with the run, never cover another tool, an edited run_python
runs the edited code) are in ``test_approval_scopes_real.py``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import anyio
import pytest

from dsh_notebook.kernel.registry.broker import Decision, RunPolicy
from dsh_notebook.protocol import ApprovalRequest
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import PROPOSED_MAX
from dsh_notebook.transcript.facts import ApprovalDecided, ApprovalRequested
from dsh_notebook.transcript.markdown import render_markdown
from dsh_notebook.transcript.text import render_text
from dsh_notebook.widget.actions import check_action

from .helpers.approvals import approve_with_click, ask
from .run_registry import broker_with_runs, hold


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the runtime host's loop is asyncio


@pytest.mark.anyio
async def test_allow_for_this_run_answers_the_same_tool_of_the_run_without_asking() -> None:
    notes: list[tuple[str, dict[str, Any]]] = []
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy(notify=lambda fact: notes.append((fact.kind, asdict(fact)))))
    first = await approve_with_click(broker, ask(), "a1", for_run=True)
    assert first == Decision("allowed-once", "you-for-run")
    with anyio.fail_after(2):  # answered at once: nobody clicks
        later = await broker.approve_call(ask(reason="again"))
    assert later == Decision("allowed-once", "scope")
    decided = [d for k, d in notes if k == "approval-decided"]
    assert [(d["request_id"], d["decided_by"]) for d in decided] == [
        ("a1", "you-for-run"),
        ("a2", "scope"),  # its own card, recorded as allowed by the scope
    ]
    assert [k for k, _ in notes].count("approval-requested") == 2


@pytest.mark.anyio
async def test_a_scope_never_covers_another_tool() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    await approve_with_click(broker, ask("bash"), "a1", for_run=True)
    other = await approve_with_click(broker, ask("write"), "a2", outcome="rejected")
    assert other == Decision("rejected", "you")  # it waited for the person


@pytest.mark.anyio
async def test_a_scope_never_outlives_its_run() -> None:
    broker, runs = broker_with_runs()
    first_run = RunPolicy()
    first = hold(runs, "s", first_run)
    await approve_with_click(broker, ask(), "a1", for_run=True)
    runs.settle(first)  # the run settled
    assert first_run.allowed_for_run == set() and first_run.ended
    assert await broker.approve(ask()) == "rejected"  # nobody's run: not the old scope
    hold(runs, "s", RunPolicy())  # the next run on the same session asks again
    again = await approve_with_click(broker, ask(), "a2", outcome="rejected")
    assert again == Decision("rejected", "you")
    # a stale policy object (kept by someone) grants nothing either
    assert not first_run.covers("bash")


@pytest.mark.anyio
async def test_every_fail_closed_path_ends_the_scopes() -> None:
    broker, runs = broker_with_runs()
    policy = RunPolicy()
    hold(runs, "s", policy)
    await approve_with_click(broker, ask(), "a1", for_run=True)
    assert policy.covers("bash")
    broker.reject_all("you")  # stop / kernel shutdown / lost transport
    assert not policy.covers("bash")
    again = await approve_with_click(broker, ask(), "a2", outcome="rejected")
    assert again.decided_by == "you"


@pytest.mark.anyio
async def test_no_scope_from_a_reject_a_policy_or_a_cancellation() -> None:
    broker, runs = broker_with_runs()
    policy = RunPolicy()
    hold(runs, "s", policy)
    assert not broker.decide("a9", "allowed-once", for_run=True)  # nothing pending
    async with anyio.create_task_group() as tg:

        async def try_bad_then_reject() -> None:
            while "a1" not in broker.pending:
                await anyio.sleep(0.005)
            assert not broker.decide("a1", "rejected", for_run=True)  # not a decision
            assert broker.decide("a1", "rejected")

        tg.start_soon(try_bad_then_reject)
        assert await broker.approve(ask()) == "rejected"
    assert policy.allowed_for_run == set()
    # a cancelled wait (the runtime withdrew the request) is never a grant, nor a scope
    with anyio.move_on_after(0.1):
        await broker.approve(ask())
    assert policy.allowed_for_run == set() and broker.pending == {}
    # --on-approval allow/reject runs never hold scopes
    auto = RunPolicy(on_approval="reject")
    auto.allowed_for_run.add("bash")
    assert not auto.covers("bash")


@pytest.mark.anyio
async def test_allow_for_this_run_also_answers_what_already_waits_of_that_tool() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    hold(runs, "other", RunPolicy())
    results: dict[str, Decision] = {}

    async def approve(name: str, request: ApprovalRequest) -> None:
        results[name] = await broker.approve_call(request)

    async with anyio.create_task_group() as tg:
        tg.start_soon(approve, "first", ask())
        tg.start_soon(approve, "second", ask())
        tg.start_soon(approve, "other-tool", ask("write"))
        tg.start_soon(approve, "other-run", ask(session="other"))
        while len(broker.pending) < 4:
            await anyio.sleep(0.005)
        bash_of_s = sorted(
            k
            for k, p in broker.pending.items()
            if (p.request.tool_name, p.request.session_id) == ("bash", "s")
        )
        assert len(bash_of_s) == 2
        assert broker.decide(bash_of_s[0], "allowed-once", for_run=True)
        with anyio.fail_after(2):
            while len(broker.pending) > 2:
                await anyio.sleep(0.005)
        waiting = {
            p.request.tool_name + "@" + p.request.session_id for p in broker.pending.values()
        }
        assert waiting == {"write@s", "bash@other"}  # another tool, another run: still asking
        broker.reject_all("you")
    assert results["first"].outcome == results["second"].outcome == "allowed-once"
    assert {results["first"].decided_by, results["second"].decided_by} == {"you-for-run", "scope"}
    assert results["other-tool"].outcome == results["other-run"].outcome == "rejected"


@pytest.mark.anyio
async def test_an_edit_goes_back_to_that_call_only() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    edited = await approve_with_click(
        broker, ask("run_python", reason="x = 1"), "a1", editable=True, code="x = 2"
    )
    assert edited == Decision("allowed-once", "you-edited", "x = 2")
    # the next call is asked afresh and runs its own code
    plain = await approve_with_click(broker, ask("run_python", reason="y = 1"), "a2", editable=True)
    assert plain == Decision("allowed-once", "you", None)


@pytest.mark.anyio
async def test_an_edit_is_refused_where_it_could_not_run() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    async with anyio.create_task_group() as tg:

        async def clicks() -> None:
            while "a1" not in broker.pending:
                await anyio.sleep(0.005)
            # the runtime's own approvals run the original: an edit must not look accepted
            assert not broker.decide("a1", "allowed-once", code="rm -rf /")
            assert not broker.decide("a1", "rejected", code="x")
            assert broker.pending["a1"].resolved is False
            assert broker.decide("a1", "rejected")

        tg.start_soon(clicks)
        assert await broker.approve(ask("bash")) == "rejected"


@pytest.mark.anyio
async def test_a_rejected_edit_returns_no_code() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    decision = await approve_with_click(
        broker, ask("run_python"), "a1", editable=True, outcome="rejected"
    )
    assert decision == Decision("rejected", "you", None)


# -- the widget's message check ------------------------------------------------------------------


def waiting_snapshot(tool: str) -> Any:
    t = Transcript("s", prompt="p")
    t.apply_local(ApprovalRequested(request_id="a1", session_id="s", tool_name=tool,
                  reason="x = 1"))  # fmt: skip
    return t.snapshot()


def test_check_action_normalizes_scope_and_edit() -> None:
    snap = waiting_snapshot("run_python")
    base = {"type": "approval", "request_id": "a1", "decision": "allowed-once"}
    assert check_action(snap, {**base, "scope": "run"}) == {**base, "scope": "run"}
    assert check_action(snap, {**base, "code": "x = 2"}) == {**base, "code": "x = 2"}
    assert check_action(snap, base) == base


@pytest.mark.parametrize(
    ("tool", "extra", "error"),
    [
        ("run_python", {"decision": "rejected", "scope": "run"}, "only an allow"),
        ("run_python", {"decision": "rejected", "code": "x"}, "only an allow"),
        ("run_python", {"scope": "forever"}, "scope must be"),
        ("run_python", {"scope": "run", "code": "x"}, "allowed once, not for the whole run"),
        ("run_python", {"code": "  \n"}, "empty"),
        ("run_python", {"code": 3}, "empty"),
        ("run_python", {"code": "x" * (PROPOSED_MAX + 1)}, "too long"),
        ("bash", {"code": "echo hi"}, "only run_python"),
    ],
)
def test_check_action_refuses_what_cannot_be_honoured(
    tool: str, extra: dict[str, Any], error: str
) -> None:
    message = {"type": "approval", "request_id": "a1", "decision": "allowed-once", **extra}
    result = check_action(waiting_snapshot(tool), message)
    assert isinstance(result, str) and error in result


def test_the_transcript_says_allowed_for_this_run() -> None:
    t = Transcript("s", prompt="p")
    for key, by in (("a1", "you-for-run"), ("a2", "scope"), ("a3", "you-edited")):
        t.apply_local(ApprovalRequested(request_id=key, session_id="s", tool_name="bash",
                      reason="why"))  # fmt: skip
        t.apply_local(ApprovalDecided(request_id=key, outcome="allowed-once", decided_by=by))
    text = render_text(t.snapshot())
    assert "allowed once (by you, for the rest of this run)" in text
    assert "allowed (for this run)" in text
    assert "allowed once (by you, after editing the code)" in text
    assert "**allowed** (for this run)" in render_markdown(t.snapshot())


@pytest.mark.anyio
async def test_the_card_of_an_edited_call_shows_the_code_that_ran() -> None:
    t = Transcript("s", prompt="p")
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy(notify=t.apply_local))
    await approve_with_click(
        broker, ask("run_python", reason="agent = 1"), "a1", editable=True, code="person = 2"
    )
    (card,) = [i for i in t.snapshot()["items"] if i["kind"] == "approval"]
    assert card["kind"] == "approval"
    assert (card["reason"], card["decided_by"]) == ("person = 2", "you-edited")
    text = render_text(t.snapshot())
    assert "person = 2" in text and "agent = 1" not in text
