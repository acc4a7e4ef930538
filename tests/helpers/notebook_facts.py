"""Notebook facts as the page extension reports them."""

from __future__ import annotations

from dsh_notebook.context.notebook_context import (
    CellRun,
    NotebookFacts,
)

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
)
