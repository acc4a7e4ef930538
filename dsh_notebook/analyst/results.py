"""Reading a ``run_python`` result the way a person reads the cell's output (pure; no IO).

The tool result is text: ``value of the last expression:`` followed by the kernel's description
of the value (a number, or a Series/DataFrame as ``First N of M rows:`` and its ``to_string()``
table), then maybe ``error:`` with a traceback. These functions take the numbers back out of
that text; nothing else is trusted. A table that does not parse gives ``None``, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "unread_answer",
    "Listing",
    "error_line",
    "printed_text",
    "read_number",
    "read_printed",
    "read_series",
    "read_table",
    "value_text",
]

_VALUE: Final = "value of the last expression:\n"
_SECTION_END: Final = re.compile(r"\n\n(?:error:\n|\d+ figure\(s\) attached|displayed:\n)")
_ROWS: Final = re.compile(r"^First (\d+) of ([\d,]+) rows:$", re.M)
_NUMBER: Final = re.compile(
    r"^(?:np\.\w+\()?\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?|-?inf|nan)\s*\)?$", re.I
)


@dataclass(frozen=True)
class Listing:
    """Labelled numbers read from a Series (or one column of a table).

    Attributes:
        items: ``(label, number)`` in the order the value shows them.
        total: how many rows the value has (``items`` may hold only the first of them).
    """

    items: tuple[tuple[str, float], ...]
    total: int

    @property
    def cut(self) -> bool:
        """Whether the description showed only the first rows."""
        return self.total > len(self.items)


def value_text(result: str) -> str | None:
    """The description of the program's last value in a tool result, or ``None``."""
    start = result.find(_VALUE)
    if start < 0:
        return None
    text = result[start + len(_VALUE) :]
    end = _SECTION_END.search(text)
    return text[: end.start()] if end else text


_STDOUT: Final = "stdout:\n"
_AFTER_STDOUT: Final = re.compile(
    r"\n\n(?:stderr:\n|figure \d+ \(described|displayed:\n|value of the last expression:\n"
    r"|error:\n|\d+ figure\(s\) attached)"
)


def printed_text(result: str) -> str | None:
    """What the program printed (the ``stdout:`` section of a tool result), or ``None``."""
    if not result.startswith(_STDOUT) and "\n\n" + _STDOUT not in result:
        return None
    start = result.find(_STDOUT) + len(_STDOUT)
    text = result[start:]
    end = _AFTER_STDOUT.search(text)
    return text[: end.start()] if end else text


def read_printed(text: str) -> list[tuple[str, float]] | None:
    """A Series printed with ``to_string()`` as ``(label, number)`` rows: the index name's line
    (first) and a ``Freq:`` line are skipped; any other line that does not end in a number makes
    it ``None`` (never a guess)."""
    items: list[tuple[str, float]] = []
    lines = [line for line in text.strip("\n").splitlines() if line.strip()]
    for i, line in enumerate(lines):
        parts = line.rstrip().rsplit(None, 1)
        number = read_number(parts[1]) if len(parts) == 2 else None
        if number is not None:
            items.append((parts[0].strip(), number))
        elif (i == 0 and len(parts) == 1) or (line.startswith("Freq:") and i == len(lines) - 1):
            continue
        else:
            return None
    return items


def error_line(result: str) -> str | None:
    """The exception line of a traceback in ``result`` (``KeyError: 'Month'``), if any."""
    lines = [ln.strip() for ln in result.strip().splitlines() if ln.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b(?::|$)", line):
            return line
    return None


def read_number(text: str) -> float | None:
    """A scalar value (``np.float64(3.5)``, ``96``, ``nan``) as a float."""
    head = text.strip().splitlines()[0] if text.strip() else ""
    match = _NUMBER.match(head.strip())
    return float(match.group(1)) if match else None


def _rows(text: str) -> tuple[list[str], int] | None:
    match = _ROWS.search(text)
    if match is None:
        return None
    lines: list[str] = []
    for line in text[match.end() + 1 :].splitlines():
        if line.startswith(("Nulls:", "Null counts:", "Summary (", "Numeric summary")):
            break
        lines.append(line)
    return lines, int(match.group(2).replace(",", ""))


def read_series(text: str, index_name: str | None = None) -> Listing | None:
    """A Series description's rows as ``(label, number)``; the index-name line is skipped."""
    rows = _rows(text)
    if rows is None or not text.startswith("Series"):
        return None
    lines, total = rows
    items: list[tuple[str, float]] = []
    for line in lines:
        parts = line.rstrip().rsplit(None, 1)
        if len(parts) != 2:
            if index_name is not None and line.strip() == str(index_name):
                continue
            if not items and line.strip():
                continue  # the index name line
            return None
        number = read_number(parts[1])
        if number is None:
            return None
        items.append((parts[0].strip(), number))
    return Listing(tuple(items), total)


def read_table(text: str, columns: Sequence[str]) -> list[dict[str, str]] | None:
    """A DataFrame description's shown rows as ``{column: cell}`` (the index under ``""``), for
    the frame's ``columns`` in order. Cells are cut at each column's right edge (``to_string``
    right-aligns them), so a cell may hold spaces (not the index, nor the first column's); ``None``
    when the table does not line up."""
    rows = _rows(text)
    if rows is None or "DataFrame" not in text[:200]:
        return None
    lines, _total = rows
    if not lines:
        return None
    header, body = lines[0], lines[1:]
    ends: list[tuple[str, int]] = []
    at = 0
    for name in columns:
        found = header.find(str(name), at)
        if found < 0:
            return None
        at = found + len(str(name))
        ends.append((str(name), at))
    out: list[dict[str, str]] = []
    for line in body:
        if not line.strip():
            continue
        head = line[: ends[0][1]].split(None, 1)
        row = {"": head[0] if head else ""}
        row[ends[0][0]] = head[1].strip() if len(head) > 1 else ""
        start = ends[0][1]
        for name, end in ends[1:]:
            row[name] = line[start:end].strip()
            start = end
        if all(v == "" for k, v in row.items() if k):
            continue  # the index name line of a named index
        out.append(row)
    return out


def unread_answer(result: str) -> str:
    """What the analyst says when the code's output holds no answer it can read."""
    line = error_line(result)
    if line is not None:
        return f"The code did not produce an answer: {line}"
    first = result.strip().splitlines()
    return f"The code did not produce an answer I can read: {first[-1] if first else 'no output'}"
