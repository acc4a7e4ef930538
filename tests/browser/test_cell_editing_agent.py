"""The agent edits and runs the person's cells (issue 27) end to end: JupyterLab 4 (and Notebook 7)
in chromium, this checkout's extension build, a real kernel and runtime, and the scripted model
in this test process (``[[scenario:notebook-calls]]``: ``notebook_cells``, then each listed call;
the test reads every tool result the model received).

- An ``edit_cell`` by short id: the card shows the diff; after Apply the cell holds the new source
  (click-to-applied latency printed) and ``z`` brings the old one back; the model reads "Applied",
  the settled transcript "Edited cell 2 (2 + 2) — applied by you" (issue 48).
- A stale edit: the person types into the cell while another card waits; the edit is refused
  before any card is shown and the model gets the current source.
- Reject with a note reaches the model; ``insert_cell`` and ``delete_cell`` after Apply.
- ``run_cells`` runs two cells in place (outputs, counts) and returns their outputs; a slow cell is
  answered "still running" and is not interrupted.
- "Apply edits for this run" covers the next edits and not a ``run_cells``; "Undo this run"
  reverts the mixed run in one step and skips the cell the person changed.
- A reload while an edit card waits: the card comes back (pending, with its diff), nothing was
  applied by the reload, and one Apply changes the cell exactly once (one "Applied" result).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import LAB_AND_NOTEBOOK7_TWIN, Lab, SharedServers, write_notebook
from .labpage import (
    approval_card,
    cells,
    click_card,
    click_when_still,
    command_mode,
    fresh,
    open_page,
    run_cell,
    setup_cell,
    shown_text,
    source_of,
    tool_results,
    wait_kernel_idle,
    wait_source,
    wait_tool_results,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def lab(extlab: Lab) -> Lab:
    return extlab


def prompt(calls: list[dict[str, Any]], tag: str) -> str:
    return f"%%dsh\n[[scenario:notebook-calls]] {json.dumps(calls)}\n({tag})"


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_an_edit_by_id_shows_its_diff_applies_on_apply_and_z_restores_it(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, app: str
) -> None:
    name = "edit.ipynb"
    tag = f"edit-{app}-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "1 + 1", "new_text": "2 + 2"}}
    ]
    lab = shared_servers(app)
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("target", "y = 1 + 1\nprint(y)"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name, app)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 2)
    diff = approval_card(page).locator(".dsh-diff")
    diff.wait_for(timeout=120_000)
    text = shown_text(diff, "-y = 1 + 1", "+y = 2 + 2")
    assert "-y = 1 + 1" in text and "+y = 2 + 2" in text, text
    assert source_of(page, 1) == "y = 1 + 1\nprint(y)"  # nothing before the click
    clicked = click_card(page, ".dsh-allow")
    deadline = time.monotonic() + 15
    while source_of(page, 1) != "y = 2 + 2\nprint(y)":
        assert time.monotonic() < deadline, source_of(page, 1)
        page.wait_for_timeout(20)
    print(f"\nApply click -> cell source changed ({app}): {time.monotonic() - clicked:.3f} s")
    found = wait_tool_results(model, tag, 2)
    assert found[1].startswith("Applied: Edited cell 2 · id target"), found[1]
    # the settled transcript says it in words (issue 48 item 1): one line, the diff folded
    # under it, no JSON arguments, and the run's one line of what it changed
    said = page.locator(".jp-RenderedMarkdown:has-text('Edited cell 2 (2 + 2) — applied by you')")
    said.first.wait_for(timeout=60_000)
    shown = said.first.inner_text()
    assert "Edited 1 cell — Undo this run" in shown and "Tool edit_cell" not in shown, shown

    command_mode(page, 0)
    page.keyboard.press("z")
    wait_source(page, 1, "y = 1 + 1\nprint(y)")
    page.close()


def test_a_stale_edit_is_refused_before_any_card(
    browser: Any, lab: Lab, model: ScriptedModelServer
) -> None:
    name, _ = fresh(lab, "stale")
    tag = f"stale-{time.monotonic_ns()}"
    calls = [
        {"tool": "run_cells", "args": {"cell_ids": ["@3"]}},
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "1 + 1", "new_text": "2 + 2"}},
    ]
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("target", "y = 1 + 1"), ("other", "print('other ran')"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 3)
    approval_card(page).locator(".dsh-cell-list, .dsh-actions").first.wait_for(timeout=120_000)
    # while the run_cells card waits, the person types into the cell the model read
    cells(page).nth(1).locator(".jp-InputArea-editor").click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    page.keyboard.press("Escape")
    wait_kernel_idle(lab, name)
    page.wait_for_timeout(1000)
    click_card(page, ".dsh-allow")
    found = wait_tool_results(model, tag, 3)
    assert found[1].startswith("Ran 1 cell(s) in the notebook (ok)"), found[1]
    assert (
        "edit_cell refused before asking the user: the cell changed since you last read"
        in (found[2].splitlines()[0])
    ), found[2]
    assert "y = 1 + 1  # mine" in found[2]  # the current source, to try again
    # no card for it, live or in the settled transcript
    for _ in range(10):
        assert page.locator(".dsh-approval:has-text('edit_cell')").count() == 0
        assert "Approval needed: edit_cell" not in cells(page).nth(3).inner_text()
        page.wait_for_timeout(150)
    assert source_of(page, 1) == "y = 1 + 1  # mine"
    page.locator(".jp-OutputArea-output:has-text('other ran')").first.wait_for(timeout=10_000)
    page.close()


def test_reject_with_a_note_reaches_the_model_then_insert_and_delete(
    browser: Any, lab: Lab, model: ScriptedModelServer
) -> None:
    name, _ = fresh(lab, "insdel")
    tag = f"insdel-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "1", "new_text": "2"}},
        {"tool": "insert_cell",
         "args": {"after_cell_id": "@2", "source": "## Notes", "cell_type": "markdown"}},
        {"tool": "delete_cell", "args": {"cell_id": "@3"}},
    ]  # fmt: skip
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("keep", "a = 1"), ("drop", "scratch = 0"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 3)
    click_card(page, ".dsh-reject-note-open")
    approval_card(page).locator(".dsh-reject-note-field").fill("keep a = 1, it is the baseline")
    click_when_still(approval_card(page).locator(".dsh-reject-note-send"))
    click_card(page, ".dsh-allow", 1)  # the insert
    deadline = time.monotonic() + 15
    while cells(page).count() != 5:
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)
    click_card(page, ".dsh-allow", 2)  # the delete
    found = wait_tool_results(model, tag, 4)
    assert "keep a = 1, it is the baseline" in found[1], found[1]
    assert found[2].startswith("Applied: Inserted cell 3"), found[2]
    assert found[3].startswith("Applied: deleted cell"), found[3]
    deadline = time.monotonic() + 15
    while cells(page).count() != 4:
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)
    assert source_of(page, 1) == "a = 1"
    assert "Notes" in cells(page).nth(2).inner_text()
    assert source_of(page, 3).startswith("%%dsh"), source_of(page, 3)
    page.close()


def test_run_cells_runs_two_cells_in_place_and_a_slow_one_answers_still_running(
    browser: Any, lab: Lab, model: ScriptedModelServer
) -> None:
    name, _ = fresh(lab, "runs")
    tag = f"runs-{time.monotonic_ns()}"
    calls = [
        {"tool": "run_cells", "args": {"cell_ids": ["@2", "@3"]}},
        {"tool": "run_cells", "args": {"cell_ids": ["@4"], "timeout_s": 2}},
    ]
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("one", "print('one ran')"), ("two", "x = 40 + 2\nx"),
         ("slow", "import time\ntime.sleep(12)\nprint('slow done')"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 4)
    listed = approval_card(page).inner_text()
    click_card(page, ".dsh-allow")
    assert "print('one ran')" in listed and "x = 40 + 2" in listed, listed
    found = wait_tool_results(model, tag, 2)
    assert found[1].startswith("Ran 2 cell(s) in the notebook (ok, ok)"), found[1]
    assert "one ran" in found[1] and "42" in found[1]
    assert "one ran" in cells(page).nth(1).locator(".jp-OutputArea").inner_text()
    assert "42" in cells(page).nth(2).locator(".jp-OutputArea").inner_text()
    for i in (1, 2):
        assert any(c.isdigit() for c in cells(page).nth(i).locator(".jp-InputPrompt").inner_text())

    click_card(page, ".dsh-allow", 1)
    started = time.monotonic()
    found = wait_tool_results(model, tag, 3)
    assert "still running" in found[2], found[2]
    assert time.monotonic() - started < 11, "the answer waited for the slow cell"
    page.locator(".jp-OutputArea-output:has-text('slow done')").wait_for(timeout=30_000)
    assert "KeyboardInterrupt" not in cells(page).nth(3).inner_text()
    page.close()


def test_edits_for_this_run_then_undo_this_run_skips_the_persons_cell(
    browser: Any, lab: Lab, model: ScriptedModelServer
) -> None:
    name, _ = fresh(lab, "undo")
    tag = f"undo-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "1", "new_text": "10"}},
        {"tool": "edit_cell", "args": {"cell_id": "@3", "old_text": "2", "new_text": "20"}},
        {"tool": "insert_cell", "args": {"after_cell_id": "@4", "source": "d = 4"}},
        {"tool": "delete_cell", "args": {"cell_id": "@4"}},
        {"tool": "run_cells", "args": {"cell_ids": ["@2"]}},
    ]
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("a", "a = 1"), ("b", "b = 2"), ("c", "c = 3"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 4)
    click_card(page, ".dsh-allow-run")  # Apply edits for this run: the first edit and the next three
    found = wait_tool_results(model, tag, 5)
    assert all(f.startswith("Applied:") for f in found[1:5]), found
    # the edits after the first were decided by the scope; run_cells asks on a card of its own
    run_card = approval_card(page, -1)
    run_card.locator(".dsh-allow:not([disabled])").wait_for(timeout=60_000)
    assert page.locator(".dsh-approval").count() == 5
    for i in (1, 2, 3):
        assert "for this run" in approval_card(page, i).inner_text(), approval_card(page, i).inner_text()
        assert approval_card(page, i).locator("button.dsh-allow").count() == 0
    click_card(page, ".dsh-reject", -1)
    wait_tool_results(model, tag, 6)
    sources = [source_of(page, i) for i in range(cells(page).count())]
    assert sources[1:4] == ["a = 10", "b = 20", "d = 4"], sources

    # the person changes one edited cell; Undo this run reverts the rest as one step
    cells(page).nth(2).locator(".jp-InputArea-editor").click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    page.keyboard.press("Escape")
    prompt_cell = cells(page).nth(4)
    prompt_cell.locator(".dsh-undo-run").click()
    shown = prompt_cell.locator(".dsh-undo-result")
    shown.locator("text=reverted").wait_for(timeout=15_000)
    assert "3 changes reverted, 1 skipped" in shown.inner_text(), shown.inner_text()
    sources = [source_of(page, i) for i in range(cells(page).count())]
    assert sources[1:4] == ["a = 1", "b = 20  # mine", "c = 3"], sources
    command_mode(page, 0)
    page.keyboard.press("z")  # one step back: the run's changes are there again
    wait_source(page, 1, "a = 10")
    page.close()


@pytest.mark.parametrize("saved", [True, False], ids=["saved", "unsaved"])
def test_a_reload_with_an_edit_card_pending_brings_the_card_back_and_applies_once(
    browser: Any, lab: Lab, model: ScriptedModelServer, saved: bool
) -> None:
    """Saved first (the widget output on disk, as autosave leaves it) or not (the output is
    lost with the page; the live run brings the card back)."""
    name, _ = fresh(lab, "reload")
    tag = f"reload-{time.monotonic_ns()}"
    calls = [
        {"tool": "edit_cell",
         "args": {"cell_id": "@2", "old_text": "print(y)", "new_text": "print(y)  # once"}},
    ]  # fmt: skip
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("target", "y = 1\nprint(y)"),
         ("prompt", prompt(calls, tag))],
    )  # fmt: skip
    page = open_page(browser, lab, name)
    run_cell(page, lab, name, 0)
    run_cell(page, lab, name, 2)
    approval_card(page).locator(".dsh-diff").wait_for(timeout=120_000)
    if saved:
        command_mode(page, 0)
        page.keyboard.press("Control+s")
        page.locator(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)").wait_for(timeout=30_000)

    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    diff = approval_card(page).locator(".dsh-diff")
    diff.wait_for(timeout=60_000)  # the card is back, pending, with its diff
    text = shown_text(diff, "-print(y)", "+print(y)  # once")
    assert "-print(y)" in text and "+print(y)  # once" in text, text
    assert source_of(page, 1) == "y = 1\nprint(y)"  # nothing applied by the reload
    assert len(tool_results(model, tag)) == 1  # the model still waits for the edit's result
    click_card(page, ".dsh-allow")
    wait_source(page, 1, "y = 1\nprint(y)  # once")
    found = wait_tool_results(model, tag, 2)
    assert found[1].startswith("Applied: Edited cell 2 · id target"), found[1]
    page.wait_for_timeout(3000)  # a second application would land by now
    assert source_of(page, 1) == "y = 1\nprint(y)  # once"
    found = tool_results(model, tag)  # one result for the call, one "Applied"
    assert len(found) == 2 and sum(f.startswith("Applied:") for f in found) == 1, found
    page.close()
