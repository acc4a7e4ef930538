"""Well-known credential shapes: what :func:`~dsh_notebook.runtime.secret.redact` masks in any text,
whoever's secret it is, with a label naming the kind (``[masked: AWS access key]``).

Each shape is a regex with a literal *cue* (``AKIA``, ``ghp_``, ``-----BEGIN``, …): a text holding
none of a shape's cues is never run through its regex, so the common case (no credential) costs a
few C substring searches per text. A shape whose regex has a group masks only that group (the
password of ``user:password@``, the value after ``aws_secret_access_key =``).

What is not a credential shape, on purpose (false positives on ordinary data): hex ids (git
hashes, UUIDs, digests), bare base64, a 40-character string with no ``aws_secret…`` name before
it. Every shape starts at a boundary that a base64 payload's own characters cannot give (``_``,
``-``, ``.``, ``:`` or a non-alphanumeric before it), and :func:`protected_spans` lists the
``data:…;base64,`` runs of a text, which are never masked: a figure inlined in a transcript's
markdown is never corrupted.

Guarantees: pure, thread-safe (compiled patterns only); each regex is linear in the text (no
nested unbounded repeats of overlapping classes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SHAPES", "Shape", "protected_spans", "shape_spans", "without_protected"]


@dataclass(frozen=True)
class Shape:
    """One credential shape: its label, its regex, and the literal cues it starts with. The regex
    is matched only where one of its cues starts (``pattern.match(text, at)``: a lookbehind
    still sees the characters before), so a text is scanned by C substring searches only."""

    label: str
    pattern: re.Pattern[str]
    cues: tuple[str, ...]


_B = r"(?<![A-Za-z0-9_+/=-])"  # a boundary no base64 or token character gives
_END = r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"

SHAPES: tuple[Shape, ...] = (
    Shape(
        "AWS access key",
        re.compile(_B + r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    Shape(
        "AWS secret key",
        re.compile(
            r"(?i:secret_?(?:access_?)?key)[\"']?\s*[:=]>?\s*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret", "Secret", "SECRET"),
    ),
    Shape(
        "GitHub token",
        re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
        ("gh", "github_pat_"),
    ),
    Shape(
        "GitLab token",
        re.compile(_B + r"gl(?:pat|ptt|dt|rt|cbt|imt|ft|soat|oas)-[A-Za-z0-9_-]{20,255}"),
        ("gl",),
    ),
    Shape(
        "Slack token",
        re.compile(
            _B + r"(?:xox[abposre]-[A-Za-z0-9-]{10,255}"
            r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,255})"
        ),
        ("xox", "https://hooks.slack.com/"),
    ),
    Shape(
        "private key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----.*?(?:" + _END + r"|\Z)", re.S
        ),
        ("-----BEGIN",),
    ),
    Shape(
        "JWT",
        re.compile(_B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        ("eyJ",),
    ),
    Shape(
        "URL password",
        re.compile(r"://[^\s:/@'\"<>]{1,200}:([^\s/@'\"<>]{1,200})@(?=[A-Za-z0-9\[])"),
        ("://",),
    ),
)
"""Every shape :func:`shape_spans` knows."""

_PRIVATE_END = re.compile(_END)
_KEY_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}\r?")
_KEY_LINES_MAX = 120
_DATA_URI = re.compile(r"data:[\w.+/-]{1,80};base64,[A-Za-z0-9+/=]+")


def protected_spans(text: str) -> list[tuple[int, int]]:
    """The ``data:…;base64,`` runs of ``text`` (inlined figures): never masked."""
    if "base64," not in text:
        return []
    return [m.span() for m in _DATA_URI.finditer(text)]


def without_protected(text: str) -> str:
    """``text`` with its ``data:…;base64,`` runs cut out (a ``\\x00`` in place of each): what
    needs scanning at all (an inlined figure is half a saved transcript)."""
    spans = protected_spans(text)
    if not spans:
        return text
    parts, last = [], 0
    for start, end in spans:
        parts.append(text[last:start])
        last = end
    parts.append(text[last:])
    return "\x00".join(parts)


def _starts(text: str, cue: str) -> list[int]:
    found: list[int] = []
    at = text.find(cue)
    while at >= 0:
        found.append(at)
        at = text.find(cue, at + 1)
    return found


def _key_tail(text: str, end: int) -> int:
    """Where the body lines of a private key block that ends at ``end`` (its END line) start:
    the rest of a block cut in two (two outputs, a cap) has no BEGIN line."""
    start = end
    for _ in range(_KEY_LINES_MAX):
        if start == 0 or text[start - 1] != "\n":
            break
        line_start = text.rfind("\n", 0, start - 1) + 1
        if not _KEY_LINE.fullmatch(text, line_start, start - 1):
            break
        start = line_start
    return start


def shape_spans(text: str) -> list[tuple[int, int, str]]:
    """The spans of ``text`` that hold a credential shape, each with its kind (a shape with a
    group gives the group's span). Unordered; overlapping spans are possible."""
    spans: list[tuple[int, int, str]] = []
    for shape in SHAPES:
        for cue in shape.cues:
            for at in _starts(text, cue):
                m = shape.pattern.match(text, at)
                if m is not None:
                    start, end = m.span(1) if shape.pattern.groups else m.span()
                    if end > start:
                        spans.append((start, end, shape.label))
    if "-----END" in text:
        for m in _PRIVATE_END.finditer(text):
            spans.append((_key_tail(text, m.start()), m.end(), "private key"))
    return spans
