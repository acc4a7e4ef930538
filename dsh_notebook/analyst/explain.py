"""Explaining a cell's error (Ask dsh, or a traceback pasted into a prompt) without a model
(pure; no IO).

The analyst explains the exceptions whose cause it can check against the kernel: a missing
column (``KeyError``, an ``AttributeError`` on a DataFrame), a missing variable (``NameError``),
a missing module or file. It names similar columns or variables (from ``describe_variable`` and
``notebook_variables``, nothing guessed) and shows the failing line fixed when one name is
clearly meant. Any other exception gets one honest line: it cannot explain it without a model.
It never proposes code to run; :func:`fixed_span` gives the lines a fix changes, which
:mod:`.fix` proposes as an ``edit_cell`` (Fix with dsh).
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..context.interpolate import VALUES_HEADING
from .names import Frame, Variable
from .results import error_line

__all__ = [
    "FILE_MISSING",
    "MODULE_MISSING",
    "Failure",
    "explain",
    "fixed_span",
    "read_failure",
    "similar",
]

_CODE_BLOCK: Final = re.compile(r"```(?:python|py)?\n(.*?)```", re.S)
_NAME_ERROR: Final = re.compile(r"name '([^']+)' is not defined")
_ATTRIBUTE: Final = re.compile(r"'(\w+)' object has no attribute '([^']+)'")
MODULE_MISSING: Final = re.compile(r"No module named '([^']+)'")
FILE_MISSING: Final = re.compile(r"No such file or directory: '([^']+)'")


@dataclass(frozen=True)
class Failure:
    """The error a prompt asks about.

    Attributes:
        line: the exception line (``KeyError: 'Month'``).
        type: the exception's type name (``KeyError``).
        message: what follows the type.
        code: the failing code, when the prompt quotes it in a fenced block.
        missing: the name the exception says is missing (a key, variable or attribute).
    """

    line: str
    type: str
    message: str
    code: str
    missing: str | None

    @property
    def wants_frames(self) -> bool:
        """Whether explaining needs the columns of the frames the code uses."""
        return self.missing is not None and self.type in ("KeyError", "AttributeError")

    @property
    def wants_variables(self) -> bool:
        return self.type in ("KeyError", "AttributeError", "NameError")


def read_failure(question: str) -> Failure | None:
    """The error in ``question`` (its exception line and the quoted code), if it holds one."""
    line = error_line(question)
    if line is None:
        return None
    kind, _, message = line.partition(":")
    kind = kind.rsplit(".", 1)[-1].strip()
    message = message.strip()
    # the failing code as a named value (after the person's text) comes first, then any the
    # person quoted themselves; an inline reference to it is not code
    values = question.split(VALUES_HEADING, 1)[1] if VALUES_HEADING in question else ""
    blocks = _CODE_BLOCK.findall(values) + _CODE_BLOCK.findall(question)
    code = next((b for b in blocks if error_line(b) is None and b.strip()), "")
    missing: str | None = None
    if kind == "KeyError":
        try:
            value = ast.literal_eval(message)
        except (ValueError, SyntaxError):
            value = message
        missing = str(value) if value != "" else None
    elif kind == "NameError" and (m := _NAME_ERROR.search(message)):
        missing = m.group(1)
    elif kind == "AttributeError" and (m := _ATTRIBUTE.search(message)):
        missing = m.group(2) if m.group(1) in ("DataFrame", "Series") else None
    return Failure(line, kind, message, code.rstrip(), missing)


def similar(word: str, names: Sequence[str]) -> list[str]:
    """Up to three of ``names`` like ``word``: its case-insensitive equal first, then close
    matches (difflib, cutoff 0.6), best first."""
    by_lower: dict[str, str] = {}
    for name in names:
        by_lower.setdefault(name.lower(), name)
    exact = [by_lower[word.lower()]] if word.lower() in by_lower else []
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=3, cutoff=0.6)
    return list(dict.fromkeys([*exact, *(by_lower[c] for c in close)]))


def _fixed_line(line: str, missing: str, meant: str) -> str:
    """``line`` with ``missing`` as a quoted key, else an attribute, else a bare name, replaced
    by ``meant`` (an attribute becomes ``["meant"]``); ``line`` when it does not use it."""
    quoted = re.compile(r"(['\"])" + re.escape(missing) + r"\1")
    bare = re.compile(r"(?<![\w.'\"])" + re.escape(missing) + r"(?![\w'\"])")
    attribute = re.compile(r"\." + re.escape(missing) + r"\b")
    fixed = quoted.sub(lambda m: m.group(1) + meant + m.group(1), line)
    if fixed == line:
        fixed = attribute.sub(f'["{meant}"]', line) if attribute.search(line) else line
    if fixed == line:
        fixed = bare.sub(meant, line)
    return fixed


def _fixed_lines(code: str, missing: str, meant: str) -> str | None:
    """The code's lines that use ``missing``, with ``meant`` in its place."""
    out = [f for line in code.splitlines() if (f := _fixed_line(line, missing, meant)) != line]
    return "\n".join(out) or None


def fixed_span(code: str, missing: str, meant: str) -> tuple[str, str] | None:
    """``(old, new)``: the lines of ``code`` from the first to the last that use ``missing``,
    as they are and with ``meant`` in its place; ``None`` when no line uses it. ``old`` is a
    run of whole lines of ``code``, so it occurs in it at least once."""
    lines = code.splitlines()
    fixed = [_fixed_line(line, missing, meant) for line in lines]
    changed = [i for i, (a, b) in enumerate(zip(lines, fixed, strict=True)) if a != b]
    if not changed:
        return None
    first, last = changed[0], changed[-1] + 1
    return "\n".join(lines[first:last]), "\n".join(fixed[first:last])


def _frames_in(code: str, frames: Sequence[Frame]) -> list[Frame]:
    used = [f for f in frames if re.search(rf"(?<![\w.]){re.escape(f.name)}\b", code)]
    return used or list(frames)


def _column_answer(failure: Failure, frames: Sequence[Frame]) -> str:
    missing = failure.missing or ""
    head = f"`{failure.line}`"
    used = _frames_in(failure.code, frames)
    if not used:
        return (
            f"{head}: the key `{missing!r}` is not in the object the code indexes (a dict, or "
            "a DataFrame without that column). Check its spelling, and what the object holds."
        )
    frame = used[0]
    names = [c.name for c in frame.columns]
    where = f"`{frame.name}`" if len(used) == 1 else ", ".join(f"`{f.name}`" for f in used)
    if any(missing in [c.name for c in f.columns] for f in used):
        return (
            f"{head}: `{missing}` is a column of {where} now, so the code ran before it existed "
            "or on another object; run it again."
        )
    alike = similar(missing, [c.name for f in used for c in f.columns])
    lines = [
        f"{head}: there is no column `{missing}` in {where} (pandas raises `{failure.type}` "
        "for a column name it does not have; names are case-sensitive)."
    ]
    if alike:
        lines[0] += " Similar columns: " + ", ".join(f"`{s}`" for s in alike) + "."
        fixed = _fixed_lines(failure.code, missing, alike[0]) if failure.code else None
        if fixed:
            lines += ["", f"With `{alike[0]}` the line reads:", "", "```python", fixed, "```"]
    else:
        shown = ", ".join(f"`{n}`" for n in names[:20]) + (", …" if len(names) > 20 else "")
        lines[0] += f" Its columns are: {shown}."
    return "\n".join(lines)


def _name_answer(failure: Failure, variables: Sequence[Variable]) -> str:
    missing = failure.missing or ""
    alike = similar(missing, [v.name for v in variables])
    text = (
        f"`{failure.line}`: there is no variable `{missing}` in your kernel: it was never "
        "assigned, is misspelled, or the cell that defines it has not run since the kernel "
        "started."
    )
    if alike:
        text += " Similar names in the kernel: " + ", ".join(f"`{s}`" for s in alike) + "."
        fixed = _fixed_lines(failure.code, missing, alike[0]) if failure.code else None
        if fixed:
            text += f"\n\nWith `{alike[0]}` the line reads:\n\n```python\n{fixed}\n```"
    elif variables:
        text += " Run the cell that defines it first."
    return text


def explain(failure: Failure, variables: Sequence[Variable], frames: Sequence[Frame]) -> str:
    """What went wrong in ``failure`` and how to fix it, from the kernel's real names."""
    if failure.type == "NameError" and failure.missing:
        return _name_answer(failure, variables)
    if failure.wants_frames:
        return _column_answer(failure, frames)
    if failure.type in ("ModuleNotFoundError", "ImportError") and (
        m := MODULE_MISSING.search(failure.message)
    ):
        package = m.group(1).split(".")[0]
        return (
            f"`{failure.line}`: the module `{package}` is not installed in the kernel's "
            f"environment; install it with `%pip install {package}` and restart the kernel "
            "(the pip package name can differ from the module's)."
        )
    if failure.type == "FileNotFoundError" and (m := FILE_MISSING.search(failure.message)):
        return (
            f"`{failure.line}`: there is no file `{m.group(1)}` relative to the kernel's "
            "working directory (`%pwd` shows it); check the name, or give the full path."
        )
    if failure.type == "ZeroDivisionError":
        return (
            f"`{failure.line}`: the code divides by zero; check the divisor (a count or total "
            "that is 0 for some rows or groups) before dividing."
        )
    return (
        f"I can't explain `{failure.line}` without a language model (the demo analyst explains "
        "missing columns, variables, modules and files only); set `DEEPSEEK_API_KEY` and "
        "restart the kernel to ask DeepSeek."
    )
