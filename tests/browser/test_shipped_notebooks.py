"""Issue 29, item 9: the shipped notebooks open unmodified in JupyterLab with this checkout's
extension (real server, Debian's chromium). The extension gives each notebook its identity on
open (``metadata.dsh_notebook``); that alone must not mark the document as changed: the id
reaches the file with the person's next save, like any other change of theirs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab
from .labpage import current_panel, open_lab, wait_kernel_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SHIPPED = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def test_there_are_shipped_notebooks() -> None:
    assert len(SHIPPED) >= 3, SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_notebook_opens_unmodified(
    browser: Any,
    extlab: Lab,
    name: str,
) -> None:
    shutil.copy(NOTEBOOKS / name, extlab.root / name)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_lab(page, extlab, f"/tree/{name}")
    tab = page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')")
    tab.wait_for(timeout=60_000)
    wait_kernel_idle(extlab, name)
    current_panel(page).locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    page.wait_for_timeout(3000)  # the identity is resolved on open, the link says hello
    classes = tab.get_attribute("class") or ""
    assert "jp-mod-dirty" not in classes, classes
    page.close()
