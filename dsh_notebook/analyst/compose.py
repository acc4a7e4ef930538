"""The analyst's answers, composed only from what the tools returned in this run (pure; no IO).

Every number in an answer is taken from a parsed tool result (the JSON line a program printed,
the ``describe_variable`` text, the ``notebook_variables`` table, a script's printed output);
nothing is remembered or made up. Names are shown in backticks; all text is plain markdown, which
the transcript renders sanitized.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..notebook_tools.refusals import (
    CANCELLED_MESSAGE,
    CONNECTION_LOST_MESSAGE,
    NO_APPROVER_MESSAGE,
    NO_RUN_MESSAGE,
    UNMATCHED_MESSAGE,
)
from .names import Frame, Variable

__all__ = [
    "HELP",
    "REFUSED",
    "REJECTED",
    "aggregate_answer",
    "cant",
    "code_answer",
    "reading",
    "reading_declined",
    "reading_groups",
    "reading_value",
    "refused",
    "strength",
    "correlation_answer",
    "describe_answer",
    "duplicates_answer",
    "filters_text",
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

#: What it says for each other refusal (``notebook_tools.refusals``): who did not decide, said so.
REFUSED: Final = {
    NO_APPROVER_MESSAGE: (
        "Nobody can approve code in this run (it runs unattended, or with --on-approval "
        "reject), so nothing ran and your notebook is unchanged; run the code yourself if you "
        "want the answer."
    ),
    CANCELLED_MESSAGE: (
        "The approval was cancelled or expired before anyone decided; nothing ran, and your "
        "notebook is unchanged."
    ),
    CONNECTION_LOST_MESSAGE: (
        "The connection to the notebook was lost before the code was approved; nothing ran."
    ),
    UNMATCHED_MESSAGE: (
        "dsh could not tell which run made my call, so nobody was asked and nothing ran; ask again."
    ),
    NO_RUN_MESSAGE: "My call came after this run had ended, so nothing ran; ask again.",
}


def refused(result: str) -> str | None:
    """The analyst's sentence for a tool result that refused its code, worded by the refusal's
    kind (only the person's own rejection says "you rejected"); ``None``: not a refusal."""
    for message, answer in REFUSED.items():
        if message.split(",", 1)[0] in result:
            return answer
    return REJECTED if "reject" in result.lower() else None


_AGG_WORDS: Final = {
    "sum": "total",
    "mean": "mean",
    "median": "median",
    "count": "number of rows",
    "max": "maximum",
    "min": "minimum",
    "nunique": "number of distinct",
    "std": "standard deviation of",
    "share": "share",
}


def fmt(value: Any) -> str:
    """A number as the answers show it: integers with thousands separators, else 2 decimals
    (3 significant digits below 0.01, so a small value never reads as 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if float(value).is_integer():
        return f"{int(value):,}"
    if 0 < abs(value) < 0.01:
        return f"{value:.3g}"
    return f"{value:,.2f}"


def filters_text(pairs: Sequence[tuple[str, Any]]) -> str:
    """`` (rows where `week` = 5)`` for the rows a computation kept, or ``""``."""
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
    if frame.summary:
        lines += ["", "Statistics of the numeric columns (`describe()`):", "", "```",
                  frame.summary, "```"]  # fmt: skip
    return "\n".join(lines)


def missing_answer(frame: Frame) -> str:
    missing = [(c, n) for c, n in frame.nulls if n]
    if not missing:
        return f"`{frame.name}` has no missing values ({fmt(frame.rows)} rows)."
    parts = ", ".join(f"`{c}` {fmt(n)}" for c, n in missing)
    return f"Missing values in `{frame.name}` ({fmt(frame.rows)} rows): {parts}."


_VERBS: Final = {
    "sum": "summed", "mean": "averaged", "median": "took the median of",
    "max": "took the maximum of", "min": "took the minimum of", "std": "took the standard "
    "deviation of", "nunique": "counted the distinct values of",
}  # fmt: skip


def reading(*, agg: str, value: str | None, group: str | None, why: str = "") -> str:
    """The first sentence of a computed answer: which reading of the question was computed."""
    per = f" per `{group}`" if group else ""
    if agg == "count" or (value is None and agg != "share"):
        what = f"I counted the rows{per}"
    elif agg == "share":
        base = "the rows" if value is None else f"the total `{value}`"
        what = f"I took each `{group}`'s share of {base}, in percent"
    else:
        what = f"I {_VERBS.get(agg, agg)} `{value}`{per}"
    return what + (f" ({why})." if why else ".")


def reading_declined(read: str, unread: Sequence[str]) -> str:
    """The honest decline of a question with a part the analyst could not read: what it read,
    what it could not use, and that it computed nothing."""
    parts = ", ".join(f"'{u}'" for u in unread)
    return (
        f"I read {read}, but I could not use {parts}, so I computed nothing (a different "
        "question's number would be worse than none). Name the column or value as it appears "
        "in the data and ask again."
    )


def reading_value(value: float, *, read: str, why: str = "", unit: str = "") -> str:
    """One computed number, after the reading it answers."""
    because = f" ({why})" if why else ""
    return f"I read {read}{because}: **{fmt(value)}{unit}**."


def reading_groups(
    items: Sequence[tuple[str, float]], *, read: str, by: str, label: str,
    best: str | None = None, time_order: bool = False, why: str = "", drew: str = "",
) -> str:  # fmt: skip
    """A value per group after the reading; ``best`` ("max"/"min"): the winner and the
    runner-up open the answer."""
    because = f" ({why})" if why else ""
    head = f"I read {read}{because}."
    if drew:
        head += f" {drew}"
    if not items:
        return f"{head} No rows matched, so there is nothing per {by}."
    if best is not None:
        ranked = sorted(items, key=lambda item: item[1], reverse=best == "max")
        word = "largest" if best == "max" else "smallest"
        tied = [name for name, value in ranked if value == ranked[0][1]]
        if len(tied) > 1:  # a tie is said, never broken by the order of the rows
            names = ", ".join(f"**{name}**" for name in tied)
            head += f" The {word} is shared by {names}, each with {fmt(ranked[0][1])}."
        else:
            head += f" The {word} is **{ranked[0][0]}** with {fmt(ranked[0][1])}."
        rest = [item for item in ranked if item[1] != ranked[0][1]]
        if rest:
            head += f" Next: **{rest[0][0]}** with {fmt(rest[0][1])}."
    order = ", in time order" if time_order else ""
    lines = [head, "", f"{label[:1].upper() + label[1:]} per {by}{order}:", ""]
    lines += [f"- {name}: {fmt(number)}" for name, number in items]
    return "\n".join(lines)


def aggregate_answer(
    items: Sequence[tuple[str, float]], *, group: str | None, value: str | None, agg: str,
    largest: bool, n: int | None, time_order: bool, lead: str, shown_of: int | None = None,
    filters: str = "", ranks: bool = False,
) -> str:  # fmt: skip
    """A per-group (or single) statistic: the reading, the headline, then every group."""
    unit = "%" if agg == "share" else ""
    what = _AGG_WORDS.get(agg, agg) + ("" if agg == "count" or value is None else f" `{value}`")
    if agg == "share":
        what = "share" + (f" of `{value}`" if value else " of the rows")
    if not items:
        return f"{lead} No rows to group{filters}, so there is no {what} per `{group}`."
    if group is None:
        return f"{lead} The {what}{filters} is **{fmt(items[0][1])}{unit}**."
    best = (max if largest else min)(items, key=lambda item: item[1])
    pick = "largest" if largest else "smallest"
    cut = shown_of is not None and shown_of > len(items)
    if cut and time_order:  # the largest may be among the rows the result did not show
        headline = f"{lead} The result has {shown_of} rows{filters}; the cell shows them all."
    else:
        headline = f"{lead} The {pick} is **{best[0]}** with {fmt(best[1])}{unit}{filters}."
        rest = sorted((i for i in items if i is not best), key=lambda i: i[1], reverse=largest)
        if rest and ranks:  # "which region sold most?": the runner-up too
            headline += f" Next: **{rest[0][0]}** with {fmt(rest[0][1])}{unit}."
    lines = [headline, ""]
    if time_order:
        heading = f"{what.capitalize()} per `{group}`, in time order"
    else:
        heading = f"{what.capitalize()} per `{group}` ({pick} first)"
    if shown_of is not None and shown_of > len(items):
        heading += f"; the first {len(items)} of {shown_of} are shown"
    lines += [heading + ":", ""]
    shown = list(items) if n is None or time_order else list(items)[: max(n, 1)]
    lines += [f"- {label}: {fmt(number)}{unit}" for label, number in shown]
    return "\n".join(lines)


def rank_answer(
    rows: Sequence[Mapping[str, str]], *, value: str, largest: bool, labels: Sequence[str],
    filters: str = "",
) -> str:  # fmt: skip
    if not rows:
        return f"No rows matched{filters}, so there is nothing to rank by `{value}`."
    word = "largest" if largest else "smallest"
    lines = [f"The {len(rows)} rows with the {word} `{value}`{filters}:", ""]
    for row in rows:
        shown = ", ".join(f"{c} {row[c]}" for c in labels if row.get(c) and c != value)
        lines.append(f"- {_number_text(row.get(value, ''))}" + (f" ({shown})" if shown else ""))
    return "\n".join(lines)


def _number_text(cell: str) -> str:
    try:
        return fmt(float(cell))
    except ValueError:
        return cell


def trend_answer(
    slopes: Sequence[tuple[str, float]], *, value: str | None, unit: str, points: str = "",
    filters: str = "", shrinking_asked: bool = False,
) -> str:  # fmt: skip
    """Slopes per group in units of the time column; growth and decline named per group."""
    if not slopes:
        return "There are too few points to fit a trend (at least two per group are needed)."
    of = f" in `{value}`" if value else ""
    lines = [
        f"The change{of} {unit}, as a least-squares trend line{points}{filters}:",
        "",
    ]
    for name, slope in slopes:
        word = "growing" if slope > 0 else "declining" if slope < 0 else "flat"
        lines.append(f"- **{name}**: {word}, {_signed(slope)} {unit}")
    rising = [s for s in slopes if s[1] > 0]
    falling = [s for s in slopes if s[1] < 0]
    lines.append("")
    if len(slopes) > 1 and rising:
        top = max(rising, key=lambda s: s[1])
        lines.append(f"**{top[0]}** grows fastest ({_signed(top[1])} {unit}).")
    if falling:
        names = ", ".join(f"**{s[0]}** ({_signed(s[1])} {unit})" for s in falling)
        lines.append(f"Declining: {names}.")
    elif shrinking_asked or len(slopes) > 1:
        lines.append("None is declining.")
    return "\n".join(lines)


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + fmt(value)


def duplicates_answer(count: float, *, frame: str, rows: int) -> str:
    if not count:
        return f"`{frame}` has no duplicated rows ({fmt(rows)} rows checked)."
    return (
        f"`{frame}` has {fmt(count)} duplicated row(s) out of {fmt(rows)} (rows equal to an "
        "earlier row in every column)."
    )


def strength(r: float) -> str:
    """A strength word for a correlation coefficient (Evans' bands for ``|r|``)."""
    size = abs(r)
    if size < 0.2:
        return "no meaningful"
    return "a weak" if size < 0.4 else "a moderate" if size < 0.6 else "a strong"


_CAVEAT: Final = (
    "(r measures only a straight-line relationship, and a correlation alone does not show "
    "that one causes the other.)"
)


def correlation_answer(pairs: Sequence[tuple[str, str, float]], *, frame: str) -> str:
    pairs = [p for p in pairs if p[2] == p[2]]
    if not pairs:
        return f"`{frame}` has too few numeric columns (or values) to correlate."
    ranked = sorted(pairs, key=lambda p: -abs(p[2]))
    a, b, r = ranked[0]
    direction = "" if abs(r) < 0.2 else (" positive" if r > 0 else " negative")
    word = strength(r)
    head = (
        f"`{a}` and `{b}` have {word}{direction} correlation: r = {r:.2f}."
        if len(pairs) == 1
        else f"The strongest pair in `{frame}` is `{a}` ~ `{b}`, with {word}{direction} "
        f"correlation: r = {r:.2f}."
    )
    lines = [head, ""]
    if len(pairs) > 1:
        lines += [f"- `{x}` ~ `{y}`: r = {c:.2f} ({strength(c)})" for x, y, c in ranked]
        lines.append("")
    lines.append(_CAVEAT)
    return "\n".join(lines)


def plot_answer(
    chart: str, *, title: str, items: Sequence[tuple[str, float]] = (), filters: str = ""
) -> str:
    lines = [f"Drew a {chart} chart of {title} in your kernel{filters}; the figure is shown "
             "under the `run_python` call above."]  # fmt: skip
    if items:
        lines += ["", "The plotted values:", ""]
        lines += [f"- {label}: {fmt(number)}" for label, number in items]
    return "\n".join(lines)


def code_answer(code: str, *, what: str) -> str:
    """Code asked for, not run: a fenced Python block (Insert below puts it into a cell)."""
    return (
        f"Here is the pandas code for {what} (not run; insert it below and run it yourself):"
        f"\n\n```python\n{code}\n```"
    )


def cant(word: str) -> str:
    """One honest line for a statistic or task the analyst does not do."""
    return (
        f"I can't do that ({word!r}) without a language model: the demo analyst computes sums, "
        "means, medians, minimums, maximums, counts, distinct counts, shares, trends and "
        "correlations; set `DEEPSEEK_API_KEY` (then restart the kernel) to ask DeepSeek."
    )
