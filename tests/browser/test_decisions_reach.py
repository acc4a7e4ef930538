"""Decisions reach the run that asked, and waiting cards come back (issue 24, items 3 and 7).

Real JupyterLab 4 / Notebook 7 servers on 127.0.0.1 with this checkout's extension build, a real
kernel and runtime, the scripted demo model (no key), Debian's chromium.

- A second page on the same kernel that has no handler for our comms (Notebook 7's file-browser
  tab keeps the kernel connection it made for New → Python 3): it answers every ``comm_open``
  with ``comm_close``, which used to close the run widget's comm and the frontend link in the
  kernel for every page. Allow once then stayed "sent…", the request stayed pending and the
  waiting button hidden. Shown with a real services ``KernelConnection`` without comm targets
  in a second page (deterministic), and with the real Notebook 7 New → Python 3 flow.
- The same page, connected after ``%load_ext`` opened the link but before the run: only the
  widget's comm was closed, so the toolbar said "dsh: 1 waiting" while, after save + reload,
  the page found no such widget in the kernel and froze the run as "interrupted" with
  "awaiting a decision" as static text and no buttons (item 7, second bullet). The card must
  come back and take the click.
- An unsaved reload removes the ``%%dsh`` cell whose approval still waits: the waiting button
  says the cell is gone and names ``%dsh allow ID``, which answers it (item 7, third bullet).
- Run All with two ``%%dsh`` cells on one session: the card, the waiting button's target and
  the agent cell belong to the first cell (item 3).

Each fails on the code before its fix (items 7: the parent of the first fix; item 3: the parent
of the run registry, 08f47b6).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LAB_AND_NOTEBOOK7_TWIN, Lab, write_notebook
from .labpage import (
    click_when_still,
    lab_with_extension,
    new_page,
    open_notebook,
    run_all,
    save_notebook,
    source_of,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

EXPOSE = {"lab": "--LabApp.expose_app_in_browser=True",
          "notebook": "--JupyterNotebookApp.expose_app_in_browser=True"}  # fmt: skip


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Lab]]:
    started: dict[str, Lab] = {}
    with (
        lab_with_extension(tmp_path_factory.mktemp("reach-lab"), "lab", [EXPOSE["lab"]]) as lab,
        lab_with_extension(
            tmp_path_factory.mktemp("reach-nb7"), "notebook", [EXPOSE["notebook"]]
        ) as nb7,
    ):
        started["lab"], started["notebook"] = lab, nb7
        yield started


def kernel_of(lab: Lab, name: str) -> dict[str, Any]:
    sessions = [s for s in lab.api("/api/sessions") if s["path"] == name]
    assert sessions, f"no session for {name}"
    return dict(sessions[0]["kernel"])


def connect_bare_page(browser: Any, lab: Lab, app: str, kernel: dict[str, Any]) -> Any:
    """A second page of the same server holding a services ``KernelConnection`` to ``kernel``
    with no comm targets registered: what Notebook 7's file-browser tab holds after New → Python 3.
    Returns the page; ``window.__bare`` counts the comm_opens it refused."""
    page = new_page(browser, 1200)
    page.goto(f"{lab.url}/{'lab' if app == 'lab' else 'tree'}?token={lab.token}")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.serviceManager", timeout=60_000,
        polling=100,
    )
    page.evaluate(
        """async ({id, name}) => {
            const kernels = window.jupyterapp.serviceManager.kernels;
            await kernels.ready;
            const connection = kernels.connectTo({model: {id, name}});
            window.__bare = {refused: 0, seen: [], connection};
            connection.anyMessage.connect((_, {msg, direction}) => {
                window.__bare.seen.push(direction + ':' + msg.header.msg_type);
                if (direction === 'recv' && msg.header.msg_type === 'comm_open') {
                    window.__bare.refused += 1;
                }
            });
            await new Promise((resolve) => {
                const check = () => connection.connectionStatus === 'connected'
                    ? resolve(null) : setTimeout(check, 100);
                check();
            });
        }""",
        {"id": kernel["id"], "name": kernel["name"]},
    )
    return page


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_a_second_page_without_our_comms_does_not_swallow_the_decision(
    browser: Any, servers: dict[str, Lab], app: str, tmp_path: Path
) -> None:
    """The bare page is connected before the run opens its widget and the waiting link, so it
    gets (and refuses) their comm_opens. The notebook still shows "dsh: 1 waiting", the click
    reaches the kernel, the command runs and the transcript says "allowed once"."""
    lab = servers[app]
    name = f"second-page-{app}.ipynb"
    target = tmp_path / "allowed.txt"
    write_notebook(
        lab.root / name,
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it"],
    )
    page = new_page(browser, 1200)
    open_notebook(page, lab, name, app)
    bare = connect_bare_page(browser, lab, app, kernel_of(lab, name))
    run_all(page)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=90_000)
    seen = bare.evaluate("() => window.__bare.seen")
    assert bare.evaluate("() => window.__bare.refused") >= 1, seen  # it refused comm_opens
    assert "send:comm_close" in seen, seen
    waiting = page.locator("button.dsh-waiting-toolbar")
    waiting.wait_for(state="visible", timeout=30_000)
    assert waiting.inner_text() == "dsh: 1 waiting"
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    waiting.wait_for(state="hidden", timeout=30_000)
    bare.close()
    page.close()


def test_notebook7_new_python3_from_the_file_browser_keeps_its_decisions(
    browser: Any, servers: dict[str, Lab], tmp_path: Path
) -> None:
    """The person's own flow: the file browser's New → Python 3 opens the notebook in a new
    tab and the file-browser tab stays open (whether its kernel connection outlives the
    document it made depends on timing; when it does, it refused our comm_opens)."""
    lab = servers["notebook"]
    target = tmp_path / "touched.txt"
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    tree = context.new_page()
    tree.goto(f"{lab.url}/tree?token={lab.token}")
    tree.wait_for_selector(".jp-DirListing", timeout=60_000)
    tree.click("text=New")
    with context.expect_page() as opened:
        tree.locator(".lm-Menu-item:has-text('Python 3')").first.click()
    page = opened.value
    page.on("dialog", lambda dialog: dialog.accept())
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=60_000)
    page.locator(".jp-Cell .cm-content").first.click()
    page.keyboard.type("%load_ext dsh_notebook")
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.type(f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it")
    page.keyboard.press("Escape")
    run_all(page)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=90_000)
    page.locator("button.dsh-waiting-toolbar").wait_for(state="visible", timeout=30_000)
    page.wait_for_timeout(600)
    click_when_still(allow)
    page.locator(
        ".dsh-root:has-text('allowed once'), .jp-RenderedMarkdown:has-text('allowed once')"
    ).first.wait_for(timeout=60_000)
    deadline = time.monotonic() + 10
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert target.exists()
    context.close()


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_a_card_waiting_over_save_and_reload_comes_back_not_interrupted(
    browser: Any, servers: dict[str, Lab], app: str, tmp_path: Path
) -> None:
    lab = servers[app]
    name = f"reload-waiting-{app}.ipynb"
    target = tmp_path / "reloaded.txt"
    flag = tmp_path / "go"
    write_notebook(
        lab.root / name,
        [
            "%load_ext dsh_notebook",
            # holds Run All after the link opened, until the second page is connected
            f"import pathlib, time\nwhile not pathlib.Path({str(flag)!r}).exists(): time.sleep(0.1)",
            f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it",
        ],
    )
    page = new_page(browser, 1200)
    open_notebook(page, lab, name, app)
    run_all(page)
    page.wait_for_function(  # %load_ext ran (its cell has a number): the link is open
        "() => /\\[\\d+\\]/.test(document.querySelector('.jp-Notebook .jp-Cell .jp-InputPrompt')"
        "?.textContent ?? '')",
        timeout=60_000,
        polling=100,
    )
    bare = connect_bare_page(browser, lab, app, kernel_of(lab, name))  # after the link opened
    flag.write_text("go")
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    waiting = page.locator("button.dsh-waiting-toolbar")
    waiting.wait_for(state="visible", timeout=30_000)
    save_notebook(
        page,
        lab,
        name,
        lambda nb: "application/vnd.jupyter.widget-view+json" in str(nb["cells"][2]["outputs"]),
        "the widget was never saved",
    )

    page.reload()
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    allow = page.locator(".dsh-allow")
    try:
        allow.wait_for(timeout=60_000)  # the card is back, live
    finally:
        text = page.locator(".jp-Notebook").inner_text()
        assert "interrupted" not in text, text[-1500:]
    waiting.wait_for(state="visible", timeout=30_000)
    assert waiting.inner_text() == "dsh: 1 waiting"
    page.wait_for_timeout(600)
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    bare.close()
    page.close()


AGENT_HEAD = "# dsh agent: run_python call"


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_run_all_two_cells_on_one_session_the_first_cell_owns_card_signal_and_agent_cell(
    browser: Any, servers: dict[str, Lab], app: str
) -> None:
    """Item 3: the second ``%%dsh`` cell on the same session is queued behind the first, whose
    agent asks to run code. The card is in the first cell, the waiting button goes to the first
    cell, and the approved call's agent cell lands directly below the first cell."""
    lab = servers[app]
    name = f"run-all-owner-{app}.ipynb"
    # a named session outlives the notebook in DSH_HOME: a rerun must not find its prompts
    # answered already ("not sent again"), so each attempt names a session of its own
    shared = f"shared-{time.monotonic_ns()}"
    write_notebook(
        lab.root / name,
        [
            "import pandas as pd\n"
            "sales = pd.DataFrame({'region': ['north', 'south'], 'revenue': [1.0, 2.0]})",
            "%load_ext dsh_notebook",
            f"%%dsh -s {shared}\n"
            "[[scenario:notebook-analyze]] [[var:sales]] first: totals per region",
            f"%%dsh -s {shared}\nsecond: what else?",
        ],
    )
    page = new_page(browser, 1200)
    open_notebook(page, lab, name, app)
    run_all(page)
    cells = page.locator(".jp-Notebook .jp-Cell")
    first_card = cells.nth(2).locator(".dsh-allow")
    first_card.wait_for(timeout=90_000)
    assert cells.nth(3).locator(".dsh-allow").count() == 0
    waiting = page.locator("button.dsh-waiting-toolbar")
    waiting.wait_for(state="visible", timeout=30_000)
    page.wait_for_timeout(1000)  # the second cell's run is queued by now
    assert waiting.inner_text() == "dsh: 1 waiting"
    cells.nth(3).locator(".jp-InputPrompt").click()  # move away, then let the button bring us back
    waiting.click()
    page.wait_for_function(
        "() => { const a = document.querySelector('.jp-Notebook .jp-Cell.jp-mod-active');"
        " return a && a.textContent.includes('first: totals'); }",
        timeout=10_000,
        polling=100,
    )
    page.wait_for_timeout(600)
    first_card.click()
    page.wait_for_function(
        "(head) => [...document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputArea-editor')]"
        ".some(e => e.textContent.startsWith(head))",
        arg=AGENT_HEAD,
        timeout=60_000,
        polling=100,
    )
    sources = [source_of(page, i) for i in range(cells.count())]  # each scrolled into view
    agent = [i for i, s in enumerate(sources) if s.startswith(AGENT_HEAD)]
    assert agent == [3], sources  # directly below the first prompt, above the second
    assert "second: what else?" in sources[4]
    page.close()


@pytest.mark.parametrize("app", LAB_AND_NOTEBOOK7_TWIN)
def test_an_unsaved_reload_that_removed_the_asking_cell_says_how_to_answer(
    browser: Any, servers: dict[str, Lab], app: str, tmp_path: Path
) -> None:
    """Item 7, third bullet: the ``%%dsh`` cell was added and run but never saved; a reload
    removes it while its approval waits in the kernel. "dsh: 1 waiting" must not lead nowhere:
    the button says the cell is gone and names the command, which then answers it."""
    import re

    lab = servers[app]
    name = f"orphan-{app}.ipynb"
    target = tmp_path / "orphan.txt"
    write_notebook(lab.root / name, ["%load_ext dsh_notebook"])
    page = new_page(browser, 1200)
    open_notebook(page, lab, name, app)
    page.locator(".jp-Notebook .jp-Cell").last.locator(".cm-content").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below, typed here and never saved
    page.keyboard.press("Enter")
    page.keyboard.type(f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it")
    page.keyboard.press("Escape")
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    assert len(lab.api(f"/api/contents/{name}?content=1")["content"]["cells"]) == 1  # unsaved

    page.reload()
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    waiting = page.locator("button.dsh-waiting-toolbar")
    waiting.wait_for(state="visible", timeout=60_000)
    assert waiting.inner_text() == "dsh: 1 waiting"
    assert page.locator(".dsh-allow").count() == 0  # the asking cell is gone
    waiting.click()
    notice = page.locator(".dsh-waiting-notice")
    notice.wait_for(timeout=10_000)
    text = notice.inner_text()
    assert "no longer in this notebook" in text, text
    found = re.search(r"%dsh allow (a\d+)", text)
    assert found, text
    notice.locator("button").click()
    assert page.locator(".dsh-waiting-notice").count() == 0

    page.locator(".jp-Notebook .jp-Cell").last.locator(".cm-content").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.type(f"%dsh allow {found.group(1)}")
    page.keyboard.press("Escape")
    run_all(page)
    waiting.wait_for(state="hidden", timeout=60_000)
    deadline = time.monotonic() + 30
    while not target.exists():
        assert time.monotonic() < deadline, "the allowed command never ran"
        time.sleep(0.3)
    page.close()
