"""The analyst's answers, composed only from what the tools returned in this run (pure; no IO).

Every number in an answer is taken from a parsed tool result (the JSON line a program printed,
the ``describe_variable`` text, the ``notebook_variables`` table, a script's printed output);
nothing is remembered or made up. Names are shown in backticks; all text is plain markdown, which
the transcript renders sanitized.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .names import Frame, Variable

__all__ = [
    "HELP",
    "REJECTED",
    "aggregate_answer",
    "correlation_answer",
    "describe_answer",
    "duplicates_answer",
    "fmt",
    "missing_answer",
    "plot_answer",
    "rank_answer",
    "trend_answer",
    "variables_answer",
]

#: The one-line answer to anything outside the analyst's question types.
HELP: Final = (
    "I am the demo analyst (rules, not a language model), so I can only answer a few kinds of "
    "questions about the DataFrames in your kernel: what is loaded, describe a frame, totals/"
    "means/counts per group, top/bottom N, which group grows or shrinks, missing values, "
    "duplicates, correlation, a plot, or a script that I write and run; set `DEEPSEEK_API_KEY` "
    "(then restart the kernel) to ask DeepSeek anything."
)

#: What the analyst says when the person rejected its code.
REJECTED: Final = "You rejected it; nothing ran, and your notebook is unchanged."

_AGG_WORDS: Final = {
    "sum": "total",
    "mean": "mean",
    "median": "median",
    "count": "number of rows",
    "max": "maximum",
    "min": "minimum",
}


def fmt(value: Any) -> str:
    """A number as the answers show it: integers with thousands separators, else 2 decimals."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def _filters(result: Mapping[str, Any]) -> str:
    pairs = result.get("filters") or []
    if not pairs:
        return ""
    return " (rows where " + " and ".join(f"`{c}` = {v}" for c, v in pairs) + ")"


def variables_answer(variables: Sequence[Variable]) -> str:
    if not variables:
        return "Your kernel has no variables yet (modules, functions and `_names` are not listed)."
    lines = [f"Your kernel holds {len(variables)} variable(s):", ""]
    for var in variables:
        shape = f", shape {var.shape}" if var.shape else ""
        lines.append(f"- `{var.name}`: {var.type}{shape}")
    frames = [v.name for v in variables if v.is_frame]
    if frames:
        lines += ["", f"Ask me about {', '.join(f'`{f}`' for f in frames)} by name."]
    return "\n".join(lines)


def describe_answer(frame: Frame) -> str:
    lines = [
        f"`{frame.name}` has {fmt(frame.rows)} rows and {len(frame.columns)} columns:",
        "",
    ]
    lines += [f"- `{c.name}` ({c.dtype})" for c in frame.columns]
    lines += ["", missing_answer(frame)]
    return "\n".join(lines)


def missing_answer(frame: Frame) -> str:
    missing = [(c, n) for c, n in frame.nulls if n]
    if not missing:
        return f"`{frame.name}` has no missing values ({fmt(frame.rows)} rows)."
    parts = ", ".join(f"`{c}` {fmt(n)}" for c, n in missing)
    return f"Missing values in `{frame.name}` ({fmt(frame.rows)} rows): {parts}."


def aggregate_answer(
    result: Mapping[str, Any], *, group: str, value: str | None, agg: str, largest: bool,
    n: int | None,
) -> str:  # fmt: skip
    items = list(result.get("items") or [])
    what = _AGG_WORDS.get(agg, agg) + ("" if agg == "count" or value is None else f" `{value}`")
    if not items:
        return f"No rows to group{_filters(result)}, so there is no {what} per `{group}`."
    ordered = items if largest else list(reversed(items))
    head = ordered[0]
    pick = "largest" if largest else "smallest"
    lines = [
        f"The {pick} {what} is **{head[0]}** with {fmt(head[1])}{_filters(result)}.",
        "",
        f"{what.capitalize()} per `{group}` ({'largest' if largest else 'smallest'} first):",
        "",
    ]
    shown = ordered if n is None else ordered[: max(n, 1)]
    lines += [f"- {label}: {fmt(number)}" for label, number in shown]
    return "\n".join(lines)


def rank_answer(result: Mapping[str, Any], *, value: str, largest: bool, label_columns: Sequence[str]) -> str:  # fmt: skip
    items = list(result.get("items") or [])
    if not items:
        return f"No rows matched{_filters(result)}, so there is nothing to rank by `{value}`."
    word = "largest" if largest else "smallest"
    lines = [f"The {len(items)} {word} `{value}` value(s){_filters(result)}:", ""]
    for row in items:
        labels = ", ".join(f"{c} {row[c]}" for c in label_columns if c in row and c != value)
        lines.append(f"- {fmt(row.get(value))}" + (f" ({labels})" if labels else ""))
    return "\n".join(lines)


def trend_answer(result: Mapping[str, Any], *, value: str | None, order: str | None) -> str:
    slopes = list(result.get("slopes") or [])
    if not slopes:
        return "There are too few points to fit a trend (at least two per group are needed)."
    over = f"`{order}`" if order else "row order"
    span = f"from {result.get('first')} to {result.get('last')}"
    unit = f" of `{value}`" if value else ""
    fastest, slowest = slopes[0], slopes[-1]
    lines = [
        f"Least-squares slope{unit} per step of {over} ({result.get('points')} points, "
        f"{span}){_filters(result)}:",
        "",
    ]
    lines += [
        f"- **{name}**: {fmt(slope)} per step ({fmt(first)} → {fmt(last)})"
        for name, slope, first, last in slopes
    ]
    lines.append("")
    if len(slopes) > 1:
        lines.append(f"**{fastest[0]}** grows fastest ({fmt(fastest[1])} per step).")
    shrinking = [s for s in slopes if s[1] < 0]
    if shrinking:
        names = ", ".join(f"**{s[0]}** ({fmt(s[1])} per step)" for s in reversed(shrinking))
        lines.append(f"Shrinking: {names}.")
    else:
        lines.append(f"None is shrinking; the slowest is **{slowest[0]}** ({fmt(slowest[1])}).")
    return "\n".join(lines)


def duplicates_answer(result: Mapping[str, Any], *, frame: str) -> str:
    count = int(result.get("count") or 0)
    rows = result.get("rows")
    if count == 0:
        return f"`{frame}` has no duplicated rows ({fmt(rows)} rows checked)."
    examples = ", ".join(str(e) for e in result.get("examples") or [])
    return (
        f"`{frame}` has {fmt(count)} duplicated row(s) out of {fmt(rows)} "
        f"(repeats of an earlier row; first at index {examples})."
    )


def correlation_answer(result: Mapping[str, Any], *, frame: str) -> str:
    pairs = [p for p in result.get("pairs") or [] if p[2] == p[2]]
    if not pairs:
        return f"`{frame}` has too few numeric columns (or values) to correlate."
    a, b, r = pairs[0]
    lines = [
        f"The strongest correlation in `{frame}` is `{a}` ~ `{b}`: r = {r:.2f}.",
        "",
    ]
    lines += [f"- `{x}` ~ `{y}`: {c:.2f}" for x, y, c in pairs]
    return "\n".join(lines)


def plot_answer(result: Mapping[str, Any], *, title: str) -> str:
    chart = result.get("chart", "chart")
    count = result.get("lines") if chart == "line" else result.get("bars")
    unit = {"line": "line(s)", "bar": "bar(s)", "histogram": "bin(s)"}.get(str(chart), "mark(s)")
    return (
        f"Drew a {chart} chart of {title} in your kernel ({count} {unit}, "
        f"{fmt(result.get('rows'))} rows{_filters(result)}); the figure is attached to the tool "
        "result above."
    )
