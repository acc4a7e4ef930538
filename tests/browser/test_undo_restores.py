"""Undo this run leaves every cell telling the truth, after a reload and after a kernel restart
too (issue 45 items 3-4): JupyterLab 4 and Notebook 7 in chromium, this checkout's extension
build, a real kernel and runtime, the scripted model in this test process.

The regoin → region scenario: a cell fails (``KeyError: 'regoin'``, ``[3]``); the agent fixes the
typo (``edit_cell``), inserts a check cell below it (``insert_cell``) and runs the fixed cell
(``run_cells``: its output and a new count). "Undo this run" then puts the typo back **with its
old output and count** — never the agent version's output under the person's code — and removes
the inserted cell:

- right away (the kernel's ledger; the outputs from the notebook's record);
- after a save and a reload of the page (the saved notebook shows which run edited and which
  inserted which cell: ``metadata.dsh_notebook.undo``);
- after a kernel restart (the kernel's ledger is gone): the page reverts from the notebook's
  records alone and says the kernel's values are not restored.

Before, the reverted cell kept the agent version's output and ``[4]`` under the typo, and after a
restart the button said "The kernel did not answer" and left the edit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import LAB_AND_NOTEBOOK7_TWIN, SharedServers, write_notebook
from .labpage import (
    approval_card,
    cells,
    click_card,
    command_mode,
    fresh,
    menu_command,
    open_page,
    run_cell,
    save_notebook,
    setup_cell,
    source_of,
    wait_kernel_idle,
    wait_source,
    wait_tool_results,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

TYPO = "print(sales['regoin'])"
FIXED = "print(sales['region'])"
CHECK = "print('checked')"


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def prompt_of(page: Any, index: int) -> str:
    """The execution count cell ``index`` shows (``[3]:`` → ``3``; none: ``""``)."""
    text = str(cells(page).nth(index).locator(".jp-InputPrompt").first.inner_text())
    return "".join(c for c in text if c.isdigit())


def outputs_of(page: Any, index: int) -> str:
    area = cells(page).nth(index).locator(".jp-OutputArea")
    return str(area.inner_text()) if area.count() else ""


def shows(page: Any, index: int, text: str, timeout_s: float) -> bool:
    """Whether cell ``index``'s outputs show ``text`` within ``timeout_s`` (an output is
    rendered a moment after the kernel is idle)."""
    deadline = time.monotonic() + timeout_s
    while text not in outputs_of(page, index):
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(100)
    return True


@pytest.mark.parametrize("after", ["now", "reload", "restart"])
@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_undo_this_run_puts_back_the_old_source_and_its_old_output(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, app: str, after: str
) -> None:
    lab = shared_servers(app)
    name, _ = fresh(lab, f"undo-truth-{after}")
    tag = f"undo-truth-{app}-{after}-{time.monotonic_ns()}"
    calls = [
        {
            "tool": "edit_cell",
            "args": {"cell_id": "@3", "old_text": "regoin", "new_text": "region"},
        },
        {"tool": "insert_cell", "args": {"after_cell_id": "@3", "source": CHECK}},
        {"tool": "run_cells", "args": {"cell_ids": ["@3"]}},
    ]
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("data", "sales = {'region': ['north', 'south']}"),
         ("target", TYPO),
         ("prompt", f"%%dsh\n[[scenario:notebook-calls]] {json.dumps(calls)}\n({tag})")],
    )  # fmt: skip
    page = open_page(browser, lab, name, app)
    logs: list[str] = []
    page.on("console", lambda m: logs.append(f"{m.type}: {m.text}"[:400]))
    page.on("pageerror", lambda e: logs.append(f"pageerror: {e}"[:400]))
    for i in (0, 1, 2):
        run_cell(page, lab, name, i)
    if not shows(page, 2, "KeyError", 10):  # a key press the page missed: run it again
        run_cell(page, lab, name, 2)
    assert shows(page, 2, "KeyError", 20), outputs_of(page, 2)
    deadline = time.monotonic() + 15
    while not (count_before := prompt_of(page, 2)) and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # the count shows a moment after the output
    assert count_before, "the failing cell ran"

    run_cell(page, lab, name, 3)  # the %%dsh cell

    def decide(selector: str, index: int, results: int) -> list[str]:
        """Click ``selector`` on card ``index`` until the model has ``results`` results (a
        click the notebook's scrolling swallowed is made again, as a person would)."""
        click_card(page, selector, index)
        try:
            return wait_tool_results(model, tag, results, timeout=30)
        except AssertionError:
            if approval_card(page, index).locator(f"{selector}:not([disabled])").count():
                click_card(page, selector, index)
            return wait_tool_results(model, tag, results)

    decide(".dsh-allow-run", 0, 3)  # Apply edits for this run: the edit and the insert
    deadline = time.monotonic() + 60
    while page.locator(".dsh-approval").count() < 3:
        assert time.monotonic() < deadline, "no run_cells card"
        page.wait_for_timeout(100)
    found = decide(".dsh-allow", 2, 4)  # run the fixed cell
    assert found[3].startswith("Ran 1 cell(s) in the notebook (ok)"), found[3]
    wait_kernel_idle(lab, name)
    assert source_of(page, 2) == FIXED and source_of(page, 3) == CHECK
    assert shows(page, 2, "north", 20), outputs_of(page, 2)
    assert "KeyError" not in outputs_of(page, 2)
    deadline = time.monotonic() + 15
    while prompt_of(page, 2) in ("", count_before) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert prompt_of(page, 2) not in ("", count_before)  # the agent's run: a new count

    prompt_index = 4
    if after == "reload":

        def recorded(nb: dict[str, Any]) -> bool:
            meta = [c["metadata"].get("dsh_notebook", {}) for c in nb["cells"]]
            return any(m.get("undo") for m in meta)

        saved = save_notebook(page, lab, name, recorded, "the saved notebook keeps no undo record")
        target, inserted = saved["cells"][2]["metadata"], saved["cells"][3]["metadata"]
        # which run edited and which inserted which cell, and what undo needs
        (edit,) = target["dsh_notebook"]["undo"]
        assert edit["kind"] == "edit" and edit["before"] == TYPO, edit
        assert edit["run"] == target["dsh_notebook"]["edited"]["run"], target
        assert edit["execution_count"] == int(count_before), edit
        assert "KeyError" in json.dumps(edit["outputs"]), edit
        (insert,) = inserted["dsh_notebook"]["undo"]
        assert insert["kind"] == "insert" and insert["run"] == edit["run"], insert
        page.reload()
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        wait_kernel_idle(lab, name)
    elif after == "restart":
        menu_command(page, "Kernel", "Restart Kernel…")
        page.click(".jp-Dialog .jp-mod-accept")
        page.wait_for_timeout(2000)
        wait_kernel_idle(lab, name)

    anchor = cells(page).nth(prompt_index)
    anchor.scroll_into_view_if_needed()
    anchor.locator(".dsh-undo-run").click(timeout=30_000)
    shown = page.locator(".dsh-undo-result")  # the %%dsh cell moves up as the inserted cell goes
    try:
        shown.locator("text=reverted").wait_for(timeout=15_000)
    except Exception:
        raise AssertionError(
            f"undo said {shown.all_inner_texts()}; console: {logs[-20:]}"
        ) from None
    said = shown.inner_text()
    assert "2 changes reverted" in said, said
    if after == "restart":
        assert "the kernel's values are not restored" in said, said
    wait_source(page, 2, TYPO)
    assert cells(page).count() == 4, [source_of(page, i) for i in range(cells(page).count())]
    assert source_of(page, 3).startswith("%%dsh")
    # the cell tells the truth: the typo's own output and count, not the fix's
    shows(page, 2, "KeyError", 10)
    out = outputs_of(page, 2)
    assert "KeyError" in out and "north" not in out, out
    assert prompt_of(page, 2) == count_before

    if after == "now":  # one z brings the run's changes back, as one step
        command_mode(page, 0)
        page.keyboard.press("z")
        wait_source(page, 2, FIXED)
    page.close()
