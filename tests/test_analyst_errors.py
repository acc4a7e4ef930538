"""Ask dsh without a key: the analyst explains a missing column or variable from the kernel's
real names, and never proposes code to run (whole turns over the real notebook tools)."""

from __future__ import annotations

from typing import Any

from .analyst_harness import run_turn


def ask_dsh(code: str, error: str) -> str:
    """The prompt the Ask dsh button inserts, after ``{In[n]}`` and ``{Err[n]}`` resolved."""
    return "\n".join([
        "Cell In[7] raised an error. Explain what went wrong and how to fix it.", "",
        "The code:", "```python", code, "```", "", "The error:", "```", error, "```",
    ])  # fmt: skip


def parcels() -> dict[str, Any]:
    import pandas as pd

    frame = pd.DataFrame({"hub": ["A", "B", "A"], "month": ["Jan", "Jan", "Feb"], "n": [1, 2, 3]})
    return {"parcels": frame, "threshold": 3}


def test_a_key_error_names_the_missing_column_and_similar_ones() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/ipykernel_991/2871.py", line 1, in <module>\n'
        '    parcels.groupby("Month")["n"].sum().plot()\n'
        '  File "/site-packages/pandas/core/frame.py", line 9190, in __init__\n'
        "    raise KeyError(gpr)\nKeyError: 'Month'"
    )
    outcome = run_turn(ask_dsh('parcels.groupby("Month")["n"].sum().plot()', traceback), parcels())
    assert "run_python" not in outcome.tools  # never proposes code to run
    assert outcome.answer.startswith("`KeyError: 'Month'`: there is no column `Month` in `parcels`")
    assert "Similar columns: `month`." in outcome.answer
    assert '```python\nparcels.groupby("month")["n"].sum().plot()\n```' in outcome.answer
    assert "_decorators" not in outcome.answer and "__init__" not in outcome.answer


def test_a_name_error_names_the_similar_variable() -> None:
    error = "Traceback (most recent call last):\n  Cell In[7], line 1\nNameError: name 'parcel' is not defined"
    outcome = run_turn(ask_dsh("parcel.head()", error), parcels())
    assert outcome.tools == ["notebook_variables"]
    assert "there is no variable `parcel` in your kernel" in outcome.answer
    assert "Similar names in the kernel: `parcels`." in outcome.answer
    assert "```python\nparcels.head()\n```" in outcome.answer


def test_an_error_it_cannot_check_gets_one_honest_line() -> None:
    error = "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    outcome = run_turn(ask_dsh("parcels['n'] + 'x'", error), parcels())
    assert outcome.tools == []
    assert outcome.answer.startswith("I can't explain `TypeError:")
    assert "\n" not in outcome.answer
