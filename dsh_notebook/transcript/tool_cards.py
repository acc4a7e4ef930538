"""What a call of one of the runtime's file tools says, in words: one description per tool.

The runtime's ``write``, ``edit``, ``read``, ``glob`` and ``grep`` take JSON arguments and answer
with text wrapped for the model (``<path>…</path><type>file</type><content>…</content>``). Read
raw, a ``write`` is a few long escaped lines. :func:`describe_tool` turns a call into a
:class:`ToolView` — a heading in words, the body to show (the written file as code in its
language, an edit as a diff, nothing for a read), and the result summarized in words ("created
report.py, 12 lines") with the text worth showing (a read's lines, the matches) unwrapped.
Mirrored by ``js/src/cards/runtime_tools.ts`` for the widget: the live card and the static
transcript say the same. Tests: ``tests/test_tool_cards.py`` and ``js/test/issue29.test.ts``
read the real runtime's calls in ``tests/captures/runtime_tools.jsonl``.

Guarantees: pure; any other tool, arguments that are not what the tool takes, or a failed call
give ``None`` (the generic card). The snapshot keeps the raw arguments and result, so
``_dsh``, ``%dsh export --format json`` and the text rendering keep the exact text.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from .plan import todos_of
from .plan_render import plan_words
from .schema import Plan, ToolItem

__all__ = ["ToolView", "describe_tool", "language_of"]

_LANGUAGES = {
    ".py": "python", ".ipynb": "json", ".js": "javascript", ".mjs": "javascript",
    ".ts": "typescript", ".json": "json", ".md": "markdown", ".sh": "bash", ".bash": "bash",
    ".html": "html", ".css": "css", ".yml": "yaml", ".yaml": "yaml", ".toml": "toml",
    ".sql": "sql", ".r": "r", ".rs": "rust", ".go": "go", ".java": "java", ".c": "c",
    ".h": "c", ".cpp": "cpp", ".csv": "text", ".txt": "text",
}  # fmt: skip
_WRAPPED = re.compile(
    r"^<path>(.*?)</path>\s*<type>(\w+)</type>\s*<content>\n?(.*?)\n?</content>\s*$", re.S
)
_NUMBERED = re.compile(r"^\s*(\d+): ?", re.M)
_MATCHES = re.compile(r"^Found (\d+) match(?:es)?\b")


@dataclass(frozen=True)
class ToolView:
    """How a runtime file tool's call reads."""

    heading: str
    """What the call does, in words (``write report.py``)."""
    code: str | None = None
    """Text to show as a code block: the written file, or the edit as a diff."""
    language: str = "text"
    """The code block's language (``diff`` for an edit)."""
    outcome: str | None = None
    """The result in words (``created report.py, 12 lines``); ``None`` before it came."""
    detail: str | None = None
    """The part of the result worth showing (a read's lines, the matches), unwrapped."""


def language_of(path: str) -> str:
    """The highlighting language of a file, by its extension (``text`` when unknown)."""
    return _LANGUAGES.get(posixpath.splitext(path.lower())[1], "text")


def _lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else ("es" if word.endswith("ch") else "s"))


def _unwrap(result: str) -> tuple[str | None, str]:
    """(the kind the runtime named, the content) of a wrapped result; (None, result) else."""
    match = _WRAPPED.match(result)
    return (match.group(2), match.group(3)) if match else (None, result)


def describe_tool(item: ToolItem) -> ToolView | None:
    """The view of a ``write``/``edit``/``read``/``glob``/``grep`` call, else ``None``."""
    args = item["args"]
    if not isinstance(args, dict) or item["is_error"]:
        return None
    describe = _DESCRIBERS.get(item["name"] or "")
    return describe(args, item["result"]) if describe is not None else None


def _name(args: dict[str, Any]) -> str | None:
    path = args.get("file_path")
    return path if isinstance(path, str) and path.strip() else None


def _write(args: dict[str, Any], result: str | None) -> ToolView | None:
    path, content = _name(args), args.get("content")
    if path is None or not isinstance(content, str):
        return None
    outcome = None
    if result is not None:
        _, said = _unwrap(result)
        verb = "created" if said.strip().lower().startswith("created") else "wrote"
        outcome = f"{verb} {posixpath.basename(path)}, {_plural(_lines(content), 'line')}"
    return ToolView(f"write {path}", content, language_of(path), outcome)


def _edit(args: dict[str, Any], result: str | None) -> ToolView | None:
    path, old, new = _name(args), args.get("old_string"), args.get("new_string")
    if path is None or not isinstance(old, str) or not isinstance(new, str):
        return None
    diff = "\n".join(
        [f"-{line}" for line in old.rstrip("\n").split("\n")] * bool(old)
        + [f"+{line}" for line in new.rstrip("\n").split("\n")] * bool(new)
    )
    every = " (every match)" if args.get("replace_all") is True else ""
    outcome = None
    if result is not None:
        removed, added = _lines(old), _lines(new)
        outcome = (
            f"edited {posixpath.basename(path)}{every}: "
            f"{_plural(removed, 'line')} replaced by {_plural(added, 'line')}"
        )
    return ToolView(f"edit {path}", diff, "diff", outcome)


def _read(args: dict[str, Any], result: str | None) -> ToolView | None:
    path = _name(args)
    if path is None:
        return None
    offset, limit = args.get("offset"), args.get("limit")
    where = ""
    if isinstance(offset, int) and isinstance(limit, int) and limit > 0:
        where = f", lines {offset} to {offset + limit - 1}"
    elif isinstance(offset, int):
        where = f", from line {offset}"
    elif isinstance(limit, int):
        where = f", first {_plural(limit, 'line')}"
    outcome = detail = None
    if result is not None:
        kind, content = _unwrap(result)
        detail = content
        count = len(_NUMBERED.findall(content)) if kind == "file" else _lines(content)
        outcome = f"read {posixpath.basename(path)}: {_plural(count, 'line')}"
    return ToolView(f"read {path}{where}", outcome=outcome, detail=detail)


def _glob(args: dict[str, Any], result: str | None) -> ToolView | None:
    pattern = args.get("pattern")
    if not isinstance(pattern, str):
        return None
    where = args.get("path")
    heading = f"glob {pattern}" + (f" in {where}" if isinstance(where, str) and where else "")
    outcome = None
    if result is not None:
        paths = [line for line in result.splitlines() if line.strip()]
        none = not paths or result.strip().lower().startswith("no files")
        outcome = "no files found" if none else f"{_plural(len(paths), 'file')} found"
    return ToolView(heading, outcome=outcome, detail=result)


def _grep(args: dict[str, Any], result: str | None) -> ToolView | None:
    pattern = args.get("pattern")
    if not isinstance(pattern, str):
        return None
    include, where = args.get("include"), args.get("path")
    heading = f"grep “{pattern}”"
    if isinstance(include, str) and include:
        heading += f" in {include}"
    if isinstance(where, str) and where:
        heading += f" under {where}"
    outcome = None
    if result is not None:
        found = _MATCHES.match(result)
        if found:
            outcome = f"{_plural(int(found.group(1)), 'match')}"
            result = result[found.end() :].strip("\n")  # the count is the outcome
        elif result.strip().lower().startswith("no "):
            outcome = "no matches"
    return ToolView(heading, outcome=outcome, detail=result)


def _todo_write(args: dict[str, Any], result: str | None) -> ToolView | None:
    """One line: the plan itself is shown once, pinned (``plan_render``), not per call."""
    parsed = todos_of(args)
    if parsed is None:
        return None
    todos, omitted = parsed
    plan: Plan = {"todos": todos, "todos_omitted": omitted, "writes": 1, "earlier": [],
                  "earlier_omitted": 0}  # fmt: skip
    return ToolView(f"update the plan: {plan_words(plan)}")


_DESCRIBERS = {
    "write": _write, "edit": _edit, "read": _read, "glob": _glob, "grep": _grep,
    "todo_write": _todo_write,
}  # fmt: skip
