"""Natural questions for the demo analyst, each with the computation a data person means.

Written before the analyst was changed for issue 28 (the "before" count was measured on them).
The data is made here and is unlike the shipped notebooks' (other frames, columns and groups,
groups of different sizes, month names as text, a numeric column whose name is a count); pandas
computes every expected value. :func:`check` says whether an answer is right, and why not.

Run ``python -m tests.analyst_questions`` for the count (``-v`` prints every miss, ``--values``
judges the answers alone, not whether the code is idiomatic pandas).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def shipments() -> Any:
    import pandas as pd

    rows = []
    depots = {"Harbor": 5, "Airfield": 3, "Quarry": 4, "Mill": 2}
    i = 0
    for m, month in enumerate(MONTHS[:8]):
        for depot, size in depots.items():
            for k in range(size if m % 2 == 0 else max(1, size - 1)):
                i += 1
                rows.append({
                    "depot": depot,
                    "month": month,
                    "driver": f"d{(i * 7 + k) % 9}",
                    "deliveries": (i * 13 + m * 5) % 40 + 3 * len(depot),
                    "weight": round(((i * 37) % 101) * 12.75 + m * 3.5, 2),
                })  # fmt: skip
    return pd.DataFrame(rows)


def patients() -> Any:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(28)
    n = 60
    ward = rng.choice(
        ["Cardio", "Neuro", "Ortho", "Peds", "Onco"], size=n, p=[0.3, 0.2, 0.2, 0.1, 0.2]
    )
    frame = pd.DataFrame({
        "ward": ward,
        "age": rng.integers(1, 95, size=n),
        "stay_days": rng.gamma(2.0, 2.5, size=n).round(1),
        "cost": (rng.gamma(3.0, 4100.0, size=n) + 250).round(2),
        "admitted": pd.date_range("2024-01-03", periods=n, freq="5D"),
    })  # fmt: skip
    frame.loc[[4, 17, 33], "stay_days"] = np.nan
    return pd.concat([frame, frame.iloc[[5, 9]]], ignore_index=True)


def readings() -> Any:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    temperature = rng.normal(20, 6, size=80).round(1)
    return pd.DataFrame({
        "temperature": temperature,
        "ice_cream_sales": (temperature * 31 + rng.normal(0, 25, size=80)).round(0),
        "umbrellas": rng.integers(0, 50, size=80),
    })  # fmt: skip


def monthly() -> Any:
    import pandas as pd

    months = pd.date_range("2023-01-01", periods=12, freq="MS")
    rows = []
    for store, base, step in (
        ("Elm", 1000.0, 85.5),
        ("Oak", 5200.0, -140.25),
        ("Ash", 800.0, 12.0),
    ):
        for j, month in enumerate(months):
            rows.append({"store": store, "month": month,
                         "revenue": base + step * j + (j % 3) * 40.0})  # fmt: skip
    return pd.DataFrame(rows)


# --- what a right answer contains -----------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


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


def _line_with(label: str, answer: str) -> str | None:
    pattern = re.compile(rf"(?<![\w]){re.escape(label)}(?![\w])")
    return next((line for line in answer.splitlines() if pattern.search(line)), None)


def first_sentence(answer: str) -> str:
    return re.split(r"(?<=[.!?])\s|\n", answer.strip(), maxsplit=1)[0]


Check = Callable[[str, list[str], list[str]], str | None]


def groups(series: Any, *, first: str | None = None, order: list[str] | None = None) -> Check:
    """Every group's value on a line naming the group; ``first`` = "max"/"min": the first
    sentence names the top group; ``order``: the groups are listed in that order."""
    pairs = [(str(k), float(v)) for k, v in series.items()]

    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        for label, value in pairs:
            line = _line_with(label, answer)
            if line is None or not close(value, line):
                return f"no line shows {label} = {value:g}"
        if first is not None:
            label, value = (max if first == "max" else min)(pairs, key=lambda p: p[1])
            head = answer.strip().split("\n\n")[0]
            if label not in head or not close(value, head):
                return f"the opening does not name {label} ({value:g})"
        if order is not None:
            spots = [answer.find(f"{label}:") for label in order]
            if -1 in spots or spots != sorted(spots):
                return f"the groups are not listed in order {order}"
        return None

    return check


def scalar(value: float) -> Check:
    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        head = answer.strip().split("\n\n")[0]
        return None if close(float(value), head) else f"the opening does not show {value:g}"

    return check


def contains(*words: str, run: bool | None = None) -> Check:
    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        for word in words:
            if word.lower() not in answer.lower():
                return f"{word!r} not in the answer"
        if run is False and "run_python" in tools:
            return "it ran code"
        if run is True and "run_python" not in tools:
            return "it ran no code"
        return None

    return check


def both(*checks: Check) -> Check:
    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        return next((m for c in checks if (m := c(answer, tools, code)) is not None), None)

    return check


def code_block(*fragments: str) -> Check:
    """A fenced Python block holding ``fragments``, and nothing run."""

    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        if "```python" not in answer:
            return "no fenced python block"
        if "run_python" in tools:
            return "it ran the code"
        block = answer.split("```python", 1)[1].split("```", 1)[0]
        missing = [f for f in fragments if f not in block]
        return f"the block lacks {missing}" if missing else None

    return check


def one_line_cant(answer: str, tools: list[str], code: list[str]) -> str | None:
    if "run_python" in tools:
        return "it computed something else"
    if "\n" in answer.strip():
        return "more than one line"
    honest = re.search(r"can(?:'|no)t|cannot|can only", answer, re.I)
    return None if honest else "no honest can't"


#: ``False`` (``--values``): judge the answer alone, not the code that computed it.
STRICT_CODE = True


def idiomatic(answer: str, tools: list[str], code: list[str]) -> str | None:
    if not STRICT_CODE:
        return None
    if not code:
        return "no code ran"
    if any("_dsh_analyst" in c or "print(" in c for c in code):
        return "the code is a private wrapper"
    return None


def with_code(check: Check) -> Check:
    return both(idiomatic, check)


@dataclass(frozen=True)
class Question:
    prompt: str | list[str]
    data: Callable[[], dict[str, Any]]
    expect: Callable[[dict[str, Any]], Check]


def _s() -> dict[str, Any]:
    return {"shipments": shipments()}


def _p() -> dict[str, Any]:
    return {"patients": patients()}


def _r() -> dict[str, Any]:
    return {"readings": readings()}


def _m() -> dict[str, Any]:
    return {"stores": monthly()}


def _share(series: Any) -> Any:
    return series / series.sum() * 100


def _cal(series: Any) -> Any:
    return series.reindex([m for m in MONTHS if m in series.index])


def _slopes(df: Any) -> Any:
    import numpy as np

    out = {}
    for store, part in df.groupby("store"):
        y = part.sort_values("month")["revenue"].to_numpy()
        out[store] = float(np.polyfit(np.arange(len(y)), y, 1)[0])
    import pandas as pd

    return pd.Series(out)


S = "shipments"
QUESTIONS: list[Question] = [
    # the statistic named is the one computed
    Question(
        "What is the max deliveries per depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["deliveries"].max(), first="max")),
    ),
    Question(
        "What is the min deliveries per depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["deliveries"].min(), first="min")),
    ),
    Question(
        "Average weight per depot",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["weight"].mean())),
    ),
    Question(
        "What's the median weight for each depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["weight"].median())),
    ),
    Question(
        "Can you give me the total number of deliveries for each depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["deliveries"].sum())),
    ),
    Question(
        "How many shipments per depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot").size())),
    ),
    Question(
        "How many rows does each depot have?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot").size())),
    ),
    Question(
        "Total number of records per depot",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot").size())),
    ),
    Question(
        "Which depot has the highest average weight?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["weight"].mean(), first="max")),
    ),
    Question(
        "Which depot has the lowest total deliveries?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["deliveries"].sum(), first="min")),
    ),
    Question(
        "Which driver made the most deliveries?",
        _s,
        lambda d: groups(d[S].groupby("driver")["deliveries"].sum(), first="max"),
    ),
    Question(
        "Maximum weight by depot",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["weight"].max())),
    ),
    Question(
        "What is the smallest weight in each depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["weight"].min())),
    ),
    Question(
        "How many distinct drivers per depot?",
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["driver"].nunique())),
    ),
    Question(
        "What share of deliveries does each depot have?",
        _s,
        lambda d: groups(_share(d[S].groupby("depot")["deliveries"].sum())),
    ),
    Question("Count of shipments by driver", _s, lambda d: groups(d[S].groupby("driver").size())),
    # time-like groups in time order
    Question(
        "Total deliveries per month",
        _s,
        lambda d: groups(_cal(d[S].groupby("month")["deliveries"].sum()), order=MONTHS[:8]),
    ),
    Question(
        "Which month had the most deliveries?",
        _s,
        lambda d: groups(d[S].groupby("month")["deliveries"].sum(), first="max"),
    ),
    Question(
        "Average weight by month",
        _s,
        lambda d: groups(_cal(d[S].groupby("month")["weight"].mean()), order=MONTHS[:8]),
    ),
    # one number
    Question("What is the total weight?", _s, lambda d: scalar(d[S]["weight"].sum())),
    Question(
        "What is the average number of deliveries?", _s, lambda d: scalar(d[S]["deliveries"].mean())
    ),
    Question("How many rows are in shipments?", _s, lambda d: scalar(len(d[S]))),
    Question("How many unique drivers are there?", _s, lambda d: scalar(d[S]["driver"].nunique())),
    Question("What is the median cost?", _p, lambda d: scalar(d["patients"]["cost"].median())),
    Question("What is the mean age?", _p, lambda d: scalar(d["patients"]["age"].mean())),
    Question("What is the highest cost?", _p, lambda d: scalar(d["patients"]["cost"].max())),
    Question(
        "How many different wards are there?", _p, lambda d: scalar(d["patients"]["ward"].nunique())
    ),
    # patients: other names, unequal groups, missing values, duplicates
    Question(
        "What is the median cost per ward?",
        _p,
        lambda d: with_code(groups(d["patients"].groupby("ward")["cost"].median())),
    ),
    Question(
        "Maximum stay_days per ward",
        _p,
        lambda d: with_code(groups(d["patients"].groupby("ward")["stay_days"].max())),
    ),
    Question(
        "Minimum age by ward",
        _p,
        lambda d: with_code(groups(d["patients"].groupby("ward")["age"].min())),
    ),
    Question(
        "How many patients in each ward?",
        _p,
        lambda d: with_code(groups(d["patients"].groupby("ward").size())),
    ),
    Question(
        "Average cost for each ward, highest first",
        _p,
        lambda d: groups(d["patients"].groupby("ward")["cost"].mean(), first="max"),
    ),
    Question(
        "What percentage of patients are in each ward?",
        _p,
        lambda d: groups(_share(d["patients"].groupby("ward").size())),
    ),
    Question(
        "Top 3 patients by cost",
        _p,
        lambda d: both(*(contains(f"{v:,.2f}") for v in d["patients"]["cost"].nlargest(3))),
    ),
    Question("Are there missing values in patients?", _p, lambda d: contains("`stay_days` 3")),
    Question("Any duplicate rows?", _p, lambda d: contains("2 duplicated row")),
    Question(
        "Describe the patients data",
        _p,
        lambda d: both(
            contains("mean", "max"),
            scalar_in(d["patients"]["cost"].mean()),
            scalar_in(d["patients"]["age"].max()),
        ),
    ),
    # correlation with a strength word
    Question(
        "Is temperature correlated with ice cream sales?",
        _r,
        lambda d: both(
            contains("strong"),
            scalar_in(
                round(d["readings"]["temperature"].corr(d["readings"]["ice_cream_sales"]), 2)
            ),
        ),
    ),
    Question(
        "How are umbrellas and temperature related?",
        _r,
        lambda d: both(
            contains("no meaningful"),
            scalar_in(round(d["readings"]["umbrellas"].corr(d["readings"]["temperature"]), 2)),
        ),
    ),
    # trends in units of the time column
    Question(
        "Which store is growing fastest in revenue?",
        _m,
        lambda d: both(contains("per month", "Elm"), groups(_slopes(d["stores"]))),
    ),
    Question(
        "Is any store's revenue declining?",
        _m,
        lambda d: both(contains("per month", "Oak"), declining_named("Oak", "Elm")),
    ),
    # code asked for, not run
    Question(
        "Show me the pandas code to compute total deliveries by depot",
        _s,
        lambda d: code_block('groupby("depot")["deliveries"].sum()'),
    ),
    Question(
        "Show me the code for the average weight per depot",
        _s,
        lambda d: code_block('groupby("depot")["weight"].mean()'),
    ),
    # a plot of the statistic named
    Question(
        "Plot the mean weight per depot",
        _s,
        lambda d: both(contains("mean"), with_code(groups(d[S].groupby("depot")["weight"].mean()))),
    ),
    # the person's own text is the question; a second, delimited context block is not
    Question(
        [
            "Total deliveries per depot",
            "--- notebook context ---\nshipments: median max count of weight, plot, "
            "correlation, missing values\n--- end of notebook context ---",
        ],
        _s,
        lambda d: with_code(groups(d[S].groupby("depot")["deliveries"].sum())),
    ),
    # nothing supported fits: one honest line
    Question("Translate this notebook into French", _s, lambda d: one_line_cant),
    Question("Fit a random forest to predict weight from deliveries", _s, lambda d: one_line_cant),
]


def scalar_in(value: float) -> Check:
    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        return None if close(float(value), answer) else f"{value:g} is not in the answer"

    return check


def declining_named(falling: str, rising: str) -> Check:
    def check(answer: str, tools: list[str], code: list[str]) -> str | None:
        line = _line_with(falling, answer) or ""
        if not re.search(r"declin|shrink|fall", line, re.I):
            return f"{falling} is not called declining"
        rise = _line_with(rising, answer) or ""
        if re.search(r"declin|shrink|fall", rise, re.I):
            return f"{rising} is called declining"
        return None

    return check


def check(question: Question) -> tuple[str | None, str]:
    """(why the answer is wrong or ``None``, the answer) for ``question``."""
    from .analyst_harness import run_turn

    data = question.data()
    verdict = question.expect(data)
    outcome = run_turn(question.prompt, data)
    return verdict(outcome.answer, outcome.tools, outcome.code), outcome.answer


def main(argv: list[str]) -> int:
    global STRICT_CODE
    STRICT_CODE = "--values" not in argv
    right = 0
    for question in QUESTIONS:
        why, answer = check(question)
        right += why is None
        if why is not None and "-v" in argv:
            prompt = question.prompt if isinstance(question.prompt, str) else question.prompt[0]
            print(f"MISS {prompt!r}: {why}\n    " + answer[:600].replace("\n", "\n    "))
    print(f"{right} of {len(QUESTIONS)} questions answered correctly")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
