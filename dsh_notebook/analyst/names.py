"""What really exists in the kernel, read from the notebook tools' results, and matching the words
of a prompt against it (pure; no IO).

The analyst never guesses a name: a variable comes from the ``notebook_variables`` table, a
column and its dtype from the ``describe_variable`` text (the same describer ``{var}`` uses). A
word of the prompt matches a name case-insensitively, ignoring ``_``/``-``/spaces and a plural
``s`` ("regions" matches ``region``, "unit price" matches ``unit_price``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "Column",
    "Frame",
    "Variable",
    "described_shape",
    "mentioned",
    "parse_frame",
    "parse_variables",
    "words",
]

_WORD_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")
_SHAPE_RE: Final = re.compile(r"DataFrame: ([\d,]+) rows x ([\d,]+) columns")
_NUMERIC: Final = re.compile(r"^(u?int|float|Int|UInt|Float|complex)\d*$|^(int|float)$")
_TIME: Final = re.compile(r"^datetime64|^timedelta64|^period")
#: Column names that order rows in time (a trend runs over them).
ORDER_WORDS: Final = frozenset(
    {"date", "day", "week", "month", "year", "quarter", "qtr", "period", "time", "timestamp",
     "datetime", "hour", "minute", "season", "step", "t"}
)  # fmt: skip


@dataclass(frozen=True)
class Variable:
    """One row of the ``notebook_variables`` table."""

    name: str
    type: str
    shape: str
    preview: str = ""

    @property
    def is_frame(self) -> bool:
        return self.type == "DataFrame"


@dataclass(frozen=True)
class Column:
    """A column of a described DataFrame."""

    name: str
    dtype: str

    @property
    def numeric(self) -> bool:
        return bool(_NUMERIC.match(self.dtype)) and not self.dtype.startswith("bool")

    @property
    def temporal(self) -> bool:
        return bool(_TIME.match(self.dtype))

    @property
    def orders_rows(self) -> bool:
        """Whether the column is an order (a date, or a name like ``month``, ``week``)."""
        return self.temporal or _norm(self.name) in ORDER_WORDS


@dataclass(frozen=True)
class Frame:
    """A DataFrame as ``describe_variable`` reported it."""

    name: str
    rows: int
    columns: tuple[Column, ...]
    index: str
    nulls: tuple[tuple[str, int], ...]
    summary: str = ""
    """The describer's ``describe()`` table of the numeric columns, as text (may be empty)."""
    text: str = ""
    """The whole ``describe_variable`` text (its first rows show sample values)."""

    @property
    def index_name(self) -> str | None:
        """The index's name from the describer's ``Index: ... , name 'month'`` line."""
        _head, sep, name = self.index.rpartition(", name ")
        return _unquote(name) if sep else None

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def numeric(self) -> list[Column]:
        return [c for c in self.columns if c.numeric]

    @property
    def wide(self) -> bool:
        """All columns numeric and an index that is not a plain range: the columns are groups
        (e.g. a pivot: months down, regions across)."""
        return (
            bool(self.columns)
            and all(c.numeric for c in self.columns)
            and (not self.index.startswith("RangeIndex"))
        )


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.lower())


def words(text: str) -> list[str]:
    """The words and numbers of ``text``, in order."""
    return _WORD_RE.findall(text)


def mentioned(text: str, name: str) -> int:
    """Where ``name`` is mentioned in ``text`` (character offset), or ``-1``.

    Multi-word names match their words in sequence ("unit price" for ``unit_price``); a
    trailing plural ``s``/``es`` in the text is allowed.
    """
    parts = [p for p in re.split(r"[\s_\-]+", name.strip()) if p]
    if not parts:
        return -1
    pattern = r"[\s_\-]*".join(re.escape(p) for p in parts)
    match = re.search(rf"(?<![A-Za-z0-9]){pattern}(?:e?s)?(?![A-Za-z0-9])", text, re.IGNORECASE)
    return match.start() if match else -1


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text[1:-1]
        return str(value)
    return text


def parse_variables(result: str) -> list[Variable]:
    """The rows of a ``notebook_variables`` table (``name | type | shape/len | size | preview``)."""
    out: list[Variable] = []
    for line in result.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)]
        if len(cells) < 3 or cells[0] in ("name", "---") or not cells[0].isidentifier():
            continue
        out.append(Variable(cells[0], cells[1], cells[2], cells[4] if len(cells) > 4 else ""))
    return out


def described_shape(text: str) -> tuple[int, int] | None:
    """(rows, columns) of the first ``DataFrame: R rows x C columns`` line in ``text``."""
    match = _SHAPE_RE.search(text)
    if match is None:
        return None
    return int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))


def _section(lines: list[str], title: str) -> list[str]:
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == title)
    except StopIteration:
        return []
    body: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        body.append(line[2:])
    return body


def parse_frame(name: str, result: str) -> Frame | None:
    """The frame a ``describe_variable`` result describes, or ``None`` if it is no DataFrame."""
    shape = described_shape(result)
    if shape is None:
        return None
    lines = result.splitlines()
    columns: list[Column] = []
    for line in _section(lines, "Columns (dtype):"):
        head, sep, dtype = line.rpartition(": ")
        if sep and not head.startswith("…"):
            columns.append(Column(_unquote(head), dtype.strip()))
    nulls: list[tuple[str, int]] = []
    for line in _section(lines, "Null counts:"):
        head, sep, count = line.rpartition(": ")
        if sep and count.replace(",", "").isdigit():
            nulls.append((_unquote(head), int(count.replace(",", ""))))
    index = next((ln[len("Index: ") :] for ln in lines if ln.startswith("Index: ")), "")
    summary: list[str] = []
    if "Numeric summary (describe()):" in lines:
        for line in lines[lines.index("Numeric summary (describe()):") + 1 :]:
            if not line.strip():
                break
            summary.append(line)
    return Frame(name, shape[0], tuple(columns), index, tuple(nulls), "\n".join(summary), result)
