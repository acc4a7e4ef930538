"""Take the quickstart's picture of a diff card from a real run: ``notebooks/images/diff-card.png``.

JupyterLab on 127.0.0.1 with this checkout's extension, Debian's chromium, the real runtime and
the demo analyst (no key). The notebook is the first four cells of the shipped
``notebooks/fix-with-dsh.ipynb`` (a typo'd column raises); Fix with dsh is clicked as a person
would, and the analyst's ``edit_cell`` card is shot before anything is applied.

    .venv/bin/python scripts/diff_card_picture.py
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.labpage import (  # noqa: E402
    approval_card,
    cells,
    click_when_still,
    lab_with_extension,
    open_page,
    run_cell,
)

TARGET = REPO / "notebooks" / "images" / "diff-card.png"
NAME = "fix.ipynb"


def _notebook(target: Path) -> None:
    nb = json.loads((REPO / "notebooks" / "fix-with-dsh.ipynb").read_text())
    nb["cells"] = nb["cells"][1:4]  # load, data, the typo
    for cell in nb["cells"]:
        cell["outputs"], cell["execution_count"] = [], None
    target.write_text(json.dumps(nb, indent=1))


def _shoot(browser: Any) -> None:
    root = Path(tempfile.mkdtemp(prefix="dsh-diff-card-"))
    settings = root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    _notebook(root / NAME)
    try:
        with lab_with_extension(root) as lab:
            page = open_page(browser, lab, NAME)
            for index in range(3):
                run_cell(page, lab, NAME, index)
            fix = cells(page).nth(2).locator(".dsh-nb-fix")
            fix.wait_for(timeout=30_000)
            click_when_still(fix)
            card = approval_card(page, 0)
            card.locator(".dsh-diff").wait_for(timeout=120_000)
            page.wait_for_timeout(1000)
            card.scroll_into_view_if_needed()
            TARGET.parent.mkdir(exist_ok=True)
            card.screenshot(path=str(TARGET))
            print("wrote", TARGET)
            page.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            _shoot(browser)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
