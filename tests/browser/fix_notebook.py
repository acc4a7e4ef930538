"""``notebooks/fix-with-dsh.ipynb``: its cells before a run, and the run that fills them, played
in a real JupyterLab with this checkout's extension, the real runtime and the demo analyst (no
key): the typo'd cell raises, Fix with dsh, Apply on the diff card, Allow on the ``run_cells``
card, "Undo this run", save. ``scripts/fix_with_dsh_notebook.py`` writes the shipped notebook
with it; ``test_fix_notebook.py`` plays it again and compares the outputs with the shipped ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import Lab
from .labpage import (
    approval_card,
    cells,
    click_card,
    click_when_still,
    open_page,
    run_cell,
    save_notebook,
    wait_shown,
    wait_source,
)

#: the typo'd cell's id (its short id is what the Fix with dsh prompt names)
TYPO_ID = "typo1a2b3c4d"
TYPO = 'trips.groupby("staton")["minutes"].mean().round(1)'
FIXED = 'trips.groupby("station")["minutes"].mean().round(1)'

_INTRO = """# Fix with dsh: the agent edits a cell, you review the diff

No API key needed: without `DEEPSEEK_API_KEY` the kernel answers from the demo analyst
(rule-based, no LLM) through the same tools a real model uses.

The cell below the data has a typo in a column name and raises `KeyError`. Under its error,
**Fix with dsh** (shown once the kernel has loaded `dsh_notebook`, so the page can apply an
edit) inserts a `%%dsh` cell that names the failed cell by id and runs it. The agent reads
that cell (`notebook_cells`), the frame's columns, and proposes the one-line change as an
`edit_cell`: a diff card. Nothing changes until you click **Apply**. Then it asks to run the
cell (`run_cells`, a card too) and says how the run went. **Undo this run** on the `%%dsh` cell
takes the edit back.

The outputs saved here are what one real run in JupyterLab left (`scripts/fix_with_dsh_notebook.py`
plays it: the clicks are a person's, so nbval cannot re-execute this notebook)."""

_AFTER = """## What the run left

- The `%%dsh` cell above is the one Fix with dsh inserted; its transcript shows the diff card
  (applied by a click), the `run_cells` card (allowed by a click) and the answer.
- **Undo this run** was pressed after the answer: the failed cell shows `staton` again, with
  the `KeyError` and the execution count it had before (an undo puts a cell's source and
  outputs back). The fixed cell's run stays in the transcript above; press Fix with dsh once
  more to redo it."""

CELLS: list[tuple[str, str, str]] = [
    ("intro", "markdown", _INTRO),
    ("load", "code", "%load_ext dsh_notebook"),
    ("data", "code", (
        "import pandas as pd\n\n"
        "trips = pd.DataFrame({\n"
        '    "station": ["Docks", "Park", "Docks", "Museum", "Park", "Docks"],\n'
        '    "minutes": [12.0, 31.5, 8.25, 22.0, 27.0, 15.5],\n'
        "})\n"
        "trips"
    )),
    (TYPO_ID, "code", TYPO),
    ("after", "markdown", _AFTER),
]  # fmt: skip
"""``(id, type, source)`` of the notebook's cells before the run."""


def write_cells(path: Path) -> None:
    """The notebook before the run: :data:`CELLS`, no outputs."""
    nb = {
        "cells": [
            {"cell_type": kind, "id": cid, "metadata": {}, "source": source,
             **({"execution_count": None, "outputs": []} if kind == "code" else {})}
            for cid, kind, source in CELLS
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                           "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    path.write_text(json.dumps(nb, indent=1))


def play(browser: Any, lab: Lab, name: str) -> dict[str, Any]:
    """Run notebook ``name`` (written by :func:`write_cells`) as a person would, through Fix
    with dsh, Apply, Allow and Undo this run; the saved notebook (nbformat content)."""
    page = open_page(browser, lab, name)
    for index in (1, 2, 3):  # load, data, the typo (it raises)
        run_cell(page, lab, name, index)
    typo = cells(page).nth(3)
    fix = typo.locator(".dsh-nb-fix")
    wait_shown(page, fix, 30_000, "no Fix with dsh under the KeyError")
    click_when_still(fix)
    diff = approval_card(page, 0).locator(".dsh-diff")
    wait_shown(page, diff, 120_000, "no diff card for the analyst's edit_cell")
    click_card(page, ".dsh-allow", 0)
    wait_source(page, 3, FIXED)
    click_card(page, ".dsh-allow", 1)  # the run_cells card
    prompt = cells(page).nth(4)
    settled = prompt.locator(".jp-RenderedMarkdown:has-text('ran without an error')")
    wait_shown(page, settled.first, 120_000, "the Fix with dsh run did not settle")
    undo = prompt.locator(".dsh-undo-run")
    wait_shown(page, undo, 30_000, "no Undo this run on the Fix with dsh cell")
    click_when_still(undo)
    wait_source(page, 3, TYPO)
    page.wait_for_timeout(1000)

    def done(content: dict[str, Any]) -> bool:
        by_id = {c.get("id"): c for c in content.get("cells", [])}
        typo_cell = by_id.get(TYPO_ID, {})
        fixes = [
            c for c in content.get("cells", []) if "".join(c.get("source", "")).startswith("%%dsh")
        ]
        return (
            "".join(typo_cell.get("source", "")) == TYPO
            and bool(fixes)
            and "ran without an error" in json.dumps(fixes[0].get("outputs", []))
        )

    saved = save_notebook(page, lab, name, done, "the played notebook was not saved")
    page.close()
    return saved


def shipped(saved: dict[str, Any]) -> dict[str, Any]:
    """``saved`` as the repository keeps it: the notebook's own identity (its id and path in
    this run's server) left out, as the other shipped notebooks have none; cells as saved."""
    metadata = {k: v for k, v in saved.get("metadata", {}).items() if k != "dsh_notebook"}
    return {**saved, "metadata": metadata}
