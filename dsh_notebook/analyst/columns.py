"""What a question says about a DataFrame's columns, read from the describer's text.

The columns it mentions, the numbers it filters on ("in week 8"), the text values it filters on
("for the North region"), which column it groups by ("per depot"), the calendar order of month or
weekday groups and the time unit of a trend ("per month"). Pure functions over the question and
the frame as described (:mod:`.names`); only values the describer's first rows show are known.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .names import Column, Frame, mentioned, words
from .plans import Calendar
from .results import read_table

__all__ = [
    "GROUP_MARK",
    "calendar_of",
    "mentions",
    "number_filters",
    "samples_of",
    "time_unit",
    "word_filters",
]

#: Words of a question that never name a value to filter on.
_STOP: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "by",
        "compute",
        "do",
        "does",
        "each",
        "for",
        "from",
        "grows",
        "how",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "over",
        "per",
        "plot",
        "rows",
        "show",
        "tell",
        "than",
        "that",
        "the",
        "there",
        "this",
        "to",
        "top",
        "total",
        "what",
        "which",
        "with",
    ]
)


def mentions(question: str, columns: list[Column]) -> list[Column]:
    found = sorted((mentioned(question, c.name), i, c) for i, c in enumerate(columns))
    return [c for pos, _, c in found if pos >= 0]


def number_filters(question: str, frame: Frame) -> tuple[tuple[str, Any], ...]:
    """``column value`` pairs in the question ("in week 8", "year 2024") for numeric columns."""
    out: list[tuple[str, Any]] = []
    for column in frame.columns:
        if not column.numeric:
            continue
        pattern = r"[\s_\-]*".join(re.escape(p) for p in re.split(r"[\s_\-]+", column.name) if p)
        match = re.search(rf"(?<![A-Za-z0-9]){pattern}\s+(-?\d+(?:\.\d+)?)\b", question, re.I)
        if match:
            number = float(match.group(1))
            out.append((column.name, int(number) if number.is_integer() else number))
    return tuple(out)


#: Words right before a column that make it the grouping ("per depot", "which month").
GROUP_MARK: Final = re.compile(
    r"(?:\bper|\bby|\beach|\bevery|\bacross|\bwhich|\bwhat|\bfor each|\bin each)\s+(?:\w+\s+)?$",
    re.I,
)
_MONTHS: Final = (
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
)
_WEEKDAYS: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_UNITS: Final = {"day": "day", "daily": "day", "week": "week", "weekly": "week", "month": "month",
                 "monthly": "month", "quarter": "quarter", "qtr": "quarter", "year": "year",
                 "yearly": "year", "hour": "hour", "minute": "minute"}  # fmt: skip


def samples_of(frame: Frame) -> dict[str, list[str]]:
    """The values the describer's first rows show, per column (empty when they do not parse)."""
    rows = read_table(frame.text, [c.name for c in frame.columns]) if frame.text else None
    out: dict[str, list[str]] = {}
    for row in rows or []:
        for column in frame.columns:
            cell = row.get(column.name, "")
            if cell and cell not in out.setdefault(column.name, []):
                out[column.name].append(cell)
    return out


def calendar_of(values: list[str]) -> Calendar | None:
    heads = {v.strip()[:3].lower() for v in values if v.strip()[:1].isalpha()}
    if heads and heads <= set(_MONTHS):
        return "month"
    if heads and heads <= set(_WEEKDAYS):
        return "weekday"
    return None


def time_unit(order: str | None, frame: Frame) -> str:
    """The trend's unit: "per month" from the time column's name or its dates' spacing."""
    if order is None:
        return "per row"
    word = _UNITS.get(re.sub(r"[\s_\-]+", "", order.lower()))
    if word:
        return f"per {word}"
    days = []
    for cell in samples_of(frame).get(order, []):
        match = re.match(r"(\d{4})-(\d{2})-(\d{2})", cell)
        if match:
            y, m, d = (int(g) for g in match.groups())
            days.append(y * 365.25 + (m - 1) * 30.44 + d)
    steps = sorted(b - a for a, b in zip(sorted(set(days)), sorted(set(days))[1:], strict=False))
    if steps:
        step = steps[len(steps) // 2]
        for limit, name in ((1.5, "day"), (8, "week"), (32, "month"), (95, "quarter")):
            if step <= limit:
                return f"per {name}"
        return "per year"
    return f"per `{order}` step"


def word_filters(question: str, frame: Frame, skip: set[str]) -> tuple[tuple[str, Any], ...]:
    """("region", "North") when a word of the question is a value the frame shows in a text
    column ("for the North region"); only values the describer's first rows show count."""
    asked = {w.lower() for w in words(question) if w.lower() not in _STOP}
    out: list[tuple[str, Any]] = []
    for column, values in samples_of(frame).items():
        col = frame.column(column)
        if col is None or col.numeric or col.temporal or column in skip:
            continue
        hits = [v for v in values if v.lower() in asked and mentioned(question, column) != -2]
        hits = [v for v in hits if all(mentioned(v, c.name) < 0 for c in frame.columns)]
        if len(hits) == 1:
            out.append((column, hits[0]))
    return tuple(out)
