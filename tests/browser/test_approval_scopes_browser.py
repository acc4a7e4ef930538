"""The run_python approval card in a real JupyterLab (Chromium): its code highlighted, the buttons
Allow once / Allow for this run / Edit, then run / Reject, and an edit typed into the card is
what the kernel runs (real runtime, scripted demo model, no key)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, write_notebook
from .labpage import click_when_still, open_notebook, run_all

pytestmark = pytest.mark.browser


def test_run_python_card_offers_the_scopes_and_runs_the_edited_code(
    browser: Any, lab: Lab, artifacts: Path
) -> None:
    marker = f"edited-{time.monotonic_ns()}.txt"
    write_notebook(
        lab.root / "edit.ipynb",
        [
            "import pandas as pd\n"
            "sales = pd.DataFrame({'region': ['north', 'south'], 'revenue': [1.0, 2.0]})",
            "%load_ext dsh_notebook",
            "%%dsh\n[[scenario:notebook-analyze]] [[var:sales]] totals per region",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    open_notebook(page, lab, "edit.ipynb")
    run_all(page)
    card = page.locator(".dsh-approval")
    card.locator(".dsh-edit").wait_for(timeout=90_000)
    buttons = card.locator(".dsh-actions button").all_inner_texts()
    assert buttons == ["Allow once", "Allow for this run", "Edit, then run", "Reject"]
    assert card.locator("code.hljs.language-python .hljs-string").count() > 0  # highlighted
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    page.screenshot(path=str(artifacts / "approval-scopes-card.png"), full_page=True)
    click_when_still(card.locator(".dsh-edit"))
    editor = card.locator("textarea.dsh-edit-code")
    editor.wait_for(timeout=10_000)
    assert "groupby" in editor.input_value()
    edited = f"import pathlib\npathlib.Path({marker!r}).write_text('person')\nedited = 'person'"
    editor.fill(edited)
    # typing in the card never reaches notebook shortcuts (e.g. "a" inserting a cell)
    cells = page.locator(".jp-Notebook .jp-Cell").count()
    editor.press("End")
    editor.type("\n# a b")
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells
    page.screenshot(path=str(artifacts / "approval-scopes-editing.png"), full_page=True)
    click_when_still(card.locator(".dsh-run-edited"))
    page.locator(".jp-RenderedMarkdown:has-text('after editing the code')").wait_for(timeout=60_000)
    assert (lab.root / marker).read_text() == "person"
    told = page.locator(".jp-RenderedMarkdown:has-text('The user edited your code')")
    assert told.count() > 0  # the transcript's tool result: what the agent was told
    page.close()
