"""Private values: what the person keeps from the model (issue 49 item 1), one home.

``DshMagics.private`` holds name patterns (``fnmatch``, case-sensitive as Python names are:
``["payroll*", "*_secret"]``). A variable whose name matches one is **private**:

- ``notebook_variables`` lists it by name and type only (no shape, size or preview) and says it
  is private; ``describe_variable`` refuses it (:func:`private_refusal`);
- a ``{name}`` or ``{name.attr}`` reference in a prompt refuses the cell with one line
  (:func:`interpolation_refusal`), before anything is sent;
- its value, as text, is masked wherever the notebook shows or sends text, by the one masking
  policy (:func:`private_values` feeds ``NotebookAgent.secrets()``): a ``run_python`` result
  that prints it reads ``[masked: private payroll]``;
- the context block names the private variables that exist (names only), so the model knows
  what is withheld and stops asking; ``%%dsh --show-context`` shows the same line.

A cell tagged :data:`PRIVATE_TAG` is **private**: the page sends it with ``private: true`` and no
source or outputs (and the kernel drops them should a page send them), ``notebook_cells`` and the
context block list it as :data:`PRIVATE_CELL`, and the editing tools refuse it before any card
(:func:`private_cell_refusal`).

What is masked of a value (:func:`private_texts`): a string whole (and by pieces of 8 or more
characters), a number of 4 or more characters, and for anything else each line of its
``repr`` (the first :data:`REPR_CHARS` characters) of 8 or more characters — so a printed
DataFrame's rows are masked line by line, but a value printed in another format (``df.to_csv()``)
is not: keep such data out of ``run_python``'s output, or out of reach of an approved call.

Pure functions over a namespace: no IPython, no threads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase
from numbers import Number
from typing import Any

__all__ = [
    "REPR_CHARS",
    "PRIVATE_CELL",
    "PRIVATE_TAG",
    "interpolation_refusal",
    "is_private",
    "private_cell_refusal",
    "private_label",
    "private_names",
    "private_refusal",
    "private_texts",
    "private_values",
]

PRIVATE_TAG = "dsh-private"
"""The cell tag of a private cell: the page sends it as ``private: true`` with no source and no
outputs (the extension's toolbar toggles it; the tag set any other way counts the same)."""

PRIVATE_CELL = "[private cell]"
"""What the model reads in place of a private cell's source and outputs."""

REPR_CHARS = 4000
"""How much of a non-text private value's ``repr`` is masked, line by line."""

_LINES_MAX = 200
_LINE_MIN = 8


def is_private(name: str, patterns: Iterable[str]) -> bool:
    """Whether variable ``name`` (or the variable of an attribute path ``name.attr``) matches
    one of ``patterns``."""
    head = name.strip().split(".", 1)[0]
    return bool(head) and any(fnmatchcase(head, p) for p in patterns if p)


def private_names(namespace: Mapping[str, Any], patterns: Iterable[str]) -> list[str]:
    """The names of ``namespace`` that are private (not ``_``-names), in definition order."""
    found = tuple(p for p in patterns if p)
    if not found:
        return []
    return [n for n in list(namespace) if isinstance(n, str) and not n.startswith("_")
            and is_private(n, found)]  # fmt: skip


def private_label(name: str) -> str:
    """The name a masked private value reads under: ``private payroll``."""
    return f"private {name}"


def private_refusal(name: str) -> str:
    """What the model reads when it asks for a private value (one line: it is told why)."""
    return (
        f"`{name}` is private (the user's DshMagics.private): its value is withheld from you "
        "on purpose. Do not ask for it or print it; work with its name and type, or ask the "
        "user for what you need."
    )


def private_cell_refusal(label: str) -> str:
    """Why an editing tool refuses a private cell, before any card (one line)."""
    return (
        f"{label} is private (tagged {PRIVATE_TAG} by the user): it cannot be read or changed "
        "by you. Leave it as it is, or ask the user."
    )


def interpolation_refusal(name: str) -> str:
    """The one-line error of a prompt that references a private value."""
    return (
        f"{{{name}}} is private (DshMagics.private): its value is never sent to the model. "
        "Remove the reference, or take the name out of DshMagics.private."
    )


def private_texts(value: Any) -> list[str]:
    """The texts of ``value`` to mask (see the module docstring). Never raises."""
    try:
        if isinstance(value, str):
            return [value]
        if isinstance(value, bytes):
            return [value.decode("utf-8", "replace")]
        if isinstance(value, Number) and not isinstance(value, bool):
            text = str(value)
            return [text] if len(text) >= 4 else []
        text = repr(value)[:REPR_CHARS]
    except Exception:
        return []
    lines = {line.strip() for line in text.splitlines()}
    return sorted(line for line in lines if len(line) >= _LINE_MIN)[:_LINES_MAX]


def private_values(namespace: Mapping[str, Any], patterns: Iterable[str]) -> list[tuple[str, str]]:
    """``(text, label)`` for each text of each private variable of ``namespace``, for the
    masking policy (``label``: ``private NAME``)."""
    found: list[tuple[str, str]] = []
    for name in private_names(namespace, patterns):
        value = namespace.get(name)
        found += [(text, private_label(name)) for text in private_texts(value)]
    return found
