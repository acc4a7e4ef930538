"""What the cell tools tell the model lives in one module (``notebook_tools.cell_texts``): the tool
modules hold no sentence of their own, and every text there is used. The texts themselves are
tested where they arrive (``test_cell_tools.py``, ``test_cell_edit_apply_real.py``, …)."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import dsh_notebook
from dsh_notebook.notebook_tools import cell_texts

TOOLS = Path(dsh_notebook.__file__).resolve().parent / "notebook_tools"
TOOL_MODULES = ("cell_tools.py", "cell_edits.py")
# words only a text for the model uses: a refusal, an outcome, a usage line
MODEL_WORDS = re.compile(r"Nothing was|nothing was|refused|not applied|needs `|Applied:|Ran \d")


def _strings(path: Path) -> list[str]:
    """Every string constant of the module but its docstrings (f-string pieces included)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):  # an attribute's docstring: a bare string after an assignment
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in itertools.pairwise(body):
            if (
                isinstance(before, (ast.Assign, ast.AnnAssign))
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
            ):
                docstrings.add(id(after.value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def test_the_tool_modules_hold_no_text_for_the_model() -> None:
    found = {
        name: [s for s in _strings(TOOLS / name) if MODEL_WORDS.search(s)] for name in TOOL_MODULES
    }
    assert found == {name: [] for name in TOOL_MODULES}


def test_the_check_sees_a_sentence() -> None:
    """Not vacuous: the texts module itself is full of them."""
    assert len([s for s in _strings(TOOLS / "cell_texts.py") if MODEL_WORDS.search(s)]) >= 10


def test_every_text_is_used() -> None:
    source = "\n".join((TOOLS / name).read_text() for name in TOOL_MODULES)
    unused = [name for name in cell_texts.__all__ if not re.search(rf"\b{name}\b", source)]
    assert unused == []
