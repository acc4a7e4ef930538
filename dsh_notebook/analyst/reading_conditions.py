"""The question's conditions, read against the frame (:mod:`.reading`'s first half, pure).

:class:`ConditionReader` holds one question's text and frame, the columns it names and its date
columns, and reads what restricts the rows: comparisons on numbers, equality on numbers and on
the values a text column shows, dates (a month, a year, weekends) and the time grain. Each part
takes the words it uses; :class:`.reading._Reader` reads the rest (grouping, statistic, order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .columns import samples_of
from .names import Column, Frame
from .reading_text import (
    _column_mentions,
    _compare_column,
    _name_pattern,
    _num,
    _parts,
    _Text,
    _unit_group,
    date_columns,
)
from .reading_words import (
    _BETWEEN,
    _COMPARE,
    _GRAIN_RE,
    _GRAIN_WORDS,
    _GROUP_MARK,
    _JOINED,
    _MONTH_RE,
    _MONTHS,
    _OPS,
    _WEEKDAY_RE,
    _WEEKEND_RE,
    _YEAR_RE,
    Grain,
    Op,
)

__all__ = ["Condition", "ConditionReader"]


@dataclass(frozen=True)
class Condition:
    """One condition rows must meet: ``column op value`` (``high`` for ``between``; ``month``,
    ``year``, ``weekend``, ``weekday`` test the date column)."""

    column: str
    op: Op
    value: Any = None
    high: Any = None
    phrase: str = ""

    def text(self) -> str:
        """The condition as the answer states it: ``duration_min`` > 30."""
        col = f"`{self.column}`"
        if self.op == "between":
            return f"{col} between {self.value} and {self.high}"
        if self.op == "month":
            return f"{col} in {_MONTHS[int(self.value) - 1].title()}"
        if self.op == "year":
            return f"{col} in {self.value}"
        if self.op == "day":
            return f"{col} on a {self.value}"
        if self.op in ("weekend", "weekday"):
            return f"{col} on a {self.op}"
        value = f'"{self.value}"' if isinstance(self.value, str) else self.value
        return f"{col} {self.op} {value}"


class ConditionReader:
    """One question against one frame: the state every part reads, and the conditions."""

    def __init__(self, question: str, frame: Frame) -> None:
        text = question.lower().replace("\u2019", "'")
        self.t = _Text(re.sub(r"'s\b", "  ", text))  # "store's revenue": the store's
        self.frame = frame
        self.unread: list[str] = []
        self.mentions = _column_mentions(self.t, frame)
        self.named = list(self.mentions)
        self.dates = date_columns(frame)
        self.conditions: list[Condition] = []
        named = [c for c, _ in self.dates if any(m[2] == c for m in self.mentions)]
        only = self.dates[0][0] if len(self.dates) == 1 else None
        self.time: Column | None = named[0] if len(named) == 1 else only
        self.time_text = any(text for c, text in self.dates if c == self.time)
        self.grain: Grain | None = None
        self.grain_column: Column | None = None
        self.group: Column | None = None
        self.measure: Column | None = None

    # -- helpers ----------------------------------------------------------------------------

    def mention_before(self, start: int) -> Column | None:
        """A column named right before ``start`` ("a quantity of at least 5")."""
        before = [m for m in self.mentions if m[1] <= start]
        if not before:
            return None
        s, e, column = before[-1]
        joined = _JOINED.fullmatch(self.t.text[e:start])
        return column if joined and self.t.free(s, e) else None

    def mention_at(self, start: int) -> tuple[int, int, Column] | None:
        """A numeric column named right at ``start`` ("more than 10 units")."""
        for s, e, column in self.mentions:
            if column.numeric and re.fullmatch(r"\s+", self.t.text[start:s]) and self.t.free(s, e):
                return s, e, column
        return None

    def take_column(self, column: Column, near: int | None = None) -> None:
        for s, e, c in self.mentions:
            if c == column and self.t.free(s, e) and (near is None or abs(s - near) < 40):
                self.t.take(s, e)
                if near is not None:
                    return

    def need_time(self, phrase: str) -> Column | None:
        """The date column for a date phrase; without one the phrase is unread."""
        if self.time is None:
            self.unread.append(phrase.strip())
        return self.time

    # -- the parts --------------------------------------------------------------------------

    def comparisons(self) -> None:
        t = self.t
        for m in t.finditer(_BETWEEN):
            unit = m.group("unit") or m.group("unit1")
            unit = unit if unit and _unit_group(unit) else None
            end = m.end() if unit else m.end("hi")
            column = _compare_column(self.frame, self.mention_before(m.start()), unit, "")
            if column is None:
                self.unread.append(t.text[m.start() : end].strip())
            else:
                self.take_column(column, m.start())
                lo, hi = _num(m.group("lo")), _num(m.group("hi"))
                self.conditions.append(Condition(column.name, "between", lo, hi, m.group()))
            t.take(m.start(), end)
        for m in t.finditer(_COMPARE):
            unit = m.group("cur") or m.group("unit")
            unit = unit if unit and _unit_group(unit) else None  # else it is read on its own
            end = m.end() if unit and not m.group("cur") else m.end("num")
            op = m.group("op")
            after = self.mention_at(m.end("num"))
            if after is not None and unit is None:
                target: Column | None = after[2]
                end = after[1]
            else:
                target = _compare_column(self.frame, self.mention_before(m.start()), unit, op)
            if target is not None and "$" in (_unit_group(unit or "") or ()):
                for v in re.finditer(
                    r"\b(?:cost|costs|costing|priced|paid)\s*$", t.text[: m.start()]
                ):
                    t.take(v.start(), v.end())  # "cost more than $5": the verb of the price
            if target is None:
                self.unread.append(t.text[m.start() : end].strip())
            else:
                self.take_column(target, m.start())
                self.conditions.append(
                    Condition(target.name, _OPS[op], _num(m.group("num")), None, m.group())
                )
            t.take(m.start(), end)

    def number_equalities(self) -> None:
        """``week 8``, ``year 2024`` for numeric columns: the rows where it equals the number."""
        for s, e, column in self.mentions:
            after = re.match(r"\s+(-?\d+(?:\.\d+)?)\b", self.t.text[e:])
            if column.numeric and after and self.t.free(s, e + after.end()):
                number = _num(after.group(1))
                self.conditions.append(Condition(column.name, "==", number, None, ""))
                self.t.take(s, e + after.end())

    def date_conditions(self) -> None:
        t = self.t
        for m in t.finditer(_MONTH_RE):
            if m.group("month") == "may" and not re.match(r"\s*(?:in|during|for|of)\b", m.group()):
                continue  # "may" the verb
            column = self.need_time(m.group())
            if column is not None:
                month = [x[:3] for x in _MONTHS].index(m.group("month")[:3]) + 1
                self.conditions.append(Condition(column.name, "month", month, None, m.group()))
                if m.group("year"):
                    year = int(m.group("year"))
                    self.conditions.append(Condition(column.name, "year", year, None, ""))
            t.take(m.start(), m.end())
        for m in t.finditer(_YEAR_RE):
            column = self.need_time(m.group())
            if column is not None:
                year = int(m.group("year"))
                self.conditions.append(Condition(column.name, "year", year, None, m.group()))
            t.take(m.start(), m.end())
        for m in t.finditer(_WEEKDAY_RE):
            column = self.need_time(m.group())
            if column is not None:
                day = m.group("day").title()
                self.conditions.append(Condition(column.name, "day", day, None, m.group()))
            t.take(m.start(), m.end())
        for m in t.finditer(_WEEKEND_RE):
            if re.search(r"\b(?:per|by|each|every|which|what)\s*$", t.text[: m.start()]):
                continue  # "per weekday" is a grain
            column = self.need_time(m.group())
            if column is not None:
                op: Op = "weekend" if m.group("kind").startswith("weekend") else "weekday"
                self.conditions.append(Condition(column.name, op, None, None, m.group()))
            t.take(m.start(), m.end())

    def time_grain(self) -> None:
        t = self.t
        for m in t.finditer(_GRAIN_RE):
            word = m.group("unit") or m.group("adj")
            grain = _GRAIN_WORDS.get(word, _GRAIN_WORDS.get(word.rstrip("s")))
            at = m.start("unit") if m.group("unit") else m.start("adj")
            if grain is None or any(ms <= at < me for ms, me, _ in self.mentions):
                continue  # a column named "month" is grouped by as a column
            named = [c for c in self.frame.columns if _parts(c.name)[-1:] == [grain]]
            if self.time is None and len(named) == 1:
                self.grain_column = named[0]  # "monthly" with a `month` column of names
            elif self.grain is not None and self.grain != grain:
                self.unread.append(m.group().strip())
            elif self.need_time(m.group()) is not None:
                self.grain = grain
            # "the busiest month": the superlative is read with the others
            t.take(m.start("unit") if re.match(r"busiest|quietest", m.group()) else m.start(), m.end())  # fmt: skip

    def category_values(self) -> None:
        """Equality on a value a text column shows ("the North region", "members")."""
        t = self.t
        samples = samples_of(self.frame)
        date_names = {c.name for c, _ in self.dates}
        seen: dict[tuple[int, int], list[tuple[str, str]]] = {}
        for column in self.frame.columns:
            if column.numeric or column.temporal or column.name in date_names:
                continue
            for value in samples.get(column.name, []):
                if len(value) < 2 or value == "NaN":
                    continue
                pattern = re.compile(rf"(?<![a-z0-9]){_name_pattern(_parts(value))}(?![a-z0-9])")
                for m in t.finditer(pattern):
                    seen.setdefault((m.start(), m.end()), []).append((column.name, value))
        for (s, e), pairs in sorted(seen.items()):
            if not t.free(s, e) or self._is_column_here(s, e, pairs[0][1]):
                continue
            self.mentions = [m for m in self.mentions if not (m[0] < e and s < m[1])]
            if len({c for c, _ in pairs}) > 1:
                self.unread.append(t.text[s:e])
            else:
                name, value = pairs[0]
                self.conditions.append(Condition(name, "==", value, None, t.text[s:e]))
                for ms, me, c in self.mentions:  # "the North region", "region North"
                    if c.name == name and t.free(ms, me) and (0 <= ms - e <= 2 or 0 <= s - me <= 6):
                        t.take(ms, me)
            t.take(s, e)

    def _is_column_here(self, s: int, e: int, value: str) -> bool:
        """A word that is a value and a column's name reads as the column when it is the whole
        name, or a part of it after "per"/"which" written as the value is."""
        for ms, me, c in self.mentions:
            if not (ms < e and s < me) or (e - s) > (me - ms):
                continue  # "Store A" is a value even where `store` is a column
            said = self.t.text[ms:me]
            if _parts(c.name) in (_parts(said), _parts(said.rstrip("s"))):
                return True
            if _GROUP_MARK.search(self.t.text[:ms]) and self.t.text[s:e] == value.lower():
                return True
        return False
