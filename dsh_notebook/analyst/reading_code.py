"""The pandas for a :class:`~.reading.Reading` (pure; no IO).

The program is the code a person keeps: the rows the conditions keep (a named subset), the
grouping (a column, or a grain of the date column: ``.dt.to_period("M")``), the aggregation, and
the result. One number is the last expression; a per-group result is named and printed whole
with ``to_string()`` (a value's description shows only its first rows, and every group must be
read back); a plot draws that result with both axes named. Names are string literals, never
pasted as code.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from .reading import Condition, Reading, generic_frame

__all__ = ["WEEKDAYS", "reading_program", "result_variable"]

WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_PERIODS: Final = {"day": "D", "week": "W", "month": "M", "quarter": "Q", "year": "Y"}
_METHOD: Final = {"sum": "sum", "mean": "mean", "median": "median", "max": "max", "min": "min",
                  "std": "std"}  # fmt: skip
_LABEL: Final = {"sum": "total", "mean": "mean", "median": "median", "max": "maximum",
                 "min": "minimum", "std": "std"}  # fmt: skip


def _lit(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def _dates(r: Reading) -> str:
    return f"{r.frame}_dates" if r.parse_time else f"{r.frame}[{_lit(r.time)}]"


def _mask(r: Reading, c: Condition) -> str:
    col = f"{r.frame}[{_lit(c.column)}]"
    dates = _dates(r)
    if c.op == "between":
        return f"{col}.between({c.value!r}, {c.high!r})"
    if c.op == "month":
        return f"({dates}.dt.month == {c.value})"
    if c.op == "year":
        return f"({dates}.dt.year == {c.value})"
    if c.op == "day":
        return f"({dates}.dt.day_name() == {_lit(c.value)})"
    if c.op == "weekend":
        return f"({dates}.dt.day_of_week >= 5)"
    if c.op == "weekday":
        return f"({dates}.dt.day_of_week < 5)"
    return f"({col} {c.op} {_lit(c.value)})"


def _key(r: Reading) -> str:
    """The grouping key: a column name, or the grain of the dates, named after the grain."""
    if r.grain is None:
        return _lit(r.group)
    if r.grain == "weekday":
        return f'{_dates(r)}.dt.day_name().rename("weekday")'
    return f'{_dates(r)}.dt.to_period("{_PERIODS[r.grain]}").rename("{r.grain}")'


def result_variable(r: Reading) -> str:
    """A readable name for the per-group result: ``trips_per_month``, ``mean_duration_min_per_
    start_station``."""
    what = r.frame if r.measure is None else f"{_LABEL[r.agg]}_{r.measure}"
    if r.trend:
        what = f"{what}_trend"
    name = re.sub(r"\W+", "_", f"{what}_per_{r.by}" if r.by else what).strip("_").lower()
    return name if name.isidentifier() else f"result_{name}"


def _aggregate(r: Reading, source: str, key: str) -> str:
    if r.measure is None:
        return f"{source}.groupby({key}).size()"
    rounded = ".round(2)" if r.agg in ("mean", "median", "std") or r.measure else ""
    return f"{source}.groupby({key})[{_lit(r.measure)}].{_METHOD[r.agg]}(){rounded}"


def y_label(r: Reading) -> str:
    """What the values are: "number of trips", "mean duration_min"."""
    if r.measure is None:
        return "number of rows" if generic_frame(r.frame) else f"number of {r.frame}"
    return f"{_LABEL[r.agg]} {r.measure}"


def reading_program(r: Reading) -> str:
    """The Python source computing ``r``; its output is the result (see the module docstring).

    Raises:
        ValueError: ``r`` has an unread part, or is a kind this module does not compute.
    """
    if r.unread or r.legacy:
        raise ValueError("not a complete reading")
    lines: list[str] = []
    if r.parse_time or r.trend:
        lines.append("import pandas as pd")
    if r.trend:
        lines.append("import numpy as np")
    if lines:
        lines.append("")
    if r.parse_time:
        lines.append(f"{r.frame}_dates = pd.to_datetime({r.frame}[{_lit(r.time)}])")
    source = r.frame
    if r.conditions:
        masks = [_mask(r, c) for c in r.conditions]
        mask = masks[0] if len(masks) == 1 else " & ".join(masks)
        if mask.startswith("(") and len(masks) == 1:
            mask = mask[1:-1]
        source = f"{r.frame}_rows"
        lines.append(f"{source} = {r.frame}[{mask}]")
    if r.grain is None and r.group is None:
        if r.measure is None:
            lines.append(f"len({source})")
        else:
            lines.append(f"{source}[{_lit(r.measure)}].{_METHOD[r.agg]}().round(2)")
        return "\n".join(lines)
    name = result_variable(r)
    if r.trend:
        return "\n".join(lines + _trend(r, source, name))
    body = _aggregate(r, source, _key(r))
    if r.grain == "weekday":
        body += f".reindex({list(WEEKDAYS)!r}).dropna()".replace("'", '"')
    elif r.best is not None or r.grain is None:
        body += f".sort_values(ascending={r.best == 'min'})"
    lines.append(f"{name} = {body}")
    if r.plot is not None:
        kind = "bar" if r.plot == "bar" else "line"
        marker = ', marker="o"' if kind == "line" else ""
        title = f"{y_label(r)} per {r.by}".capitalize()
        lines.append(
            f'{name}.plot(kind="{kind}"{marker}, title={_lit(title)}, xlabel={_lit(r.by)}, '
            f"ylabel={_lit(y_label(r))})"
        )
    lines.append(f"print({name}.to_string())")
    return "\n".join(lines)


def _trend(r: Reading, source: str, name: str) -> list[str]:
    """The least-squares slope of the aggregate per grain step (one per group)."""
    key = _key(r)
    steps = f"{r.frame}_per_{r.grain}"
    if r.group is None:
        return [
            f"{steps} = {_aggregate(r, source, key)}",
            f"# the least-squares slope: the change per {r.grain}",
            f"np.polyfit({steps}.index.asi8, {steps}, 1)[0].round(2)",
        ]
    keys = f"[{key}, {_lit(r.group)}]"
    if r.measure is None:
        table = f"{source}.groupby({keys}).size().unstack(fill_value=0)"
    else:
        table = f"{source}.groupby({keys})[{_lit(r.measure)}].{_METHOD[r.agg]}().unstack()"
    return [
        f"{steps} = {table}",
        f"# the least-squares slope of each {r.group}: its change per {r.grain}",
        f"{name} = {steps}.apply(",
        "    lambda s: np.polyfit(s.dropna().index.asi8, s.dropna(), 1)[0]",
        ").round(2).sort_values(ascending=False)",
        f"print({name}.to_string())",
    ]
