"""The question's words against the frame's columns (:mod:`.reading`'s helpers, pure).

The question's text with the spans already accounted for (:class:`_Text`), where it names a column,
the words of a column's name, its date columns, the column a comparison is about, numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .columns import samples_of
from .names import Column, Frame
from .reading_words import (
    _ADJECTIVE_OPS,
    _AGE_PARTS,
    _DURATION_PARTS,
    _GENERIC,
    _GENERIC_FRAME,
    _ISO_DATE,
    _PRICE_PARTS,
    _ROW_NOUNS,
    _UNITS,
)


def date_columns(frame: Frame) -> list[tuple[Column, bool]]:
    """The frame's date columns: ``(column, is text)`` for datetime columns and text columns whose
    shown values are ISO dates."""
    samples = samples_of(frame)
    out: list[tuple[Column, bool]] = []
    for column in frame.columns:
        if column.dtype.startswith("datetime64"):
            out.append((column, False))
        elif not column.numeric and not column.temporal:
            shown = [v for v in samples.get(column.name, []) if v != "NaN"]
            if shown and all(_ISO_DATE.match(v) for v in shown):
                out.append((column, True))
    return out


@dataclass
class _Text:
    """The question's text with the spans already accounted for."""

    text: str
    used: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.used = [False] * len(self.text)

    def free(self, start: int, end: int) -> bool:
        return not any(self.used[start:end])

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.used[i] = True

    def finditer(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        return [m for m in pattern.finditer(self.text) if self.free(m.start(), m.end())]

    def left(self) -> list[tuple[int, int, str]]:
        words = re.finditer(r"[$€£%]|[a-z0-9]+(?:['.][a-z0-9]+)*", self.text)
        return [(m.start(), m.end(), m.group()) for m in words if self.free(m.start(), m.end())]


def _parts(name: str) -> list[str]:
    """The words of a name: ``start_time``, ``StartTime`` and ``start time`` give the same."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [p for p in re.split(r"[\s_\-]+", spaced.lower()) if p]


def _name_pattern(words: list[str]) -> str:
    return r"[\s_\-]*".join(re.escape(w) for w in words) + r"(?:e?s)?"


def _column_mentions(text: _Text, frame: Frame) -> list[tuple[int, int, Column]]:
    """Where the question names a column: its whole name, or a part of it no other column has
    (``station`` for ``start_station``); longest first, never overlapping."""
    found: list[tuple[int, int, Column]] = []
    counts: dict[str, int] = {}
    for column in frame.columns:
        for part in set(_parts(column.name)):
            counts[part] = counts.get(part, 0) + 1
    reserved = {"min", "max", "sum", "mean", "total", "count", "avg", "id", "of", "per", "by"}
    for column in frame.columns:
        names = [_parts(column.name)]
        parts = _parts(column.name)
        names += [[p] for i, p in enumerate(parts) if counts[p] == 1 and len(p) >= 3
                  and p not in reserved and not p.isdigit() and len(parts) > 1
                  and not _is_frame_noun(p, frame)
                  and all(_unit_group(q) or q in _GENERIC for q in parts[i + 1 :])]  # fmt: skip
        for words in names:
            pattern = re.compile(rf"(?<![a-z0-9]){_name_pattern(words)}(?![a-z0-9])")
            found += [(m.start(), m.end(), column) for m in pattern.finditer(text.text)]
    found.sort(key=lambda f: (-(f[1] - f[0]), f[0]))
    out: list[tuple[int, int, Column]] = []
    for start, end, column in found:
        if all(end <= s or start >= e for s, e, _ in out):
            out.append((start, end, column))
    return sorted(out, key=lambda f: f[0])


def _unit_group(word: str) -> frozenset[str] | None:
    return next((g for g in _UNITS if word in g), None)


def _columns_with(frame: Frame, parts: frozenset[str]) -> list[Column]:
    return [c for c in frame.numeric if parts & set(_parts(c.name))]


def _per_row(text: str, frame: Frame) -> bool:
    """Whether the question says "per <row>" ("the fee per visit", "units per sale")."""
    return any(
        _is_frame_noun(m.group(1), frame) or m.group(1) in _ROW_NOUNS
        for m in re.finditer(r"\bper\s+([a-z]+)\b", text)
    )


def generic_frame(name: str) -> bool:
    """A frame name that is no noun for its rows (``df``, ``data``, ``table``)."""
    return bool(_GENERIC_FRAME.fullmatch(name.lower()))


def _is_key(column: Column) -> bool:
    """An identifier column (``trip_id``, ``StationCode``): grouped by, never summed."""
    return (
        _parts(column.name)[-1] in ("id", "code", "no", "nr", "key") or column.name.lower() == "id"
    )


def _num(text: str) -> int | float:
    number = float(text.replace(",", ""))
    return int(number) if number.is_integer() else number


def _is_frame_noun(word: str, frame: Frame) -> bool:
    """``trips``, ``trip`` for the frame ``trips``; ``order`` for ``orders``."""
    name = frame.name.lower()
    stems = {name, name.rstrip("s"), name[:-2] if name.endswith("es") else name}
    return word in stems or word.rstrip("s") in stems or (word.endswith("es") and word[:-2] in stems)  # fmt: skip


def _compare_column(
    frame: Frame, before: Column | None, unit: str | None, op: str
) -> Column | None:
    """The column a comparison is about: named before it, or the one its unit or its adjective
    (longer, cheaper) names; ``None`` when none or two disagree."""
    found: list[Column] = []
    if before is not None and before.numeric:
        found.append(before)
    if unit:
        group = _unit_group(unit)
        if group is not None:
            by_unit = _columns_with(frame, group)
            if not by_unit and "$" in group:
                by_unit = _columns_with(frame, _PRICE_PARTS)
            adjective = op in _ADJECTIVE_OPS
            if len(by_unit) > 1 and not found:
                return None
            if not by_unit and not found and not adjective:
                return None  # "$5" and no price column: nothing it can be
            if by_unit and found and found[0] not in by_unit:
                return None
            found += by_unit[:1]
        elif not found:
            return None
    if op in ("longer than", "shorter than"):
        durations = _columns_with(frame, _DURATION_PARTS)
        if len(durations) != 1 or (found and found[0] != durations[0]):
            return None
        found.append(durations[0])
    if op in ("older than", "younger than"):
        ages = _columns_with(frame, _AGE_PARTS)
        if len(ages) != 1 or (found and found[0] != ages[0]):
            return None
        found.append(ages[0])
    if op in ("cheaper than", "more expensive than"):
        prices = _columns_with(frame, _PRICE_PARTS)
        if len(prices) != 1 or (found and found[0] != prices[0]):
            return None
        found.append(prices[0])
    names = {c.name for c in found}
    return found[0] if len(names) == 1 else None
