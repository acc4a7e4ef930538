"""Run budgets without a runtime (issue 46 item 4): ``--max-tokens`` / ``--max-time`` and their
settings are planned into the run's budget, a bad value is one line, and the meter stops at
the first step boundary past a budget, once. The real-runtime proof is test_budget_real."""

from __future__ import annotations

import pytest

from dsh_notebook.kernel.entry.magics import DshMagics
from dsh_notebook.kernel.options.cell_options import parse_cell_options
from dsh_notebook.kernel.options.settings import KernelSettings
from dsh_notebook.kernel.registry.budget import BudgetMeter, KernelSpend, RunBudget
from dsh_notebook.kernel.run import Frontend, PlanError, plan_run
from dsh_notebook.protocol import SESSION_EVENT, Notification


def plan(line: str, settings: KernelSettings | None = None):  # type: ignore[no-untyped-def]
    return plan_run(
        "hi",
        parse_cell_options(DshMagics.dsh, line),
        session_id="nb-x",
        settings=settings or KernelSettings(),
        frontend=Frontend(terminal=False, stdin=True),
        namespace={},
        errors={},
        execution_count=1,
        answered_before=lambda session, prompt: False,
    )


def test_the_options_and_the_settings_make_the_budget() -> None:
    assert plan("").budget == RunBudget()
    assert plan("--max-tokens 2_500 --max-time 1.5").budget == RunBudget(2500, 1.5)
    defaults = KernelSettings(max_run_tokens=9000, max_run_seconds=60)
    assert plan("", defaults).budget == RunBudget(9000, 60.0)
    assert plan("--max-tokens 100", defaults).budget == RunBudget(100, 60.0)  # the cell wins


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--max-tokens 0", "--max-tokens takes a positive whole number of tokens, not '0'"),
        ("--max-tokens lots", "--max-tokens takes a positive whole number of tokens, not 'lots'"),
        ("--max-tokens 1.5", "--max-tokens takes a positive whole number of tokens, not '1.5'"),
        ("--max-time 0", "--max-time takes a positive number of seconds, not '0'"),
        ("--max-time -3", "--max-time takes a positive number of seconds, not '-3'"),
        ("--max-time nan", "--max-time takes a positive number of seconds, not 'nan'"),
    ],
)
def test_a_bad_budget_is_one_line(line: str, message: str) -> None:
    with pytest.raises(PlanError) as raised:
        plan(line)
    assert str(raised.value) == message


def test_a_bad_budget_setting_names_the_setting() -> None:
    with pytest.raises(PlanError, match=r"^DshMagics.max_run_tokens takes a positive"):
        plan("", KernelSettings(max_run_tokens=0))


CALL = {"type": "tool-call", "id": "c1", "name": "glob", "arguments": "{}"}


def _step(total: int, session: str = "s", *, answer: bool = False) -> Notification:
    content = [{"type": "text", "text": "done"}] if answer else [CALL]
    data = {"usage": {"totalTokens": total}, "message": {"role": "assistant", "content": content}}
    event = {"type": "assistant/message", "data": data}
    return Notification(SESSION_EVENT, {"sessionId": session, "event": event})


def test_the_meter_stops_once_at_the_step_that_crossed_the_tokens() -> None:
    meter = BudgetMeter(RunBudget(tokens=2500), clock=lambda: 0.0)
    meter.start()
    other = Notification(SESSION_EVENT, {"sessionId": "s", "event": {"type": "tool/end"}})
    assert [meter.observe(n) for n in (_step(1100), other, _step(1100, "child"))] == [None] * 3
    reason = meter.observe(_step(1100))
    assert reason == (
        "Stopped by the token budget: 3,300 tokens spent (--max-tokens 2,500), after 0.0 s."
    )
    assert meter.observe(_step(1100)) is None  # once


def test_the_meter_stops_at_the_first_step_past_the_time() -> None:
    now = [0.0]
    meter = BudgetMeter(RunBudget(seconds=1.5), clock=lambda: now[0])
    meter.start()
    now[0] = 1.0
    assert meter.observe(_step(18)) is None
    now[0] = 2.0
    reason = meter.observe(_step(18))
    assert reason == "Stopped by the time budget: 2.0 s spent (--max-time 1.5 s), 36 tokens."


def test_an_answer_past_the_budget_is_not_stopped() -> None:
    meter = BudgetMeter(RunBudget(tokens=100), clock=lambda: 0.0)
    meter.start()
    assert meter.observe(_step(500, answer=True)) is None  # the run ends by itself
    assert meter.usage.total_tokens == 500
    assert meter.observe(_step(1)) is not None  # the next step that asks for tools is stopped


def test_the_kernel_budget_counts_every_run_and_refuses_once_spent() -> None:
    spend = KernelSpend()
    unlimited = BudgetMeter(RunBudget(), clock=lambda: 0.0, kernel=spend)
    assert unlimited.observe(_step(1500)) is None and spend.tokens == 1500  # counted anyway
    limited = BudgetMeter(RunBudget(kernel_tokens=2500), clock=lambda: 0.0, kernel=spend)
    assert limited.observe(_step(500)) is None
    assert limited.observe(_step(600)) == (
        "Stopped by the kernel's token budget: 2,600 tokens spent by this kernel "
        "(DshMagics.max_kernel_tokens 2,500), 1,100 by this run."
    )
    with pytest.raises(PlanError) as raised:
        plan_run(
            "hi",
            parse_cell_options(DshMagics.dsh, ""),
            session_id="nb-x",
            settings=KernelSettings(max_kernel_tokens=2500),
            frontend=Frontend(terminal=False, stdin=True),
            namespace={},
            errors={},
            execution_count=1,
            answered_before=lambda session, prompt: False,
            kernel_spent=spend.tokens,
        )
    assert str(raised.value) == (
        "this kernel spent its token budget: 2,600 tokens (DshMagics.max_kernel_tokens 2,500); "
        "raise it or restart the kernel"
    )
