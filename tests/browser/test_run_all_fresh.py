"""Run All on a fresh kernel in a real JupyterLab 4 (chromium) with the real extension (issue 49
item 5c): the page's first ``hello_reply`` waits on the main shell behind every cell of the Run
All, so the kernel knew the page only after the queue ran and the ``%%dsh`` cells got no page
context. The extension says hello again on its comm subshell, and the first prompt from the page
waits briefly for it: the context block the model receives gives the prompt's position and the
notebook's size, which only a page read gives."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step

from .conftest import Lab, write_notebook
from .labpage import new_page, open_notebook, run_all, setup_cell

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    answer = Script(steps=(Step(text="Noted."),), repeat_last=True)
    with ScriptedModelServer(scripts={"answer": answer}) as server:
        yield server


def test_run_all_on_a_fresh_kernel_gives_the_first_prompt_the_page(
    browser: Any, extlab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    prompt = "%%dsh --wait --format text -s runall\n[[scenario:answer]] where am I?"
    write_notebook(extlab.root / "runall.ipynb", [setup_cell(model), prompt, "x = 1"])
    page = new_page(browser)
    try:
        open_notebook(page, extlab, "runall.ipynb")
        first = len(model.requests)
        run_all(page)
        deadline = time.monotonic() + 120
        block = ""
        while not block:
            assert time.monotonic() < deadline, "the prompt never reached the model"
            for request in model.requests[first:]:
                for message in (request.body or {}).get("messages", []):
                    content = message.get("content")
                    for part in content if isinstance(content, list) else []:
                        text = str(part.get("text", "")) if part.get("type") == "text" else ""
                        if text.startswith("<notebook-context>"):
                            block = text
            time.sleep(0.3)
        page.screenshot(path=str(artifacts / "runall.png"))
        assert "Notebook: runall.ipynb (3 cells)" in block, block
        assert "This prompt: cell 2, the %%dsh cell with id" in block, block
    finally:
        page.close()
