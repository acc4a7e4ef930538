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
Agg = Literal["sum", "mean", "count", "median", "max", "min"]

#: Every kind, in the order they are tried (the first that matches wins).
KINDS: Final[tuple[Kind, ...]] = (
    "script", "run_script", "plot", "correlation", "duplicates", "missing", "trend", "rank",
    "aggregate", "variables", "describe",
)  # fmt: skip

_PATTERNS: Final[dict[Kind, re.Pattern[str]]] = {
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
        r"|\bmedian\b|\bper\b|\bby\b|\beach\b"
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

_AGGS: Final[tuple[tuple[Agg, re.Pattern[str]], ...]] = (
    ("mean", re.compile(r"\bmeans?\b|\baverages?\b|\bavg\b")),
    ("median", re.compile(r"\bmedian\b")),
    ("count", re.compile(r"\bcount\b|\bhow many\b|\bnumber of\b")),
    ("sum", re.compile(r"\btotals?\b|\bsum\b")),
)
_SMALL: Final = re.compile(
    r"\bbottom\b|\bsmallest\b|\blowest\b|\bleast\b|\bworst\b|\bminimum\b|\bfewest\b"
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
    """

    kind: Kind
    agg: Agg = "sum"
    largest: bool = True
    n: int | None = None
    background: bool = False
    script: str | None = None
    data_file: str | None = None


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
    agg: Agg = next((a for a, p in _AGGS if p.search(text)), "sum")
    n_match = _TOP_N.search(text)
    n = int(next(g for g in n_match.groups() if g)) if n_match else None
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
    )
