"""Questions people ask of a data frame (issue 47), each judged right / honest decline / wrong.

Written before the analyst learned to read them (the "before" figures were measured on this set).
Two frames made here, unlike every other data set of the tests: bike ``trips`` (a datetime
``start_time``, a duration with missing values, stations, member types) and shop ``orders`` (the
order date as a *string*, categories, quantity, unit price, regions). Both are in the kernel for
every question, so the analyst must also find the frame a question is about. pandas computes every
expected value here; the analyst's answer is judged against it:

* **right**: the answer shows what pandas computes for the question (every group and its value,
  the winner and its runner-up, the slope per time step, the plotted values), or, for a question
  that cannot be answered from the data, an honest decline;
* **declined**: it said what it could not use, or asked a question, and claimed no answer;
* **wrong**: anything else (a number for a different question is the worst outcome).

Run ``python -m tests.frame_questions`` for the figures (``-v`` prints each miss).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["right", "declined", "wrong"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"]  # fmt: skip


def trips() -> Any:
    """1,500 bike trips from October 2024 to September 2025."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(4701)
    n = 1500
    stations = ["Harbor", "Market", "Park", "Station", "Campus"]
    minutes = rng.integers(0, 365 * 24 * 60, size=n)
    start = pd.Timestamp("2024-10-01") + pd.to_timedelta(np.sort(minutes), unit="min")
    station = rng.choice(stations, size=n, p=[0.3, 0.25, 0.2, 0.15, 0.1])
    member = rng.choice(["member", "casual"], size=n, p=[0.65, 0.35])
    month_ix = np.asarray((start.year - 2024) * 12 + start.month - 10)
    duration = rng.gamma(2.2, 7.0, size=n) + (member == "casual") * 6 + month_ix * 0.4
    frame = pd.DataFrame({
        "trip_id": np.arange(1001, 1001 + n),
        "start_time": start,
        "duration_min": duration.round(1),
        "distance_km": (duration * rng.uniform(0.12, 0.25, size=n)).round(2),
        "start_station": station,
        "member_type": member,
    })  # fmt: skip
    frame = frame.sample(frac=1.0, random_state=47).reset_index(drop=True)
    for i in range(10):  # the first rows (what a describer shows) hold every station and type
        frame.loc[i, "start_station"] = stations[i % 5]
        frame.loc[i, "member_type"] = ["member", "casual"][i % 2]
    frame.loc[rng.choice(n, 40, replace=False), "duration_min"] = np.nan
    return frame


def orders() -> Any:
    """1,200 shop orders over 2024 and 2025; the order date is a string."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(4702)
    n = 1200
    regions = ["North", "South", "East", "West"]
    categories = ["Books", "Toys", "Garden", "Kitchen", "Sports"]
    day = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 731, size=n), unit="D")
    region = rng.choice(regions, size=n, p=[0.35, 0.25, 0.25, 0.15])
    category = rng.choice(categories, size=n)
    base = {"Books": 12.0, "Toys": 25.0, "Garden": 40.0, "Kitchen": 55.0, "Sports": 70.0}
    frame = pd.DataFrame({
        "order_id": np.arange(50001, 50001 + n),
        "order_date": day.strftime("%Y-%m-%d"),
        "region": region,
        "category": category,
        "quantity": rng.integers(1, 9, size=n),
        "unit_price": (np.array([base[c] for c in category]) * rng.uniform(0.6, 1.6, size=n))
        .round(2),
    })  # fmt: skip
    for i in range(10):
        frame.loc[i, "region"] = regions[i % 4]
        frame.loc[i, "category"] = categories[i % 5]
    return frame


def data() -> dict[str, Any]:
    return {"trips": trips(), "orders": orders()}


# --- judging ---------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")
_DECLINE = re.compile(
    r"\bI could not\b|\bI can(?:'|no)t\b|\bcannot\b|\bI can only\b|^\(asked a question", re.I
)


def numbers(text: str) -> list[float]:
    out = []
    for match in _NUMBER.finditer(text):
        try:
            out.append(float(match.group().replace(",", "")))
        except ValueError:
            continue
    return out


def close(value: float, text: str) -> bool:
    """Whether ``text`` shows ``value`` as a reader would (rounded to 2 decimals at most)."""
    return any(abs(n - value) <= max(0.0051, abs(value) * 5e-4) for n in numbers(text))


def _labels(label: Any) -> list[str]:
    """The ways an answer may name a group: a month as ``2025-07`` or ``July 2025``, etc."""
    import pandas as pd

    if isinstance(label, pd.Period):
        if label.freqstr.startswith("M"):
            name = MONTH_NAMES[label.month - 1]
            return [str(label), f"{name} {label.year}", f"{name[:3]} {label.year}"]
        if label.freqstr.startswith("W"):
            return [str(label.start_time.date()), str(label)]
        return [str(label)]
    return [str(label)]


def _line_with(labels: list[str], answer: str) -> str | None:
    for label in labels:
        pattern = re.compile(rf"(?<![\w-]){re.escape(label)}(?![\w])")
        line = next((ln for ln in answer.splitlines() if pattern.search(ln)), None)
        if line is not None:
            return line
    return None


def _head(answer: str) -> str:
    return answer.strip().split("\n\n")[0]


Check = Callable[[str, list[str]], str | None]


def scalar(value: float) -> Check:
    """One number: the answer's opening shows it."""

    def check(answer: str, code: list[str]) -> str | None:
        return None if close(float(value), _head(answer)) else f"the opening lacks {value:g}"

    return check


def groups(series: Any, *, best: str | None = None, plot: bool = False) -> Check:
    """Every group with its value on a line of its own, no other group lines; ``best`` = "max" /
    "min": the opening names the winner with its value and the runner-up; ``plot``: the code
    drew a chart with both axes named."""
    pairs = [(_labels(k), float(v)) for k, v in series.items()]

    def check(answer: str, code: list[str]) -> str | None:
        for labels, value in pairs:
            line = _line_with(labels, answer)
            if line is None or not close(value, line):
                return f"no line shows {labels[0]} = {value:g}"
        bullets = [ln for ln in answer.splitlines() if ln.startswith("- ")]
        if len(bullets) != len(pairs):
            return f"{len(bullets)} listed lines for {len(pairs)} groups"
        if best is not None:
            ranked = sorted(pairs, key=lambda p: p[1], reverse=best == "max")
            head = _head(answer)
            winners = [p for p in ranked if p[1] == ranked[0][1]]
            if not any(_line_with(labels, head) for labels, _ in winners):
                return f"the opening does not name {ranked[0][0][0]}"
            if not close(ranked[0][1], head):
                return f"the opening lacks {ranked[0][1]:g}"
            if len(ranked) > 1:
                second = [p for p in ranked[1:] if p[1] == ranked[1][1]]
                if not any(_line_with(labels, head) for labels, _ in second):
                    return f"the opening does not name the runner-up {ranked[1][0][0]}"
        if plot:
            drawn = "\n".join(code)
            if ".plot" not in drawn:
                return "no chart was drawn"
            if "xlabel" not in drawn or "ylabel" not in drawn:
                return "the chart's axes are not named"
        return None

    return check


def slopes(series: Any, unit: str) -> Check:
    """The least-squares slope per group (or one slope), in units ``per <unit>``."""
    if not hasattr(series, "items"):
        value = float(series)

        def one(answer: str, code: list[str]) -> str | None:
            if f"per {unit}" not in answer:
                return f"no 'per {unit}'"
            return None if close(round(value, 2), _head(answer)) else f"no slope {value:.2f}"

        return one
    inner = groups(series.round(2))

    def check(answer: str, code: list[str]) -> str | None:
        if f"per {unit}" not in answer:
            return f"no 'per {unit}'"
        return inner(answer, code)

    return check


def decline(answer: str, code: list[str]) -> str | None:
    """For a question the data cannot answer: an honest decline is the right answer."""
    return None if is_decline(answer) else "it answered a question the data cannot answer"


def is_decline(answer: str) -> bool:
    """It said what it could not do (or asked), and claimed no number as the answer."""
    if not _DECLINE.search(answer):
        return False
    return "**" not in answer or answer.startswith("(asked a question")


@dataclass(frozen=True)
class Question:
    prompt: str
    expect: Callable[[dict[str, Any]], Check]


def _dates(d: dict[str, Any]) -> Any:
    import pandas as pd

    return pd.to_datetime(d["orders"]["order_date"])


def _t(d: dict[str, Any]) -> Any:
    return d["trips"]


def _o(d: dict[str, Any]) -> Any:
    return d["orders"]


def _month(s: Any) -> Any:
    return s.dt.to_period("M")


def _slope(series: Any) -> float:
    import numpy as np

    x = np.asarray(series.index.asi8 if hasattr(series.index, "asi8") else series.index)
    return float(np.polyfit(x.astype(float), series.to_numpy(dtype=float), 1)[0])


def _slopes(table: Any) -> Any:
    """The slope of each column of a (time step x group) table."""
    import pandas as pd

    return pd.Series({c: _slope(table[c].dropna()) for c in table.columns})


def _weekdays(series: Any) -> Any:
    return series.reindex([d for d in WEEKDAYS if d in series.index])


def _trip_weekday(d: dict[str, Any]) -> Any:
    return _t(d)["start_time"].dt.day_name()


def _t_dur(d: dict[str, Any]) -> Any:
    return _t(d)["duration_min"]


QUESTIONS: list[Question] = [
    # counting rows, overall and per group
    Question("How many trips are there?", lambda d: scalar(len(_t(d)))),
    Question("How many orders do we have?", lambda d: scalar(len(_o(d)))),
    Question(
        "Number of trips per station", lambda d: groups(_t(d).groupby("start_station").size())
    ),
    Question("number of orders per region", lambda d: groups(_o(d).groupby("region").size())),
    Question("How many orders per category?", lambda d: groups(_o(d).groupby("category").size())),
    Question(
        "Count of trips by member type", lambda d: groups(_t(d).groupby("member_type").size())
    ),
    Question(
        "How many trips did members take?",
        lambda d: scalar((_t(d)["member_type"] == "member").sum()),
    ),
    # numeric conditions
    Question(
        "How many trips were longer than 30 minutes?", lambda d: scalar((_t_dur(d) > 30).sum())
    ),
    Question("How many trips had a duration over 45?", lambda d: scalar((_t_dur(d) > 45).sum())),
    Question(
        "How many orders have a quantity of at least 5?",
        lambda d: scalar((_o(d)["quantity"] >= 5).sum()),
    ),
    Question(
        "How many orders with quantity below 3?", lambda d: scalar((_o(d)["quantity"] < 3).sum())
    ),
    Question(
        "How many trips with a duration between 10 and 20 minutes?",
        lambda d: scalar(_t_dur(d).between(10, 20).sum()),
    ),
    Question(
        "Average unit price of orders with quantity more than 4",
        lambda d: scalar(_o(d).loc[_o(d)["quantity"] > 4, "unit_price"].mean()),
    ),
    Question(
        "Total quantity of orders with a unit price above 50",
        lambda d: scalar(_o(d).loc[_o(d)["unit_price"] > 50, "quantity"].sum()),
    ),
    Question(
        "How many trips covered more than 5 km?",
        lambda d: scalar((_t(d)["distance_km"] > 5).sum()),
    ),
    # equality on categories
    Question(
        "How many orders in the North region?", lambda d: scalar((_o(d)["region"] == "North").sum())
    ),
    Question(
        "Average duration of casual trips",
        lambda d: scalar(_t_dur(d)[_t(d)["member_type"] == "casual"].mean()),
    ),
    Question(
        "Total quantity for Books",
        lambda d: scalar(_o(d).loc[_o(d)["category"] == "Books", "quantity"].sum()),
    ),
    Question(
        "Median unit price in the Toys category",
        lambda d: scalar(_o(d).loc[_o(d)["category"] == "Toys", "unit_price"].median()),
    ),
    # several conditions together
    Question(
        "How many trips by members were longer than 20 minutes?",
        lambda d: scalar(((_t(d)["member_type"] == "member") & (_t_dur(d) > 20)).sum()),
    ),
    Question(
        "How many orders in the South region with quantity at least 3?",
        lambda d: scalar(((_o(d)["region"] == "South") & (_o(d)["quantity"] >= 3)).sum()),
    ),
    Question(
        "Total quantity of Books orders in the West region",
        lambda d: scalar(
            _o(d)
            .loc[(_o(d)["category"] == "Books") & (_o(d)["region"] == "West"), "quantity"]
            .sum()
        ),
    ),
    Question(
        "Average duration of casual trips from Harbor",
        lambda d: scalar(
            _t_dur(d)[
                (_t(d)["member_type"] == "casual") & (_t(d)["start_station"] == "Harbor")
            ].mean()
        ),
    ),
    # conditions on dates
    Question(
        "How many trips in July?", lambda d: scalar((_t(d)["start_time"].dt.month == 7).sum())
    ),
    Question("How many orders in 2025?", lambda d: scalar((_dates(d).dt.year == 2025).sum())),
    Question(
        "How many trips on weekends?",
        lambda d: scalar((_t(d)["start_time"].dt.day_of_week >= 5).sum()),
    ),
    Question(
        "Average duration of trips on weekends",
        lambda d: scalar(_t_dur(d)[_t(d)["start_time"].dt.day_of_week >= 5].mean()),
    ),
    Question(
        "Total quantity ordered in March 2025",
        lambda d: scalar(
            _o(d).loc[(_dates(d).dt.year == 2025) & (_dates(d).dt.month == 3), "quantity"].sum()
        ),
    ),
    Question(
        "How many orders in the North region in 2024?",
        lambda d: scalar(((_o(d)["region"] == "North") & (_dates(d).dt.year == 2024)).sum()),
    ),
    Question(
        "How many trips on weekdays?",
        lambda d: scalar((_t(d)["start_time"].dt.day_of_week < 5).sum()),
    ),
    # time grains, from a datetime column and from a date string
    Question(
        "Number of trips per month",
        lambda d: groups(_t(d).groupby(_month(_t(d)["start_time"])).size()),
    ),
    Question(
        "How many trips per week in July?",
        lambda d: groups(
            _t(d)[_t(d)["start_time"].dt.month == 7]
            .groupby(_t(d)["start_time"].dt.to_period("W"))
            .size()
        ),
    ),
    Question(
        "Number of orders per year", lambda d: groups(_o(d).groupby(_dates(d).dt.year).size())
    ),
    Question(
        "How many trips per weekday?",
        lambda d: groups(_weekdays(_t(d).groupby(_trip_weekday(d)).size())),
    ),
    Question(
        "Average duration per month",
        lambda d: groups(_t_dur(d).groupby(_month(_t(d)["start_time"])).mean()),
    ),
    Question(
        "Total quantity per month in 2025",
        lambda d: groups(
            _o(d)[_dates(d).dt.year == 2025].groupby(_month(_dates(d)))["quantity"].sum()
        ),
    ),
    Question(
        "How many trips per day in August?",
        lambda d: groups(
            _t(d)[_t(d)["start_time"].dt.month == 8]
            .groupby(_t(d)["start_time"].dt.to_period("D"))
            .size()
        ),
    ),
    Question(
        "Average unit price per year",
        lambda d: groups(_o(d).groupby(_dates(d).dt.year)["unit_price"].mean()),
    ),
    Question(
        "Monthly number of orders in 2024",
        lambda d: groups(_o(d)[_dates(d).dt.year == 2024].groupby(_month(_dates(d))).size()),
    ),
    # superlatives over groups, with the runner-up
    Question(
        "Which month had the fewest trips?",
        lambda d: groups(_t(d).groupby(_month(_t(d)["start_time"])).size(), best="min"),
    ),
    Question(
        "Which station has the highest median duration?",
        lambda d: groups(_t(d).groupby("start_station")["duration_min"].median(), best="max"),
    ),
    Question(
        "Which region had the most orders?",
        lambda d: groups(_o(d).groupby("region").size(), best="max"),
    ),
    Question(
        "Which category has the largest total quantity?",
        lambda d: groups(_o(d).groupby("category")["quantity"].sum(), best="max"),
    ),
    Question(
        "Which weekday has the most trips?",
        lambda d: groups(_weekdays(_t(d).groupby(_trip_weekday(d)).size()), best="max"),
    ),
    Question(
        "Which station has the longest average trip?",
        lambda d: groups(_t(d).groupby("start_station")["duration_min"].mean(), best="max"),
    ),
    Question(
        "Which year had the highest average unit price?",
        lambda d: groups(_o(d).groupby(_dates(d).dt.year)["unit_price"].mean(), best="max"),
    ),
    Question(
        "What was the busiest month for orders?",
        lambda d: groups(_o(d).groupby(_month(_dates(d))).size(), best="max"),
    ),
    Question(
        "Which member type has the lowest average duration?",
        lambda d: groups(_t(d).groupby("member_type")["duration_min"].mean(), best="min"),
    ),
    # synonyms of max / min / mean / median
    Question("What is the longest trip?", lambda d: scalar(_t_dur(d).max())),
    Question("What is the shortest trip duration?", lambda d: scalar(_t_dur(d).min())),
    Question("What is the typical trip duration?", lambda d: scalar(_t_dur(d).median())),
    Question("What is the average order quantity?", lambda d: scalar(_o(d)["quantity"].mean())),
    Question("What is the highest unit price?", lambda d: scalar(_o(d)["unit_price"].max())),
    Question("What's the lowest quantity in an order?", lambda d: scalar(_o(d)["quantity"].min())),
    Question(
        "Typical unit price per category",
        lambda d: groups(_o(d).groupby("category")["unit_price"].median()),
    ),
    Question(
        "Longest trip per station",
        lambda d: groups(_t(d).groupby("start_station")["duration_min"].max()),
    ),
    # trends over a time grain, in units per grain
    Question(
        "What is the trend in trips per month?",
        lambda d: slopes(_slope(_t(d).groupby(_month(_t(d)["start_time"])).size()), "month"),
    ),
    Question(
        "How is the number of orders per region changing per month?",
        lambda d: slopes(
            _slopes(_o(d).groupby([_month(_dates(d)), "region"]).size().unstack(fill_value=0)),
            "month",
        ),
    ),
    Question(
        "Is the average duration increasing per month?",
        lambda d: slopes(_slope(_t_dur(d).groupby(_month(_t(d)["start_time"])).mean()), "month"),
    ),
    Question(
        "Trend of total quantity per category per month",
        lambda d: slopes(
            _slopes(_o(d).groupby([_month(_dates(d)), "category"])["quantity"].sum().unstack()),
            "month",
        ),
    ),
    Question(
        "Which station grows fastest in trips per month?",
        lambda d: slopes(
            _slopes(
                _t(d)
                .groupby([_month(_t(d)["start_time"]), "start_station"])
                .size()
                .unstack(fill_value=0)
            ),
            "month",
        ),
    ),
    # plots of those readings
    Question(
        "Plot the number of trips per month",
        lambda d: groups(_t(d).groupby(_month(_t(d)["start_time"])).size(), plot=True),
    ),
    Question(
        "Bar chart of orders per region",
        lambda d: groups(_o(d).groupby("region").size(), plot=True),
    ),
    Question(
        "Plot the average duration per station",
        lambda d: groups(_t(d).groupby("start_station")["duration_min"].mean(), plot=True),
    ),
    Question(
        "Line chart of total quantity per month",
        lambda d: groups(_o(d).groupby(_month(_dates(d)))["quantity"].sum(), plot=True),
    ),
    Question(
        "Plot trips per weekday",
        lambda d: groups(_weekdays(_t(d).groupby(_trip_weekday(d)).size()), plot=True),
    ),
    # what the data cannot answer: an honest decline is right
    Question(
        "How many trips were longer than 30 minutes and cost more than $5?", lambda d: decline
    ),
    Question("What is the total revenue per region?", lambda d: decline),
    Question("How many trips happened during rush hour?", lambda d: decline),
    Question("Which station is the most popular among tourists?", lambda d: decline),
    Question("Number of orders per customer segment", lambda d: decline),
    Question("Average duration of trips in the rain", lambda d: decline),
]


def judge(question: Question, answer: str, code: list[str]) -> tuple[Verdict, str | None]:
    """The verdict on ``answer`` (and the code that computed it) for ``question``, and why."""
    why = question.expect(data_cache())(answer, code)
    if why is None:
        return "right", None
    if is_decline(answer):
        return "declined", why
    return "wrong", why


_CACHE: dict[str, Any] = {}


def data_cache() -> dict[str, Any]:
    """The frames, made once per process (questions must not change them; each turn gets a copy
    in the kernel)."""
    if not _CACHE:
        _CACHE.update(data())
    return _CACHE


def ask(question: Question) -> tuple[Verdict, str | None, str]:
    """(verdict, why not right, the answer) for ``question``, on a fresh copy of the frames."""
    from .analyst_harness import run_turn

    frames = {k: v.copy() for k, v in data_cache().items()}
    outcome = run_turn(question.prompt, frames)
    verdict, why = judge(question, outcome.answer, outcome.code)
    return verdict, why, outcome.answer


def main(argv: list[str]) -> int:
    counts = {"right": 0, "declined": 0, "wrong": 0}
    for question in QUESTIONS:
        verdict, why, answer = ask(question)
        counts[verdict] += 1
        if verdict != "right" and "-v" in argv:
            print(f"{verdict.upper()} {question.prompt!r}: {why}")
            print("    " + answer[:700].replace("\n", "\n    "))
    total = len(QUESTIONS)
    print(
        f"{total} questions: {counts['right']} right ({counts['right'] / total:.0%}), "
        f"{counts['declined']} declined, {counts['wrong']} wrong"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
