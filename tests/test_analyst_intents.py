"""Intent recognition and name matching of the demo analyst (pure functions, no runtime)."""

from __future__ import annotations

import pytest

from dsh_notebook.analyst.intents import question_text, recognize
from dsh_notebook.analyst.names import mentioned, parse_frame, parse_variables


@pytest.mark.parametrize(
    ("prompt", "kind"),
    [
        ("What is in my kernel?", "variables"),
        ("Which variables do I have?", "variables"),
        ("Describe orders", "describe"),
        ("Look at the `sales` frame in my kernel: what columns does it have?", "describe"),
        ("Total revenue per region", "aggregate"),
        ("Average price by shop", "aggregate"),
        ("Top 3 orders by amount in week 8", "rank"),
        ("Which region sold most?", "rank"),
        ("Which region grows fastest, and which one is shrinking?", "trend"),
        ("Show the trend of visits per clinic", "trend"),
        ("Are there missing values?", "missing"),
        ("Any duplicate rows in log?", "duplicates"),
        ("How are price and units correlated?", "correlation"),
        ("Plot visits per clinic", "plot"),
        ("Write report.py: it reads trips.csv and prints the total fare per city", "script"),
        ("Run report.py and tell me which city earned most", "run_script"),
        ("Tell me a joke", "help"),
        ("Translate this into French", "help"),
    ],
)
def test_kinds(prompt: str, kind: str) -> None:
    assert recognize(prompt).kind == kind


def test_modifiers() -> None:
    top = recognize("top 3 orders by amount")
    assert (top.n, top.largest) == (3, True)
    low = recognize("the 2 smallest invoices")
    assert (low.n, low.largest) == (2, False)
    assert recognize("Which region is shrinking?").largest is False
    assert recognize("mean visits per clinic").agg == "mean"
    assert recognize("how many visits per clinic").agg == "count"
    assert recognize("median wait by ward").agg == "median"
    assert recognize("total fare per city").agg == "sum"
    script = recognize("Write report.py: it reads data/trips.csv and prints the fare per city")
    assert (script.script, script.data_file) == ("report.py", "data/trips.csv")
    assert recognize("do it in the background").background


def test_an_interpolated_description_is_not_the_question() -> None:
    prompt = (
        "Here is the data:\n\nDataFrame: 6 rows x 4 columns\nIndex: RangeIndex\nColumns (dtype):\n"
        "  'total': int64\n  'duplicate': int64\n\nWhich clinic grows fastest?"
    )
    assert "duplicate" not in question_text(prompt)
    assert recognize(prompt).kind == "trend"
    # the scripted model's scenario tags are not words of the question either
    assert recognize("[[scenario:plot]] hello").kind == "help"


def test_names_match_words_of_the_prompt() -> None:
    assert mentioned("total fares per cities", "city") == -1  # no fuzzy plurals beyond s/es
    assert mentioned("total fares per city", "fare") == 6
    assert mentioned("the unit price by shop", "unit_price") == 4
    assert mentioned("UNIT-PRICE", "unit_price") == 0
    assert mentioned("the shopping list", "shop") == -1
    assert mentioned("by boxes", "box") == 3


def test_tool_results_are_parsed_into_real_names() -> None:
    table = (
        "2 variable(s) in the notebook kernel (...):\n\nname | type | shape/len | size | preview\n"
        "--- | --- | --- | --- | ---\nvisits | DataFrame | (9, 3) | 1 kB | columns: a\n"
        "n | int | | 28 B | 3"
    )
    variables = parse_variables(table)
    assert [(v.name, v.type, v.shape, v.is_frame) for v in variables] == [
        ("visits", "DataFrame", "(9, 3)", True),
        ("n", "int", "", False),
    ]
    described = (
        "visits: DataFrame: 1,200 rows x 3 columns\nDataFrame: 1,200 rows x 3 columns\n"
        "Index: RangeIndex\nColumns (dtype):\n  'clinic name': str\n  'day': datetime64[ns]\n"
        "  'visits': float64\nFirst 3 of 1,200 rows:\n...\nNull counts:\n  'visits': 4\n"
    )
    frame = parse_frame("visits", described)
    assert frame is not None
    assert frame.rows == 1200
    assert [(c.name, c.dtype, c.numeric, c.orders_rows) for c in frame.columns] == [
        ("clinic name", "str", False, False),
        ("day", "datetime64[ns]", False, True),
        ("visits", "float64", True, False),
    ]
    assert frame.nulls == (("visits", 4),)
    assert parse_frame("n", "int: 3") is None


def test_delegation_words_are_removed_from_the_child_s_task() -> None:
    from dsh_notebook.analyst.delegate import child_prompt

    assert child_prompt("In the background, check gaps for missing values") == (
        "Check gaps for missing values"
    )
    assert child_prompt("Delegate this to a subagent: describe visits.") == "Describe visits"
    assert not recognize(child_prompt("describe visits in the background")).background
