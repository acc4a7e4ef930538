"""Issue 15: ``%%dsh`` cells edit as prose in a real JupyterLab 4 (CodeMirror 6) in chromium,
with this checkout's labextension build.

In a ``%%dsh`` cell ``for``/``if`` are not highlighted as keywords and Enter after a line ending
in ``:`` does not indent; in a Python cell of the same notebook both still happen; turning a
Python cell into a prompt by typing ``%%dsh`` on its first line switches it at once.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, SharedServers, write_notebook
from .labpage import wait_kernel_idle

pytestmark = [pytest.mark.browser]

PROMPT = "%%dsh\nfor each region, if it fell:"
PYTHON = "for region in regions:"

# The text of each highlighted token (a span CodeMirror wrapped) in cell ``index``'s editor.
TOKENS = """([index]) => {
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[index];
  return [...cell.querySelectorAll('.cm-line span')].map(s => s.textContent);
}"""
LINES = """([index]) => {
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[index];
  return [...cell.querySelectorAll('.cm-line')].map(l => l.textContent);
}"""


def cell_editor(page: Any, index: int) -> Any:
    return (
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
        .nth(index)
        .locator(".cm-content")
    )


def tokens(page: Any, index: int) -> list[str]:
    return list(page.evaluate(TOKENS, [index]))


def lines(page: Any, index: int) -> list[str]:
    return list(page.evaluate(LINES, [index]))


def enter_at_end_and_type(page: Any, index: int, text: str) -> None:
    cell_editor(page, index).click()
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type(text)


def wait_for(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(what)


def test_a_dsh_cell_edits_as_prose(browser: Any, extlab: Lab, artifacts: Path) -> None:
    name = "prompt-mode.ipynb"
    write_notebook(extlab.root / name, [PROMPT, PYTHON, "for x in y:\n    pass"])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if "dsh-notebook" in m.text else None)
    try:
        workspace = f"prompt-{time.monotonic_ns()}"
        page.goto(f"{extlab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={extlab.token}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell .cm-content", timeout=60_000)
        wait_kernel_idle(extlab, name)
        # the Python cell is highlighted (its language has loaded): keywords are spans
        wait_for(lambda: "for" in tokens(page, 1), "the Python cell never got highlighted")
        assert "for" in tokens(page, 2) and "pass" in tokens(page, 2)
        # the prompt: only the magic line is marked; no keyword of the prose is (an editor made
        # before the extension activated gets the prompt mode a moment after the language loads)
        wait_for(lambda: "for" not in tokens(page, 0), "the prompt stayed Python", timeout=10)
        prompt_tokens = tokens(page, 0)
        assert "for" not in prompt_tokens and "if" not in prompt_tokens, prompt_tokens
        assert not any("region" in t for t in prompt_tokens), prompt_tokens
        # Enter after ':' in the prompt: no indentation
        enter_at_end_and_type(page, 0, "say why")
        wait_for(lambda: "say why" in "".join(lines(page, 0)), "the typing never arrived")
        assert lines(page, 0) == ["%%dsh", "for each region, if it fell:", "say why"]
        # ... and in the Python cell: the body is indented
        enter_at_end_and_type(page, 1, "print(region)")
        wait_for(lambda: "print" in "".join(lines(page, 1)), "the typing never arrived")
        assert lines(page, 1) == ["for region in regions:", "    print(region)"]
        # typing the magic on a Python cell's first line makes it a prompt at once
        cell_editor(page, 2).click()
        page.keyboard.press("Control+Home")
        page.keyboard.type("%%dsh\n")
        wait_for(lambda: "for" not in tokens(page, 2), "the cell stayed Python")
        page.screenshot(path=str(artifacts / "prompt-mode.png"))
        assert not [e for e in errors if "not available" in e or "no IPython" in e], errors
    finally:
        page.close()


def test_a_saved_transcript_folds_in_jupyterlab(browser: Any, extlab: Lab, artifacts: Path) -> None:
    """The saved transcript's fold is a real ``<details>`` in JupyterLab (the notebook as saved:
    reopened, so its outputs render as the file holds them), closed until clicked."""
    from dsh_notebook.transcript import Transcript
    from dsh_notebook.transcript.facts import Settled

    from ..test_transcript import tool_call, tool_result

    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "seq 1 100"}))
    t.apply(tool_result("s", "c1", "\n".join(f"row {i}" for i in range(1, 101))))
    t.apply_local(Settled(finish_reason="completed"))
    name = "saved-transcript.ipynb"
    write_notebook(extlab.root / name, ["%%dsh\nCount to 100"])
    nb = json.loads((extlab.root / name).read_text())
    bundle = {"text/markdown": t.to_markdown(), "text/plain": t.to_markdown_companion()}
    nb["cells"][0]["outputs"] = [{"output_type": "display_data", "data": bundle, "metadata": {}}]
    (extlab.root / name).write_text(json.dumps(nb))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        workspace = f"fold-{time.monotonic_ns()}"
        page.goto(f"{extlab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={extlab.token}")
        fold = page.locator(".jp-RenderedMarkdown details")
        fold.wait_for(timeout=60_000)
        summary = fold.locator("summary")
        assert summary.inner_text().strip() == "80 more lines"
        assert fold.get_attribute("open") is None
        assert not fold.locator("pre").is_visible()  # folded: the rest is not on screen
        open_part = (
            page.locator(".jp-RenderedMarkdown pre").nth(1).inner_text()
        )  # after the command
        assert open_part.startswith("row 1\n") and open_part.strip().endswith("row 20")
        summary.click()
        assert fold.locator("pre").is_visible()
        assert fold.locator("pre").inner_text().strip().endswith("row 100")
        page.screenshot(path=str(artifacts / "saved-transcript-fold.png"))
    finally:
        page.close()


def test_notebook7_edits_a_dsh_cell_as_prose(
    browser: Any, shared_servers: SharedServers
) -> None:
    """Notebook 7 loads the same prebuilt extension: the same prompt mode."""
    server = shared_servers("notebook")
    write_notebook(server.root / "p7.ipynb", [PROMPT, PYTHON])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{server.url}/notebooks/p7.ipynb?token={server.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=60_000)
        wait_kernel_idle(server, "p7.ipynb")
        wait_for(lambda: "for" in tokens(page, 1), "the Python cell never got highlighted")
        wait_for(lambda: "for" not in tokens(page, 0), "the prompt stayed Python", timeout=10)
        assert "if" not in tokens(page, 0) and "%%dsh" in tokens(page, 0), tokens(page, 0)
        enter_at_end_and_type(page, 0, "say why")
        wait_for(lambda: "say why" in "".join(lines(page, 0)), "the typing never arrived")
        assert lines(page, 0)[-1] == "say why"
    finally:
        page.close()
