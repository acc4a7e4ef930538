"""The plan (``todo/write``), the goal (``goal/change``), the read-only mark and the cost in
the pure transcript: bounds, malformed input, the earlier states kept and counted, the views."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import PLAN_EARLIER_MAX, PLAN_TODOS_MAX
from dsh_notebook.transcript.pricing import DEFAULT_PRICES, Price, estimate_cost, parse_prices

from .helpers.transcripts import event


def todos(*statuses: str) -> dict[str, Any]:
    return {"todos": [{"content": f"step {i}", "status": s} for i, s in enumerate(statuses)]}


def test_each_write_replaces_the_plan_and_keeps_the_earlier_states_bounded() -> None:
    t = Transcript("s")
    for n in range(PLAN_EARLIER_MAX + 3):
        assert t.apply(event("s", "todo/write", todos(*["completed"] * n, "in_progress")))
    plan = t.snapshot()["plan"]
    assert plan is not None
    assert plan["writes"] == PLAN_EARLIER_MAX + 3
    assert len(plan["earlier"]) == PLAN_EARLIER_MAX and plan["earlier_omitted"] == 2
    assert (
        plan["earlier"][-1]
        == todos(*["completed"] * (PLAN_EARLIER_MAX + 1), "in_progress")["todos"]
    )
    md = t.to_markdown()
    assert f"Earlier states of the plan ({PLAN_EARLIER_MAX + 2})" in md
    assert "_2 older states not kept._" in md


def test_odd_steps_are_cleaned_and_a_malformed_write_is_counted() -> None:
    t = Transcript("s")
    many = {"todos": [{"content": "x", "status": "weird"}] * (PLAN_TODOS_MAX + 5)}
    t.apply(event("s", "todo/write", many))
    plan = t.snapshot()["plan"]
    assert plan is not None
    assert len(plan["todos"]) == PLAN_TODOS_MAX and plan["todos_omitted"] == 5
    assert {s["status"] for s in plan["todos"]} == {"pending"}
    t.apply(event("s", "todo/write", {"todos": [{"content": "  "}, 3, {"status": "completed"}]}))
    assert t.snapshot()["plan"]["todos"] == []  # type: ignore[index]
    t.apply(event("s", "todo/write", {"todos": "no"}))
    assert t.snapshot()["unknown"] == {"malformed todo/write": 1}
    hostile = Transcript("s")
    hostile.apply(
        event(
            "s",
            "todo/write",
            {"todos": [{"content": "<img src=x onerror=1>", "status": "pending"}]},
        )
    )
    assert "<img" not in hostile.to_markdown()


def test_goal_read_only_and_cost_in_the_header() -> None:
    t = Transcript("s", model="deepseek-flash", read_only=True, prices=DEFAULT_PRICES)
    t.apply(
        event(
            "s",
            "goal/change",
            {"operation": "create", "goal": {"objective": "Plot", "phase": "active"}},
        )
    )
    t.apply(event("s", "turn/start", {"turn": 1}))
    usage = {"inputTokens": 1000, "outputTokens": 500, "cacheReadTokens": 2000}
    t.apply(
        event(
            "s",
            "assistant/message",
            {
                "turn": 1,
                "step": 1,
                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                "usage": usage,
            },
        )
    )
    h = t.snapshot()["header"]
    assert h["goal"] == {"objective": "Plot", "phase": "active"} and h["read_only"] is True
    assert h["cost"] == estimate_cost(h["usage"], "deepseek-flash")
    assert h["cost"] is not None
    assert abs(h["cost"]["usd"] - (1000 * 0.56 + 2000 * 0.07 + 500 * 1.68) / 1e6) < 1e-12
    md = t.to_markdown()
    assert "· **read-only**" in md.splitlines()[0] and "**Goal** Plot (active)" in md
    assert "estimated (deepseek-flash prices of 2025-09-05)" in md
    t.apply(event("s", "goal/change", {"operation": "clear"}))
    assert t.snapshot()["header"]["goal"] is None
    assert (
        Transcript("s", model="unknown-model", prices=DEFAULT_PRICES).snapshot()["header"]["cost"]
        is None
    )
    assert Transcript("s", model="deepseek-flash").snapshot()["header"]["cost"] is None  # no table


def test_a_price_table_setting_is_checked() -> None:
    table = parse_prices(
        {"m": {"input": 1, "cached_input": 0.5, "output": 2, "as_of": "2026-01-01"}}
    )
    assert table["m"] == Price(1, 0.5, 2, "2026-01-01") and "deepseek-flash" in table
    for bad in ([], {"m": {"input": 1}}, {"m": {"input": -1, "cached_input": 0, "output": 0}}):
        with pytest.raises(ValueError, match="price") as info:
            parse_prices(bad)
        assert "\n" not in str(info.value)
