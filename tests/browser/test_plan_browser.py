"""The agent's plan, live, in a real JupyterLab and Notebook 7 (Chromium) with the real runtime
and the demo model's built-in ``plan`` scenario (no key): one checklist under the prompt that
updates in place as the agent's ``todo_write`` calls come, pinned (sticky) while the run works;
after the run the saved transcript keeps it as a task list (issue 46 item 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import LAB_AND_NOTEBOOK7_TWIN, SharedServers, write_notebook
from .labpage import open_notebook, run_all

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_the_plan_is_one_live_checklist_then_a_task_list(
    browser: Any, shared_servers: SharedServers, artifacts: Path, app: str
) -> None:
    server = shared_servers(app)
    name = f"plan-{app}.ipynb"
    write_notebook(
        server.root / name,
        ["%load_ext dsh_notebook", "%%dsh\n[[scenario:plan]] [[plan-delay:3]] plan it"],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    open_notebook(page, server, name, app=app)
    run_all(page)
    plan = page.locator(".dsh-root .dsh-plan:not([hidden])").first
    counts = plan.locator(".dsh-plan-counts")
    counts.wait_for(timeout=90_000)
    assert counts.inner_text() == "0 of 3 done · 1 in progress · 2 pending"
    assert plan.evaluate("el => getComputedStyle(el).position") == "sticky"  # pinned while live
    plan.evaluate("el => { el.dataset.probe = 'first' }")  # the same card must be updated
    page.screenshot(path=str(artifacts / f"plan-live-{app}.png"))
    page.wait_for_function(
        "() => document.querySelector('.dsh-plan-counts')?.textContent"
        " === '1 of 3 done · 1 in progress · 1 pending'",
        timeout=60_000,
        polling=100,
    )
    assert plan.get_attribute("data-probe") == "first"
    statuses = plan.locator("li").evaluate_all("els => els.map(e => e.dataset.status)")
    assert statuses == ["completed", "in_progress", "pending"]
    assert page.locator(".dsh-root .dsh-plan:not([hidden])").count() == 1
    # settled: the static transcript keeps the last state as a task list under the prompt
    saved = page.locator(".jp-RenderedMarkdown:has-text('1 of 3 done')")
    saved.first.wait_for(timeout=60_000)
    text = saved.first.inner_text()
    assert "Plan · 1 of 3 done · 1 in progress · 1 pending" in text
    assert saved.first.locator("input[type=checkbox]").count() >= 3
    page.screenshot(path=str(artifacts / f"plan-saved-{app}.png"))
    page.close()
