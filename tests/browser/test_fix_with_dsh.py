"""Fix with dsh without a key (issue 47 item 3) in a real JupyterLab 4 and Notebook 7, in
chromium, with this checkout's extension build, a real kernel and runtime, and the demo analyst
on a scripted model server in this test process (it records every request).

- A cell with a typo'd column raised before the kernel loaded dsh_notebook: Ask dsh is offered,
  Fix with dsh is not (no page can apply an edit of a kernel that has no link); once the kernel
  loads it, Fix with dsh shows.
- Fix with dsh: the ``%%dsh`` cell below runs; the analyst's ``edit_cell`` shows as a diff card;
  nothing changes before the click; Apply changes the cell; the analyst's ``run_cells`` card
  follows; Allow runs the fixed cell in place (its output in the cell); the answer says it ran;
  "Undo this run" brings the typo back.
- Ask dsh and Fix with dsh keep their size beside the traceback; once the run settles, the
  prompt's traceback is folded in the cell's kept transcript (issue 48 item 7).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from dsh_notebook.analyst import ANALYST_SCENARIO, analyst_script
from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import SharedServers, write_notebook
from .labpage import (
    approval_card,
    cells,
    click_card,
    click_when_still,
    open_page,
    run_cell,
    setup_cell,
    shown_text,
    source_of,
    wait_shown,
    wait_source,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

DATA = (
    "import pandas as pd\n"
    "trips = pd.DataFrame({'station': ['A', 'B', 'A'], 'minutes': [10.0, 20.0, 15.0]})"
)
TYPO = 'trips.groupby("staton")["minutes"].mean().round(1).to_dict()'
FIXED = 'trips.groupby("station")["minutes"].mean().round(1).to_dict()'


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(
        scripts={ANALYST_SCENARIO: analyst_script()}, default_scenario=ANALYST_SCENARIO
    ) as server:
        yield server


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_fix_with_dsh_shows_the_diff_applies_runs_and_undoes(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, app: str
) -> None:
    lab = shared_servers(app)
    name = f"fix-{app}-{time.monotonic_ns()}.ipynb"
    write_notebook(
        lab.root / name,
        [("setup", setup_cell(model)), ("data", DATA), ("typo1a2b3c4d", TYPO)],
    )
    page = open_page(browser, lab, name, app)
    run_cell(page, lab, name, 1)
    run_cell(page, lab, name, 2)  # raises before the kernel loaded dsh_notebook
    typo = cells(page).nth(2)
    typo.locator(".dsh-nb-ask").wait_for(timeout=20_000)
    assert typo.locator(".dsh-nb-fix").count() == 1
    assert not typo.locator(".dsh-nb-fix").is_visible()  # no link: no page can apply an edit

    run_cell(page, lab, name, 0)  # the kernel loads dsh_notebook and links to the page
    fix = typo.locator(".dsh-nb-fix")
    wait_shown(page, fix, 30_000, "Fix with dsh did not show once the kernel linked")
    ask = typo.locator(".dsh-nb-ask").bounding_box()
    box = fix.bounding_box()
    assert ask is not None and box is not None
    assert box["height"] <= ask["height"] + 2, (box, ask)  # not stretched beside the traceback
    click_when_still(fix)
    pressed = time.monotonic()

    card = approval_card(page, 0)
    diff = card.locator(".dsh-diff")
    wait_shown(page, diff, 120_000, "no diff card for the analyst's edit_cell")
    print(f"\nFix with dsh -> diff card ({app}): {time.monotonic() - pressed:.1f} s")
    text = shown_text(diff, f"-{TYPO}", f"+{FIXED}")
    assert f"-{TYPO}" in text and f"+{FIXED}" in text, text
    assert source_of(page, 2) == TYPO  # nothing before the click
    assert source_of(page, 3).startswith("%%dsh\nFix the error in cell typo1a2b")
    clicked = click_card(page, ".dsh-allow", 0)
    wait_source(page, 2, FIXED)
    print(f"Apply -> cell changed ({app}): {time.monotonic() - clicked:.2f} s")

    run_card = approval_card(page, 1)
    wait_shown(page, run_card.locator(".dsh-allow"), 60_000, "no run_cells card after Apply")
    assert "run_cells" in run_card.inner_text()
    clicked = click_card(page, ".dsh-allow", 1)
    ran = typo.locator(".jp-OutputArea-output:has-text(\"{'A': 12.5, 'B': 20.0}\")")
    wait_shown(page, ran, 60_000, "the fixed cell did not run in place")
    print(f"Allow the run -> the cell's output ({app}): {time.monotonic() - clicked:.2f} s")
    answer = cells(page).nth(3).get_by_text("ran without an error with", exact=False)
    wait_shown(page, answer.first, 60_000, "no answer saying the cell ran")

    # settled: the prompt's traceback is folded in the kept transcript, its one line shows
    fold = cells(page).nth(3).locator("details:has(> summary:has-text('Traceback ('))")
    wait_shown(page, fold.first, 60_000, "the prompt's traceback is not folded once settled")
    assert fold.first.get_attribute("open") is None
    assert not fold.first.locator("pre").first.is_visible()
    assert cells(page).nth(3).get_by_text("Fix the error in cell typo1a2b").first.is_visible()

    undo = cells(page).nth(3).locator(".dsh-undo-run")
    wait_shown(page, undo, 30_000, "no Undo this run on the Fix with dsh cell")
    click_when_still(undo)
    wait_source(page, 2, TYPO)
    page.close()
