"""The prompt as the kept transcript shows it: what the person typed in one ``text`` block, and
each long fenced block of it (the traceback and code Fix with dsh / Ask dsh put in the prompt)
folded under a one-line label, so a settled prompt cell does not read as a 40-line traceback.

Guarantees: nothing of the prompt is dropped (a folded block is the same text behind a click);
a block of at most :data:`FOLD_LINES` lines and a fence that is never closed stay inline; the
output is markdown built with :func:`~.sanitize.fence` and :func:`~.markdown_cards.details`.
"""

from __future__ import annotations

import re

from .markdown_cards import details
from .sanitize import fence
from .text import plural

FOLD_LINES = 6
"""A fenced block of the prompt longer than this many lines is folded."""

_OPEN = re.compile(r"^(`{3,})([A-Za-z0-9_+.#-]*)[ \t]*$")
_ERROR_LINE = re.compile(
    r"^(?:Traceback \(most recent call last\)|[A-Za-z_.]*(?:Error|Exception)\b)", re.M
)


def prompt_blocks(typed: str) -> list[str]:
    """``typed`` as markdown blocks: its text in ``text`` fences, each long fenced block of it
    folded (``Traceback (40 lines)``, ``python code (12 lines)``)."""
    lines = typed.split("\n")
    blocks: list[str] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        close = _closing(lines, i + 1, opened.group(1)) if opened else None
        if opened is None or close is None or close - i - 1 <= FOLD_LINES:
            text.append(lines[i])
            i += 1
            continue
        body = "\n".join(lines[i + 1 : close])
        _flush(text, blocks)
        blocks.append(
            details(
                _label(body, opened.group(2), close - i - 1), fence(body, opened.group(2) or "text")
            )
        )
        i = close + 1
    _flush(text, blocks)
    return blocks


def _closing(lines: list[str], start: int, ticks: str) -> int | None:
    """The index of the line that closes a fence of ``ticks``, from ``start`` on (else None)."""
    for j in range(start, len(lines)):
        if lines[j].rstrip() == ticks:
            return j
    return None


def _flush(text: list[str], blocks: list[str]) -> None:
    chunk = "\n".join(text).strip("\n")
    if chunk.strip():
        blocks.append(fence(chunk, "text"))
    text.clear()


def _label(body: str, language: str, count: int) -> str:
    lines = plural(count, "line")
    if not language and _ERROR_LINE.search(body):
        return f"Traceback ({lines})"
    return f"{language or 'text'} block ({lines})"
