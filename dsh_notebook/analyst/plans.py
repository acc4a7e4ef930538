"""The code the analyst sends to ``run_python``, and reading back what it printed (pure; no IO).

Every program is a small function that reads the person's variable, computes one answer with
pandas *inside the kernel* and prints it as one machine-readable line, :data:`RESULT_MARKER`
followed by JSON. The function is deleted again, so the notebook's namespace is left as it was
(plots leave a figure, nothing else). Names are inserted with :func:`repr` (columns) or checked
to be identifiers (variables), never pasted as code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

from .intents import Agg

__all__ = ["RESULT_MARKER", "Selection", "program", "read_results"]

#: The prefix of the one line each program prints: ``DSH-ANALYST {json}``.
RESULT_MARKER: Final = "DSH-ANALYST "


@dataclass(frozen=True)
class Selection:
    """What one computation is about: names that exist in the kernel.

    Attributes:
        frame: the DataFrame variable (an identifier).
        value: the numeric column; ``None`` for row counts.
        group: the column to group by; ``None`` for none (or ``wide`` frames: the columns).
        order: the column that orders rows in time (trend, line plots); ``None`` = row order.
        sort_order: sort by :attr:`order` (dates, numbers) instead of first appearance.
        filters: ``(column, value)`` pairs the rows must equal (from "week 8").
        words: lower-case words of the question; string columns whose value is one of them
            filter the rows too ("for the North region").
        string_columns: the columns those words are looked up in.
        wide: the frame's columns are the groups and its index the order (a pivot table).
        columns: the numeric columns a correlation is computed over.
    """

    frame: str
    value: str | None = None
    group: str | None = None
    order: str | None = None
    sort_order: bool = False
    filters: tuple[tuple[str, Any], ...] = ()
    words: tuple[str, ...] = ()
    string_columns: tuple[str, ...] = ()
    wide: bool = False
    columns: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.frame.isidentifier():
            raise ValueError(f"not a variable name: {self.frame!r}")


def _header(sel: Selection) -> list[str]:
    lines = [
        "def _dsh_analyst():",
        "    import json",
        f"    data = {sel.frame}",
        "    applied = []",
    ]
    for column, value in sel.filters:
        lines.append(f"    data = data[data[{column!r}] == {value!r}]")
        lines.append(f"    applied.append([{column!r}, {value!r}])")
    skip = {c for c, _ in sel.filters} | {sel.group}
    looked = [c for c in sel.string_columns if c not in skip]
    if sel.words and looked:
        lines += [
            f"    words = {sorted(set(sel.words))!r}",
            f"    for column in {looked!r}:",
            "        hits = [v for v in data[column].dropna().unique() if str(v).lower() in words]",
            "        if len(hits) == 1:",
            "            data = data[data[column] == hits[0]]",
            "            applied.append([column, hits[0]])",
        ]
    return lines


def _footer(result: str) -> list[str]:
    return [
        f"    result = {result}",
        "    result['filters'] = applied",
        "    result['rows'] = int(len(data))",
        f"    print({RESULT_MARKER!r} + json.dumps(result, default=str))",
        "",
        "_dsh_analyst()",
        "del _dsh_analyst",
    ]


def _aggregate(sel: Selection, agg: Agg) -> list[str]:
    if sel.value is None or agg == "count":
        expr = f"data.groupby({sel.group!r}).size()"
    else:
        expr = f"data.groupby({sel.group!r})[{sel.value!r}].{agg}()"
    return [
        f"    out = {expr}.sort_values(ascending=False)",
        *_footer("{'kind': 'aggregate', 'items': [[str(k), float(v)] for k, v in out.items()]}"),
    ]


def _rank(sel: Selection, largest: bool, n: int) -> list[str]:
    pick = "nlargest" if largest else "nsmallest"
    return [
        f"    top = data.{pick}({n}, {sel.value!r})",
        "    items = [{str(k): getattr(v, 'item', lambda: v)() for k, v in row.items()}",
        "             for row in top.to_dict('records')]",
        *_footer("{'kind': 'rank', 'items': items}"),
    ]


def _table_lines(sel: Selection) -> list[str]:
    """``table``: one column per group (or one for all rows), one row per order step."""
    if sel.wide:
        return ["    table = data.select_dtypes('number')"]
    group = "" if sel.group is None else f"columns={sel.group!r}, "
    if sel.order is not None:
        index = f"{sel.order!r}"
    elif sel.group is not None:  # no time column: the n-th row of each group is step n
        index = f"data.groupby({sel.group!r}).cumcount()"
    else:
        index = "data.index"
    value = sel.value
    lines = [
        f"    table = data.pivot_table(index={index}, {group}values={value!r}, "
        f"aggfunc='sum', sort={sel.sort_order!r})"
    ]
    if sel.group is None:
        lines.append(f"    table.columns = [{('all rows')!r}]")
    return lines


def _trend(sel: Selection) -> list[str]:
    return [
        "    import numpy as np",
        *_table_lines(sel),
        "    x = np.arange(len(table), dtype=float)",
        "    slopes = []",
        "    for column in table.columns:",
        "        y = table[column].to_numpy(dtype=float)",
        "        ok = ~np.isnan(y)",
        "        if ok.sum() >= 2:",
        "            # rounded: the last bits of a least-squares fit differ between machines",
        "            slope = round(float(np.polyfit(x[ok], y[ok], 1)[0]), 9)",
        "            slopes.append([str(column), slope, float(y[ok][0]), float(y[ok][-1])])",
        "    slopes.sort(key=lambda item: -item[1])",
        *_footer(
            "{'kind': 'trend', 'slopes': slopes, 'points': int(len(table)), "
            "'first': str(table.index[0]), 'last': str(table.index[-1])}"
        ),
    ]


def _duplicates() -> list[str]:
    return [
        "    dup = data.duplicated()",
        "    examples = [str(i) for i in data.index[dup][:5]]",
        *_footer("{'kind': 'duplicates', 'count': int(dup.sum()), 'examples': examples}"),
    ]


def _correlation(sel: Selection) -> list[str]:
    return [
        f"    corr = data[{list(sel.columns)!r}].corr()",
        "    pairs = []",
        "    for i, a in enumerate(corr.columns):",
        "        for b in corr.columns[i + 1:]:",
        "            pairs.append([str(a), str(b), float(corr.loc[a, b])])",
        "    pairs.sort(key=lambda p: -abs(p[2]) if p[2] == p[2] else 0)",
        *_footer("{'kind': 'correlation', 'pairs': pairs}"),
    ]


def _plot(sel: Selection) -> list[str]:
    label = sel.value or sel.frame
    if sel.wide or sel.order is not None:
        draw = [*_table_lines(sel), "    table.plot(ax=ax, marker='o')"]
        what = "line"
    elif sel.group is not None:
        draw = [f"    data.groupby({sel.group!r})[{sel.value!r}].sum().plot.bar(ax=ax)"]
        what = "bar"
    else:
        draw = [f"    data[{sel.value!r}].plot.hist(ax=ax, bins=20)"]
        what = "histogram"
    title = f"{label} per {sel.group}" if sel.group else label
    return [
        "    import matplotlib.pyplot as plt",
        "    fig, ax = plt.subplots(figsize=(7, 4))",
        *draw,
        f"    ax.set_title({title!r})",
        f"    ax.set_ylabel({label!r})",
        "    fig.tight_layout()",
        *_footer(
            f"{{'kind': 'plot', 'chart': {what!r}, 'lines': len(ax.get_lines()), "
            "'bars': len(ax.patches)}"
        ),
    ]


def program(
    kind: str, sel: Selection, *, agg: Agg = "sum", largest: bool = True, n: int = 5
) -> str:
    """The Python source for one question of ``kind`` about ``sel``.

    Raises:
        ValueError: ``kind`` has no program, or ``sel`` lacks a name that kind needs.
    """
    needs = {
        "aggregate": (sel.group,),
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
        body = _aggregate(sel, agg)
    elif kind == "rank":
        body = _rank(sel, largest, n)
    elif kind == "trend":
        body = _trend(sel)
    elif kind == "plot":
        body = _plot(sel)
    elif kind == "correlation":
        body = _correlation(sel)
    else:
        body = _duplicates()
    return "\n".join([*_header(sel), *body])


def read_results(text: str) -> list[dict[str, Any]]:
    """The JSON objects printed after :data:`RESULT_MARKER` in a tool result, in order.

    Lines that do not parse are skipped (the program printed something else).
    """
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        start = line.find(RESULT_MARKER)
        if start < 0:
            continue
        try:
            value = json.loads(line[start + len(RESULT_MARKER) :])
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out
