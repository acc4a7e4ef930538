"""The code the analyst sends to ``run_python`` (pure; no IO).

Each program is the pandas a person would write and keep: one short expression (or a named
intermediate and then the expression), whose result is the last line, so the agent cell shows
it as a table and the tool result describes it as text (``value of the last expression``),
which is where the analyst reads its answer (:mod:`.results`). No wrapper function, no private
print protocol: the program leaves exactly what it says (a plot leaves its figure, a named
intermediate stays a variable). Names are inserted as string literals (columns) or checked to
be identifiers (variables), never pasted as code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from .intents import Agg

__all__ = ["Calendar", "Selection", "agg_label", "program", "result_name"]

#: Group values that are names of months or weekdays, ordered by their first three letters.
Calendar = Literal["month", "weekday"]

_CALENDAR_KEY: Final[dict[str, str]] = {
    "month": 'lambda m: pd.to_datetime(m.str[:3].str.title(), format="%b").month',
    "weekday": 'lambda d: d.str[:3].str.title().map({"Mon": 0, "Tue": 1, "Wed": 2, "Thu": 3, '
    '"Fri": 4, "Sat": 5, "Sun": 6})',
}
_LABELS: Final[dict[str, str]] = {
    "sum": "total", "mean": "mean", "median": "median", "max": "maximum", "min": "minimum",
    "count": "number of rows", "nunique": "distinct", "share": "share", "std": "std",
}  # fmt: skip


def agg_label(agg: Agg) -> str:
    """How an aggregate is named in titles and answers ("total", "mean", "distinct")."""
    return _LABELS[agg]


@dataclass(frozen=True)
class Selection:
    """What one computation is about: names that exist in the kernel.

    Attributes:
        frame: the DataFrame variable (an identifier).
        value: the column the statistic is taken of; ``None`` for row counts.
        group: the column to group by; ``None``: one number for all rows.
        order: the column that orders rows in time (trend, line plots); ``None`` = row order.
        sort_order: sort by :attr:`order` (dates, numbers) instead of first appearance.
        filters: ``(column, value)`` pairs the rows must equal ("week 8", "the North region").
        wide: the frame's columns are the groups and its index the order (a pivot table).
        columns: the numeric columns a correlation is computed over.
        time_group: the group is a time (month, week, date): results in time order.
        calendar: the time group holds month or weekday *names*, ordered by the calendar.
        decimals: round a float result to 2 decimals (so it reads well and never turns into
            scientific notation).
    """

    frame: str
    value: str | None = None
    group: str | None = None
    order: str | None = None
    sort_order: bool = False
    filters: tuple[tuple[str, Any], ...] = ()
    wide: bool = False
    columns: tuple[str, ...] = ()
    time_group: bool = False
    calendar: Calendar | None = None
    decimals: bool = False

    def __post_init__(self) -> None:
        if not self.frame.isidentifier():
            raise ValueError(f"not a variable name: {self.frame!r}")


def _lit(value: Any) -> str:
    """A Python literal for a column name or a filter value (double quotes, as people write)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _col(sel: Selection, name: str) -> str:
    return f"{_source(sel)}[{_lit(name)}]"


def _source(sel: Selection) -> str:
    """The frame, or its rows the filters keep: ``sales[sales["week"] == 8]``."""
    if not sel.filters:
        return sel.frame
    masks = [f"({sel.frame}[{_lit(c)}] == {_lit(v)})" for c, v in sel.filters]
    mask = masks[0][1:-1] if len(masks) == 1 else " & ".join(masks)
    return f"{sel.frame}[{mask}]"


def result_name(sel: Selection, agg: Agg) -> str:
    """A readable variable name for a plotted result: ``mean_weight``, ``rows_per_depot``."""
    what = sel.value or "rows"
    head = "rows" if agg == "count" or sel.value is None else f"{agg_label(agg)}_{what}"
    name = re.sub(r"\W+", "_", f"{head}_per_{sel.group}" if sel.group else head).strip("_")
    name = name.lower() or "result"
    return name if name.isidentifier() and not name[0].isdigit() else f"result_{name}"


def _ordering(sel: Selection, largest: bool, *, counts: bool = False) -> str:
    """How a per-group result is ordered: time order for time groups, else by value."""
    if sel.time_group:
        if sel.calendar is not None:
            return f".sort_index(key={_CALENDAR_KEY[sel.calendar]})"
        return ".sort_index()" if counts else ""
    if counts and largest:
        return ""  # value_counts() is already largest first
    return f".sort_values(ascending={not largest})"


def _rounded(sel: Selection, agg: Agg) -> str:
    return ".round(2)" if sel.decimals and agg not in ("count", "nunique") else ""


def _grouped(sel: Selection, agg: Agg, largest: bool) -> list[str]:
    """Lines computing ``agg`` of the value per group, the result on the last line."""
    group = _lit(sel.group)
    if agg == "count" or (agg == "share" and sel.value is None):
        normalize = "normalize=True" if agg == "share" else ""
        scale = ".mul(100).round(2)" if agg == "share" else ""
        return [
            f"{_col(sel, sel.group or '')}.value_counts({normalize}){scale}"
            + _ordering(sel, largest, counts=True)
        ]
    if agg == "share":
        totals = result_name(sel, "sum")
        return [
            f"{totals} = {_source(sel)}.groupby({group})[{_lit(sel.value)}].sum()",
            f"({totals} / {totals}.sum() * 100).round(2){_ordering(sel, largest)}",
        ]
    return [
        f"{_source(sel)}.groupby({group})[{_lit(sel.value)}].{agg}(){_rounded(sel, agg)}"
        + _ordering(sel, largest)
    ]


def _scalar(sel: Selection, agg: Agg) -> list[str]:
    if agg == "count" or sel.value is None:
        return [f"len({_source(sel)})"]
    return [f"{_col(sel, sel.value)}.{agg}(){_rounded(sel, agg)}"]


def _needs_pd(sel: Selection) -> list[str]:
    return ["import pandas as pd", ""] if sel.calendar is not None else []


def _aggregate(sel: Selection, agg: Agg, largest: bool) -> list[str]:
    if sel.group is None:
        return _scalar(sel, agg)
    return [*_needs_pd(sel), *_grouped(sel, agg, largest)]


def _rank(sel: Selection, largest: bool, n: int) -> list[str]:
    pick = "nlargest" if largest else "nsmallest"
    return [f"{_source(sel)}.{pick}({n}, {_lit(sel.value)})"]


def _table(sel: Selection) -> str:
    """An expression: one column per group (or the value), one row per time step."""
    if sel.wide:
        return f'{sel.frame}.select_dtypes("number")'
    columns = "" if sel.group is None else f", columns={_lit(sel.group)}"
    if sel.order is not None:
        index = _lit(sel.order)
    elif sel.group is not None:  # no time column: the n-th row of each group is step n
        index = f"{_source(sel)}.groupby({_lit(sel.group)}).cumcount()"
    else:
        index = f"{_source(sel)}.index"
    sort = "" if sel.sort_order or sel.calendar else ", sort=False"
    line = (
        f"{_source(sel)}.pivot_table(index={index}{columns}, "
        f'values={_lit(sel.value)}, aggfunc="sum"{sort})'
    )
    if sel.calendar is not None:
        line += f"\n    .sort_index(key={_CALENDAR_KEY[sel.calendar]})"
    return line


def _trend(sel: Selection) -> list[str]:
    return [
        "import numpy as np",
        *_needs_pd(sel),
        "# the least-squares slope of each column: its change per time step",
        f"({_table(sel)}",
        "    .apply(lambda s: np.polyfit(np.flatnonzero(s.notna()), s.dropna(), 1)[0])",
        "    .round(2).sort_values(ascending=False))",
    ]


def _correlation(sel: Selection) -> list[str]:
    if len(sel.columns) == 2:
        a, b = sel.columns
        return [f"{_col(sel, a)}.corr({_col(sel, b)}).round(2)"]
    return [f"{_source(sel)}[{list(sel.columns)!r}].corr().round(2)".replace("'", '"')]


def _plot(sel: Selection, agg: Agg, largest: bool) -> list[str]:
    label = sel.value or "rows"
    if sel.wide or sel.order is not None:
        what = f"{agg_label('sum')} {label}" + (f" per {sel.group}" if sel.group else "")
        return [
            *_needs_pd(sel),
            f"({_table(sel)}",
            f'    .plot(marker="o", title={_lit(what.capitalize() + " over time")}, '
            f"ylabel={_lit(label)}))",
        ]
    if sel.group is not None:
        name = result_name(sel, agg)
        title = (agg_label(agg) + f" {label} per {sel.group}").capitalize()
        if agg == "count":
            title = f"Rows per {sel.group}"
        lines = _grouped(sel, agg, largest)
        first = lines[:-1]
        return [
            *_needs_pd(sel),
            *first,
            f"{name} = {lines[-1]}",
            f"{name}.plot.bar(title={_lit(title)}, ylabel={_lit(label)})",
            name,
        ]
    return [
        f"{_col(sel, label)}.plot.hist(bins=20, title={_lit('Distribution of ' + label)})",
        f"{_col(sel, label)}.describe()",
    ]


def program(
    kind: str, sel: Selection, *, agg: Agg = "sum", largest: bool = True, n: int = 5
) -> str:
    """The Python source for one question of ``kind`` about ``sel``; its last line is the
    result.

    Raises:
        ValueError: ``kind`` has no program, or ``sel`` lacks a name that kind needs.
    """
    needs = {
        "aggregate": (sel.value if agg not in ("count",) and sel.group is None else 0,),
        "rank": (sel.value,),
        "trend": () if sel.wide else (sel.value,),
        "plot": () if sel.wide else (sel.value,),
        "correlation": (sel.columns or None,),
        "duplicates": (),
    }
    if kind not in needs:
        raise ValueError(f"no program for {kind!r}")
    if any(item is None for item in needs[kind]):
        raise ValueError(f"{kind} needs more names than {sel!r}")
    body: list[str]
    if kind == "aggregate":
        body = _aggregate(sel, agg, largest)
    elif kind == "rank":
        body = _rank(sel, largest, n)
    elif kind == "trend":
        body = _trend(sel)
    elif kind == "plot":
        body = _plot(sel, agg, largest)
    elif kind == "correlation":
        body = _correlation(sel)
    else:
        body = [f"{_source(sel)}.duplicated().sum()"]
    return "\n".join(body)
