"""What the notebook side adds to every request the model gets, in characters and ~tokens.

    python bench/model_facing_sizes.py

Measures (4 characters per token, a rough estimate for English and code): the MCP server's
instructions (they go into the runtime's system prompt), the tool definitions as JSON (name,
description, input schema: what ``tools/list`` returns, as ``json.dumps`` spaces it, beside its
budget and the compact JSON the server sends), a typical notebook context block (a
sales notebook: path, prompt cell, pandas and matplotlib, two cells run since the previous
prompt, one of them failed, one cell edited since it ran, one referenced DataFrame), and the
``notebook_cells`` results for a realistic 30-cell notebook: the default call, ``brief`` and one
cell read whole.
"""

from __future__ import annotations

import json

from dsh_notebook.context.notebook_context import (
    CellRun,
    EditedCell,
    NotebookFacts,
    notebook_context_block,
)
from dsh_notebook.notebook_tools.cells import CellsQuery, format_cells
from dsh_notebook.notebook_tools.mcp_shapes import Tool
from dsh_notebook.notebook_tools.schemas import instructions, tool_definitions

FACTS = NotebookFacts(
    path="analysis/sales.ipynb",
    cell_id="3f9a1c2e-5b1d-4068-a9e7-c3f10b000001",
    execution_count=12,
    python="3.12.3",
    libraries=(("pandas", "2.2.3", "as pd"), ("matplotlib", "3.9.2", "plt = matplotlib.pyplot")),
    cells=(
        CellRun(8, 'sales = pd.read_csv("sales.csv")\nsales.head()'),
        CellRun(9, 'sales.groupby("regin").sum()', "KeyError: 'regin'"),
    ),
    since=7,
    values=(("sales", "DataFrame: 1,200 rows x 4 columns"),),
    position=14,
    edited=(EditedCell(4, "9c0d1e2f-0000", 9, 'sales.groupby("region").sum()'),),
)


def notebook(n: int = 30) -> dict[str, object]:
    """A notebook of ``n`` cells: markdown headings, loading, cleaning, plots, earlier prompts."""
    cells: list[dict[str, object]] = []
    for i in range(n):
        kind, source, outputs = "code", f"step_{i} = sales.groupby('region')['rev'].sum()\nstep_{i}", [
            {"output_type": "execute_result", "mime": ["text/plain", "text/html"],
             "text": "region\nN    1200\nS     700\nName: rev, dtype: int64"}]  # fmt: skip
        if i % 6 == 0:
            kind, source, outputs = "markdown", f"## Part {i // 6 + 1}\nWhat this part shows.", []
        elif i % 6 == 3:
            source = f"%%dsh\nWhich region fell behind in step {i - 1}?"
            outputs = [{"output_type": "display_data", "mime": ["text/markdown"],
                        "text": "\n".join(f"answer line {k}" for k in range(25))}]  # fmt: skip
        cells.append({"index": i, "id": f"{i:08x}-aaaa", "cell_type": kind, "source": source,
                      "execution_count": i + 1 if kind == "code" else None, "agent": False,
                      "selected": i == n - 1, "outputs": outputs})  # fmt: skip
    return {"path": "analysis/sales.ipynb", "total_cells": n, "cells": cells}


TOOLS_BUDGET = 4_500
"""The ten tool definitions' bound (issue 49 item 5; ``tests/test_cell_tools_real.py``)."""
TOOLS_BEFORE = 7_381
"""The same measure before issue 49 item 5 (commit 2a4ae9f)."""


def compact(tools: list[Tool]) -> str:
    """The tools as the server's ``tools/list`` result carries them (compact JSON, characters as
    they are)."""
    listed = {"tools": [tool.wire() for tool in tools]}
    return json.dumps(listed, separators=(",", ":"), ensure_ascii=False)


def size(label: str, text: str) -> None:
    print(f"{label:<44} {len(text):>6,} characters  ~{len(text) // 4:>5,} tokens")


def main() -> None:
    size("MCP instructions (run_python on)", instructions(run_python=True, max_chars=8000))
    definitions = tool_definitions(run_python=True, max_chars=8000)
    tools = [t.wire() for t in definitions]
    listed = json.dumps(tools, ensure_ascii=False)
    size(f"tool definitions JSON ({len(tools)} tools)", listed)
    print(f"  {len(listed):,} of the {TOOLS_BUDGET:,} budget ({len(listed) / TOOLS_BUDGET:.0%}); "
          f"{TOOLS_BEFORE:,} before issue 49; {len(compact(definitions)):,} as tools/list "
          "sends them (compact JSON)")  # fmt: skip
    for tool in tools:
        size(f"  {tool['name']}", json.dumps(tool, ensure_ascii=False))
    size("typical context block", notebook_context_block(FACTS))
    nb = notebook()
    size("notebook_cells, 30 cells, default", format_cells(nb))
    size("notebook_cells, 30 cells, brief", format_cells(nb, query=CellsQuery(brief=True)))
    size("notebook_cells, one cell whole", format_cells(nb, query=CellsQuery(("00000004",))))


if __name__ == "__main__":
    main()
