"""The page side of the browser tests, one home for what several suites do: JupyterLab (or
Notebook 7) with this checkout's extension build, opening a notebook, running and reading its
cells, approval cards, and what the scripted model received from a run.

Every wait here has a deadline and fails with what it saw; nothing sleeps without a reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import REPO, Lab, start_lab

#: this checkout's build of the extension (``bash scripts/build-labextension.sh``)
BUILD = REPO / "dsh_notebook" / "labextension"

#: the cells of the notebook in view (a hidden panel's cells are not counted)
CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"


def require_build() -> None:
    """Fail (never skip) when the extension is not built: the browser tests test that build."""
    if not (BUILD / "package.json").exists():
        pytest.fail("the extension is not built: bash scripts/build-labextension.sh")


@contextlib.contextmanager
def lab_with_extension(
    root: Path, app: str = "lab", extra_args: Sequence[str] = ()
) -> Iterator[Lab]:
    """:func:`.conftest.start_lab` with this checkout's extension build first on the server's
    ``JUPYTER_PATH`` (this process's environment is left alone)."""
    require_build()
    data = root / ".jupyter-data"
    (data / "labextensions").mkdir(parents=True, exist_ok=True)
    link = data / "labextensions" / "dsh-notebook"
    if not link.exists():
        link.symlink_to(BUILD, target_is_directory=True)
    path = os.pathsep.join(filter(None, [str(data), os.environ.get("JUPYTER_PATH")]))
    with start_lab(root, app=app, extra_args=extra_args, extra_env={"JUPYTER_PATH": path}) as lab:
        yield lab


def wait_kernel_idle(lab: Lab, name: str, timeout: float = 60) -> None:
    """Until the server reports the kernel of notebook ``name`` idle (not merely started)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sessions = [s for s in lab.api("/api/sessions") if s["path"] == name]
        if sessions and sessions[0].get("kernel", {}).get("execution_state") == "idle":
            return
        time.sleep(0.3)
    raise AssertionError(f"the kernel of {name} never became idle")


def wait_kernel_started(lab: Lab, name: str, timeout: float = 60) -> None:
    """Until the kernel of ``name`` is up, idle or busy (a page reopened mid-run sees it busy)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sessions = [s for s in lab.api("/api/sessions") if s["path"] == name]
        if sessions and sessions[0].get("kernel", {}).get("execution_state") in ("idle", "busy"):
            return
        time.sleep(0.3)
    raise AssertionError(f"the kernel of {name} never started")


def open_lab(page: Any, lab: Lab, tail: str = "") -> None:
    """JupyterLab in a fresh workspace of its own (``tail``: e.g. ``/tree/x.ipynb``)."""
    workspace = f"ext-{time.monotonic_ns()}"
    page.goto(f"{lab.url}/lab/workspaces/{workspace}{tail}?reset&token={lab.token}")
    page.wait_for_selector(".jp-LabShell", timeout=60_000)


def current_panel(page: Any) -> Any:
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def new_page(browser: Any, height: int = 1400) -> Any:
    """A page that accepts "leave the page?" dialogs (reloads)."""
    page = browser.new_page(viewport={"width": 1280, "height": height})
    page.on("dialog", lambda dialog: dialog.accept())
    return page


def goto_notebook(page: Any, lab: Lab, name: str, app: str = "lab") -> None:
    """Open ``name`` alone (JupyterLab: a reset workspace of its own; Notebook 7: its page) and
    wait for its cells and its kernel to start."""
    if app == "lab":
        workspace = f"{name.replace('.', '-').replace('/', '-')}-{time.monotonic_ns()}"
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
    else:
        page.goto(f"{lab.url}/notebooks/{name}?token={lab.token}")
    wait_notebook(page, lab, name)


def wait_notebook(page: Any, lab: Lab, name: str) -> None:
    """Until the page shows the notebook's cells and its kernel is up (after a reload too)."""
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_kernel_started(lab, name)


def open_notebook(page: Any, lab: Lab, name: str, app: str = "lab") -> None:
    """:func:`goto_notebook`, then until the kernel is idle *and* attached to the page
    (JupyterLab shows "idle" before a kernel is attached)."""
    goto_notebook(page, lab, name, app)
    wait_kernel_idle(lab, name)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
        timeout=60_000
    )


def click_until_it_lands(
    page: Any,
    target: Any,
    attempt_ms: float,
    timeout_s: float,
    before: Callable[[], object] | None = None,
) -> None:
    """Click ``target`` (after ``before()``, each time); a click that cannot land within
    ``attempt_ms`` (its menu closed, something over the page) is made again after an Escape,
    until ``timeout_s``, instead of waiting out one long timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout_s
    while True:
        if before is not None:
            before()
        try:
            target.click(timeout=attempt_ms)
            return
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise
            page.keyboard.press("Escape")


def menu_command(page: Any, menu: str, item: str, timeout_s: float = 90) -> None:
    """Click ``item`` of the menu bar's ``menu`` as a person does: open the menu, click the item.

    A Lumino menu closes on a click elsewhere, a blur or a resize, and a busy page can close it
    (or never finish opening it) before the item is clicked; a click on the closed menu's item
    would then wait out its whole timeout. So the item gets 10 s each time, and a menu that did
    not show it is closed and opened again, until ``timeout_s``."""
    target = page.locator(f".lm-Menu-item:has-text('{item}')").first
    opener = partial(page.click, f"li.lm-MenuBar-item:has-text('{menu}')")
    click_until_it_lands(page, target, 10_000, timeout_s, before=opener)


def run_all(page: Any) -> None:
    page.click(".jp-Notebook")
    page.keyboard.press("Escape")
    menu_command(page, "Run", "Run All Cells")


def cells(page: Any) -> Any:
    return page.locator(CELLS)


def command_mode(page: Any, index: int = 0, timeout_s: float = 90) -> None:
    """Cell ``index`` selected, in command mode: a press on its prompt, then Escape. A press
    that cannot land within 15 s (something over the page, as once after a kernel restart) is
    tried again after an Escape, until ``timeout_s``."""
    prompt = cells(page).nth(index).locator(".jp-InputPrompt")
    click_until_it_lands(page, prompt, 15_000, timeout_s)
    page.keyboard.press("Escape")


def run_cell(page: Any, lab: Lab, name: str, index: int) -> None:
    """Run cell ``index`` in place (Ctrl+Enter: the selection stays) and wait for idle."""
    command_mode(page, index)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_kernel_idle(lab, name)


def wait_shown(page: Any, locator: Any, timeout_ms: float, what: str) -> None:
    """Until ``locator`` is visible; else fail with ``what`` and the text of each cell in view
    (its buttons, cards and transcripts: what the person would have seen)."""
    try:
        locator.wait_for(timeout=timeout_ms)
    except Exception:  # Playwright's TimeoutError
        shown = [" ".join(t.split())[-600:] for t in cells(page).all_inner_texts()]
        raise AssertionError(f"{what}; the cells show: {shown}") from None


def shown_text(locator: Any, *expected: str, timeout_s: float = 30) -> str:
    """``locator``'s text as the person reads it, once it holds every ``expected`` piece (else
    its last text after ``timeout_s``, for the test's own assertion to show). A card rebuilds
    its parts while its run goes on, so an element replaced while it is read (detached, or read
    empty in between) is read again; it is scrolled into view first, as a reader's eyes go to
    it (JupyterLab lays out cells below the viewport lazily)."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    text = ""
    while True:
        try:
            locator.scroll_into_view_if_needed(timeout=5_000)
            text = str(locator.inner_text(timeout=5_000))
        except PlaywrightError:  # replaced while read: read again
            pass
        if all(piece in text for piece in expected) or time.monotonic() > deadline:
            return text
        locator.page.wait_for_timeout(100)


def source_of(page: Any, index: int) -> str:
    """The source cell ``index`` shows (scrolled into view first: JupyterLab renders the cells
    in view)."""
    cell = cells(page).nth(index)
    cell.scroll_into_view_if_needed()
    return str(cell.locator(".jp-InputArea-editor").inner_text())


def wait_source(page: Any, index: int, expected: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while source_of(page, index) != expected:
        assert time.monotonic() < deadline, f"cell {index}: {source_of(page, index)!r}"
        page.wait_for_timeout(50)


def saved_notebook(
    lab: Lab, name: str, until: Callable[[dict[str, Any]], object], what: str, timeout: float = 30
) -> dict[str, Any]:
    """The saved notebook ``name`` (its nbformat content) once ``until(content)`` holds. A read
    while the server writes the file is answered 400 or empty: that is read again, not a
    failure. Fails with ``what`` and the last content after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    content: dict[str, Any] = {}
    while True:
        try:
            content = dict(lab.api(f"/api/contents/{name}?content=1")["content"])
            if until(content):
                return content
        except (OSError, ValueError, KeyError, TypeError):  # half-written: read again
            pass
        assert time.monotonic() < deadline, f"{what} (saved: {json.dumps(content)[:1500]})"
        time.sleep(0.3)


def save_notebook(
    page: Any,
    lab: Lab,
    name: str,
    until: Callable[[dict[str, Any]], object],
    what: str,
    cell: int = 0,
) -> dict[str, Any]:
    """Save the notebook in view with Ctrl+S in command mode (on cell ``cell``), and return the
    saved notebook once ``until(content)`` holds. Ctrl+S is pressed again (as a person would)
    when that has not happened within 10 s, three times in all: a key press can land while the
    page moves its focus (a clicked button replaced by a transcript, a cell that just ran)."""
    for attempt in range(3):
        command_mode(page, cell)
        page.keyboard.press("Control+s")
        try:
            return saved_notebook(lab, name, until, what, timeout=10)
        except AssertionError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def fresh(lab: Lab, stem: str) -> tuple[str, Path]:
    """A notebook path in a folder of its own (the kernel's working directory: a rerun or
    another test never shares its files)."""
    folder = f"{stem}-{time.monotonic_ns()}"
    (lab.root / folder).mkdir()
    return f"{folder}/{stem}.ipynb", lab.root / folder


# -- approval cards -----------------------------------------------------------------------------


def approval_card(page: Any, index: int = 0) -> Any:
    """Approval card ``index`` (-1: the newest); a card decided by a scope is a card too."""
    found = page.locator(".dsh-approval")
    return found.last if index == -1 else found.nth(index)


def click_card(page: Any, selector: str, index: int = 0) -> float:
    """Click the (enabled) ``selector`` of approval card ``index``; the click's time."""
    button = approval_card(page, index).locator(f"{selector}:not([disabled])").first
    button.wait_for(timeout=90_000)
    page.wait_for_timeout(700)  # the card's buttons are inert for half a second
    click_when_still(button)
    return time.monotonic()


def click_when_still(target: Any, still_ms: int = 300, timeout_s: float = 15) -> None:
    """Click ``target`` (a Playwright locator) once it is in view, enabled and has not moved for
    ``still_ms``, as a person's click lands: where the button is, not where it was.

    A press in a cell that is not the active one makes JupyterLab activate that cell, and a run
    that settled just above holds the reader's place by scrolling for a moment; when the notebook
    scrolls between Playwright's press and release, the release lands on another element, the
    browser sends the click to their common ancestor and the button never hears it (seen: mousedown
    on Reject, the notebook scrolled by ~900 px, mouseup 27 ms later on the code above it). So the
    button's cell is made the active one first (a press on its prompt, as a person selects a
    cell), then the button is clicked once it has been in view, enabled and in one place for
    ``still_ms``. A card rebuilds its buttons when it changes (and disables them for half a second
    when it appears), so a button that is replaced while it is looked at is looked at again.
    After ``timeout_s`` the click is made anyway, and the test's own wait for what the click does
    reports the failure."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    cell = target.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' jp-Cell ')][1]")
    with contextlib.suppress(PlaywrightError):  # no cell (or it changed): the click still comes
        if cell.count() == 1 and "jp-mod-active" not in (cell.get_attribute("class") or ""):
            cell.locator(".jp-InputPrompt").first.click(timeout=5_000)
    last: Any = None
    still_since = time.monotonic()
    while time.monotonic() < deadline:
        try:
            target.scroll_into_view_if_needed(timeout=2_000)
            box = target.bounding_box(timeout=2_000) if target.is_enabled(timeout=2_000) else None
        except PlaywrightError:  # replaced while looked at: look again
            box = None
        if box is None or box != last:
            last, still_since = box, time.monotonic()
        elif (time.monotonic() - still_since) * 1000 >= still_ms:
            break
        target.page.wait_for_timeout(50)
    target.click()


# -- the scripted model's side ------------------------------------------------------------------


def setup_cell(model: ScriptedModelServer) -> str:
    """The notebook's first cell: load the extension, talk to ``model``."""
    return (
        "%load_ext dsh_notebook\n"
        f"%config DshMagics.base_url = {model.base_url!r}\n"
        "%config DshMagics.api_key = 'test-key-not-secret'"
    )


def _tool_results_of(body: dict[str, Any], joiner: str) -> list[str]:
    texts: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                parts = inner if isinstance(inner, list) else [{"text": inner}]
                texts.append(joiner.join(str(p.get("text", "")) for p in parts))
    return texts


def tool_results(model: ScriptedModelServer, tag: str | None = None, joiner: str = "") -> list[str]:
    """The tool results the model received, in order, in the newest request of the run whose
    first message has ``tag`` (``None``: the newest request of all; each request holds those
    before it)."""
    found: list[str] = []
    for request in model.requests if tag is not None else model.requests[-1:]:
        body = request.body or {}
        if tag is not None and tag not in json.dumps(body.get("messages", [])[:1]):
            continue
        texts = _tool_results_of(body, joiner)
        if len(texts) >= len(found):
            found = texts
    return found


def wait_tool_results(
    model: ScriptedModelServer, tag: str, count: int, timeout: float = 120
) -> list[str]:
    """Until the run tagged ``tag`` sent ``count`` tool results to the model."""
    deadline = time.monotonic() + timeout
    while len(found := tool_results(model, tag)) < count:
        assert time.monotonic() < deadline, f"{len(found)} tool results, not {count}: {found}"
        time.sleep(0.2)
    return found


def open_page(browser: Any, lab: Lab, name: str, app: str = "lab") -> Any:
    """A :func:`new_page` with notebook ``name`` open and its kernel idle."""
    page = new_page(browser)
    open_notebook(page, lab, name, app)
    return page
