"""A card nobody can decide any more reads so (issue 48 item 4), in JupyterLab 4 and Notebook 7
with this checkout's extension build, a real kernel and the scripted demo model.

A run waits for an approval; the kernel is restarted from the Kernel menu. The run widget of
the old kernel becomes what the page had of its transcript (the kernel's ``live`` run output):
its card reads "not decided — the run was interrupted", never "awaiting a decision" or "waiting
for you", and its footer "interrupted", not "waiting · 0 s". The save that follows keeps the
same words (what nbconvert and GitHub show). Before, that copy was the live rendering: the dead
card still said it waited for the person.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import LAB_AND_NOTEBOOK7_TWIN, Lab, SharedServers, write_notebook
from .labpage import menu_command, new_page, open_notebook, run_all, save_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

INTERRUPTED = "not decided — the run was interrupted"
WAITING = ("awaiting a decision", "waiting for you", "waiting ·")


@pytest.fixture(scope="module")
def nb7(shared_servers: SharedServers) -> Lab:
    """This worker's shared Notebook 7 server."""
    return shared_servers("notebook")


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_a_card_left_waiting_by_a_kernel_restart_reads_not_decided(
    browser: Any, app: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    lab: Lab = request.getfixturevalue("extlab" if app == "lab" else "nb7")
    name = f"dead-card-{app}-{tmp_path.name}.ipynb"
    target = tmp_path / "never.txt"
    write_notebook(
        lab.root / name,
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it"],
    )
    page = new_page(browser, 1200)
    open_notebook(page, lab, name, app)
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)  # the card waits for the person
    page.wait_for_timeout(2500)  # a live transcript reaches the page at most every 2 s
    menu_command(page, "Kernel", "Restart Kernel…")
    page.click(".jp-Dialog .jp-mod-accept")
    stand_in = page.locator(".jp-RenderedMarkdown:has-text('the kernel restarted or changed')")
    stand_in.wait_for(timeout=60_000)
    shown = stand_in.inner_text()
    assert INTERRUPTED in shown, shown
    for words in WAITING:
        assert words not in shown, (words, shown)
    assert "interrupted · " in shown, shown  # the footer's state
    assert page.locator(".dsh-root").count() == 0 and not target.exists()

    def said(nb: dict[str, Any]) -> bool:
        return INTERRUPTED in json.dumps(nb["cells"][1]["outputs"], ensure_ascii=False)

    # the saved copy (what nbconvert and GitHub show) says the same
    saved = save_notebook(page, lab, name, said, "the saved output does not say 'not decided'")
    outputs = json.dumps(saved["cells"][1]["outputs"], ensure_ascii=False)
    for words in WAITING:
        assert words not in outputs, (words, outputs[:2000])
    page.close()
