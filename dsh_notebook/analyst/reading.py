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
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .columns import samples_of
from .intents import Agg
from .names import Column, Frame

__all__ = ["Condition", "Grain", "Reading", "date_columns", "generic_frame", "read"]

Grain = Literal["day", "week", "month", "quarter", "year", "weekday"]
Op = Literal["==", ">", ">=", "<", "<=", "between", "month", "year", "day", "weekend", "weekday"]

_MONTHS: Final = ("january", "february", "march", "april", "may", "june", "july", "august",
                  "september", "october", "november", "december")  # fmt: skip
_ISO_DATE: Final = re.compile(r"^\d{4}[-/]\d{2}[-/]\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")


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


_AGG_WORDS: Final[dict[str, str]] = {
    "sum": "total", "mean": "mean", "median": "median", "max": "maximum", "min": "minimum",
    "count": "number of", "std": "standard deviation of", "nunique": "number of distinct",
    "share": "share of",
}  # fmt: skip

#: Words that carry nothing a computation needs.
_FILLER: Final = frozenset(
    [
        "a", "an", "the", "of", "in", "on", "for", "to", "from", "with", "by", "at", "is", "are",
        "was", "were", "be", "been", "being", "do", "does", "did", "done", "we", "i", "you", "me",
        "us", "my", "our", "your", "it", "its", "this", "that", "these", "those", "there", "here",
        "what", "which", "who", "how", "show", "give", "tell", "list", "find", "get", "compute",
        "calculate", "please", "can", "could", "would", "will", "should", "have", "has", "had",
        "and", "all", "overall", "altogether", "whole", "entire", "data", "dataset", "frame",
        "dataframe", "table", "value", "values", "number", "numbers", "amount", "figure", "figures",
        "so", "far", "ever", "just", "about", "each", "every", "per", "took", "take", "taken",
        "make", "made", "happen", "happened", "happens", "occur", "occurred", "placed", "ordered",
        "record", "recorded", "look", "let", "know", "see", "want", "like", "as", "much", "many",
        "whats", "what's", "one", "where", "there's", "it's", "during", "covered", "lasted", "any",
        "anything", "column", "columns", "field", "$", "€", "£",
    ]
)  # fmt: skip
#: Nouns that name the rows themselves (beside the frame's own name).
_ROW_NOUNS: Final = frozenset(
    ["rows", "row", "records", "record", "entries", "entry", "observations", "items"]
)

_AGG_WORDS_RE: Final[tuple[tuple[Agg | Literal["max", "min"], re.Pattern[str]], ...]] = (
    ("count", re.compile(r"\bhow many\b|\bnumber of\b|\bcount(?:s| of)?\b|\bamount of\b")),
    ("sum", re.compile(r"\btotals?\b|\bsum(?:med)?\b|\bin total\b|\baltogether\b")),
    ("mean", re.compile(r"\baverages?\b|\bmeans?\b|\bavg\b|\bon average\b")),
    ("median", re.compile(r"\bmedian\b|\btypical(?:ly)?\b")),
    ("std", re.compile(r"\bstandard deviation\b|\bstd\b|\bstdev\b")),
)
_MOST: Final = re.compile(r"\bmost\b|\bbusiest\b|\bmost popular\b")
_LEAST: Final = re.compile(r"\bleast\b|\bfewest\b|\bquietest\b|\bleast popular\b")
_HIGH: Final = re.compile(r"\bhighest\b|\blargest\b|\bbiggest\b|\bgreatest\b|\bmaximum\b|\bmax\b|\blongest\b|\btop\b")  # fmt: skip
_LOW: Final = re.compile(r"\blowest\b|\bsmallest\b|\bminimum\b|\bmin\b|\bshortest\b|\bbottom\b")
#: Superlatives that also name the measure: a duration (long/short).
_LONG: Final = re.compile(r"\blongest\b|\bshortest\b|\blonger\b|\bshorter\b")
_DURATION_PARTS: Final = frozenset(["duration", "durations", "length", "minutes", "minute", "min", "mins", "hours", "hour", "hrs", "secs", "seconds", "sec", "time"])  # fmt: skip
_PRICE_PARTS: Final = frozenset(
    ["price", "prices", "cost", "costs", "fare", "fares", "amount", "fee", "fees", "revenue",
     "charge", "charges", "paid", "spend", "spent", "usd", "eur", "dollars", "euros"]
)  # fmt: skip
#: Name parts after the word that names a column ("member" of ``member_type``): a part followed
#: only by these (or by units) names the column; ``patient`` does not name ``patient_age``.
_GENERIC: Final = frozenset(["id", "type", "name", "code", "kind", "class", "no", "nr"])
#: Comparisons whose adjective names the column's kind: (words of a column name).
_AGE_PARTS: Final = frozenset(["age", "ages"])
_WEEKDAY_RE: Final = re.compile(
    r"\b(?:on\s+)?(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
)
_UNITS: Final[tuple[frozenset[str], ...]] = (
    frozenset(["min", "mins", "minute", "minutes"]),
    frozenset(["h", "hr", "hrs", "hour", "hours"]),
    frozenset(["s", "sec", "secs", "second", "seconds"]),
    frozenset(["km", "kms", "kilometer", "kilometers", "kilometre", "kilometres"]),
    frozenset(["mi", "mile", "miles"]),
    frozenset(["m", "meter", "meters", "metre", "metres"]),
    frozenset(["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"]),
    frozenset(["$", "usd", "dollar", "dollars", "eur", "euro", "euros", "€", "£"]),
)
_COMPARE: Final = re.compile(
    r"(?P<op>more than|greater than|larger than|bigger than|higher than|longer than|over|above"
    r"|exceeding|at least|no less than|less than|fewer than|smaller than|lower than|shorter than"
    r"|cheaper than|more expensive than|older than|younger than|under|below|at most|no more than)\s+"
    r"(?P<cur>[$€£])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s*(?P<unit>%|[a-z]+|[$€£]))?"
)
_BETWEEN: Final = re.compile(
    r"between\s+[$€£]?(?P<lo>\d+(?:\.\d+)?)\s*(?:(?P<unit1>[a-z]+)\s+)?and\s+[$€£]?"
    r"(?P<hi>\d+(?:\.\d+)?)(?:\s*(?P<unit>[a-z]+))?"
)
_OPS: Final[dict[str, Op]] = {
    "more than": ">", "greater than": ">", "larger than": ">", "bigger than": ">",
    "higher than": ">", "longer than": ">", "over": ">", "above": ">", "exceeding": ">",
    "more expensive than": ">", "at least": ">=", "no less than": ">=", "less than": "<",
    "fewer than": "<", "smaller than": "<", "lower than": "<", "shorter than": "<",
    "cheaper than": "<", "under": "<", "below": "<", "at most": "<=", "no more than": "<=",
    "older than": ">", "younger than": "<",
}  # fmt: skip
_GRAIN_WORDS: Final[dict[str, Grain]] = {
    "day": "day", "days": "day", "daily": "day", "date": "day", "week": "week", "weeks": "week",
    "weekly": "week", "month": "month", "months": "month", "monthly": "month",
    "quarter": "quarter", "quarters": "quarter", "quarterly": "quarter", "year": "year",
    "years": "year", "yearly": "year", "annual": "year", "annually": "year",
    "weekday": "weekday", "weekdays": "weekday", "day of week": "weekday",
    "day of the week": "weekday",
}  # fmt: skip
_GRAIN_RE: Final = re.compile(
    r"(?:\b(?:per|by|each|every|for each|in each|a|which|what|busiest|quietest|over(?: the)?)\s+"
    r"(?P<unit>day of(?: the)? week|weekdays?|days?|weeks?|months?|quarters?|years?)\b)"
    r"|\b(?P<adj>daily|weekly|monthly|quarterly|yearly|annual(?:ly)?)\b"
)
_TREND: Final = re.compile(
    r"\btrends?\b|\bgrow(?:s|ing|th)?(?: fastest| the fastest| slowest)?\b|\bincreas\w*"
    r"|\bdecreas\w*|\bdeclin\w*|\bshrink\w*|\bchang(?:e|es|ing)\b|\brising\b|\bfalling\b"
    r"|\bslopes?\b|\bgoing (?:up|down)\b"
)
_PLOT: Final = re.compile(
    r"\b(?:(?P<kind>bar|line)\s+)?(?:plot|chart|graph|draw|visuali[sz]e)\b(?:\s+(?P<kind2>bar|line)\b)?"
)
#: "per"-like words before a column that make it the grouping.
_GROUP_MARK: Final = re.compile(
    r"(?:\bper|\bby|\bfor each|\bin each|\beach|\bevery|\bacross|\bwhich|\bwhat)\s+(?:\w+\s+)?$"
)
#: Kinds the older selection reads; the reading only accounts for their words.
_LEGACY: Final = re.compile(
    r"\bshares?\b|\bpercent\w*|\bproportions?\b|\bfraction\b|%|\bdistinct\b|\bunique\b"
    r"|\bdifferent\b|\b(?:top|bottom|first|last)\s+\d+\b|\b\d+\s+(?:largest|smallest|highest"
    r"|lowest|biggest|best|worst)\b"
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


def read(question: str, frame: Frame) -> Reading:
    """The reading of ``question`` about ``frame`` (never raises; see the module docstring)."""
    return _Reader(question, frame).reading()


_DATE_OPS: Final = ("month", "year", "day", "weekend", "weekday")
_MONTH_RE: Final = re.compile(
    rf"\b(?:in|during|for|of)?\s*(?P<month>{'|'.join(_MONTHS)}|{'|'.join(m[:3] for m in _MONTHS)})"
    r"\b(?:\s+(?:of\s+)?(?P<year>(?:19|20)\d\d))?\b"
)
_YEAR_RE: Final = re.compile(
    r"\b(?:in|during|for|of)\s+(?:the\s+year\s+)?(?P<year>(?:19|20)\d\d)\b"
)
_WEEKEND_RE: Final = re.compile(
    r"\b(?:on|at|during|over|in)?\s*(?:the\s+)?(?P<kind>weekends?|weekdays|working days|workdays)\b"
)
_JOINED: Final = re.compile(
    r"(?:\s+(?:of|is|was|were|a|an|the|with|had|has|have|where|that|are|be))*\s*"
)
_FIRST: Final = re.compile(
    r"\b(?:highest|largest|biggest|greatest|longest|lowest|smallest|shortest)(\s+first)\b"
)
_OVER: Final = re.compile(r"\bover\s+(?:the\s+)?(?:time|rows)\b")


#: Verbs of an amount ("which city earned most?"): with no column named, a card asks which.
_AMOUNT_VERBS: Final = frozenset(
    ["earned", "earns", "sold", "sells", "made", "makes", "spent", "spends", "paid", "pays",
     "generated", "brought", "received", "got"]
)  # fmt: skip


def measure_free(reader: _Reader, agg: Agg | None, rows: bool) -> bool:
    """Nothing measured and nothing counted: the question leaves the column open."""
    return reader.measure is None and agg is None and not rows


#: Frame names that are no noun for their rows (``df``, ``data``): the question's noun counts.
_GENERIC_FRAME: Final = re.compile(r"df\w*|data\w*|frame|table|raw|clean|sample|d|x")
#: The noun a question counts: "how many trips", "number of orders", "the fewest trips".
_COUNTED: Final = re.compile(r"\b(?:how many|number of|count of|most|fewest|least)\b")


class _Reader:
    """One question read against one frame, part by part; each part takes the words it uses."""

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


#: Comparisons whose adjective names the kind of column ("longer than" a duration).
_ADJECTIVE_OPS: Final = frozenset(
    ["longer than", "shorter than", "older than", "younger than", "cheaper than",
     "more expensive than"]
)  # fmt: skip


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
