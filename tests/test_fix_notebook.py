"""What ``notebooks/fix-with-dsh.ipynb`` shows (issue 47 item 4), read from its saved outputs: the
typo'd cell, the Fix with dsh cell the page inserted, the diff card applied and the run allowed
by the person, the fixed cell's run, the answer, and "Undo this run" having taken the edit back
(the cell's source and its outputs).
That these outputs are a real run's: ``tests/browser/test_fix_notebook.py`` plays it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "fix-with-dsh.ipynb"
TYPO = 'trips.groupby("staton")["minutes"].mean().round(1)'


def cells() -> list[dict[str, Any]]:
    return list(json.loads(NOTEBOOK.read_text())["cells"])


def text_of(cell: dict[str, Any]) -> str:
    parts = []
    for output in cell.get("outputs", []):
        for value in output.get("data", {}).values():
            parts.append("".join(value) if isinstance(value, list) else str(value))
        parts.append("".join(output.get("text", "")))
    return "\n".join(parts)


def test_the_notebook_shows_fix_apply_run_and_undo() -> None:
    by_id = {c["id"]: c for c in cells()}
    typo = by_id["typo1a2b3c4d"]
    assert "".join(typo["source"]) == TYPO  # Undo this run took the edit back...
    errors = [o for c in cells() for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors == typo["outputs"] and typo["execution_count"] == 3  # ...and its outputs
    assert (errors[0]["ename"], errors[0]["evalue"]) == ("KeyError", "'staton'")
    order = [c["id"] for c in cells()]
    fix = cells()[order.index("typo1a2b3c4d") + 1]  # the cell Fix with dsh inserted below
    source = "".join(fix["source"])
    assert source.startswith("%%dsh\nFix the error in cell typo1a2b (edit it with edit_cell;")
    assert "KeyError: 'staton'" in source
    shown = text_of(fix)
    assert "demo analyst — no API key set" in shown
    assert f"-{TYPO}\n+{TYPO.replace('staton', 'station')}" in shown  # the diff card
    assert "— applied by you" in shown and "— allowed by you" in shown  # two clicks
    assert "## cell 4 · id typo1a2b · In [5] · ok" in shown  # the fixed cell's run
    assert "Docks     11.9\nMuseum    22.0\nPark      29.2" in shown
    assert "Cell typo1a2b ran without an error with `station`." in shown
    assert "finish reason `completed`" in shown
    assert "dsh_notebook" not in json.loads(NOTEBOOK.read_text())["metadata"]


def test_the_readmes_point_to_it() -> None:
    assert "notebooks/fix-with-dsh.ipynb" in (REPO / "README.md").read_text()
    assert "(fix-with-dsh.ipynb)" in (REPO / "notebooks" / "README.md").read_text()
