"""``notebook_cells`` in a real JupyterLab 4 in chromium: the agent reads the notebook model.

JupyterLab 4 and Notebook 7. A notebook with a cell that ran and was then edited (not run again) and a cell that never ran;
a ``%%dsh`` run whose scripted model calls ``notebook_cells``: the tool result the model received
(asserted on the scripted endpoint's recorded request) holds the edited source, the unexecuted
cell's source marked "not run", the executed cell's output, the selected cell, and the text
description of a figure a cell showed (the page has only its PNG; the kernel noted it). The
edited cell is marked "edited since In [2]" (its page source is not what the kernel ran), also in
the context block the prompt carried (JupyterLab: the page answers on its subshell); the model
then reads that cell whole by the id it was shown, and the notebook one line per cell (brief).
The model endpoint is this test's own scripted server on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptContext, ScriptedModelServer, Step, ToolCall

from .conftest import Lab, SharedServers, write_notebook
from .labpage import current_panel, open_lab, tool_results, wait_kernel_idle

pytestmark = [pytest.mark.browser]

CELLS = public_tool_name("notebook_cells")


def read_cell_two(context: ScriptContext) -> Step:
    """Read cell 2 whole by the short id the first result showed (as a model would)."""
    found = re.search(
        r"## cell 2 · id ([\w-]{1,8}) ·", json.dumps(context.body, ensure_ascii=False)
    )
    return Step(tool_calls=(ToolCall(CELLS, {"cell_ids": [found.group(1) if found else "?"]}),))


READ = Script(
    steps=(
        Step(tool_calls=(ToolCall(CELLS, {}),)),
        read_cell_two,
        Step(tool_calls=(ToolCall(CELLS, {"brief": True}),)),
        Step(text="I read your notebook."),
    )
)


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(scripts={"read-cells": READ}) as server:
        yield server


def context_block(model: ScriptedModelServer) -> str:
    for request in model.requests:
        for message in (request.body or {}).get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                text = str(block.get("text", "")) if block.get("type") == "text" else ""
                if text.startswith("<notebook-context>"):
                    return text
    return ""


def run_cell(page: Any, lab: Lab, name: str, index: int) -> None:
    cell = current_panel(page).locator(".jp-Cell").nth(index)
    cell.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")  # run in place: the selection stays on this cell
    page.wait_for_timeout(300)
    wait_kernel_idle(lab, name)


def test_notebook_cells_reads_unrun_and_edited_cells(
    browser: Any, extlab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    read_through_the_page(browser, extlab, model, artifacts, "lab")


def test_notebook7_notebook_cells_reads_the_page(
    browser: Any,
    shared_servers: SharedServers,
    model: ScriptedModelServer,
    artifacts: Path,
) -> None:
    server = shared_servers("notebook")
    read_through_the_page(browser, server, model, artifacts, "notebook")


def test_notebook_cells_reads_the_page_while_a_wait_cell_holds_the_kernel(
    browser: Any, extlab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    """JupyterLab sends comm messages on a subshell: the page answers while ``--wait`` runs."""
    read_through_the_page(browser, extlab, model, artifacts, "lab", magic="%%dsh --wait")


def read_through_the_page(
    browser: Any,
    extlab: Lab,
    model: ScriptedModelServer,
    artifacts: Path,
    app: str,
    magic: str = "%%dsh",
) -> None:
    model.clear_requests()
    name = f"reading-{app}{'-wait' if 'wait' in magic else ''}.ipynb"
    write_notebook(
        extlab.root / name,
        [
            "%load_ext dsh_notebook\n"
            f"%config DshMagics.base_url = {model.base_url!r}\n"
            "%config DshMagics.api_key = 'dummy-key'\n"
            "from IPython.display import Markdown, display\n"
            "display(Markdown('**Totals** by region'))",
            "edited = 1\nprint('first version ran')",
            "never_run = 41  # nobody ran me",
            "import matplotlib.pyplot as plt\n"
            "plt.plot([3, 5, 4], label='growth')\nplt.title('Growth per month')\nplt.legend()",
            f"{magic}\n[[scenario:read-cells]] What is in my notebook?",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        if app == "lab":
            open_lab(page, extlab, f"/tree/{name}")
            page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')").wait_for()
        else:
            page.goto(f"{extlab.url}/notebooks/{name}?token={extlab.token}")
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
        wait_kernel_idle(extlab, name)
        panel = current_panel(page)
        panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
        run_cell(page, extlab, name, 0)
        run_cell(page, extlab, name, 1)
        stdout = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
        panel.locator(f"{stdout}:has-text('first version ran')").wait_for()
        editor = panel.locator(".jp-Cell").nth(1).locator(".cm-content")  # edit, do not run
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text("edited = 2  # changed after it ran")
        run_cell(page, extlab, name, 3)
        panel.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output img").wait_for()
        run_cell(page, extlab, name, 4)
        deadline = time.monotonic() + 120
        while len(tool_results(model, joiner="\n")) < 3:
            assert time.monotonic() < deadline, "the model never received the tool results"
            time.sleep(0.5)
        page.screenshot(path=str(artifacts / f"{name}.png"))
        seen, chosen, brief = tool_results(model, joiner="\n")[:3]
        # cell 2 ran, then was edited on the page: marked in every form, and read whole by id
        edited = re.compile(r"cell 2 · id ([\w-]{1,8}) · code · edited since In \[(\d+)\]")
        found = edited.search(seen)
        assert found is not None, seen
        mark = f"cell 2 · id {found.group(1)} · code · edited since In [{found.group(2)}]"
        assert f"## {mark}\nedited = 2" in chosen, chosen
        assert "Showing only the cells asked for (2)" in chosen and "## cell 3 " not in chosen
        assert mark in brief and "edited = 2  # changed after it ran" in brief
        assert re.search(r"cell 3 · id [\w-]{1,8} · code · not run: never_run = 41", brief)
        assert len(brief.splitlines()) == 6  # the head and one line per cell
        block = context_block(model)
        if app == "lab":  # the page answers on its subshell while the prompt cell runs
            assert (
                "Cells edited since they ran (their outputs are from the older source):\n" in block
            )
            assert re.search(r"  cell 2 · id [\w-]{1,8} · In \[\d+\]: edited = 2", block), block
            assert "This prompt: cell 5, the %%dsh cell with id" in block
        else:
            assert "Cells edited since they ran" in block, block
        # every cell carries its short id; the run's own %%dsh cell is THIS PROMPT (read below
        # without them, so the rest of the checks read as the page laid the cells out)
        assert len(re.findall(r"## cell \d+ · id [\w-]{1,8} · ", seen)) == 5
        assert re.search(r"## cell 5 · id [\w-]{1,8} · code · [^\n]* · THIS PROMPT", seen)
        assert seen.count("THIS PROMPT") == 1
        seen = re.sub(r" · id [\w-]{1,8}", "", seen)
        seen = seen.replace(" · THIS PROMPT (the %%dsh cell you are answering)", "")
        assert seen.startswith(f"{name} as the user sees it now (read from the open notebook)")
        assert "5 cell(s), cell 5 is selected" in seen
        assert "## cell 2 · code · edited since In [2]\nedited = 2  # changed after it ran" in seen
        assert "→ stream: first version ran" in seen  # the output of the version that ran
        assert "## cell 3 · code · not run\nnever_run = 41  # nobody ran me" in seen
        # a --wait cell is still running while it is read, and the page says so
        count = "running" if "--wait" in magic else "In [4]"
        assert f"## cell 5 · code · {count} · SELECTED\n{magic}\n[[scenario:read-cells]]" in seen
        # the plot: the page has only its PNG; the kernel noted the figure as text
        assert "## cell 4 · code · In [3]" in seen and "image/png" in seen
        assert "→ figure (described as text):\nFigure (6.4x4.8 in, 1 axes)" in seen
        assert 'axes 1/1 "Growth per month"' in seen and 'line "growth": 3 points' in seen
        # a markdown display reads as its markdown, not as its repr
        assert "→ out [text/markdown]: **Totals** by region" in seen
        assert "could not be read" not in seen
    finally:
        page.close()
