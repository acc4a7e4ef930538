"""The string constants of a module that could reach someone: every one but its docstrings (a
module's, class's, function's, an attribute's), what it logs and what it raises (f-string pieces
included). For the checks that a tool module holds no sentence of its own
(``test_cell_texts.py``, ``test_tool_texts.py``)."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

LOGGING = frozenset({"log", "logger", "logging"})


def shown_strings(path: Path) -> list[str]:
    """The module's string constants but its docstrings, log arguments and raised messages."""
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skipped.add(id(first.value))
        body = getattr(node, "body", None)
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
        and id(node) not in skipped
    ]  # fmt: skip
