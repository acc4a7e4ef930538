"""The sanitizer's fast scans against the per-character loops they replaced.

``_escape_text`` and ``_sanitize_line`` used to walk prose one character at a time in Python: a
190 KB answer took 48 ms of the pump thread's time when its transcript settled, time the kernel's
own event loop waited for the GIL. They now let ``re`` skip plain text. The reference copies
below are the former loops, verbatim; the outputs must be identical on every input.
"""

from __future__ import annotations

import bisect
import random
import re

import pytest

from dsh_notebook.transcript import sanitize
from dsh_notebook.transcript.sanitize import sanitize_markdown

_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def reference_escape_text(segment: str) -> str:
    out = []
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        if ch == "\\" and i + 1 < n and segment[i + 1] in _PUNCT:
            nxt = segment[i + 1]
            out.append(_ENTITY[nxt] if nxt in _ENTITY else segment[i : i + 2])
            i += 2
        elif ch == "`":
            out.append("\\`")
            i += 1
        else:
            out.append(_ENTITY.get(ch, ch))
            i += 1
    return sanitize._defang_words("".join(out))


def reference_sanitize_line(line: str) -> str:
    prefix = ""
    match = sanitize._BLOCKQUOTE_PREFIX.match(line)
    if match:
        prefix, line = match.group(0), line[match.end() :]
    if "`" not in line:
        return prefix + reference_escape_text(line)
    runs: dict[int, list[int]] = {}
    for run in re.finditer(r"`+", line):
        runs.setdefault(len(run.group(0)), []).append(run.start())
    pipes = [m.start() for m in re.finditer(r"\|", line)]
    out = [prefix]
    text_start = i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "\\" and i + 1 < n and line[i + 1] in _PUNCT:
            i += 2
            continue
        if ch != "`":
            i += 1
            continue
        run_end = i
        while run_end < n and line[run_end] == "`":
            run_end += 1
        starts = runs.get(run_end - i, [])
        k = bisect.bisect_left(starts, run_end)
        close = starts[k] if k < len(starts) else -1
        p = bisect.bisect_left(pipes, run_end)
        if close == -1 or (p < len(pipes) and pipes[p] < close):
            i = run_end
            continue
        out.append(reference_escape_text(line[text_start:i]))
        out.append(line[i : close + run_end - i])
        i = text_start = close + run_end - i
    out.append(reference_escape_text(line[text_start:]))
    return "".join(out)


ALPHABET = "ab c\\\\``&<>*_[]()!:|\n#-.~{}é"
CASES = [
    "plain words only",
    "a \\` b `code` c \\\\`x` & <b> \\& \\< \\> \\a",
    "``double `x` ticks`` and `unclosed",
    "> quoted `code | pipe` and | `a|b`",
    "javascript: [x](javascript:alert(1)) `javascript:`",
    "\\",
    "`",
    "trailing backslash \\",
]


def _random_cases(count: int, seed: int = 17) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(count)]


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple[str, ...], tuple[str, ...]]:
    fast = (sanitize._escape_text(text), sanitize._sanitize_line(text), sanitize_markdown(text))
    with monkeypatch.context() as patched:
        patched.setattr(sanitize, "_escape_text", reference_escape_text)
        patched.setattr(sanitize, "_sanitize_line", reference_sanitize_line)
        reference = (
            reference_escape_text(text),
            reference_sanitize_line(text),
            sanitize_markdown(text),
        )
    return fast, reference


@pytest.mark.parametrize("text", CASES)
def test_fast_scans_match_the_former_loops(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, reference = _both(text, monkeypatch)
    assert fast == reference


def test_fast_scans_match_the_former_loops_on_random_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for text in _random_cases(5000):
        fast, reference = _both(text, monkeypatch)
        assert fast == reference, text
