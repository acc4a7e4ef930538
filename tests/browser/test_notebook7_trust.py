"""A notebook stays trusted by its own cells in Notebook 7 (issue 48 item 6), in chromium with
this checkout's extension build, a real kernel and runtime, and the demo model (no key; its
built-in ``notebook-calls`` script makes the agent's cell tool call).

Notebook 7 shows "Trusted" only while every code cell is trusted, and the server signs a save
only then. A cell run on the page is trusted, and so is an empty cell JupyterLab inserts; a
cell the extension inserted without the mark was not: an agent's ``insert_cell`` left the
notebook "Not Trusted" once the run settled (and unsigned on disk). The person's flow: the tree
page's New → Python 3, ``%load_ext dsh_notebook``, a cell of data, a prompt whose agent inserts a
code cell (Apply); after the run settles, and after a save and a reload, it reads "Trusted".
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import SharedServers
from .labpage import click_when_still

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

STATUS = ".jp-NotebookTrustedStatus"
DATA = "import pandas as pd\nsales = pd.DataFrame({'revenue': [1.0, 2.0, 3.0]})"
INSERT = (
    '%%dsh\n[[scenario:notebook-calls]] [{"tool": "insert_cell", '
    '"args": {"after_cell_id": "@2", "source": "total = sales.revenue.sum()"}}]'
)


def _new_cell_with(page: Any, source: str) -> None:
    """A cell below the active one holding ``source``, run (Shift+Enter)."""
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")


def test_notebook7_stays_trusted_after_an_agent_run_that_inserted_a_cell_settles(
    browser: Any, shared_servers: SharedServers
) -> None:
    lab = shared_servers("notebook")
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        tree = context.new_page()
        tree.goto(f"{lab.url}/tree?token={lab.token}")
        tree.wait_for_selector(".jp-DirListing", timeout=60_000)
        tree.click("text=New")
        with context.expect_page() as opened:
            tree.locator(".lm-Menu-item:has-text('Python 3')").first.click()
        page = opened.value
        page.on("dialog", lambda dialog: dialog.accept())
        page.wait_for_selector(".jp-Notebook", timeout=60_000)
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=60_000)
        page.locator(".jp-Cell .cm-content").first.click()
        page.keyboard.insert_text("%load_ext dsh_notebook")
        page.keyboard.press("Shift+Enter")
        page.keyboard.press("Enter")
        page.keyboard.insert_text(DATA)
        page.keyboard.press("Shift+Enter")
        _new_cell_with(page, INSERT)
        allow = page.locator(".dsh-approval .dsh-allow")
        allow.first.wait_for(timeout=120_000)
        assert page.locator(STATUS).inner_text() == "Trusted"
        page.wait_for_timeout(700)  # the card's buttons are inert for half a second
        click_when_still(allow.first)
        page.locator(".jp-Cell:has-text('total = sales')").first.wait_for(timeout=60_000)
        settled = page.locator(".jp-RenderedMarkdown:has-text('settled')")
        settled.first.wait_for(timeout=120_000)
        page.wait_for_timeout(1_000)
        assert page.locator(STATUS).inner_text() == "Trusted"

        page.keyboard.press("Control+s")
        page.wait_for_timeout(1_500)
        page.reload()
        page.locator(".jp-RenderedMarkdown:has-text('settled')").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1_000)
        assert page.locator(STATUS).inner_text() == "Trusted"  # the save was signed
    finally:
        context.close()
