"""Which question a prompt asks: the analyst's documented question types (pure; no IO).

:func:`recognize` reads only the prompt's own words (an interpolated ``{var}`` description is cut
off first, so its column names and numbers do not count as the question). It decides the *kind*
of question and its modifiers (aggregate, direction, how many); which variable and which columns
are meant is decided later against what really exists in the kernel (:mod:`.names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from ..context.interpolate import VALUES_HEADING

__all__ = ["KINDS", "Agg", "Intent", "Kind", "question_text", "recognize"]

Kind = Literal[
    "error",
    "variables",
    "describe",
    "aggregate",
    "rank",
    "trend",
    "missing",
    "duplicates",
    "correlation",
    "plot",
    "script",
    "run_script",
    "help",
]
Agg = Literal["sum", "mean", "count", "median", "max", "min", "nunique", "share", "std"]

#: Every kind, in the order they are tried (the first that matches wins).
KINDS: Final[tuple[Kind, ...]] = (
    "error", "script", "run_script", "plot", "correlation", "duplicates", "missing", "trend", "rank",
    "aggregate", "variables", "describe",
)  # fmt: skip

_PATTERNS: Final[dict[Kind, re.Pattern[str]]] = {
    # a traceback or an exception line pasted into the prompt (Ask dsh, or by hand)
    "error": re.compile(
        r"traceback \(most recent call last\)|^\s*\w*(?:error|exception)(?::|$)|raised an error",
        re.M,
    ),
    "script": re.compile(r"\b(write|create|make)\b.*\b(script|\w+\.py)\b", re.S),
    "run_script": re.compile(r"\brun\b.*\b[\w\-/]+\.py\b", re.S),
    "plot": re.compile(r"\b(plot|chart|graph|draw|visuali[sz]e|histogram)\b"),
    "correlation": re.compile(r"\bcorrelat\w*|\brelated\b|\brelationship\b"),
    "duplicates": re.compile(r"\bduplicat\w*|\brepeated rows\b"),
    "missing": re.compile(r"\bmissing\b|\bnulls?\b|\bnans?\b|\bempty (values|cells)\b|\bgaps?\b"),
    "trend": re.compile(
        r"\bgrow\w*|\bshrink\w*|\bdeclin\w*|\btrend\w*|\bslope\b|\bincreas\w*|\bdecreas\w*"
        r"|\bfell behind\b|\bfalling\b|\brising\b"
    ),
    "rank": re.compile(
        r"\btop\b|\bbottom\b|\blargest\b|\bsmallest\b|\bhighest\b|\blowest\b|\bbiggest\b"
        r"|\bmost\b|\bleast\b|\bbest\b|\bworst\b|\bmaximum\b|\bminimum\b|\bfewest\b"
    ),
    "aggregate": re.compile(
        r"\btotals?\b|\bsum\b|\bmeans?\b|\baverages?\b|\bavg\b|\bcount\b|\bhow many\b"
        r"|\bmedian\b|\bper\b|\bby\b|\beach\b|\bmax\b|\bmin\b|\bdistinct\b|\bunique\b"
        r"|\bshare\b|\bpercent\w*|\bproportion\b|\bnumber of\b|\bstandard deviation\b|\bstd\b"
        r"|\blongest\b|\bshortest\b|\btypical\b|\bbusiest\b|\bquietest\b|\bdaily\b|\bweekly\b"
        r"|\bmonthly\b|\byearly\b"
    ),
    "describe": re.compile(
        r"\bdescribe\b|\bcolumns?\b|\bdtypes?\b|\bshape\b|\bsize\b|\blook at\b|\boverview\b"
        r"|\bsummar\w*|\bstructure\b|\bschema\b"
    ),
    "variables": re.compile(
        r"\bwhat(?:'s| is| do i have)? in (?:the|my) (?:kernel|notebook)\b|\bvariables?\b"
        r"|\bwhat data\b|\bloaded\b|\bwhich dataframes\b|\bwhat dataframes\b"
    ),
}

#: Aggregates a question names outright, tried in this order ("average number of" is a mean,
#: "total number of" a count that :mod:`.respond` reads as a sum when the thing counted is a
#: numeric column).
_AGGS: Final[tuple[tuple[Agg, re.Pattern[str]], ...]] = (
    ("share", re.compile(r"\bshares?\b|\bpercent\w*|\bproportions?\b|\bfraction\b|%")),
    ("mean", re.compile(r"\bmeans?\b|\baverages?\b|\bavg\b")),
    ("median", re.compile(r"\bmedians?\b")),
    ("std", re.compile(r"\bstandard deviations?\b|\bstd\b|\bstdev\b")),
    ("nunique", re.compile(r"\bdistinct\b|\bunique\b|\bdifferent\b")),
    ("count", re.compile(r"\bcount\b|\bhow many\b|\bnumber of\b")),
    ("sum", re.compile(r"\btotals?\b|\bsum\b|\bsummed\b")),
)
#: Words for the largest or smallest value; without "which" they name the max/min statistic.
_EXTREME: Final = re.compile(
    r"\bmax\w*|\bmin\b|\bminimum\b|\blargest\b|\bsmallest\b|\bhighest\b|\blowest\b"
    r"|\bbiggest\b|\bgreatest\b|\bmost\b|\bleast\b|\bfewest\b|\btop\b|\bbottom\b"
)
#: Statistics the analyst does not compute: asked for, they get an honest "can't".
_UNSUPPORTED: Final = re.compile(
    r"\bvariance\b|\bmode\b|\bpercentiles?\b|\bquantiles?\b|\bquartiles?\b"
    r"|\bweighted\b|\bgeometric\b|\bskew\w*|\bkurtosis\b|\brolling\b|\bmoving average\b"
    r"|\bcumulative\b|\bforecast\w*|\bpredict\w*|\bregression\b|\bmodel\b|\bcluster\w*"
)
#: "show me the code for ...": answer with a fenced block, run nothing.
_CODE_ONLY: Final = re.compile(
    r"\b(?:show|give|write|tell)\b(?:\s+\w+){0,3}\s+(?:pandas\s+|python\s+)?code\b"
    r"|\bhow (?:do|would|can|could|should) i\b.*\b(?:in pandas|with pandas|code)\b"
    r"|\bcode (?:for|to)\b|\bjust the code\b|\bwithout running\b"
)
#: "which depot ...": the extreme words rank groups by a statistic rather than name one.
_WHICH: Final = re.compile(r"\bwhich\b|\bwhat \w+ (?:has|had|have|did|made|sold|is|was)\b")
_SMALL: Final = re.compile(
    r"\bbottom\b|\bsmallest\b|\blowest\b|\bleast\b|\bworst\b|\bminimum\b|\bfewest\b|\bmin\b"
    r"|\bshrink\w*|\bdeclin\w*|\bdecreas\w*|\bfell behind\b|\bfalling\b"
)
_TOP_N: Final = re.compile(r"\b(?:top|bottom|first|last)\s+(\d{1,3})\b|\b(\d{1,3})\s+(?:largest|smallest|highest|lowest|biggest|best|worst)\b")  # fmt: skip
_BACKGROUND: Final = re.compile(r"\bin the background\b|\bdelegat\w*|\bsubagent\b")
_PY_FILE: Final = re.compile(r"\b([\w\-/]+\.py)\b")
_DATA_FILE: Final = re.compile(r"\b([\w\-/]+\.(?:csv|tsv))\b")
#: Where the section of named values starts (``{var}`` as ``%%dsh`` sends it).
_VALUES_SECTION: Final = "\n\n---\n" + VALUES_HEADING
#: Where an inline (unnamed) description of a value starts.
_DESCRIPTION: Final = re.compile(
    r"(?:polars )?DataFrame: [\d,]+ rows x [\d,]+ columns|Series '.*?': [\d,]+ rows"
)


@dataclass(frozen=True)
class Intent:
    """A recognized question.

    Attributes:
        kind: the question type (see :data:`Kind`); ``help`` when none matched.
        agg: the aggregate asked for (``sum`` unless the prompt says mean/count/median).
        largest: direction: ``True`` for largest/top/fastest growing, ``False`` for
            smallest/bottom/shrinking.
        n: how many the prompt asks for ("top 3"), ``None`` when it does not say.
        background: the prompt asks to delegate ("in the background", "delegate").
        script: the ``.py`` file the prompt names, if any.
        data_file: the ``.csv``/``.tsv`` file the prompt names, if any.
        agg_named: the prompt names :attr:`agg` itself (not a guess of the analyst).
        code_only: "show me the code for ...": answer with the code, do not run it.
        unsupported: a statistic the prompt asks for that the analyst does not compute.
        ranks_groups: "which group has the most ...": extreme words rank the groups.
    """

    kind: Kind
    agg: Agg = "sum"
    largest: bool = True
    n: int | None = None
    background: bool = False
    script: str | None = None
    data_file: str | None = None
    agg_named: bool = False
    code_only: bool = False
    unsupported: str | None = None
    ranks_groups: bool = False


def question_text(prompt: str) -> str:
    """The prompt without interpolated value descriptions (what the person typed): the section
    of named values after the text (``{var}`` as ``%%dsh`` sends it) is cut off, and so is an
    inline description (the unnamed form) from its start to the end of its paragraph."""
    prompt = prompt.split(_VALUES_SECTION, 1)[0]
    cut = []
    for block in prompt.split("\n\n"):
        if _DESCRIPTION.search(block):
            head = block[: _DESCRIPTION.search(block).start()]  # type: ignore[union-attr]
            cut.append(head)
            continue
        cut.append(block)
    text = "\n\n".join(cut)
    return re.sub(r"\[\[[A-Za-z][\w-]*:[^\[\]]*\]\]", " ", text)


def recognize(prompt: str) -> Intent:
    """The intent of ``prompt`` (never raises; unknown questions are ``help``)."""
    text = question_text(prompt).lower()
    kind: Kind = next((k for k in KINDS if _PATTERNS[k].search(text)), "help")
    n_match = _TOP_N.search(text)
    n = int(next(g for g in n_match.groups() if g)) if n_match else None
    named: Agg | None = next((a for a, p in _AGGS if p.search(text)), None)
    ranks = bool(_WHICH.search(text))
    extreme = _EXTREME.search(text)
    agg: Agg = named or "sum"
    if named is None and extreme and not ranks and n is None:
        agg = "min" if _SMALL.search(extreme.group()) else "max"
        named = agg
    if kind == "rank" and n is None and not ranks:
        kind = "aggregate"  # "what is the highest cost", "average cost, highest first"
    unsupported = _UNSUPPORTED.search(text)
    if unsupported and kind in ("aggregate", "rank", "help", "describe"):
        kind = "help"
    py = _PY_FILE.search(question_text(prompt))
    data = _DATA_FILE.search(question_text(prompt))
    return Intent(
        kind=kind,
        agg=agg,
        largest=not _SMALL.search(text),
        n=n,
        background=bool(_BACKGROUND.search(text)),
        script=py.group(1) if py else None,
        data_file=data.group(1) if data else None,
        agg_named=named is not None,
        code_only=bool(_CODE_ONLY.search(text)) and kind not in ("script", "run_script", "error"),
        unsupported=unsupported.group() if unsupported else None,
        ranks_groups=ranks,
    )
