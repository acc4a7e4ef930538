"""``notebook_cells``' choices (issue 25): chosen cells read whole (``cell_ids``, a ``start``-``end``
range), the brief mode, earlier ``%%dsh`` transcripts one line each, and "edited since In [k]"
where the page's source differs from what this kernel ran as ``In [k]`` (and only then)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from dsh_notebook.notebook_tools.cells import (
    CellsQuery,
    cells_query,
    fallback_cells,
    format_cells,
)
from dsh_notebook.notebook_tools.ran_cells import RanCells, edited_since
from dsh_notebook.notebook_tools.schemas import tool_definitions

LONG = "\n".join(f"step_{i} = compute({i})  # " + "x" * 55 for i in range(90))  # ~7,100 chars
TRANSCRIPT = "\n".join(f"answer line {i}" for i in range(40))


def cell(index: int, source: str, count: int | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "index": index, "id": f"{index:08x}-0000-4000-8000-000000000000", "cell_type": "code",
        "source": source, "execution_count": count, "agent": False, "selected": False,
        "outputs": [], **extra,
    }  # fmt: skip


def page(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"path": "a.ipynb", "total_cells": len(cells), "cells": list(cells)}


def notebook(n: int = 30) -> dict[str, Any]:
    cells = [cell(i, f"v{i} = {i}\nprint(v{i})", i + 1) for i in range(n)]
    cells[5] = cell(5, LONG, 6)
    cells[7] = cell(
        7, "%%dsh -s s\nSummarize {sales} by region\nand say which fell", 8,
        outputs=[{"output_type": "display_data", "mime": ["text/markdown"], "text": TRANSCRIPT}],
    )  # fmt: skip
    cells[9] = cell(9, "1/0", 10, outputs=[
        {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero"}])  # fmt: skip
    return page(*cells)


def test_chosen_cells_are_read_whole_by_id_and_range() -> None:
    nb = notebook()
    default = format_cells(nb)
    assert "step_89" not in default  # today the long cell is cut to fit the cap
    text = format_cells(nb, query=CellsQuery(cell_ids=("00000005",), start=12, end=13))
    assert "step_0 = " in text and "step_89 = compute(89)" in text  # whole
    assert "Showing only the cells asked for (6, 12, 13)" in text
    assert "## cell 12 · id 0000000b" in text and "## cell 13 · id 0000000c" in text
    assert "## cell 11 " not in text and "## cell 14 " not in text and len(text) <= 8000
    full = nb["cells"][7]["id"]  # a full id works too, and a whole %%dsh cell keeps its text
    assert "answer line 39" in format_cells(nb, query=CellsQuery(cell_ids=(full,)))


def test_ids_that_name_no_cell_or_several_are_said_and_bounds_hold() -> None:
    nb = notebook()
    text = format_cells(nb, query=CellsQuery(cell_ids=("zzzz", "0000"), start=90))
    assert "No cell has id 'zzzz'" in text
    assert "Id '0000' matches 30 cells" in text
    assert "There is no cell 90: the notebook has 30 cell(s)." in text
    both = format_cells(nb, max_chars=3000, query=CellsQuery(start=1, end=30))
    assert len(both) <= 3000 and "## cell 30 " in both  # cut evenly, every cell kept


def test_brief_gives_one_line_per_cell_with_its_status() -> None:
    nb = notebook()
    nb["cells"][3]["selected"] = True
    text = format_cells(nb, query=CellsQuery(brief=True), this_cell=nb["cells"][7]["id"])
    lines = text.splitlines()
    assert len(lines) == 31  # the head and one line per cell
    assert lines[1] == "cell 1 · id 00000000 · code · In [1]: v0 = 0 (+1 lines) → no output"
    assert lines[4].endswith("· SELECTED: v3 = 3 (+1 lines) → no output")
    assert "cell 8 · id 00000007 · code · In [8] · THIS PROMPT: %%dsh -s s (+2 lines)" in text
    assert lines[10].endswith("1/0 → error: ZeroDivisionError")
    assert len(format_cells(nb, query=CellsQuery(brief=True))) < 3000
    ranged = format_cells(nb, query=CellsQuery(brief=True, start=2, end=3))
    assert len(ranged.splitlines()) == 3


def test_earlier_dsh_transcripts_are_one_line_and_this_prompt_keeps_its_text() -> None:
    nb = notebook()
    text = format_cells(nb)
    block = text.split("## cell 8 ")[1].split("## cell 9 ")[0]
    assert "%%dsh -s s\nSummarize {sales} by region  (+1 more prompt lines)" in block
    assert "→ (dsh transcript: 40 lines, not repeated)" in block
    assert "answer line" not in text
    mine = format_cells(nb, this_cell=nb["cells"][7]["id"])
    assert "answer line 0" in mine and "not repeated" not in mine


def finished(count: int, source: str, cell_id: str | None) -> SimpleNamespace:
    return SimpleNamespace(
        execution_count=count, info=SimpleNamespace(raw_cell=source, cell_id=cell_id)
    )


def test_a_cell_edited_after_it_ran_is_marked_and_only_then() -> None:
    ran = RanCells()
    nb = page(cell(0, "x = 1", 1), cell(1, "y = x + 2  # edited", 2), cell(2, "z = 3", 3),
              cell(3, "old = 1", 4), cell(4, "never = 1"))  # fmt: skip
    ids = [c["id"] for c in nb["cells"]]
    ran.cell_finished(finished(1, "x = 1\n", ids[0]))  # trailing whitespace is no edit
    ran.cell_finished(finished(2, "y = x + 1", ids[1]))  # edited since
    ran.cell_finished(finished(3, "z = 2", None))  # no id sent: the source decides
    ran.cell_finished(finished(4, "other = 1", ids[0]))  # In [4] here ran another cell
    text = format_cells(nb, ran=ran.lookup)
    assert "## cell 1 · id 00000000 · code · In [1]\n" in text
    assert "## cell 2 · id 00000001 · code · edited since In [2]\n" in text
    assert "## cell 3 · id 00000002 · code · edited since In [3]\n" in text
    assert "## cell 4 · id 00000003 · code · In [4]\n" in text  # an earlier kernel's count
    assert "## cell 5 · id 00000004 · code · not run" in text
    brief = format_cells(nb, ran=ran.lookup, query=CellsQuery(brief=True))
    assert "cell 2 · id 00000001 · code · edited since In [2]: y = x + 2" in brief
    assert edited_since({**nb["cells"][1], "running": True}, ran.lookup) is None
    cut = {**nb["cells"][1], "source": "y\n[… 9 characters omitted …]"}  # the page cut it
    assert edited_since(cut, ran.lookup) is None
    assert edited_since(cell(9, "q", 99), ran.lookup) is None  # not recorded: not known


def test_the_query_is_parsed_or_refused_with_a_reason() -> None:
    assert cells_query({}) == CellsQuery()
    assert cells_query({"cell_ids": ["ab12cd34"], "start": 2, "end": 4, "brief": True}) == (
        CellsQuery(("ab12cd34",), 2, 4, True)
    )
    assert cells_query({"cell_ids": "ab12cd34"}) == CellsQuery(("ab12cd34",))
    for bad, says in (
        ({"cell_ids": [3]}, "cell_ids must be a list"),
        ({"start": 0}, "start must be a cell position"),
        ({"end": True}, "end must be a cell position"),
        ({"start": 5, "end": 2}, "end (2) is before start (5)"),
        ({"brief": "yes"}, "brief must be true or false"),
        ({"ids": []}, "not ids"),
        ({"cell_ids": ["a"] * 51}, "at most 50"),
    ):
        result = cells_query(bad)
        assert isinstance(result, str) and says in result, (bad, result)


@pytest.mark.parametrize("key", ["cell_ids", "start", "end", "brief"])
def test_the_tool_schema_offers_the_choices(key: str) -> None:
    (tool,) = [t for t in tool_definitions(run_python=True, max_chars=8000)
               if t.name == "notebook_cells"]  # fmt: skip
    assert key in tool.input_schema["properties"]
    assert key.split("_")[0] in (tool.description or "")


def test_without_the_page_the_history_says_the_choice_could_not_be_honoured() -> None:
    shell = SimpleNamespace(
        user_ns={"Out": {}}, history_manager=SimpleNamespace(input_hist_raw=["", "a = 1"])
    )
    text = fallback_cells(shell, "no page", query=CellsQuery(brief=True))
    assert "The cells and the brief form you asked for need the notebook" in text
    assert "need the notebook" not in fallback_cells(shell, "no page", query=CellsQuery())
