"""The reading contract (issue 47): a question becomes an explicit reading and every content word
is accounted for; what cannot be read is named, never dropped (pure: frames as the describer
reports them)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.analyst.names import Frame, parse_frame
from dsh_notebook.analyst.reading import Condition, read
from dsh_notebook.analyst.reading_code import reading_program
from dsh_notebook.notebook_tools.variables import describe_variable


def described(name: str, frame: Any) -> Frame:
    found, text = describe_variable({name: frame}, name)
    parsed = parse_frame(name, text)
    assert found and parsed is not None
    return parsed


@pytest.fixture(scope="module")
def rides() -> Frame:
    import pandas as pd

    return described(
        "rides",
        pd.DataFrame({
            "started": pd.date_range("2025-01-01", periods=12, freq="9D"),
            "ended_on": pd.date_range("2025-01-02", periods=12, freq="9D").strftime("%Y-%m-%d"),
            "ride_minutes": [5.0, 12.5, 33.0, 8.0, 41.0, 19.0, 27.0, 3.0, 15.0, 22.0, 9.0, 30.0],
            "rider_age": [21, 34, 45, 19, 60, 28, 33, 52, 41, 25, 38, 47],
            "zone": ["East", "West"] * 6,
            "plan": ["East", "Basic", "Pro", "Basic", "Pro", "Basic"] * 2,
        }),
    )  # fmt: skip


def test_a_numeric_condition_is_read_from_its_unit(rides: Frame) -> None:
    reading = read("How many rides were longer than 30 minutes?", rides)
    assert reading.unread == ()
    assert (reading.measure, reading.agg) == (None, "count")
    assert reading.conditions == (
        Condition("ride_minutes", ">", 30, None, "longer than 30 minutes"),
    )


def test_older_than_reads_the_age_column_and_between_is_inclusive(rides: Frame) -> None:
    reading = read("Average ride minutes where the rider age is older than 40", rides)
    assert reading.unread == ()
    assert reading.conditions[0].column == "rider_age" and reading.measure == "ride_minutes"
    code = reading_program(
        read("How many rides between 10 and 20 minutes in the West zone?", rides)
    )
    assert 'rides["ride_minutes"].between(10, 20)' in code and '== "West"' in code


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("How many rides happened during rush hour?", ("rush", "hour")),
        ("How many rides were not in the West zone?", ("not",)),
        ("Rides in the West zone or longer than 20 minutes", ("or",)),
        ("How many rides cost more than $5?", ("more than $5", "cost")),
        # "East" is shown in two columns: which one is meant is not guessed
        ("How many East rides?", ("east",)),
        # two date columns and neither named: "per month" of which?
        ("Number of rides per month", ("per month",)),
        # "rider" is not the name of rider_age (its head word is "age")
        ("How many riders per zone?", ("riders",)),
    ],
)
def test_a_part_it_cannot_read_is_named(
    rides: Frame, question: str, unread: tuple[str, ...]
) -> None:
    reading = read(question, rides)
    assert reading.unread == unread
    with pytest.raises(ValueError, match="not a complete reading"):
        reading_program(reading)


def test_a_named_date_column_gives_the_grain_and_a_date_string_is_parsed(rides: Frame) -> None:
    reading = read("Which month of ended_on had the most rides?", rides)
    assert reading.unread == ()
    assert (reading.grain, reading.time, reading.parse_time, reading.best) == (
        "month", "ended_on", True, "max"
    )  # fmt: skip
    code = reading_program(reading)
    assert 'rides_dates = pd.to_datetime(rides["ended_on"])' in code
    assert 'rides.groupby(rides_dates.dt.to_period("M").rename("month")).size()' in code
    assert code.endswith("print(rides_per_month.to_string())")


def test_camel_case_names_a_frame_named_df_and_an_identifier_column() -> None:
    import pandas as pd

    df = described(
        "df",
        pd.DataFrame({
            "StartTime": pd.date_range("2025-03-01", periods=6, freq="17h"),
            "TripDuration": [12.0, 31.5, 44.0, 8.5, 29.0, 35.0],
            "station_id": [1, 2, 1, 3, 2, 1],
        }),
    )  # fmt: skip
    # `df` is no noun for its rows: the noun the question counts is ("trips")
    longer = read("How many trips were longer than 30 minutes?", df)
    assert longer.unread == () and longer.conditions[0].column == "TripDuration"
    assert read("Number of trips per month", df).time == "StartTime"
    # an identifier is grouped by, never summed or counted as a measure
    assert read("Number of trips per station", df).group == "station_id"
    assert read("How many stations are there?", df).unread == (
        "station_id (an identifier: a sum or count of it means nothing)",
    )


def test_a_tie_for_the_best_group_is_said_not_broken() -> None:
    from dsh_notebook.analyst.compose import reading_groups

    items = [("North", 7.0), ("West", 7.0), ("East", 8.0)]
    answer = reading_groups(items, read="the rows", by="region", label="orders", best="min")
    assert (
        "The smallest is shared by **North**, **West**, each with 7. Next: **East** with 8."
        in answer
    )
