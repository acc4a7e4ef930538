"""The demo analyst's steps and answers, from hand-made Messages requests (no runtime, no kernel):
each step follows from the prompt and this turn's tool results, and every number in an answer is
one a tool result carried."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_notebook.analyst import HELP, REJECTED, analyst_script, respond
from dsh_notebook.analyst.compose import fmt
from dsh_notebook.analyst.results import read_number, read_series, value_text
from dsh_notebook.notebook_tools import refusals
from dsh_notebook.scripted_model import ScriptContext, Step

TOOLS = [
    {"name": n}
    for n in (
        "bash", "write", "ask_user_question", "mcp__notebook__notebook_variables",
        "mcp__notebook__describe_variable", "mcp__notebook__run_python",
    )
]  # fmt: skip

VARIABLES = (
    "1 variable(s) in the notebook kernel:\n\nname | type | shape/len | size | preview\n"
    "--- | --- | --- | --- | ---\ntrips | DataFrame | (5, 3) | 1 kB | columns: ..."
)
DESCRIBED = (
    "trips: DataFrame: 5 rows x 3 columns\nDataFrame: 5 rows x 3 columns\nIndex: RangeIndex\n"
    "Columns (dtype):\n  'city': str\n  'fare': float64\n  'tip': float64\n"
    "First 5 of 5 rows:\n...\nNull counts:\n  'tip': 2\n"
)


def body(prompt: str, *exchanges: tuple[Step, str, bool]) -> dict[str, Any]:
    """A request: the prompt, then per exchange the step's tool call and its result."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": prompt}]}
    ]
    for i, (step, result, is_error) in enumerate(exchanges):
        call = step.tool_calls[0]
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": step.text},
            {"type": "tool_use", "id": f"t{i}", "name": call.name, "input": dict(call.input)},
        ]})  # fmt: skip
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                         "content": [{"type": "text", "text": result}], "is_error": is_error}]})  # fmt: skip
    return {"messages": messages, "tools": TOOLS}


def step_for(request: dict[str, Any]) -> Step:
    steps = sum(1 for m in request["messages"] if m["role"] == "assistant")
    ctx = ScriptContext(
        scenario="analyst", step_index=steps, attempt=0, tags={}, prompt_text="",
        notices=(), latest_user_kind="human", body=request,
    )  # fmt: skip
    step = analyst_script().step_for(ctx)
    assert step == respond(ctx)
    return step


def walk(prompt: str, *results: tuple[str, bool]) -> list[Step]:
    """The steps of a turn whose tool calls get ``results`` in order."""
    done: list[tuple[Step, str, bool]] = []
    steps = [step_for(body(prompt))]
    for result, is_error in results:
        done.append((steps[-1], result, is_error))
        steps.append(step_for(body(prompt, *done)))
    return steps


def printed(value: Any) -> str:
    """A ``run_python`` result whose last expression was ``value`` (as the tool describes it)."""
    from dsh_notebook.context.describe import describe_value

    return "value of the last expression:\n" + describe_value(value)


def series(items: dict[str, float], index: str) -> Any:
    import pandas as pd

    out = pd.Series(items)
    out.index.name = index
    return out


def test_a_total_per_group_reads_the_kernel_then_computes_then_answers_from_the_result() -> None:
    result = series({"Lyon": 71.25, "Graz": 9.0}, "city")
    steps = walk(
        "Total fare per city", (VARIABLES, False), (DESCRIBED, False), (printed(result), False)
    )
    assert [s.tool_calls[0].name for s in steps[:3]] == [
        "mcp__notebook__notebook_variables", "mcp__notebook__describe_variable",
        "mcp__notebook__run_python",
    ]  # fmt: skip
    assert steps[1].tool_calls[0].input == {"name": "trips"}
    code = steps[2].tool_calls[0].input["code"]
    assert code == 'trips.groupby("city")["fare"].sum().round(2).sort_values(ascending=False)'
    assert "print(" not in code and "_dsh" not in code
    compile(code, "<analyst>", "exec")
    answer = steps[3].text
    assert not steps[3].tool_calls
    assert answer.startswith("I summed `fare` per `city`.")
    assert "**Lyon** with 71.25" in answer and "- Graz: 9" in answer


def test_missing_values_come_from_describe_without_running_code() -> None:
    steps = walk("Any missing values?", (VARIABLES, False), (DESCRIBED, False))
    assert steps[2].text == "Missing values in `trips` (5 rows): `tip` 2."


def test_an_ambiguous_column_is_asked_and_the_answer_is_used() -> None:
    answer = json.dumps({"answers": [{"id": "column", "selected": ["tip"]}]})
    steps = walk("Which city earned most?", (VARIABLES, False), (DESCRIBED, False), (answer, False))
    ask = steps[2].tool_calls[0]
    assert ask.name == "ask_user_question"
    assert [o["label"] for o in ask.input["questions"][0]["options"]] == ["fare", "tip"]
    assert 'groupby("city")["tip"].sum()' in steps[3].tool_calls[0].input["code"]


def test_a_rejected_approval_is_acknowledged_and_nothing_is_retried() -> None:
    rejected = "Error: The user rejected running this code, so nothing was executed."
    steps = walk("Total fare per city", (VARIABLES, False), (DESCRIBED, False), (rejected, True))
    assert steps[3].text == REJECTED and not steps[3].tool_calls


def test_a_dismissed_question_computes_nothing() -> None:
    cancelled = "Error: the user cancelled ask_user_question"
    steps = walk(
        "Which city earned most?", (VARIABLES, False), (DESCRIBED, False), (cancelled, True)
    )
    assert "dismissed" in steps[3].text and not steps[3].tool_calls
    # nobody may have been there (nbconvert, CI): the answer does not say the person dismissed it
    assert steps[3].text.startswith("The question was dismissed without an answer")
    assert "You dismissed" not in steps[3].text


def test_outside_the_set_is_one_honest_line() -> None:
    (step,) = walk("Write me a poem about spring")
    assert step.text == HELP and "\n" not in HELP and "DEEPSEEK_API_KEY" in HELP


def test_a_trend_answer_names_fastest_and_shrinking_from_the_slopes() -> None:
    trend = series({"B": 2.5, "A": -1.25}, "city")
    steps = walk(
        "Which city grows fastest in fare?",
        (VARIABLES, False),
        (DESCRIBED, False),
        (printed(trend), False),
    )
    assert "**B** grows fastest (+2.50 per row)" in steps[3].text
    assert "Declining: **A** (-1.25 per row)" in steps[3].text


def test_a_failing_program_is_reported_not_answered() -> None:
    failed = "error:\nTraceback ...\nKeyError: 'fare'"
    steps = walk("Total fare per city", (VARIABLES, False), (DESCRIBED, False), (failed, False))
    assert steps[3].text == "The code did not produce an answer: KeyError: 'fare'"


def test_numbers_and_result_lines() -> None:
    assert [fmt(3.0), fmt(1234), fmt(2.345), fmt(-0.5)] == ["3", "1,234", "2.35", "-0.50"]
    assert [fmt(143386.5), fmt(0.00123), fmt(12345678.0)] == ["143,386.50", "0.00123", "12,345,678"]
    shown = printed(series({"North Hill": 1.5, "b": 1234567.25}, "place"))
    listing = read_series(value_text(shown) or "", "place")
    assert listing is not None and listing.items == (("North Hill", 1.5), ("b", 1234567.25))
    assert read_number("np.float64(3.5)") == 3.5 and read_number("96") == 96


def test_a_frame_in_backticks_wins_over_a_frame_named_like_its_column() -> None:
    two = VARIABLES.replace("1 variable(s)", "2 variable(s)") + (
        "\nrevenue | DataFrame | (6, 4) | 1 kB | columns: East (int64), …"
    )
    steps = walk("Total revenue per city in `trips`", (two, False))
    assert steps[1].tool_calls[0].input == {"name": "trips"}


def test_the_demo_server_routes_untagged_prompts_to_the_analyst_and_tagged_ones_to_scripts() -> (
    None
):
    import urllib.request

    from dsh_notebook.kernel.demo import DemoModel
    from dsh_notebook.scripted_model import BUILTIN_SCRIPTS

    def answer(url: str, prompt: str) -> str:
        data = json.dumps({"model": "m", "stream": True, "messages": [
            {"role": "user", "content": [{"type": "text", "text": prompt}]}]}).encode()  # fmt: skip
        request = urllib.request.Request(f"{url}/v1/messages", data=data, method="POST")
        request.add_header("content-type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as reply:
            events = [json.loads(line[6:]) for line in reply.read().decode().splitlines()
                      if line.startswith("data: ")]  # fmt: skip
        return "".join(
            e["delta"]["text"] for e in events
            if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
        )  # fmt: skip

    demo = DemoModel()
    try:
        url = demo.endpoint()
        assert url.startswith("http://127.0.0.1:")
        assert answer(url, "Tell me a joke") == HELP
        plain = BUILTIN_SCRIPTS["plain"].steps[0]
        assert isinstance(plain, Step)
        assert answer(url, "[[scenario:plain]] hi") == plain.text
    finally:
        demo.stop()


def test_an_interpolated_description_picks_the_frame_of_that_shape() -> None:
    two = VARIABLES.replace("1 variable(s)", "2 variable(s)") + (
        "\nwide | DataFrame | (6, 4) | 1 kB | columns: East (int64), …"
    )
    prompt = "Here it is:\n\nDataFrame: 6 rows x 4 columns\nIndex: Index (str)\n\nDescribe it."
    steps = walk(prompt, (two, False))
    assert steps[1].tool_calls[0].input == {"name": "wide"}


def child_steps(prompt: str, *results: tuple[str, bool]) -> list[Step]:
    """Like :func:`walk`, for a subagent child of session ``nb-parent``: the runtime's
    parent-id notice follows the task in the child's first message only."""
    notice = (
        'Your parent agent id is "nb-parent". Before you finish, send your result to that agent.'
    )
    done: list[tuple[Step, str, bool]] = []
    steps: list[Step] = []
    for result in (None, *results):
        if result is not None:
            done.append((steps[-1], *result))
        request = body(prompt, *done)
        request["messages"][0]["content"].append({"type": "text", "text": notice})
        ctx = ScriptContext(
            scenario="analyst", step_index=len(done), attempt=0, tags={}, prompt_text="",
            notices=(), latest_user_kind="human", body=request, session_id="child-1",
        )  # fmt: skip
        steps.append(respond(ctx))
    return steps


def test_a_childs_report_after_tool_calls_waits_for_its_parents_turn_to_end() -> None:
    # The report is the child's third step: the parent-id notice is two user messages back by
    # then, and the hold must still name the parent (else the runtime may steer the settled
    # notice into the parent's running turn, and the transcript has 1 turn instead of 2).
    steps = child_steps("Any missing values?", (VARIABLES, False), (DESCRIBED, False))
    assert [s.after_reply for s in steps[:2]] == [None, None]  # tool calls are never held
    report = steps[2]
    assert report.text == "Missing values in `trips` (5 rows): `tip` 2." and not report.tool_calls
    assert report.after_reply is not None
    assert (report.after_reply.session_id, report.after_reply.mention) == ("nb-parent", "child-1")


def test_a_child_that_needs_code_says_it_cannot_ask_for_approval() -> None:
    steps = child_steps("Total fare per city", (VARIABLES, False), (DESCRIBED, False))
    assert "I am a subagent and cannot ask for approval" in steps[2].text
    assert not steps[2].tool_calls and steps[2].after_reply is not None


def test_a_cut_time_ordered_result_claims_no_largest() -> None:
    from dsh_notebook.analyst.compose import aggregate_answer

    items = [(f"w{i}", float(i)) for i in range(10)]
    text = aggregate_answer(
        items, group="week", value="n", agg="sum", largest=True, n=None, time_order=True,
        lead="I summed `n` per `week`.", shown_of=14,
    )  # fmt: skip
    assert "The largest" not in text and "the first 10 of 14 are shown" in text


@pytest.mark.parametrize(
    "message",
    [
        refusals.NO_APPROVER_MESSAGE,
        refusals.CANCELLED_MESSAGE,
        refusals.CONNECTION_LOST_MESSAGE,
        refusals.UNMATCHED_MESSAGE,
        refusals.NO_RUN_MESSAGE,
    ],
)
def test_a_refusal_nobody_made_is_not_called_a_rejection(message: str) -> None:
    """Only the person's own rejection reads "you rejected"; headless runs (no approver), lost
    connections, cancelled approvals and unowned calls are each worded as what happened."""
    steps = walk(
        "Total fare per city", (VARIABLES, False), (DESCRIBED, False), ("Error: " + message, True)
    )
    answer = steps[3].text
    assert not steps[3].tool_calls and "nothing ran" in answer
    assert "you rejected" not in answer.lower()
    if message == refusals.NO_APPROVER_MESSAGE:
        assert answer.startswith("Nobody can approve code in this run")


def test_a_rejection_with_the_persons_note_is_still_a_rejection() -> None:
    text = f'Error: {refusals.refusal_text("rejected", "you", "use median")}'
    steps = walk("Total fare per city", (VARIABLES, False), (DESCRIBED, False), (text, True))
    assert steps[3].text == REJECTED
