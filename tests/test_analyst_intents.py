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


@pytest.mark.parametrize(
    ("prompt", "agg", "named"),
    [
        ("What is the max units per store?", "max", True),
        ("Maximum fare by city", "max", True),
        ("min units per store", "min", True),
        ("What is the smallest fare in each city?", "min", True),
        ("the lowest price for every shop", "min", True),
        ("Average price by shop", "mean", True),
        ("What's the mean fare per city", "mean", True),
        ("median wait by ward", "median", True),
        ("Give me the total number of parcels for each hub", "count", True),
        ("how many trips per city", "count", True),
        ("How many distinct riders per city?", "nunique", True),
        ("number of unique riders", "nunique", True),
        ("What share of fares does each city have?", "share", True),
        ("percentage of trips per city", "share", True),
        ("standard deviation of fare per city", "std", True),
        ("fare per city", "sum", False),
        ("Which city earned most?", "sum", False),
        ("Which city has the highest average fare?", "mean", True),
    ],
)
def test_the_named_statistic(prompt: str, agg: str, named: bool) -> None:
    intent = recognize(prompt)
    assert intent.kind == "aggregate" or (intent.kind == "rank" and intent.ranks_groups)
    assert (intent.agg, intent.agg_named) == (agg, named)


def test_direction_of_min_and_max_statistics() -> None:
    assert recognize("min units per store").largest is False
    assert recognize("max units per store").largest is True
    assert recognize("Which city has the lowest total fare?").largest is False


@pytest.mark.parametrize(
    "prompt",
    [
        "Show me the pandas code to compute total fare by city",
        "show me the code for the mean tip per city",
        "Give me the code to count trips per city",
        "How would I compute the median fare per city in pandas?",
    ],
)
def test_code_only_phrasings(prompt: str) -> None:
    assert recognize(prompt).code_only
    assert not recognize("Compute the total fare per city").code_only


@pytest.mark.parametrize(
    "prompt",
    [
        "Cell In[3] raised an error. Explain what went wrong.\n\n```\nKeyError: 'Month'\n```",
        "Why does this fail?\nTraceback (most recent call last):\n  File x\nNameError: name 'y' "
        "is not defined",
        "plot fails with\nValueError: could not convert string to float: 'a'",
    ],
)
def test_errors_are_recognized_before_the_words_of_the_code(prompt: str) -> None:
    assert recognize(prompt).kind == "error"


@pytest.mark.parametrize(
    "prompt", ["What is the variance of fare per city?", "Predict next month's fares",
               "the 90th percentile of fare by city"],
)  # fmt: skip
def test_statistics_it_does_not_compute_are_named_not_replaced(prompt: str) -> None:
    intent = recognize(prompt)
    assert intent.kind == "help" and intent.unsupported


def test_the_question_is_the_person_s_first_text_block() -> None:
    from dsh_notebook.analyst.turn import read_turn

    body = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Total fare per city"},
        {"type": "text", "text": "--- notebook context ---\nplot median correlation\n---"},
    ]}]}  # fmt: skip
    assert read_turn(body).prompt == "Total fare per city"
