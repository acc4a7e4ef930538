"""Take the README's screenshots from a real run of the shipped ``notebooks/data-exploration.ipynb``.

JupyterLab on 127.0.0.1 with this checkout's extension, Debian's chromium, the real runtime and
the demo analyst (no key). The notebook is the shipped one with two changes, so that a person's
view is shown instead of the unattended nbval run: runs do not wait (``mode = "wait"`` removed)
and the growth question asks for its approval (``--on-approval allow`` removed, ``--keep-widget``
added so the answered widget stays on screen). Writes ``docs/readme-{approval,answer,transcript}-
{light,dark}.png``.

    .venv/bin/python scripts/readme_screenshots.py
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

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, start_lab  # noqa: E402
from tests.browser.labpage import lab_with_extension  # noqa: E402

DOCS = REPO / "docs"
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def _notebook(target: Path) -> None:
    nb = json.loads((REPO / "notebooks" / "data-exploration.ipynb").read_text())
    keep = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            source = source.replace('%config DshMagics.mode = "wait"', "")
            if "Which region grows fastest" in source:
                source = source.replace("--on-approval allow", "--keep-widget")
        cell["source"] = source
        keep.append(cell)
        if "total revenue per region in `sales`" in source:
            break  # the rest is not shown
    nb["cells"] = keep
    target.write_text(json.dumps(nb, indent=1))


def _cell(page: Any, needle: str) -> Any:
    inputs = page.locator(".jp-InputArea", has_text=needle)
    return page.locator(".jp-CodeCell", has=inputs).first


def _shoot(page: Any, locator: Any, name: str, offset: int = 0, block: str = "start") -> None:
    """The visible notebook with ``locator`` at its top (``block="start"``, ``offset`` px scrolled
    past it) or at its bottom (``block="end"``, ``offset`` px of room below it)."""
    for _ in range(3):  # the windowed notebook renders cells as they come into view: settle
        locator.evaluate(
            "(e, [dy, block]) => { e.scrollIntoView({block});"
            " e.closest('.jp-WindowedPanel-outer')?.scrollBy(0, dy); }",
            [offset, block],
        )
        page.wait_for_timeout(700)
    page.locator(".jp-NotebookPanel-notebook").screenshot(path=str(DOCS / name))
    print("wrote", DOCS / name)


def _run(theme: str, browser: Any) -> None:
    root = Path(tempfile.mkdtemp(prefix="dsh-shots-"))
    settings = root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "themes.jupyterlab-settings").write_text(json.dumps({"theme": THEMES[theme]}))
    news = root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    (news / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    _notebook(root / "data-exploration.ipynb")
    with lab_with_extension(root) as lab:
        page = browser.new_page(viewport={"width": 1100, "height": 1000})
        page.goto(f"{lab.url}/lab/tree/data-exploration.ipynb?reset&token={lab.token}")
        page.wait_for_selector(".jp-Notebook", timeout=60_000)
        page.wait_for_timeout(4000)
        page.click(".jp-Notebook")
        page.keyboard.press("Escape")
        page.click("li.lm-MenuBar-item:has-text('Run')")
        page.click(".lm-Menu-item:has-text('Run All Cells')")
        growth = _cell(page, "Which region grows fastest")
        try:
            growth.locator(".dsh-allow").wait_for(timeout=120_000)
        except Exception:
            page.screenshot(path="/tmp/shots-failed.png", full_page=True)
            raise
        _shoot(page, growth.locator(".dsh-allow"), f"readme-approval-{theme}.png", 60, "end")
        page.wait_for_timeout(700)
        growth.locator(".dsh-allow").click()
        try:
            growth.locator(".dsh-root:has-text('per month')").wait_for(timeout=120_000)
        except Exception:
            page.screenshot(path="/tmp/shots-failed.png", full_page=True)
            print(growth.inner_text()[-3000:])
            raise
        page.wait_for_timeout(1500)
        _shoot(page, growth, f"readme-answer-{theme}.png", offset=900)
        totals = _cell(page, "total revenue per region in `sales`")
        totals.locator(".jp-RenderedMarkdown:has-text('settled')").wait_for(timeout=180_000)
        _shoot(page, totals, f"readme-transcript-{theme}.png")
        page.close()
    shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    assert start_lab  # imported for its side effects on the test helpers
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for theme in THEMES:
                _run(theme, browser)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
