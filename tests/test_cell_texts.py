"""What the cell tools tell the model lives in one module (``notebook_tools.cell_texts``): the tool
modules hold no sentence of their own, and every text there is used. The texts themselves are
tested where they arrive (``test_cell_tools.py``, ``test_cell_edit_apply_real.py``, …)."""

from __future__ import annotations

import re
from pathlib import Path

import dsh_notebook
from dsh_notebook.notebook_tools import cell_texts

from .helpers.module_strings import shown_strings

TOOLS = Path(dsh_notebook.__file__).resolve().parent / "notebook_tools"
TOOL_MODULES = ("cell_tools.py", "cell_edits.py")
# words only a text for the model uses: a refusal, an outcome, a usage line
MODEL_WORDS = re.compile(r"Nothing was|nothing was|refused|not applied|needs `|Applied:|Ran \d")


def test_the_tool_modules_hold_no_text_for_the_model() -> None:
    found = {
        name: [s for s in shown_strings(TOOLS / name) if MODEL_WORDS.search(s)]
        for name in TOOL_MODULES
    }
    assert found == {name: [] for name in TOOL_MODULES}


def test_the_check_sees_a_sentence() -> None:
    """Not vacuous: the texts module itself is full of them."""
    assert len([s for s in shown_strings(TOOLS / "cell_texts.py") if MODEL_WORDS.search(s)]) >= 10


def test_every_text_is_used() -> None:
    source = "\n".join((TOOLS / name).read_text() for name in TOOL_MODULES)
    unused = [name for name in cell_texts.__all__ if not re.search(rf"\b{name}\b", source)]
    assert unused == []
