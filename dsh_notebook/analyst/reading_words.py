"""The words the reading contract knows (:mod:`.reading`): its vocabulary and patterns, as data.

Statistics and their synonyms, filler words, units, comparisons, time grains, date phrases, the
phrases of a trend, a plot, a superlative; each a constant, read by :class:`.reading._Reader`.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from .intents import Agg

Grain = Literal["day", "week", "month", "quarter", "year", "weekday"]
Op = Literal["==", ">", ">=", "<", "<=", "between", "month", "year", "day", "weekend", "weekday"]

_MONTHS: Final = ("january", "february", "march", "april", "may", "june", "july", "august",
                  "september", "october", "november", "december")  # fmt: skip

_ISO_DATE: Final = re.compile(r"^\d{4}[-/]\d{2}[-/]\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")

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

#: Frame names that are no noun for their rows (``df``, ``data``): the question's noun counts.
_GENERIC_FRAME: Final = re.compile(r"df\w*|data\w*|frame|table|raw|clean|sample|d|x")

#: The noun a question counts: "how many trips", "number of orders", "the fewest trips".
_COUNTED: Final = re.compile(r"\b(?:how many|number of|count of|most|fewest|least)\b")

#: Comparisons whose adjective names the kind of column ("longer than" a duration).
_ADJECTIVE_OPS: Final = frozenset(
    ["longer than", "shorter than", "older than", "younger than", "cheaper than",
     "more expensive than"]
)  # fmt: skip
