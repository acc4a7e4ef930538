"""The private toggle in a real JupyterLab 4 in chromium (issue 49 item 1): the toolbar's
**Private** button tags the active cell ``dsh-private``; a ``%%dsh`` run whose scripted model
reads the notebook (``notebook_cells``, then ``notebook_history``) gets that cell as
"[private cell]", never its code or the output it printed, also in the context block (the page
answers on its subshell while the prompt cell runs). The model endpoint is this test's own
scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .conftest import Lab, write_notebook
from .labpage import current_panel, open_lab, tool_results, wait_kernel_idle

pytestmark = [pytest.mark.browser]

CANARY = "PRIVATE-BROWSER-CANARY"
READ = Script(
    steps=(
        Step(tool_calls=(ToolCall(public_tool_name("notebook_cells"), {}),)),
        Step(tool_calls=(ToolCall(public_tool_name("notebook_history"), {"n": 10}),)),
        Step(text="I read your notebook."),
    )
)


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(scripts={"read-private": READ}) as server:
        yield server


def run_cell(page: Any, lab: Lab, name: str, index: int) -> None:
    cell = current_panel(page).locator(".jp-Cell").nth(index)
    cell.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_kernel_idle(lab, name)


def test_the_private_button_keeps_a_cell_from_the_model(
    browser: Any, extlab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    model.clear_requests()
    name = f"private-{time.monotonic_ns()}.ipynb"
    write_notebook(
        extlab.root / name,
        [
            "%load_ext dsh_notebook\n"
            f"%config DshMagics.base_url = {model.base_url!r}\n"
            "%config DshMagics.api_key = 'dummy-key'",
            f"note = {CANARY!r}\nprint(note[:14], 'and more')",
            "visible = 1",
            "%%dsh\n[[scenario:read-private]] What is in my notebook?",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        open_lab(page, extlab, f"/tree/{name}")
        page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')").wait_for()
        wait_kernel_idle(extlab, name)
        panel = current_panel(page)
        panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        for index in (0, 1, 2):
            run_cell(page, extlab, name, index)
        panel.locator(".jp-OutputArea-output:has-text('and more')").wait_for()
        panel.locator(".jp-Cell").nth(1).click()  # the private cell, active
        page.keyboard.press("Escape")
        panel.locator(".dsh-private-toggle").click()
        page.wait_for_timeout(300)
        run_cell(page, extlab, name, 3)
        deadline = time.monotonic() + 120
        while len(tool_results(model, joiner="\n")) < 2:
            assert time.monotonic() < deadline, "the model never received the tool results"
            time.sleep(0.5)
        page.screenshot(path=str(artifacts / f"{name}.png"))
        cells, history = tool_results(model, joiner="\n")[:2]
        assert "[private cell]" in cells and "visible = 1" in cells, cells
        assert "[private cell]" in history and "visible = 1" in history, history
        sent = json.dumps([r.body for r in model.requests], ensure_ascii=False)
        assert CANARY[:14] not in sent and "and more" not in sent
        assert "Private cells (withheld from you by the user; do not ask for them): 2" in sent
    finally:
        page.close()
