"""Prewarm end to end in JupyterLab with the real ``dsh-notebook`` extension (chromium): the
extension's ``hello_reply`` to the comm ``%load_ext`` opens starts the runtime in the background,
before any prompt, and the loading cell shows nothing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, write_notebook
from .labpage import current_panel, open_lab, wait_kernel_idle

pytestmark = [pytest.mark.browser]

STATE = (
    "_h = get_ipython()._dsh_notebook_magics.agent.host\n"
    "import time\n"
    "for _ in range(300):\n"
    "    if _h.running: break\n"
    "    time.sleep(0.1)\n"
    "print('prewarm', _h.running, _h.starting or _h.running)"
)


def test_the_extension_answering_starts_the_runtime_before_any_prompt(
    browser: Any, extlab: Lab, artifacts: Path
) -> None:
    write_notebook(extlab.root / "prewarm.ipynb", ["%load_ext dsh_notebook", STATE])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        open_lab(page, extlab, "/tree/prewarm.ipynb")
        page.locator(".lm-TabBar-tab.jp-mod-current:has-text('prewarm.ipynb')").wait_for()
        wait_kernel_idle(extlab, "prewarm.ipynb")
        panel = current_panel(page)
        panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        cells = panel.locator(".jp-Cell")
        cells.nth(0).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        wait_kernel_idle(extlab, "prewarm.ipynb")
        time.sleep(0.5)
        cells.nth(1).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        output = cells.nth(1).locator(".jp-OutputArea-output:has-text('prewarm')")
        output.wait_for(timeout=90_000)
        page.screenshot(path=str(artifacts / "prewarm-browser.png"))
        assert output.inner_text().strip() == "prewarm True True"
        assert cells.nth(0).locator(".jp-OutputArea-output").count() == 0  # load printed nothing
    finally:
        page.close()
