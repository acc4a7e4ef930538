"""What the read tools and ``run_python`` tell the model lives in one module
(``notebook_tools.tool_texts``): the tool modules hold no sentence of their own (their layout
stays: a cell's heading, ``## In [k]``, the variables' table), and every text there is used.
The texts themselves are tested where they arrive (``test_notebook_cells.py``,
``test_describe.py``, ``test_mcp_tools.py``, ``test_model_facing_results.py``, the real-kernel
suites, …)."""

from __future__ import annotations

import re
from pathlib import Path

import dsh_notebook
from dsh_notebook.notebook_tools import tool_texts

from .helpers.module_strings import shown_strings

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
LOGGED_ONLY = {"(traceback withheld: the secrets to mask could not be read: "}
"""Texts of a tool module that only its log reads (``server._masked_traceback``)."""


def _strings(path: Path) -> list[str]:
    return [s for s in shown_strings(path) if s not in LOGGED_ONLY]


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
