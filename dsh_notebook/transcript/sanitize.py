"""Make untrusted text safe to place in a ``text/markdown`` output that is rendered as trusted.

JupyterLab renders a kernel's markdown without sanitizing it, so any raw HTML in agent or tool text
would execute there (``<img onerror>``, ``<script>``, ``<svg onload>``). The helpers here
guarantee, for any input string:

- **No raw HTML.** Outside code, ``&``, ``<`` and ``>`` become ``&amp;``, ``&lt;``, ``&gt;``
  (a ``>`` that only marks a blockquote at the start of a line is kept: it cannot open a tag).
  Therefore no HTML tag, HTML block, comment, autolink or entity can reach the renderer.
- **Code stays code.** Fenced code blocks are re-emitted with a backtick fence longer than any
  backtick run inside them, at the start of a line after a blank line, so no content can close
  them or escape from them; the info string is reduced to ``[A-Za-z0-9_+.#-]``. Inline code spans
  are kept only when they open and close on one line and contain no ``|`` (a table cell split
  could otherwise cut them); every other backtick is backslash-escaped, so the renderer cannot
  pair backticks differently (e.g. across lines) and turn escaped-looking text into raw text.
- **No dangerous link targets.** The destination of every inline link/image (``](…)``) and every
  reference definition (``[label]: …``) whose effective scheme — after entity decoding,
  backslash-escape removal and dropping whitespace/control characters, case-insensitively — is
  ``javascript:``, ``vbscript:``, ``data:`` or ``file:`` is replaced by ``#blocked-link``. In prose, the words
  ``javascript:``/``vbscript:`` get a zero-width space before the colon.
- Ordinary markdown (emphasis, lists, headings, tables, blockquotes, fenced code, ``https`` links)
  renders as the author meant, except that literal entities (``&copy;``) show as typed.
"""

from __future__ import annotations

import bisect
import html
import re

__all__ = [
    "BLOCKED_TARGET",
    "code_span",
    "escape_inline",
    "fence",
    "is_dangerous_url",
    "quote",
    "sanitize_markdown",
]

_ZWSP = "\u200b"
BLOCKED_TARGET = "#blocked-link"
"""What a dangerous link target is replaced with (a fragment: inert, and never an empty heading)."""
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_FENCE_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_BLOCKQUOTE_PREFIX = re.compile(r"^(?:[ \t]*>)+")
_SCHEME_WORD = re.compile(r"(?i)\b(java|vb)(script)(\s*):")
_REF_DEF = re.compile(r"\[(?:[^\[\]\\\n]|\\.){1,999}\]:")
_DEST_SCAN = 4096
_DANGER_WINDOW = 256
_STRIP_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028\u2029\u2060\ufeff]+")
_URL_BACKSLASH = re.compile(r"\\([!-/:-@\[-`{-~])")
_DANGEROUS = ("javascript:", "vbscript:", "data:", "file:")


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")


def _longest_run(text: str, char: str = "`") -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max((len(r) for r in runs), default=0)


def fence(content: str, info: str = "") -> str:
    """A fenced code block that ``content`` cannot close (the fence outgrows every backtick run)."""
    content = _normalize(content).rstrip("\n")
    ticks = "`" * max(3, _longest_run(content) + 1)
    info = re.sub(r"[^A-Za-z0-9_+.#-]", "", info)[:30]
    return f"{ticks}{info}\n{content}\n{ticks}"


def code_span(text: str) -> str:
    """``text`` as one inline code span (newlines folded to spaces)."""
    text = " ".join(_normalize(text).split("\n"))
    ticks = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def escape_inline(text: str) -> str:
    """One line of literal text: whitespace folded, HTML and markdown syntax escaped."""
    text = " ".join(_normalize(text).split())
    out = []
    for ch in text:
        if ch in _ENTITY:
            out.append(_ENTITY[ch])
        elif ch in "\\`*_[]|~#!":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return _defang_words("".join(out))


def quote(markdown: str) -> str:
    """Prefix every line with ``> `` (blank lines with ``>``): a blockquote around ``markdown``."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in markdown.split("\n"))


def _defang_words(text: str) -> str:
    return _SCHEME_WORD.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{_ZWSP}:", text)


def is_dangerous_url(url: str) -> bool:
    """Would a browser see a ``javascript:``/``vbscript:``/``data:``/``file:`` URL here?"""
    effective = _URL_BACKSLASH.sub(r"\1", html.unescape(url))
    effective = _STRIP_IN_URL.sub("", effective).lstrip("<").lower()
    return effective.startswith(_DANGEROUS)


# link destinations ---------------------------------------------------------------------------


def _destination(text: str, start: int) -> tuple[int, int]:
    """The span of a link destination starting at ``start`` (after optional whitespace).

    The scan is bounded (:data:`_DEST_SCAN` characters): a longer target is cut there, which is
    still safe, since a replaced target starts with ``#`` and whatever follows is a fragment.
    """
    i, stop = start, min(len(text), start + _DEST_SCAN)
    newlines = 0
    while i < stop and text[i] in " \t\n":
        if text[i] == "\n":
            newlines += 1
            if newlines > 1:
                return i, i
        i += 1
    begin = i
    if i < stop and text[i] == "<":
        end = text.find(">", i, stop)
        line_end = text.find("\n", i, stop)
        if end != -1 and (line_end == -1 or end < line_end):
            return begin, end + 1
        # not a pointy destination: read it raw
    depth = 0
    while i < stop:
        ch = text[i]
        if ch == "\\" and i + 1 < stop:
            i += 2
            continue
        if ch.isspace() or ord(ch) < 0x20:
            break
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return begin, i


def _neutralize_links(text: str) -> str:
    """Replace every dangerous inline-link or reference-definition target by ``#blocked-link``.

    Only a short window after each ``](`` / ``]:`` is examined unless the target is dangerous,
    so the work stays linear in the text length.
    """
    starts = sorted(
        {m.end() for m in re.finditer(r"\]\(", text)} | {m.end() for m in _REF_DEF.finditer(text)}
    )
    out, last = [], 0
    for start in starts:
        if start < last:
            continue  # inside a target already replaced
        window = text[start : start + _DANGER_WINDOW]
        if ":" not in window and "&" not in window:
            continue  # no scheme can be spelled here (a colon, or an entity for one, is needed)
        window = window.lstrip(" \t")
        if window.startswith("\n"):
            window = window[1:].lstrip(" \t")
        window = re.split(r"[\s>]", window.lstrip("<"), maxsplit=1)[0]
        if not is_dangerous_url(window):
            continue
        begin, end = _destination(text, start)
        if end > begin:
            out.append(text[last:begin])
            out.append(BLOCKED_TARGET)
            last = end
    out.append(text[last:])
    return "".join(out)


# prose ---------------------------------------------------------------------------------------


# [!-/:-@\[-`{-~] is CommonMark's ASCII punctuation, the characters a backslash escapes
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])|[`&<>]")
"""A backslash-escaped ASCII punctuation character (group 1), or a character to escape."""


_TICK_OR_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]|`")
"""The next backtick, or backslash escape of punctuation (whose character is then literal)."""


def _escape_one(match: re.Match[str]) -> str:
    escaped = match.group(1)
    if escaped is not None:  # kept as written; an escaped &, < or > becomes its entity
        return _ENTITY.get(escaped, match.group(0))
    char = match.group(0)
    return "\\`" if char == "`" else _ENTITY[char]  # an unpaired backtick pairs with nothing


def _escape_text(segment: str) -> str:
    """Prose with no code span kept: entities for ``&``, ``<``, ``>``, every backtick escaped,
    backslash escapes of punctuation kept (an escaped ``&``, ``<``, ``>`` as its entity).

    One left-to-right regex scan (C), with Python called per character that changes only: a
    long answer is mostly plain words (a 190 KB answer: 2 ms, against 48 ms for the former
    per-character loop that held the pump thread while the kernel's loop waited).
    """
    return _defang_words(_ESCAPED.sub(_escape_one, segment))


def _sanitize_line(line: str) -> str:
    """One line of prose: code spans kept verbatim, everything else escaped.

    Openers are found as CommonMark does (a backslash-escaped backtick is literal); the closer
    of an opener of length ``n`` is the next *raw* run of exactly ``n`` backticks (backslashes do
    not escape inside code). Every backtick outside a kept span is emitted escaped, so the
    renderer can only pair the spans kept here. Runs are indexed, so the work is O(n log n).
    """
    prefix = ""
    match = _BLOCKQUOTE_PREFIX.match(line)
    if match:
        prefix, line = match.group(0), line[match.end() :]
    if "`" not in line:
        return prefix + _escape_text(line)
    runs: dict[int, list[int]] = {}
    for run in re.finditer(r"`+", line):
        runs.setdefault(len(run.group(0)), []).append(run.start())
    pipes = [m.start() for m in re.finditer(r"\|", line)]
    out = [prefix]
    text_start = i = 0
    n = len(line)
    while i < n:
        found = _TICK_OR_ESCAPE.search(line, i)  # skip plain text in C, not char by char
        if found is None:
            break
        if found.group(0) != "`":  # a backslash escape: its character is literal
            i = found.end()
            continue
        i = found.start()
        run_end = i
        while run_end < n and line[run_end] == "`":
            run_end += 1
        starts = runs.get(run_end - i, [])
        k = bisect.bisect_left(starts, run_end)
        close = starts[k] if k < len(starts) else -1
        p = bisect.bisect_left(pipes, run_end)
        if close == -1 or (p < len(pipes) and pipes[p] < close):
            i = run_end  # literal backticks: escaped with the surrounding text
            continue
        out.append(_escape_text(line[text_start:i]))
        out.append(line[i : close + run_end - i])
        i = text_start = close + run_end - i
    out.append(_escape_text(line[text_start:]))
    return "".join(out)


def _sanitize_prose(segment: str) -> str:
    segment = _neutralize_links(segment.strip("\n"))
    return "\n".join(_sanitize_line(line) for line in segment.split("\n"))


def sanitize_markdown(text: str) -> str:
    """Untrusted markdown → markdown that renders the same but cannot inject HTML or scripts."""
    lines = _normalize(text).split("\n")
    blocks: list[str] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if match and not (match.group(2)[0] == "`" and "`" in match.group(3)):
            indent, marker, info = len(match.group(1).expandtabs(4)), match.group(2), match.group(3)
            body: list[str] = []
            i += 1
            while i < len(lines):
                closing = re.match(r"^[ \t]*(" + re.escape(marker[0]) + r"{3,})[ \t]*$", lines[i])
                if closing and len(closing.group(1)) >= len(marker):
                    i += 1
                    break
                body.append(_strip_indent(lines[i], indent))
                i += 1
            if prose:
                blocks.append(_sanitize_prose("\n".join(prose)))
                prose = []
            words = info.strip().split()
            blocks.append(fence("\n".join(body), words[0] if words else ""))
            continue
        prose.append(lines[i])
        i += 1
    if prose:
        blocks.append(_sanitize_prose("\n".join(prose)))
    return "\n\n".join(block for block in blocks if block.strip() or block.startswith("`"))


def _strip_indent(line: str, indent: int) -> str:
    removed = 0
    while removed < indent and line[:1] == " ":
        line = line[1:]
        removed += 1
    return line
