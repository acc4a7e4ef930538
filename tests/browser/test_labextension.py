"""The ``dsh-notebook`` JupyterLab extension in a real JupyterLab 4 (and Notebook 7), in chromium.

The server finds this checkout's committed build (``dsh_notebook/labextension``) through
``JUPYTER_PATH``, so the test exercises exactly what the wheel ships, whatever the venv holds.

- Identity: two notebooks made from the Launcher (both start as ``Untitled.ipynb``) renamed to
  ``a.ipynb`` and ``b.ipynb`` get two different ids; a cell reads its notebook's id from the
  execute request (``current_identity``); the id stays after a kernel restart and after closing
  and reopening, is saved in the file's metadata with the path, and a copy of ``a`` gets a fresh
  id with ``forked_from``.
- Waiting: a kernel cell opens the comm with ``FrontendLink`` and sends ``waiting``; the status
  bar item, the toolbar button, the tab badge and the page title show it, a click goes to the
  waiting cell, it comes back after a page reload, and ``[]`` clears them all.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.widget.bundle import CAPABILITY

from .conftest import Lab, SharedServers, write_notebook
from .labpage import (
    click_when_still,
    current_panel,
    lab_with_extension,
    menu_command,
    open_lab,
    saved_notebook,
    wait_kernel_idle,
)

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def extlab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A JupyterLab of this module's own, not the worker's shared one: the Launcher test needs a
    root where ``Untitled.ipynb``, ``a.ipynb`` and ``b.ipynb`` do not exist yet."""
    with lab_with_extension(tmp_path_factory.mktemp("labextension")) as server:
        yield server


IDENTITY = re.compile(
    r"NotebookIdentity\(id='(?P<id>[0-9a-f]{32})', path='(?P<path>[^']*)', "
    r"cell_id='(?P<cell>[^']+)', forked_from=(?P<forked>None|'[0-9a-f]{32}'), private=False\)"
)
READ_IDENTITY = (
    "from dsh_notebook.frontend.identity import current_identity; "
    "print('{marker}', current_identity(get_ipython().kernel))"
)


def new_notebook_from_launcher(page: Any, lab: Lab) -> str:
    """Open a Launcher, click the Python notebook card; returns the new notebook's path."""
    before = {s["path"] for s in lab.api("/api/sessions")}
    menu_command(page, "File", "New Launcher")
    # JupyterLab opens its own Launcher about a second after an empty workspace loads; when that
    # one came first it stays in the DOM behind ours, hidden, so take the card that is visible
    page.locator(
        ".jp-Launcher-section:has-text('Notebook') .jp-LauncherCard >> visible=true"
    ).first.click()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # a new session's path can be a placeholder uuid until the document's path is set
        new = [
            s["path"]
            for s in lab.api("/api/sessions")
            if s["path"] not in before and s["path"].endswith(".ipynb")
        ]
        if new:
            wait_kernel_idle(lab, new[0])
            current_panel(page).locator(
                ".jp-Notebook-ExecutionIndicator[data-status='idle']"
            ).wait_for(timeout=60_000)
            return str(new[0])
        time.sleep(0.3)
    raise AssertionError("no notebook session appeared")


def rename_current(page: Any, lab: Lab, name: str) -> None:
    menu_command(page, "File", "Rename Notebook")
    field = page.locator(".jp-Dialog input")
    field.fill(name)
    page.click(".jp-Dialog .jp-mod-accept")
    page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')").wait_for(timeout=60_000)
    wait_kernel_idle(lab, name)


def open_from_file_browser(page: Any, name: str) -> None:
    """Double-click ``name`` in the file browser until its tab is the current one. The listing
    re-renders when it refreshes (after a close, a save), and a double-click that lands while
    its row is being replaced opens nothing: that is the listing's timing, not the extension's,
    so the double-click is repeated (a second one on an open notebook only activates its tab)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab = page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')")
    for _ in range(3):
        page.dblclick(f".jp-DirListing-item:has-text('{name}')")
        with contextlib.suppress(PlaywrightTimeout):
            tab.wait_for(timeout=20_000)
            return
    tab.wait_for(timeout=20_000)


def run_in_new_cell(page: Any, code: str, marker: str) -> str:
    """Type ``code`` into the last cell of the current notebook, run it, return the output line
    that starts with ``marker``."""
    panel = current_panel(page)
    editor = panel.locator(".jp-Cell").last.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Shift+Enter")
    output = panel.locator(f".jp-OutputArea-output:has-text('{marker}')")
    output.wait_for(timeout=60_000)
    return str(output.inner_text()).strip()


def read_identity(page: Any, run: str, *, after_path_change: bool = False) -> re.Match[str]:
    """Run the identity cell as a new cell; ``run`` names this run. The marker has letters that
    are not hex, so no id in an earlier output (a copy keeps its original's) can match it.

    Right after a rename the page checks the old path (one contents request, see
    ``identity.ts``) and sends no identity until it knows move from copy; on a busy machine a
    cell typed that quickly can go out inside that window. ``after_path_change`` allows two
    more tries, 2 s apart, for that window only: a page that never sends the identity fails."""
    tries = 3 if after_path_change else 1
    for attempt in range(tries):
        marker = f"run-{run}{'r' * attempt}:"
        text = run_in_new_cell(page, READ_IDENTITY.format(marker=marker), marker)
        assert text.startswith(marker), text
        found = IDENTITY.search(text)
        if found:
            return found
        if attempt + 1 < tries:
            page.wait_for_timeout(2000)
    raise AssertionError(f"no identity on the execute request: {text}")


def start_clean(lab: Lab) -> None:
    """No session and none of this test's files in the module's root (a rerun after a failed
    attempt would otherwise find ``a.ipynb`` taken and Rename would ask to overwrite it)."""
    lab.end_sessions(lambda _session: True)
    for pattern in ("Untitled*.ipynb", "a.ipynb", "a-Copy*.ipynb", "b.ipynb"):
        for path in lab.root.glob(pattern):
            path.unlink()


def save_current(page: Any, lab: Lab, name: str, notebook_id: str) -> dict[str, Any]:
    current_panel(page).locator(".jp-Notebook").click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    content = saved_notebook(
        lab,
        name,
        lambda nb: (nb["metadata"].get("dsh_notebook") or {}).get("id") == notebook_id,
        f"{name} was not saved with its id",
    )
    return dict(content["metadata"]["dsh_notebook"])


def restart_kernel(page: Any, lab: Lab, name: str) -> None:
    menu_command(page, "Kernel", "Restart Kernel…")
    page.click(".jp-Dialog .jp-mod-accept")
    page.wait_for_timeout(1000)
    wait_kernel_idle(lab, name)


def test_two_launcher_notebooks_get_stable_distinct_ids(browser: Any, extlab: Lab) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    start_clean(extlab)
    open_lab(page, extlab)

    assert new_notebook_from_launcher(page, extlab) == "Untitled.ipynb"
    rename_current(page, extlab, "a.ipynb")
    a = read_identity(page, "a1", after_path_change=True)
    assert a["path"] == "a.ipynb" and a["forked"] == "None"
    saved_a = save_current(page, extlab, "a.ipynb", a["id"])
    assert saved_a == {"id": a["id"], "path": "a.ipynb"}

    assert new_notebook_from_launcher(page, extlab) == "Untitled.ipynb"  # the same name again
    rename_current(page, extlab, "b.ipynb")
    b = read_identity(page, "b1", after_path_change=True)
    assert b["path"] == "b.ipynb"
    assert b["id"] != a["id"], "two notebooks share one conversation"
    assert save_current(page, extlab, "b.ipynb", b["id"]) == {"id": b["id"], "path": "b.ipynb"}

    # a kernel restart, then a Run-All-like first request: the same id
    restart_kernel(page, extlab, "b.ipynb")
    assert read_identity(page, "b2")["id"] == b["id"]

    # close a.ipynb and reopen it from the file browser: the id comes back from the file
    page.locator(".lm-TabBar-tab:has-text('a.ipynb') .lm-TabBar-tabCloseIcon").click()
    with contextlib.suppress(Exception):  # a "save changes?" dialog if outputs changed
        page.click(".jp-Dialog button:has-text('Save')", timeout=2000)
    page.locator(".lm-TabBar-tab:has-text('a.ipynb')").wait_for(state="detached")
    open_from_file_browser(page, "a.ipynb")
    wait_kernel_idle(extlab, "a.ipynb")
    current_panel(page).locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    assert read_identity(page, "a2")["id"] == a["id"]

    # a copy of a.ipynb (File Browser "Duplicate" uses the same contents API): a fresh id that
    # names the original, so the copy never silently continues a's conversation
    copy = extlab.api("/api/contents", method="POST", body={"copy_from": "a.ipynb"})["path"]
    open_lab(page, extlab, f"/tree/{copy}")
    page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{copy}')").wait_for(timeout=30_000)
    wait_kernel_idle(extlab, copy)
    current_panel(page).locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    c = read_identity(page, "c1")
    assert c["id"] not in (a["id"], b["id"])
    assert c["forked"] == f"'{a['id']}'" and c["path"] == copy
    saved_copy = save_current(page, extlab, copy, c["id"])
    assert saved_copy == {"id": c["id"], "path": copy, "forked_from": a["id"]}
    assert not errors, errors
    page.close()


WAITING_SETUP = (
    "from dsh_notebook.frontend import FrontendLink\n"
    "from dsh_notebook.frontend.identity import current_identity\n"
    "link = FrontendLink(); print('opened', link.open())\n"
    "first_cell = current_identity(get_ipython().kernel).cell_id"
)


def test_waiting_signal_shows_and_clears(browser: Any, extlab: Lab, artifacts: Path) -> None:
    write_notebook(
        extlab.root / "waiting.ipynb",
        [
            WAITING_SETUP,
            "print('present', link.present, sorted(link.capabilities))",
            "print('sent', link.send_waiting([{'cell_id': first_cell, 'kind': 'approval', "
            "'label': 'bash'}]))",
            "x = 1",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_lab(page, extlab, "/tree/waiting.ipynb")
    page.locator(".lm-TabBar-tab.jp-mod-current:has-text('waiting.ipynb')").wait_for()
    wait_kernel_idle(extlab, "waiting.ipynb")
    panel = current_panel(page)
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    status = page.locator(".jp-StatusBar-Widget .dsh-waiting-status")
    assert not status.is_visible()

    cells = panel.locator(".jp-Cell")
    for i in range(3):  # one at a time: the hello_reply is handled between requests
        cells.nth(i).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        cells.nth(i).locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    assert "opened True" in cells.nth(0).inner_text()
    assert (
        "present True ['edit_cells', 'identity', 'insert_cell', 'read_notebook', 'run_cells', "
        "'run_output', 'waiting', "
        f"'{CAPABILITY}']" in cells.nth(1).inner_text()
    )
    assert "sent True" in cells.nth(2).inner_text()

    status.wait_for(state="visible", timeout=10_000)
    assert status.inner_text() == "dsh: 1 waiting"
    assert panel.locator(".dsh-waiting-toolbar").inner_text() == "dsh: 1 waiting"
    tab = page.locator(".lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting='1']")
    assert tab.inner_text().strip().startswith("waiting.ipynb")
    assert page.title().startswith("(1 waiting) "), page.title()
    page.screenshot(path=str(artifacts / "labextension-waiting.png"))

    # the active cell is the last one; a click goes to the waiting (first) cell
    cells.nth(3).click()
    page.keyboard.press("Escape")
    assert "jp-mod-active" in (cells.nth(3).get_attribute("class") or "")
    status.click()
    page.wait_for_function(
        "() => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')"
        ".classList.contains('jp-mod-active')",
        timeout=10_000,
        polling=100,
    )

    # a page reload: the kernel's comm is unknown to the new page; the extension finds it
    # (comm_info_request), answers hello_reply again and the kernel re-sends what waits
    page.keyboard.press("Control+s")
    page.locator(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)").wait_for(timeout=30_000)
    open_lab(page, extlab, "/tree/waiting.ipynb")
    page.locator(".lm-TabBar-tab.jp-mod-current:has-text('waiting.ipynb')").wait_for()
    panel = current_panel(page)
    cells = panel.locator(".jp-Cell")
    status.wait_for(state="visible", timeout=30_000)
    assert status.inner_text() == "dsh: 1 waiting"
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()

    cells.nth(3).click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text("print('cleared', link.send_waiting([]))")
    page.keyboard.press("Shift+Enter")
    cells.nth(3).locator(".jp-OutputArea-output:has-text('cleared True')").wait_for()
    status.wait_for(state="hidden", timeout=10_000)
    assert panel.locator(".dsh-waiting-toolbar").is_hidden()
    assert page.locator(".lm-TabBar-tab.dsh-mod-waiting").count() == 0
    assert page.title().startswith("waiting.ipynb"), page.title()  # the prefix is gone
    page.close()


def test_notebook7_identity_and_waiting_toolbar(
    browser: Any, shared_servers: SharedServers
) -> None:
    """Notebook 7 loads the same prebuilt extension: the identity reaches the kernel and, with
    no status bar there, the toolbar button shows the waiting count."""
    server = shared_servers("notebook")
    write_notebook(
        server.root / "n7.ipynb",
        [
            READ_IDENTITY.format(marker="run-n7:") + "\n" + WAITING_SETUP,
            "print('sent', link.send_waiting([{'cell_id': first_cell, 'kind': 'question', "
            "'label': 'Which color?'}]))",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/notebooks/n7.ipynb?token={server.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    wait_kernel_idle(server, "n7.ipynb")
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=60_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    for i in range(2):
        cells.nth(i).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        cells.nth(i).locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    found = IDENTITY.search(cells.nth(0).inner_text())
    assert found, cells.nth(0).inner_text()
    assert found["path"] == "n7.ipynb"
    assert "sent True" in cells.nth(1).inner_text()
    button = page.locator(".dsh-waiting-toolbar")
    button.wait_for(state="visible", timeout=10_000)
    assert button.inner_text() == "dsh: 1 waiting"
    assert "question: Which color?" in (button.get_attribute("title") or "")
    assert page.title().startswith("(1 waiting) n7"), page.title()  # the browser tab
    page.close()


def test_a_real_pending_approval_is_signalled_outside_the_cell(
    browser: Any, extlab: Lab, artifacts: Path, tmp_path: Path
) -> None:
    """The kernel side wired end to end: a %%dsh run that waits for an approval (the demo model's
    escalate reply) shows "dsh: 1 waiting" in the status bar and on the tab; Allow clears it."""
    target = tmp_path / "approved.txt"
    write_notebook(
        extlab.root / "signal.ipynb",
        ["%load_ext dsh_notebook", f"%%dsh\n[[scenario:escalate]] [[target:{target}]] do it"],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    open_lab(page, extlab, "/tree/signal.ipynb")
    page.locator(".lm-TabBar-tab.jp-mod-current:has-text('signal.ipynb')").wait_for()
    wait_kernel_idle(extlab, "signal.ipynb")
    panel = current_panel(page)
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    cells = panel.locator(".jp-Cell")
    for i in range(2):
        cells.nth(i).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        wait_kernel_idle(extlab, "signal.ipynb")
    status = page.locator(".jp-StatusBar-Widget .dsh-waiting-status")
    status.wait_for(state="visible", timeout=90_000)
    assert status.inner_text() == "dsh: 1 waiting"
    assert page.locator(".lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting='1']").count() == 1
    page.screenshot(path=str(artifacts / "labextension-real-approval-waiting.png"))
    allow = panel.locator(".dsh-allow")
    allow.wait_for(timeout=30_000)
    page.wait_for_timeout(700)  # the card's buttons are inert for half a second
    click_when_still(allow)
    status.wait_for(state="hidden", timeout=60_000)
    deadline = time.monotonic() + 60
    while not target.exists():
        assert time.monotonic() < deadline, "the approved command never ran"
        time.sleep(0.3)
