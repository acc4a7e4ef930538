"""The kernel side without a shell: the run planner and the broker's session-tree lookup."""

from __future__ import annotations

from dataclasses import asdict

import anyio
import pytest

from dsh_notebook.kernel.notebook.naming import SessionNames, validate_session_name
from dsh_notebook.kernel.options.settings import KernelSettings
from dsh_notebook.kernel.registry.broker import RunPolicy
from dsh_notebook.kernel.run import Frontend, PlanError, RunOptions, plan_run
from dsh_notebook.protocol import ApprovalRequest, UserQuestionAsk

from .run_registry import broker_with_runs, hold


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the runtime host's loop is asyncio


LIVE = Frontend(terminal=False, stdin=True)
HEADLESS = Frontend(terminal=False, stdin=False)


def plan(cell: str, options: RunOptions | None = None, **kw: object):  # type: ignore[no-untyped-def]
    args: dict[str, object] = {
        "session_id": "nb-x",
        "settings": KernelSettings(),
        "frontend": LIVE,
        "namespace": {"n": 3},
        "errors": {},
        "execution_count": 1,
        "answered_before": lambda session, prompt: False,
    }
    args.update(kw)
    return plan_run(cell, options or RunOptions(), **args)  # type: ignore[arg-type]


def test_plan_interpolates_and_chooses_background_widget_in_a_live_frontend() -> None:
    p = plan("n is {n}")
    assert p.prompt == "n is `n` = `3` (int)"  # named (issue 25)
    assert p.blocks == [{"type": "text", "text": "n is `n` = `3` (int)"}]  # no facts: no block
    assert [c["token"] for c in p.context] == ["{n}"]
    assert (p.wait, p.display.fmt, p.display.interactive) == (False, "widget", True)


def test_plan_waits_and_defers_headless() -> None:
    p = plan("hi", frontend=HEADLESS)
    assert (p.wait, p.display.fmt, p.display.deferred, p.display.interactive) == (
        True,
        "markdown",
        True,
        False,
    )


def test_plan_skips_a_prompt_answered_before_unless_forced() -> None:
    seen = lambda session, prompt: (session, prompt) == ("nb-x", "hi")  # noqa: E731
    assert plan("hi", answered_before=seen).skipped is not None
    assert plan("hi", RunOptions(force=True), answered_before=seen).skipped is None
    always = KernelSettings(rerun="always")
    assert plan("hi", settings=always, answered_before=seen).skipped is None


def test_plan_refuses_an_empty_cell_in_one_line() -> None:
    with pytest.raises(PlanError, match="the %%dsh cell is empty"):
        plan("   \n")


def test_session_names_fresh_ids_share_one_scheme_and_names_are_validated() -> None:
    names = SessionNames("nb-abc")
    first, second = names.fresh(), names.fresh()
    assert first.startswith("nb-abc-") and second.startswith("nb-abc-") and first != second
    assert len(first) == len("nb-abc-") + 6
    for bad in ("../evil", "a/b", ".hidden", "", "x" * 200, "a..b"):
        with pytest.raises(ValueError, match="invalid session name"):
            validate_session_name(bad)
    assert validate_session_name("nb-Untitled-1f2e.x") == "nb-Untitled-1f2e.x"


class Tree:
    def __init__(self, parents: dict[str, str]) -> None:
        self.parents = parents

    def parent_of(self, session_id: str) -> str | None:
        return self.parents.get(session_id)


@pytest.mark.anyio
async def test_a_child_sessions_question_reaches_the_run_of_its_root() -> None:
    notes: list[tuple[str, dict[str, object]]] = []
    broker, runs = broker_with_runs(Tree({"child": "root"}))
    hold(runs, "root", RunPolicy(notify=lambda fact: notes.append((fact.kind, asdict(fact)))))
    ask = UserQuestionAsk.model_validate(
        {
            "requestId": "r1",
            "sessionId": "child",
            "questions": [{"id": "c", "question": "Which?", "options": []}],
        }
    )
    async with anyio.create_task_group() as tg:

        async def answer_when_pending() -> None:
            while "q1" not in broker.pending:
                await anyio.sleep(0.01)
            assert broker.answer("q1", [{"id": "c", "selected": [], "custom": "blue"}])

        tg.start_soon(answer_when_pending)
        answers = await broker.ask(ask)
    assert answers == [{"id": "c", "selected": [], "custom": "blue"}]
    assert [k for k, _ in notes] == ["question-asked", "question-answered"]


@pytest.mark.anyio
async def test_approvals_are_decided_with_the_protocol_outcomes_only() -> None:
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy())
    request = ApprovalRequest(session_id="s", tool_name="bash", reason="why")
    async with anyio.create_task_group() as tg:

        async def click() -> None:
            while "a1" not in broker.pending:
                await anyio.sleep(0.01)
            assert not broker.answer("a1", None)  # not a question
            assert broker.decide("a1", "allowed-once")
            assert not broker.decide("a1", "rejected")  # decided once

        tg.start_soon(click)
        assert await broker.approve(request) == "allowed-once"
    # nobody's run: rejected at once, never pending
    assert await broker_with_runs()[0].approve(request) == "rejected"


def test_the_planned_blocks_are_validated_once_and_sent_as_they_are() -> None:
    """The plan validates the prompt (images decoded and sniffed once); the session passes the
    validated blocks through instead of decoding every image again."""
    from dsh_notebook.client.prompt import ValidatedBlocks, normalize_input

    planned = plan("look at {n}").blocks
    assert isinstance(planned, ValidatedBlocks)
    assert normalize_input(planned) is planned
