"""The plan card, live, in a real JupyterLab and Notebook 7 (Chromium) with the real runtime and
the demo model's built-in ``plan-review`` scenario (no key): a ``%%dsh --plan`` run's
``exit_plan_mode`` review shows as a plan card, the plan rendered as markdown (heading, list,
table), answered with Approve / Keep planning / Reject with a note; Approve lets the run go on
and the saved transcript keeps the plan under the answered question (issue 46 item 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model.builtin import PLAN_REVIEW_DONE

from .conftest import LAB_AND_NOTEBOOK7_TWIN, SharedServers, write_notebook
from .labpage import open_notebook, run_all

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_the_plan_review_is_a_plan_card_and_approve_goes_on(
    browser: Any, shared_servers: SharedServers, artifacts: Path, app: str
) -> None:
    server = shared_servers(app)
    name = f"plan-review-{app}.ipynb"
    write_notebook(
        server.root / name,
        ["%load_ext dsh_notebook", "%%dsh --plan\n[[scenario:plan-review]] plan the sales plot"],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    open_notebook(page, server, name, app=app)
    run_all(page)
    card = page.locator(".dsh-root .dsh-question.dsh-plan-review").first
    card.wait_for(timeout=90_000)
    assert card.locator(".dsh-card-title").inner_text() == "The agent's plan"
    body = card.locator(".dsh-plan-review-body")
    assert body.locator("h1").inner_text() == "Plot the sales"
    assert body.locator("ol li").all_inner_texts() == ["Read sales.csv", "Plot revenue by month"]
    assert body.locator("strong").inner_text() == "sales.csv"
    assert body.locator("table td code").inner_text() == "pandas"
    assert card.locator(".dsh-actions button").all_inner_texts() == [
        "Approve",
        "Keep planning",
        "Reject with a note",
    ]
    page.screenshot(path=str(artifacts / f"plan-review-live-{app}.png"))
    card.locator(".dsh-plan-approve").click()
    # the run goes on: the model's next reply, then the saved transcript with the answer and plan
    saved = page.locator(f".jp-RenderedMarkdown:has-text('{PLAN_REVIEW_DONE}')")
    saved.first.wait_for(timeout=90_000)
    text = saved.first.inner_text()
    assert "Approve this plan and leave plan mode?" in text
    assert "Approve" in text.split("Approve this plan and leave plan mode?", 1)[1]
    assert "Plot the sales" in text  # the plan, kept under the question
    page.screenshot(path=str(artifacts / f"plan-review-saved-{app}.png"))
    page.close()
