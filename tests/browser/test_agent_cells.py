"""Agent cells end to end: JupyterLab 4 and Notebook 7 in chromium, this checkout's extension
build, a real kernel and runtime, and the scripted model in this test process (so the test can
count the requests it received).

- A ``%%dsh`` run whose model calls ``run_python`` twice; Allow once, twice: two code cells appear
  directly below the ``%%dsh`` cell, tagged ``dsh-agent``, with the exact code under a comment
  line and its outputs (stdout, the value, the figure), never executed; the variables exist;
  JupyterLab's own undo takes the inserted cells back and redo restores them; after save and
  reload the cells are in the file and on the page; Restart Kernel and Run All skips the
  answered ``%%dsh`` cell, runs the agent cells (the variables are back) and the model endpoint
  receives no request; "Undo this run" (the restarted kernel has nothing to undo) removes them
  and says so, and undo brings them back.
- Reject twice: no cell, nothing ran.
- A notebook with agent cells is saved trusted (issue 29): JupyterLab signs a notebook on save only
  when every code cell with rich output is trusted, so agent cells (outputs this kernel produced
  for the approved call: text and images, never agent HTML) are inserted trusted; the server's
  contents API reports the signature check per cell (``metadata.trusted``).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.scripted_model.builtin import AGENT_CELLS_CODE

from .conftest import LAB_AND_NOTEBOOK7_TWIN, Lab, SharedServers, write_notebook
from .labpage import (
    cells,
    click_when_still,
    command_mode,
    menu_command,
    new_page,
    open_notebook,
    run_cell,
    save_notebook,
    setup_cell,
    wait_kernel_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

PROMPT = "%%dsh\n[[scenario:notebook-two-calls]] make the rows"
CHECK = (
    "import os\n"
    "print('vars', globals().get('agent_rows'), globals().get('agent_total'), 'pid', os.getpid())"
)
AGENT_HEAD = "# dsh agent: run_python call"


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def agent_cell_count(page: Any) -> int:
    return int(
        page.evaluate(
            "(head) => [...document.querySelectorAll("
            "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .jp-InputArea-editor')]"
            ".filter(e => e.textContent.startsWith(head)).length",
            AGENT_HEAD,
        )
    )


def wait_agent_cells(page: Any, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while agent_cell_count(page) != count:
        assert time.monotonic() < deadline, (
            f"expected {count} agent cells, {agent_cell_count(page)}"
        )
        page.wait_for_timeout(200)


def click_decision(page: Any, selector: str) -> None:
    button = page.locator(f"{selector}:not([disabled])").first
    button.wait_for(timeout=90_000)
    page.wait_for_timeout(700)  # the card's buttons are inert for half a second
    click_when_still(button)


def allow_both_calls(browser: Any, lab: Lab, name: str, app: str) -> Any:
    """Open ``name``, run its setup and prompt cells, Allow once each of the two ``run_python``
    calls, and return the page once the run has settled with both agent cells written."""
    page = new_page(browser)
    open_notebook(page, lab, name, app)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 1)
    click_decision(page, ".dsh-allow")
    wait_agent_cells(page, 1)
    click_decision(page, ".dsh-allow")
    wait_agent_cells(page, 2)
    page.locator(".jp-RenderedMarkdown:has-text('are in your kernel')").first.wait_for(
        timeout=90_000
    )
    return page


def save(page: Any, lab: Lab, name: str) -> dict[str, Any]:
    """Save, and the saved notebook once it holds both agent cells."""

    def saved(content: dict[str, Any]) -> bool:
        return sum(AGENT_HEAD in "".join(c["source"]) for c in content["cells"]) >= 2

    return save_notebook(page, lab, name, saved, "the agent cells were not saved")


def kernel_line(page: Any, pattern: str, timeout: float = 120_000) -> str:
    """The text of the first output that matches ``pattern`` (a JS regex), once one does."""
    handle = page.wait_for_function(
        "(p) => { const re = new RegExp(p); for (const o of document.querySelectorAll("
        "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output')) {"
        " const m = o.textContent.match(re); if (m) return m[0]; } return null; }",
        arg=pattern,
        timeout=timeout,
        polling=100,
    )
    return str(handle.json_value())


def restart_and_run_all(page: Any) -> None:
    command_mode(page)
    menu_command(page, "Kernel", "Restart Kernel and Run All Cells")
    page.click(".jp-Dialog .jp-mod-accept")


def check_saved_cells(content: dict[str, Any]) -> None:
    sources = ["".join(c["source"]) for c in content["cells"]]
    assert sources[1] == PROMPT
    first, second = content["cells"][2], content["cells"][3]  # directly below, in call order
    for call, (cell, code) in enumerate(zip((first, second), AGENT_CELLS_CODE, strict=True), 1):
        assert cell["cell_type"] == "code" and cell["execution_count"] is None
        assert cell["metadata"]["tags"] == ["dsh-agent"]
        origin = cell["metadata"]["dsh_notebook"]["agent"]
        assert origin["call"] == call and origin["anchor"] == content["cells"][1]["id"]
        assert origin["session"] and origin["run"]
        head, _, body = "".join(cell["source"]).partition("\n")
        assert head.startswith(AGENT_HEAD) and body == code  # exactly the code that ran
    assert first["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "rows: 3\n"}], (
        first["outputs"]
    )
    kinds = [o["output_type"] for o in second["outputs"]]
    assert kinds == ["display_data", "execute_result"], second["outputs"]
    assert second["outputs"][0]["data"]["image/png"]
    assert second["outputs"][1]["data"]["text/plain"] == "60"
    assert "text/html" not in json.dumps([first["outputs"], second["outputs"]])
    assert sources[4] == CHECK


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_two_approved_calls_become_cells_that_survive_reload_and_replay_without_the_model(
    browser: Any,
    shared_servers: SharedServers,
    model: ScriptedModelServer,
    artifacts: Path,
    app: str,
) -> None:
    name = "agent.ipynb"
    lab = shared_servers(app)
    write_notebook(lab.root / name, [setup_cell(model), PROMPT, CHECK])
    page = allow_both_calls(browser, lab, name, app)
    # the inserted cells were not executed: no execution count in their prompts
    texts = [cells(page).nth(i).inner_text() for i in range(5)]
    assert AGENT_HEAD in texts[2] and AGENT_HEAD in texts[3]
    assert "rows: 3" in texts[2] and "60" in texts[3]
    for i in (2, 3):  # inserted, not executed: an empty prompt
        prompt = cells(page).nth(i).locator(".jp-InputPrompt").inner_text()
        assert not re.search(r"\d", prompt), prompt
    cells(page).nth(3).scroll_into_view_if_needed()
    news = page.locator(".jp-Notification-Toast-Close, .Toastify__close-button")
    if news.count():  # a toast may close itself meanwhile: then there is nothing to click
        from playwright.sync_api import Error as PlaywrightError

        with contextlib.suppress(PlaywrightError):
            news.first.click(timeout=2_000)
    page.screenshot(path=str(artifacts / f"agent-cells-{app}.png"))

    # JupyterLab's own undo takes the inserted cells back; redo restores them
    command_mode(page)
    page.keyboard.press("z")
    deadline = time.monotonic() + 10
    while agent_cell_count(page) == 2 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert agent_cell_count(page) < 2
    while agent_cell_count(page) > 0:
        page.keyboard.press("z")
        page.wait_for_timeout(300)
    for _ in range(4):
        if agent_cell_count(page) == 2:
            break
        page.keyboard.press("Shift+Z")
        page.wait_for_timeout(300)
    wait_agent_cells(page, 2)

    run_cell(page, lab, name, 4)
    first_line = kernel_line(page, r"vars \[3, 1, 2\] 6 pid \d+")
    first_pid = first_line.rsplit(" ", 1)[1]

    content = save(page, lab, name)
    check_saved_cells(content)

    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_kernel_idle(lab, name)
    wait_agent_cells(page, 2)

    before = len(model.requests)
    assert before >= 3  # the run: two tool calls and the answer
    restart_and_run_all(page)
    line = kernel_line(page, rf"vars \[3, 1, 2\] 6 pid (?!{first_pid}\b)\d+")
    assert line.startswith("vars [3, 1, 2] 6"), line
    skipped = page.locator(".jp-RenderedMarkdown:has-text('not sent again')").first
    skipped.wait_for(timeout=30_000)
    assert "agent cell(s) it wrote below this cell" in skipped.inner_text()
    wait_kernel_idle(lab, name)
    page.wait_for_timeout(1000)
    assert len(model.requests) == before, "Run All after a restart asked the model"
    assert re.search(r"\[\d+\]", cells(page).nth(2).locator(".jp-InputPrompt").inner_text())

    # "Undo this run" under the %%dsh cell: the restarted kernel has nothing to undo, so the
    # page removes the run's agent cells itself and says so; undo brings them back
    remove = cells(page).nth(1).locator(".dsh-remove-run-cells")
    remove.wait_for(timeout=10_000)
    assert "2 agent cells" in cells(page).nth(1).locator(".dsh-agent-cells-bar").inner_text()
    click_when_still(remove)  # its bar is re-rendered by the restarted kernel's Run All
    wait_agent_cells(page, 0)
    note = cells(page).nth(1).locator(".dsh-undo-result").inner_text()
    assert "nothing to undo" in note and "removed this run's 2 agent cells" in note, note
    assert cells(page).nth(1).locator(".dsh-remove-run-cells:visible").count() == 0
    command_mode(page)
    page.keyboard.press("z")
    wait_agent_cells(page, 2)
    page.close()


def test_rejected_calls_write_no_cell_and_run_nothing(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer
) -> None:
    name = "rejected.ipynb"
    lab = shared_servers()
    write_notebook(lab.root / name, [setup_cell(model), PROMPT, CHECK])
    page = new_page(browser)
    open_notebook(page, lab, name, "lab")
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 1)
    click_decision(page, ".dsh-reject")
    click_decision(page, ".dsh-reject")
    page.locator(".jp-RenderedMarkdown:has-text('are in your kernel')").first.wait_for(
        timeout=90_000
    )
    page.wait_for_timeout(1000)
    assert agent_cell_count(page) == 0
    assert cells(page).count() == 3
    run_cell(page, lab, name, 2)
    assert kernel_line(page, r"vars None None pid \d+").startswith("vars None None")
    page.close()


def test_a_notebook_with_agent_cells_is_saved_trusted(
    browser: Any,
    shared_servers: SharedServers,
    model: ScriptedModelServer,
) -> None:
    name = "trusted.ipynb"
    lab = shared_servers()
    write_notebook(lab.root / name, [setup_cell(model), PROMPT])
    page = allow_both_calls(browser, lab, name, "lab")
    content = save(page, lab, name)
    agent = [c for c in content["cells"] if AGENT_HEAD in "".join(c["source"])]
    rich = [o for c in agent for o in c["outputs"] if o["output_type"] != "stream"]
    assert rich, agent  # the case in question: outputs the signature check looks at
    code = [c for c in content["cells"] if c["cell_type"] == "code"]
    assert all(c["metadata"].get("trusted") is True for c in code), [
        ("".join(c["source"])[:40], c["metadata"].get("trusted")) for c in code
    ]
    page.close()
