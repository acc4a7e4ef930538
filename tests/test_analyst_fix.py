"""Fix with dsh without a key (issue 47 item 3): the demo analyst reads the cell by id, the
kernel's names, proposes the one-line change as an ``edit_cell`` and, once applied, a
``run_cells`` of that cell; where it cannot fix, one line says so. Whole turns: the reading
tools are the real ones (``notebook_cells``' text from a page reply, ``notebook_variables``,
``describe_variable``); the cell tools answer as the kernel does (applied / rejected, ran)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from dsh_notebook.analyst import analyst_script
from dsh_notebook.analyst.fix import cell_source, fix_target
from dsh_notebook.notebook_tools.cells import cells_query, fallback_cells, format_cells
from dsh_notebook.notebook_tools.variables import describe_variable, notebook_variables
from dsh_notebook.scripted_model import ScriptContext

CELL = "1a2b3c4d-0000-4000-8000-000000000001"
TOOLS = [
    {"name": n}
    for n in (
        "bash", "write", "glob", "ask_user_question", "mcp__notebook__notebook_variables",
        "mcp__notebook__describe_variable", "mcp__notebook__run_python",
        "mcp__notebook__notebook_cells", "mcp__notebook__edit_cell", "mcp__notebook__run_cells",
    )
]  # fmt: skip


def fix_prompt(error: str) -> str:
    """What the page's Fix with dsh button sends (``insertions.ts`` ``fixSource``)."""
    return (
        f"Fix the error in cell {CELL[:8]} (edit it with edit_cell; I will review the diff).\n\n"
        f"```\n{error}\n```"
    )


@dataclass
class Fixing:
    """A finished turn: the tool calls (bare name, arguments), in order, and the answer."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    answer: str = ""


Serve = Callable[[str, dict[str, Any]], tuple[str, bool]]


def page_reply(source: str) -> dict[str, Any]:
    cell = {"index": 2, "id": CELL, "cell_type": "code", "source": source,
            "execution_count": 3, "outputs": []}  # fmt: skip
    return {"path": "a.ipynb", "total_cells": 4, "cells": [cell]}


def run_fix(
    prompt: str, source: str, ns: dict[str, Any], *, tools: list[dict[str, str]] = TOOLS,
    serve: Serve | None = None, page: bool = True,
) -> Fixing:  # fmt: skip
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": prompt}]}
    ]
    out = Fixing()
    for index in range(10):
        ctx = ScriptContext(
            scenario="analyst", step_index=index, attempt=0, tags={}, prompt_text="",
            notices=(), latest_user_kind="human", body={"messages": messages, "tools": tools},
        )  # fmt: skip
        step = analyst_script().step_for(ctx)
        if not step.tool_calls:
            out.answer = step.text
            return out
        call = step.tool_calls[0]
        tool, args = call.name.rsplit("__", 1)[-1], dict(call.input)
        out.calls.append((tool, args))
        served = serve(tool, args) if serve is not None else None
        if served is not None:
            result, is_error = served
        elif tool == "notebook_cells":
            query = cells_query(args)
            assert not isinstance(query, str), query
            result = (
                format_cells(page_reply(source), query=query)
                if page
                else fallback_cells(None, "no page is connected", query=query)
            )
            is_error = False
        elif tool == "notebook_variables":
            result, is_error = notebook_variables(ns), False
        elif tool == "describe_variable":
            found, result = describe_variable(ns, str(args["name"]))
            is_error = not found
        elif tool == "edit_cell":
            result, is_error = "Applied: Edited cell 3 · id 1a2b3c4d (approved; the page confirmed it; not run).", False  # fmt: skip
        elif tool == "run_cells":
            result, is_error = "Ran 1 cell(s) in the notebook (ok).\n\n## cell 3 · id 1a2b3c4d · In [4] · ok\nout: 12.5", False  # fmt: skip
        else:
            raise AssertionError(f"unexpected call {tool}")
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": step.text},
            {"type": "tool_use", "id": f"t{index}", "name": call.name, "input": args},
        ]})  # fmt: skip
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{index}",
             "content": [{"type": "text", "text": result}], "is_error": is_error},
        ]})  # fmt: skip
    raise AssertionError(f"no answer within the step budget: {out.calls}")


def trips() -> dict[str, Any]:
    import pandas as pd

    frame = pd.DataFrame({"station": ["A", "B", "A"], "minutes": [10.0, 20.0, 15.0]})
    return {"trips": frame}


KEY_ERROR = (
    "---------------------------------------------------------------------------\n"
    "KeyError                                  Traceback (most recent call last)\n"
    'Cell In[3], line 1\n----> 1 trips.groupby("staton")["minutes"].mean()\n'
    "File ~/pandas/core/frame.py:9183, in DataFrame.groupby(self, by, axis)\n"
    "KeyError: 'staton'"
)


def test_a_typo_in_a_column_is_proposed_as_an_edit_cell_then_run_cells() -> None:
    source = 'by_station = trips.groupby("staton")["minutes"].mean()\nby_station'
    done = run_fix(fix_prompt(KEY_ERROR), source, trips())
    assert [c[0] for c in done.calls] == [
        "notebook_cells", "notebook_variables", "describe_variable", "edit_cell", "run_cells",
    ]  # fmt: skip
    assert done.calls[0][1] == {"cell_ids": ["1a2b3c4d"]}  # read by id first: the stale check
    assert done.calls[3][1] == {
        "cell_id": "1a2b3c4d",
        "old_text": 'by_station = trips.groupby("staton")["minutes"].mean()',
        "new_text": 'by_station = trips.groupby("station")["minutes"].mean()',
    }
    assert done.calls[4][1] == {"cell_ids": ["1a2b3c4d"]}
    assert done.answer.startswith("Cell 1a2b3c4d ran without an error with `station`.")
    assert "Undo this run" in done.answer


def test_a_rejected_edit_is_not_run_and_says_so_in_one_line() -> None:
    def reject(tool: str, args: dict[str, Any]) -> tuple[str, bool] | None:
        if tool == "edit_cell":
            return "Rejected: you rejected this call; nothing was changed.", True
        return None

    source = 'trips.groupby("staton")["minutes"].mean()'
    done = run_fix(fix_prompt(KEY_ERROR), source, trips(), serve=reject)
    assert [c[0] for c in done.calls][-1] == "edit_cell"
    assert done.answer.startswith("Cell 1a2b3c4d is unchanged: Rejected")
    assert "\n" not in done.answer


def test_a_change_the_person_edited_before_applying_is_theirs_in_the_answer() -> None:
    def edited(tool: str, args: dict[str, Any]) -> tuple[str, bool] | None:
        if tool == "edit_cell":
            return (
                "Applied: Edited cell 3 · id 1a2b3c4d (approved; the page confirmed it; not run)."
                "\nThe user edited your change before applying it; the cell now holds exactly:"
                '\n```python\ntrips.groupby("station")["minutes"].sum()\n```', False,
            )  # fmt: skip
        return None

    source = 'trips.groupby("staton")["minutes"].mean()'
    done = run_fix(fix_prompt(KEY_ERROR), source, trips(), serve=edited)
    assert done.calls[-1][0] == "run_cells"
    assert done.answer.startswith("Cell 1a2b3c4d ran without an error with your version of")


def test_a_misspelled_variable_and_a_builtin() -> None:
    error = "NameError: name 'trip' is not defined"
    done = run_fix(fix_prompt(error), "x = 1\ntrip.head()", trips())
    assert done.calls[2] == (
        "edit_cell",
        {"cell_id": "1a2b3c4d", "old_text": "trip.head()", "new_text": "trips.head()"},
    )
    done = run_fix(fix_prompt("NameError: name 'pritn' is not defined"), "pritn(1)", trips())
    assert done.calls[2][1]["new_text"] == "print(1)"


def test_a_mistyped_module_is_fixed_and_a_missing_one_is_one_line() -> None:
    error = "ModuleNotFoundError: No module named 'pandsa'"
    done = run_fix(fix_prompt(error), "import pandsa as pd", {})
    assert done.calls[1][1]["new_text"] == "import pandas as pd"
    error = "ModuleNotFoundError: No module named 'sklearn'"
    source = "import numpy as np\nfrom sklearn.linear_model import LinearRegression"
    done = run_fix(fix_prompt(error), source, {})
    assert done.calls[1][1]["old_text"] == "from sklearn.linear_model import LinearRegression"
    assert done.calls[1][1]["new_text"] == (
        "%pip install scikit-learn\nfrom sklearn.linear_model import LinearRegression"
    )
    assert done.calls[2] == ("run_cells", {"cell_ids": ["1a2b3c4d"]})
    error = "ModuleNotFoundError: No module named 'zqxwv'"
    done = run_fix(fix_prompt(error), "import zqxwv", {})
    assert [c[0] for c in done.calls] == ["notebook_cells"]
    assert done.answer == (
        "I can't fix this with an edit: the module `zqxwv` is not installed in the kernel's "
        "environment; install it with `%pip install zqxwv` in a cell of its own and restart "
        "the kernel."
    )


def test_a_missing_file_with_a_close_match_in_its_folder() -> None:
    def files(tool: str, args: dict[str, Any]) -> tuple[str, bool] | None:
        if tool == "glob":
            assert args == {"pattern": "*", "path": "data"}
            return "/work/data/sales.csv\n/work/data/notes.txt", False
        return None

    error = "FileNotFoundError: [Errno 2] No such file or directory: 'data/sales.cvs'"
    done = run_fix(fix_prompt(error), "df = pd.read_csv('data/sales.cvs')", {}, serve=files)
    assert [c[0] for c in done.calls] == ["notebook_cells", "glob", "edit_cell", "run_cells"]
    assert done.calls[2][1]["new_text"] == "df = pd.read_csv('data/sales.csv')"


@pytest.mark.parametrize(
    ("error", "source", "expected"),
    [
        ("KeyError: 'zzz'", 'trips["zzz"]', "I can't fix this with an edit: `trips` has no column like `zzz`"),
        ("TypeError: unsupported operand", "1 + 'a'", "I can't fix `TypeError: unsupported operand` with an edit"),
        ("NameError: name 'trips' is not defined", "trips.head()", "I can't fix this with an edit: `trips` exists now"),
    ],
)  # fmt: skip
def test_where_it_cannot_fix_it_says_so_in_one_line(error: str, source: str, expected: str) -> None:
    done = run_fix(fix_prompt(error), source, trips())
    assert "edit_cell" not in [c[0] for c in done.calls]
    assert done.answer.startswith(expected), done.answer
    assert "\n" not in done.answer


def test_no_page_or_no_cell_tools_explains_and_says_it_cannot_edit() -> None:
    source = 'trips.groupby("staton")["minutes"].mean()'
    done = run_fix(fix_prompt(KEY_ERROR), source, trips(), page=False)
    assert "edit_cell" not in [c[0] for c in done.calls]
    first, _, rest = done.answer.partition("\n")
    assert first.startswith("I can't edit cell 1a2b3c4d: no notebook page that can apply edits")
    assert "Similar columns: `station`" in rest
    without = [t for t in TOOLS if not t["name"].endswith(("edit_cell", "run_cells"))]
    done = run_fix(fix_prompt(KEY_ERROR), source, trips(), tools=without)
    assert done.answer.startswith("I can't edit cell 1a2b3c4d: the notebook's cell tools are off")


def test_reading_the_target_and_the_cell_from_the_result() -> None:
    assert fix_target("Fix the error in cell 1a2b3c4d (edit it with edit_cell; …)") == "1a2b3c4d"
    assert fix_target("Explain what went wrong in cell 7") is None
    text = format_cells(page_reply("a = 1\n\nb = 2"), query=cells_query({"cell_ids": [CELL[:8]]}))  # type: ignore[arg-type]
    assert cell_source(text, CELL[:8]) == "a = 1\n\nb = 2"
    assert cell_source(text, "ffffffff") is None
