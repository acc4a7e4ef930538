"""``{Err[n]}`` carries the traceback of the cell's code (kernel/notebook/cell_errors.py)."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.kernel.notebook.cell_errors import MAX_ERROR_CHARS, cell_error_text


def test_the_traceback_of_the_cell_without_ipython_frames() -> None:
    ip = InteractiveShell.instance()
    result = ip.run_cell(  # type: ignore[no-untyped-call]
        "def f():\n    return missing_name\nf()", store_history=False
    )
    error = result.error_in_exec
    assert error is not None
    text = cell_error_text(error)
    assert text.startswith("Traceback (most recent call last):"), text
    assert "return missing_name" in text
    assert text.endswith("NameError: name 'missing_name' is not defined")
    assert "interactiveshell.py" not in text


def test_syntax_errors_and_huge_tracebacks() -> None:
    with pytest.raises(SyntaxError) as caught:
        compile("x = (", "<cell>", "exec")
    assert "SyntaxError" in cell_error_text(caught.value)
    huge = ValueError("v" * (MAX_ERROR_CHARS * 2))
    text = cell_error_text(huge)
    assert len(text) <= MAX_ERROR_CHARS + 40
    assert text.endswith("v" * 100)


def test_an_unformattable_error_falls_back_to_its_line() -> None:
    class Weird(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert "Weird" in cell_error_text(Weird())
