"""What the read tools and ``run_python`` tell the model lives in one module
(``notebook_tools.tool_texts``): the tool modules hold no sentence of their own (their layout
stays: a cell's heading, ``## In [k]``, the variables' table), and every text there is used.
The texts themselves are tested where they arrive (``test_notebook_cells.py``,
``test_notebook_variables.py``, ``test_mcp_server.py``, the real-kernel suites, …)."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import dsh_notebook
from dsh_notebook.notebook_tools import tool_texts

TOOLS = Path(dsh_notebook.__file__).resolve().parent / "notebook_tools"
TOOL_MODULES = (
    "cells.py",
    "cells_window.py",
    "cell_figures.py",
    "history.py",
    "read_tools.py",
    "variables.py",
    "run_python.py",
    "server.py",
)
SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,;]+[A-Za-z`'()_-]+){3,}")
"""Four words in a row: a sentence for the model (a layout piece has fewer)."""
LOGGING = {"log", "logger", "logging"}
LOGGED_ONLY = {"(traceback withheld: the secrets to mask could not be read: "}
"""Texts of a tool module that only its log reads (``server._masked_traceback``)."""


def _strings(path: Path) -> list[str]:
    """Every string constant of the module but its docstrings and what it logs (f-string
    pieces included)."""
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skipped.add(id(first.value))
        if isinstance(body, list):  # an attribute's docstring: a bare string after an assignment
            for before, after in itertools.pairwise(body):
                if (
                    isinstance(before, (ast.Assign, ast.AnnAssign))
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                ):
                    skipped.add(id(after.value))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in LOGGING
        ):
            skipped.update(id(inner) for inner in ast.walk(node))
        if isinstance(node, ast.Raise) and node.exc is not None:  # the kernel's, not the model's
            skipped.update(id(inner) for inner in ast.walk(node.exc))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in skipped and node.value not in LOGGED_ONLY
    ]  # fmt: skip


def test_the_tool_modules_hold_no_text_for_the_model() -> None:
    found = {
        name: [s for s in _strings(TOOLS / name) if SENTENCE.search(s)] for name in TOOL_MODULES
    }
    assert found == {name: [] for name in TOOL_MODULES}


def test_the_check_sees_a_sentence() -> None:
    """Not vacuous: the texts module itself is full of them, and a log line is not one."""
    assert len([s for s in _strings(TOOLS / "tool_texts.py") if SENTENCE.search(s)]) >= 30
    assert not SENTENCE.search(" · edited since In [")


def test_every_text_is_used() -> None:
    source = "\n".join((TOOLS / name).read_text() for name in TOOL_MODULES)
    unused = [name for name in tool_texts.__all__ if not re.search(rf"\b{name}\b", source)]
    assert unused == []
