"""Issue 43, items 3 and 11, on a real page (JupyterLab 4 and Notebook 7) with a real kernel and
runtime and the scripted model in this test process (``[[scenario:notebook-calls]]``).

- Item 3: after one "Apply edits for this run", the next edit appends a line to a cell the person
  ran, without a card (the scope); the ``run_cells`` card then shows that cell whole, the appended
  line marked as added since it ran and the lines that ran unmarked (the kernel compares the
  page's source with IPython's ``In [k]`` for the count the page shows).
- Item 11: "dsh: Go to the next waiting request" (Alt+Shift+D) focuses the edit card's diff, not
  Apply: one more Enter applies nothing; Tab then reaches Apply, and Enter there applies.
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
    fresh,
    open_page,
    run_cell,
    setup_cell,
    source_of,
    tool_results,
    wait_source,
    wait_tool_results,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

INJECTED = "import os; os.system('echo injected')"


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def prompt(calls: list[dict[str, Any]], tag: str) -> str:
    return f"%%dsh\n[[scenario:notebook-calls]] {json.dumps(calls)}\n({tag})"


def active(page: Any, selector: str) -> None:
    """Until the focused element matches ``selector``; else fail naming the focused element."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "s => document.activeElement !== null && document.activeElement.matches(s)",
            arg=selector,
            timeout=10_000,
            polling=100,
        )
    except PlaywrightTimeout:
        focused = page.evaluate(
            "() => { const e = document.activeElement; return e && [e.tagName, e.className,"
            " (e.textContent || '').slice(0, 80)]; }"
        )
        raise AssertionError(f"the focus is on {focused}, not {selector}") from None


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_a_run_cells_card_shows_the_line_an_edit_for_this_run_appended(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, app: str
) -> None:
    lab = shared_servers(app)
    name, _ = fresh(lab, f"runsee-{app}")
    tag = f"runsee-{app}-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "a = 1", "new_text": "a = 2"}},
        {"tool": "edit_cell",
         "args": {"cell_id": "@3", "old_text": "print(x)", "new_text": f"print(x)\n{INJECTED}"}},
        {"tool": "run_cells", "args": {"cell_ids": ["@3"]}},
    ]  # fmt: skip
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("first", "a = 1"), ("target", "x = 1\nprint(x)"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name, app)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 2)  # the person ran the cell: what it ran is on record
    run_cell(page, lab, name, 3)
    click_card(page, ".dsh-allow-run")  # Apply edits for this run: the next edit asks nobody
    card = approval_card(page, -1)
    card.locator(".dsh-cell-list").wait_for(timeout=120_000)  # the run_cells card
    wait_source(page, 2, f"x = 1\nprint(x)\n{INJECTED}")  # applied without a card of its own
    assert "for this run" in approval_card(page, 1).inner_text()
    shown = card.inner_text()
    assert INJECTED in shown, f"the run_cells card does not show what will run: {shown!r}"
    changed = card.locator(".dsh-cell-changed")
    assert changed.count() == 1, shown
    head = changed.locator(".dsh-cell-list-head").inner_text()
    assert "changed since it ran: 1 line added, 0 removed" in head, head
    lines = changed.locator(".dsh-diff-line").evaluate_all(
        "ls => ls.map(l => [l.className.replace('dsh-diff-line dsh-diff-', ''), l.textContent])"
    )
    assert lines == [["ctx", " x = 1"], ["ctx", " print(x)"], ["add", f"+{INJECTED}"]], lines
    assert card.locator(".dsh-diff-add").is_visible()
    click_card(page, ".dsh-reject", -1)  # nothing of it runs here
    found = wait_tool_results(model, tag, 4)
    assert "rejected this run_cells call" in found[3], found[3]
    page.close()


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_go_to_the_next_waiting_request_focuses_the_diff_and_apply_is_one_tab_away(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, app: str
) -> None:
    lab = shared_servers(app)
    name, _ = fresh(lab, f"focus-{app}")
    tag = f"focus-{app}-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "1 + 1", "new_text": "2 + 2"}}
    ]
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("target", "y = 1 + 1"), ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name, app)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 2)
    approval_card(page).locator(".dsh-allow:not([disabled])").wait_for(timeout=120_000)
    cells(page).nth(0).locator(".jp-InputPrompt").click()  # the person is elsewhere
    page.keyboard.press("Escape")
    page.keyboard.press("Alt+Shift+D")
    active(page, ".dsh-approval .dsh-diff[data-dsh-read]")
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label and "change" in label, label
    page.keyboard.press("Enter")  # decides nothing: it is the diff, not Apply
    page.wait_for_timeout(1500)
    assert source_of(page, 1) == "y = 1 + 1"
    assert approval_card(page).locator(".dsh-allow:not([disabled])").count() == 1
    assert len(tool_results(model, tag)) == 1  # notebook_cells only: the edit still waits
    active(page, ".dsh-approval .dsh-diff[data-dsh-read]")  # still there
    page.keyboard.press("Tab")
    active(page, ".dsh-approval .dsh-actions button.dsh-allow")
    assert page.evaluate("() => document.activeElement.textContent") == "Apply"
    page.keyboard.press("Enter")  # now, read and chosen: applied
    wait_source(page, 1, "y = 2 + 2")
    found = wait_tool_results(model, tag, 2)
    assert found[1].startswith("Applied: Edited cell 2"), found[1]
    page.close()
