"""A run's output survives the page: reloads, a second page, a reopen after the kernel is gone.

JupyterLab 4 with this checkout's extension build, a real kernel and the scripted demo model (no
key: the kernel starts it itself).

- Reloaded while an approval holds the run, a second page opened, the approval clicked there
  while the first page reloads again (the run settles while that page has no connection): every
  page shows the transcript, and the saved file holds it. Before ``comm_routing``, the reloaded
  page's ``hello_reply`` went to the subshell of a page that was gone and was lost. A reloaded page does not
  know the output's display_id, so only the extension (``run_output`` settled) can freeze it.
- A pending approval card comes back after a reload and still takes the click.
- Saved mid-run, the kernel shut down, the notebook reopened: the output reads the transcript so
  far, marked interrupted, never "Error displaying widget: model not found".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import LAB_AND_NOTEBOOK7_TWIN, Lab, SharedServers, write_notebook
from .labpage import (
    click_when_still,
    goto_notebook,
    menu_command,
    new_page,
    open_notebook,
    run_all,
    saved_notebook,
    wait_notebook,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SLOW = "%%dsh\n[[scenario:slow]] [[chunks:40]] [[chunk-delay:0.2]] tell me slowly"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def nb7(shared_servers: SharedServers) -> Lab:
    """This worker's shared Notebook 7 server."""
    return shared_servers("notebook")


def wait_live_text(page: Any, needle: str, timeout: float = 90_000) -> None:
    page.wait_for_function(
        "(needle) => [...document.querySelectorAll('.dsh-root .dsh-text')]"
        ".some(t => t.textContent.includes(needle))",
        arg=needle,
        timeout=timeout,
        polling=100,
    )


def save(page: Any) -> None:
    page.click(".jp-Notebook")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    page.locator(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)").wait_for(timeout=30_000)


def saved_outputs(lab: Lab, name: str, cell: int) -> list[dict[str, Any]]:
    content = lab.api(f"/api/contents/{name}?content=1")["content"]
    return list(content["cells"][cell]["outputs"])


def wait_saved(lab: Lab, name: str, cell: int, check: Any, what: str) -> list[dict[str, Any]]:
    """The saved outputs of cell ``cell`` once ``check(outputs)`` holds."""
    content = saved_notebook(lab, name, lambda nb: check(nb["cells"][cell]["outputs"]), what)
    return list(content["cells"][cell]["outputs"])


def test_reloads_and_a_second_page_end_with_the_transcript(
    browser: Any, extlab: Lab, tmp_path: Path
) -> None:
    """The run is held by an approval (not by timing): reloaded while it waits, a second page
    opened, then Allow clicked on the second page while the first one reloads, so the run
    settles while that page has no kernel connection. Every page ends with the transcript."""
    name = "reload.ipynb"
    target = tmp_path / "reloaded.txt"
    write_notebook(
        extlab.root / name,
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it"],
    )
    page = new_page(browser, 1200)
    open_notebook(page, extlab, name)
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    save(page)  # what a reload finds on disk: the widget output (autosave does the same)
    wait_saved(
        extlab,
        name,
        1,
        lambda o: any(WIDGET_MIME in x.get("data", {}) for x in o),
        "no widget saved",
    )

    page.reload()
    wait_notebook(page, extlab, name)
    page.locator(".dsh-allow").wait_for(timeout=60_000)  # the live widget is back
    second = new_page(browser, 1200)  # another page on the same notebook, opened mid-run
    goto_notebook(second, extlab, name)
    allow = second.locator(".dsh-allow")
    allow.wait_for(timeout=60_000)
    second.wait_for_timeout(600)  # inert for 0.5 s after appearing
    click_when_still(allow)
    page.reload()  # the run settles while this page reloads
    wait_notebook(page, extlab, name)

    for p in (page, second):
        p.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=90_000)
        assert p.locator(".dsh-root").count() == 0, "a closed widget is left in the cell"
        text = p.locator(".jp-Notebook").inner_text()
        assert "model not found" not in text
        assert "interrupted" not in text
    assert target.exists()
    second.close()
    save(page)
    outputs = wait_saved(
        extlab, name, 1, lambda o: "allowed once" in json.dumps(o), "the transcript was not saved"
    )
    assert not any(WIDGET_MIME in x.get("data", {}) for x in outputs), outputs
    assert "in progress" not in json.dumps(outputs)  # settled: no interrupted note
    page.close()


def test_a_pending_approval_comes_back_after_a_reload(
    browser: Any, extlab: Lab, tmp_path: Path
) -> None:
    name = "approve.ipynb"
    target = tmp_path / "allowed.txt"
    write_notebook(
        extlab.root / name,
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it"],
    )
    page = new_page(browser, 1200)
    open_notebook(page, extlab, name)
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    save(page)
    page.reload()
    wait_notebook(page, extlab, name)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=60_000)  # the card is back
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    assert not target.exists()
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    assert page.locator(".dsh-root").count() == 0
    page.close()


def test_saved_mid_run_and_reopened_without_the_kernel_reads_interrupted(
    browser: Any, extlab: Lab
) -> None:
    name = "interrupted.ipynb"
    write_notebook(extlab.root / name, ["%load_ext dsh_notebook", SLOW])
    page = new_page(browser, 1200)
    open_notebook(page, extlab, name)
    run_all(page)
    wait_live_text(page, "slow8")
    page.wait_for_timeout(2500)  # a live transcript reaches the page at most every 2 s
    save(page)
    saved = wait_saved(
        extlab, name, 1, lambda o: "slow8" in json.dumps(o), "no transcript saved with the widget"
    )
    assert "slow39" not in json.dumps(saved)
    page.wait_for_timeout(500)
    assert page.locator(".dsh-root").count() == 1, "the save re-rendered the live widget"
    page.close()
    for session in extlab.api("/api/sessions"):
        if session["path"] == name:  # the kernel is gone, with the run and its widget model
            extlab.api(f"/api/sessions/{session['id']}", method="DELETE")

    page = new_page(browser, 1200)
    goto_notebook(page, extlab, name)
    note = page.locator(".jp-RenderedMarkdown:has-text('saved while the run was in progress')")
    note.wait_for(timeout=60_000)
    assert "slow8" in note.inner_text()
    page.wait_for_timeout(1000)
    text = page.locator(".jp-Notebook").inner_text()
    assert "model not found" not in text, text
    assert page.locator(".dsh-root").count() == 0
    page.close()


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_an_unsaved_reload_puts_the_run_back_in_its_cell(
    browser: Any, app: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Reloaded before the notebook was ever saved with the run's output: the cell is empty on
    disk. The live widget comes back (its card takes the click), and after it settles another
    unsaved reload shows the transcript. JupyterLab 4 and Notebook 7."""
    extlab: Lab = request.getfixturevalue("extlab" if app == "lab" else "nb7")
    name = f"unsaved-{app}.ipynb"
    target = tmp_path / "unsaved.txt"
    write_notebook(
        extlab.root / name,
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it"],
    )
    page = new_page(browser, 1200)
    open_notebook(page, extlab, name, app)
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    assert not saved_outputs(extlab, name, 1)  # never saved with the run

    page.reload()
    wait_notebook(page, extlab, name)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=60_000)  # the widget is back in the empty cell
    page.wait_for_timeout(600)
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    assert not saved_outputs(extlab, name, 1)

    page.reload()
    wait_notebook(page, extlab, name)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert page.locator(".dsh-root").count() == 0
    page.close()


def test_a_kernel_restart_in_the_same_page_reads_interrupted(browser: Any, extlab: Lab) -> None:
    """A restart keeps the page's kernel connection (no kernel change): the run widget of the
    old kernel becomes what the page had of its transcript, marked interrupted."""
    name = "restart.ipynb"
    write_notebook(extlab.root / name, ["%load_ext dsh_notebook", SLOW.replace("40", "400")])
    page = new_page(browser, 1200)
    open_notebook(page, extlab, name)
    run_all(page)
    wait_live_text(page, "slow3")
    page.wait_for_timeout(2500)  # a live transcript reaches the page at most every 2 s
    menu_command(page, "Kernel", "Restart Kernel…")
    page.click(".jp-Dialog .jp-mod-accept")
    stand_in = page.locator(".jp-RenderedMarkdown:has-text('the kernel restarted or changed')")
    stand_in.wait_for(timeout=60_000)
    assert "slow3" in stand_in.inner_text()
    assert page.locator(".dsh-root").count() == 0
    assert "model not found" not in page.locator(".jp-Notebook").inner_text()
    page.close()
