"""The reading contract: a question about a DataFrame as an explicit reading (pure; no IO).

:func:`read` turns the person's question and the frame as described (:mod:`.names`) into a
:class:`Reading`: what is measured (a column, or the rows), how it is aggregated, the conditions
rows must meet, the grouping (a column, or a time grain of a date column), the order (the best
group and its runner-up), a trend or a plot. Every content word of the question must be accounted
for by one of those parts or be a word that carries nothing (:data:`_FILLER`); what is left is
:attr:`Reading.unread`, and a reading with an unread part is never computed (the analyst says what
it read and what it could not use). A wrong answer is worse than an honest decline, so a phrase
that could mean two things (a value shown in two columns, a comparison with no column it clearly
belongs to) is left unread, never guessed.

Only the values the describer's first rows show are known for a text column; a date column is a
``datetime64`` column or a text column whose shown values are ISO dates (``2025-03-14``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .intents import Agg
from .names import Frame
from .reading_conditions import Condition, ConditionReader
from .reading_text import (
    _columns_with,
    _is_frame_noun,
    _is_key,
    _parts,
    _per_row,
    _unit_group,
    date_columns,
    generic_frame,
)
from .reading_words import (
    _AGG_WORDS,
    _AGG_WORDS_RE,
    _AMOUNT_VERBS,
    _COUNTED,
    _DATE_OPS,
    _DURATION_PARTS,
    _FILLER,
    _FIRST,
    _GRAIN_WORDS,
    _GROUP_MARK,
    _HIGH,
    _LEAST,
    _LEGACY,
    _LONG,
    _LOW,
    _MOST,
    _OVER,
    _PLOT,
    _ROW_NOUNS,
    _TREND,
    Grain,
)

__all__ = ["Condition", "Grain", "Reading", "date_columns", "generic_frame", "read"]


@dataclass(frozen=True)
class Reading:
    """A question as read.

    Attributes:
        frame: the DataFrame variable.
        measure: the column aggregated; ``None`` counts rows.
        agg: the aggregation (``count`` for rows).
        conditions: all must hold (``and``).
        group: the column grouped by, or ``None``.
        grain: the time grain grouped by (of :attr:`time`), or ``None``.
        time: the date column the grain or a date condition uses.
        parse_time: :attr:`time` holds dates as text (parsed with ``pd.to_datetime``).
        best: ``max``/``min``: the question asks which group is largest/smallest.
        trend: the slope of the aggregate over :attr:`grain`, per :attr:`group`.
        plot: ``bar``/``line``: draw the aggregate.
        agg_named: the question named the aggregation (else it is the default for the measure).
        why: why an aggregation was chosen that the question did not name outright.
        unread: the phrases the reading could not use (nothing is computed then).
        legacy: a kind the older selection reads (share, distinct counts, top N rows, a trend or
            plot over an order column): the reading only checked the words are accounted for.
    """

    frame: str
    measure: str | None = None
    agg: Agg = "count"
    conditions: tuple[Condition, ...] = ()
    group: str | None = None
    grain: Grain | None = None
    time: str | None = None
    parse_time: bool = False
    best: Literal["max", "min"] | None = None
    trend: bool = False
    plot: Literal["bar", "line"] | None = None
    agg_named: bool = False
    why: str = ""
    unread: tuple[str, ...] = ()
    legacy: bool = False
    mentioned: tuple[str, ...] = ()
    """The columns the question names (a legacy computation may use only these)."""

    @property
    def by(self) -> str | None:
        """What the groups are named by: the column, or the grain's name."""
        return self.group if self.grain is None else self.grain

    def describe(self) -> str:
        """The reading in words: "the number of rows of `trips` where …, per month"."""
        if self.measure is None:
            what = f"the number of rows of `{self.frame}`"
        else:
            what = f"the {_AGG_WORDS[self.agg]} `{self.measure}`"
        if self.conditions:
            what += " where " + " and ".join(c.text() for c in self.conditions)
        per = []
        if self.grain is not None:
            per.append(f"per {self.grain} of `{self.time}`")
        if self.group is not None:
            per.append(f"per `{self.group}`")
        if self.trend:
            return f"the trend of {what}" + (" " + ", ".join(per) if per else "")
        if per:
            what += " " + ", ".join(per)
        if self.best is not None:
            what += ", the " + ("largest" if self.best == "max" else "smallest") + " first"
        return what


def read(question: str, frame: Frame) -> Reading:
    """The reading of ``question`` about ``frame`` (never raises; see the module docstring)."""
    return _Reader(question, frame).reading()


def measure_free(reader: _Reader, agg: Agg | None, rows: bool) -> bool:
    """Nothing measured and nothing counted: the question leaves the column open."""
    return reader.measure is None and agg is None and not rows


class _Reader(ConditionReader):
    """One question read against one frame, part by part; each part takes the words it uses."""

    def grouping(self) -> None:
        for s, e, column in self.mentions:
            if not self.t.free(s, e):
                continue
            mark = _GROUP_MARK.search(self.t.text[:s])
            if mark is None or (column.numeric and not _is_key(column) and not column.orders_rows):
                continue  # "per station_id" groups; "per quantity" is no grouping
            if self.group is not None and self.group != column:
                self.unread.append(self.t.text[mark.start() : e])
            else:
                self.group = column
            self.t.take(mark.start(), e)

    def aggregation(self) -> tuple[Agg | None, bool]:
        """The statistic named (or ``None``) and whether "number of" came with it."""
        agg: Agg | None = None
        counted = False
        for name, pattern in _AGG_WORDS_RE:
            for m in self.t.finditer(pattern):
                if agg == "count" and name in ("mean", "sum"):
                    agg, counted = name, True  # "the average number of deliveries"
                elif agg is not None and agg != name:
                    self.unread.append(m.group())
                else:
                    agg = name
                self.t.take(m.start(), m.end())
        return agg, counted

    def extreme(self) -> tuple[Literal["max", "min"] | None, bool]:
        """The superlative (direction) and whether it was an amount word (most, fewest)."""
        for m in _FIRST.finditer(self.t.text):
            self.t.take(m.start(1), m.end(1))  # "highest first": the order of the groups
        direction: Literal["max", "min"] | None = None
        amount = False
        for pattern, way, is_amount in (
            (_MOST, "max", True), (_LEAST, "min", True), (_HIGH, "max", False),
            (_LOW, "min", False),
        ):  # fmt: skip
            for m in self.t.finditer(pattern):
                if direction is not None and direction != way:
                    self.unread.append(m.group())
                direction = way  # type: ignore[assignment]
                amount = amount or is_amount
                self.t.take(m.start(), m.end())
        return direction, amount

    def measured(self, long_word: bool) -> None:
        measures = {c.name: c for s, e, c in self.mentions
                    if self.t.free(s, e) and c.numeric and not c.orders_rows}  # fmt: skip
        if len(measures) > 1:
            self.unread.append(" and ".join(sorted(measures)))
        elif measures and _is_key(next(iter(measures.values()))):
            key = next(iter(measures.values()))
            self.unread.append(f"{key.name} (an identifier: a sum or count of it means nothing)")
        elif measures:
            self.measure = next(iter(measures.values()))
            self.take_column(self.measure)
        elif long_word:
            durations = _columns_with(self.frame, _DURATION_PARTS)
            if len(durations) == 1:
                self.measure = durations[0]
            else:
                self.unread.append("longest or shortest of what")
        if self.measure is not None:  # "in minutes": the measure's own unit
            units = set().union(*(_unit_group(p) or set() for p in _parts(self.measure.name)))
            for m in re.finditer(r"[a-z$€£]+", self.t.text):
                if m.group() in units and self.t.free(m.start(), m.end()):
                    self.t.take(m.start(), m.end())

    def rows_named(self) -> bool:
        """Take the words naming the rows ("trips", "an order", "records")."""
        named = False
        for m in re.finditer(r"[a-z0-9_]+", self.t.text):
            word = m.group()
            if self.t.free(m.start(), m.end()) and (
                _is_frame_noun(word, self.frame) or word in _ROW_NOUNS
            ):
                self.t.take(m.start(), m.end())
                named = True
        if generic_frame(self.frame.name):
            # `df`: the rows are whatever the question counts ("how many trips"), one noun only
            counted = set()
            for m in _COUNTED.finditer(self.t.text):  # the first free word after it
                for w in re.finditer(r"[a-z]+", self.t.text[m.end() :]):
                    at = m.end() + w.start()
                    if self.t.free(at, at + len(w.group())):
                        counted.add(w.group().rstrip("s"))
                        break
            if len(counted) == 1:
                noun = counted.pop()
                for m in re.finditer(rf"\b{re.escape(noun)}s?\b", self.t.text):
                    if self.t.free(m.start(), m.end()):
                        self.t.take(m.start(), m.end())
                        named = True
        return named

    def conflicts(self) -> None:
        """Two values one column cannot both have ("coffee and tea", "January and March",
        weekends and weekdays) mean either one: that is not a condition rows can meet."""
        kinds: dict[tuple[str, str], dict[str, Condition]] = {}
        for c in self.conditions:
            kind = "weekpart" if c.op in ("weekend", "weekday") else c.op
            if kind in ("==", "month", "year", "day", "weekpart"):
                kinds.setdefault((c.column, kind), {})[c.text()] = c
        for (column, _kind), said in kinds.items():
            if len(said) > 1:
                both = " and ".join(sorted(said))
                self.unread.append(f"{both} together (`{column}` has one value per row)")

    # -- the whole --------------------------------------------------------------------------

    def reading(self) -> Reading:
        t = self.t
        self.comparisons()
        self.date_conditions()
        self.time_grain()
        self.category_values()
        self.number_equalities()
        trend = bool(t.finditer(_TREND))
        for m in t.finditer(_TREND):
            t.take(m.start(), m.end())
        plot: str | None = None
        for m in t.finditer(_PLOT):
            plot = m.group("kind") or m.group("kind2") or plot or "auto"
            t.take(m.start(), m.end())
        legacy = bool(_LEGACY.search(t.text))
        for m in t.finditer(_LEGACY):
            t.take(m.start(), m.end())
        self.grouping()
        if self.grain_column is not None and (trend or plot):
            legacy = True  # a trend or line over the `month` column: the older selection
        elif self.grain_column is not None and self.group in (None, self.grain_column):
            self.group = self.grain_column
        elif self.grain_column is not None:
            self.unread.append(f"per {self.grain_column.name} and per {self.group} together")
        agg, counted = self.aggregation()
        agg_named = agg is not None
        for m in t.finditer(re.compile(r"\bwhich\b")):
            t.take(m.start(), m.end())
        long_word = any(t.free(m.start(), m.end()) for m in _LONG.finditer(t.text))
        direction, amount = self.extreme()
        self.measured(long_word)
        rows = self.rows_named()
        if agg in (None, "count") and self.measure is not None and _per_row(t.text, self.frame):
            agg, why_mean = "mean", True  # "the fee per visit": the mean over the rows
        else:
            why_mean = False
        rows = rows or bool(re.search(r"\bbusiest\b|\bquietest\b", t.text))
        if trend or plot:
            for m in t.finditer(_OVER):
                t.take(m.start(), m.end())
            order = [(s, e) for s, e, c in self.mentions if t.free(s, e) and c.orders_rows]
            for s, e in order[:1]:  # "over week": a line over an order column (older selection)
                over = re.search(r"\bover\s+(?:the\s+)?$", t.text[:s])
                legacy = legacy or (over is not None and self.grain is None)
                t.take(over.start() if over else s, e)
        if legacy:  # the older selection reads the columns itself ("distinct drivers")
            for s, e, _c in self.mentions:
                if t.free(s, e):
                    t.take(s, e)
        if self.time is not None and any(c.column == self.time.name for c in self.conditions):
            self.take_column(self.time)
        if self.grain is not None and self.time is not None:
            self.take_column(self.time)
        self.conflicts()
        asks_measure = amount and measure_free(self, agg, rows)
        self.unread += [w for _s, _e, w in t.left()
                        if w not in _FILLER and not (asks_measure and w in _AMOUNT_VERBS)]  # fmt: skip
        # what the question did not say outright
        measure, group, grain = self.measure, self.group, self.grain
        why = 'I read "per" one of the rows as the mean' if why_mean else ""
        best: Literal["max", "min"] | None = None
        if direction is not None and (group is not None or grain is not None):
            best = None if trend else direction
            if agg is None and measure is None:
                agg = "count" if rows or not amount else None
                legacy = legacy or agg is None  # "which ward had the most?": which column?
            elif agg is None and measure is not None:
                agg = "sum" if amount else direction
                if amount:
                    why = f'I read "most" of `{measure.name}` as its total'
        elif direction is not None:
            if agg not in (None, "count") or (measure is None and not legacy):
                self.unread.append(("highest" if direction == "max" else "lowest") + " of what")
            elif measure is not None:
                agg = direction
        if agg is None:
            agg = "count" if measure is None else "sum"
            if measure is not None and not legacy:
                why = "you named no statistic, so I took the total"
        if agg == "count" and measure is not None:
            agg = "sum"
            why = (
                f'`{measure.name}` holds numbers, so I read "number of {measure.name}" as their sum'
            )
        if agg == "sum" and counted and measure is None:
            agg = "count"  # "the total number of records"
        if agg != "count" and measure is None:
            legacy = True  # "what are the totals?": the older selection asks which column
        stepped = self.time is not None and _parts(self.time.name)[-1] in _GRAIN_WORDS
        if trend and grain is None and self.time is not None and not stepped:
            self.unread.append("the trend's time step (say per day, week, month or year)")
        elif trend and grain is None:
            legacy = True  # a trend over an order column, as the older selection reads it
        if trend and grain == "weekday":
            self.unread.append("a trend over weekdays")
        if plot is not None and grain is None and group is None:
            legacy = True
        if grain is not None and group is not None and not trend:
            self.unread.append(f"per {group.name} and per {grain} together")
        if legacy and (grain is not None or any(c.op != "==" for c in self.conditions)):
            self.unread.append("a share, distinct count, top rows or trend over rows with these conditions")  # fmt: skip
        chart: Literal["bar", "line"] | None = None
        if plot is not None:
            chart = "bar" if plot == "bar" else "line" if plot == "line" else (
                "line" if grain not in (None, "weekday") else "bar")  # fmt: skip
        if self.frame.wide and (trend or plot):
            # a pivot (its columns are the groups, its index the time steps): the older
            # selection reads it whole, as it always did
            legacy = True
            self.unread.clear()
        uses_time = grain is not None or any(c.op in _DATE_OPS for c in self.conditions)
        return Reading(
            frame=self.frame.name,
            measure=measure.name if measure else None,
            agg=agg,
            conditions=tuple(self.conditions),
            group=group.name if group else None,
            grain=grain,
            time=self.time.name if self.time is not None and uses_time else None,
            parse_time=self.time_text and uses_time,
            best=best,
            trend=trend,
            plot=chart,
            agg_named=agg_named,
            why=why,
            unread=tuple(dict.fromkeys(self.unread)),
            legacy=legacy,
            mentioned=tuple(dict.fromkeys(c.name for _s, _e, c in self.named)),
        )
