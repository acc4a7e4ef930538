"""A prompt queued behind a run that waits elsewhere (issue 48 item 5), in Notebook 7 with this
checkout's extension build, a real kernel and the scripted model.

Run All with two ``%%dsh`` cells on one session, a long output between them: the first (a long
answer, then a ``run_python`` call) waits for the person; the second is queued. The queued cell's widget reads "queued" (not
"running"), names the first cell by its ``In [k]``, shows ``%dsh pending`` as code, and its
**Show** brings the first cell's waiting card on screen with what the card asks to read focused
(never a decision button). Before, the queued widget read "running" and named no cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .conftest import Lab, SharedServers, write_notebook
from .labpage import cells, new_page, open_notebook, run_all, setup_cell

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

LONG = "\n\n".join(f"Step {i}: looked at column c{i}; nothing odd." for i in range(60))

#: whether the element is inside the browser's window
ON_SCREEN = """(el) => { const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight; }"""


THEME = "() => document.body.dataset.jpThemeName"


def dark(page: Any, shown: Any, path: Path) -> None:
    """A screenshot in JupyterLab Dark (Settings > Theme); the theme, a setting of the shared
    server, is put back."""

    def theme(name: str) -> None:
        page.click("li.lm-MenuBar-item:has-text('Settings')")
        page.hover(".lm-Menu-item:has-text('Theme')")
        page.click(f".lm-Menu-item:has-text('{name}')")
        page.wait_for_function(f"() => ({THEME})() === '{name}'", timeout=15_000)
        page.wait_for_timeout(500)

    try:
        theme("JupyterLab Dark")
        page.keyboard.press("Escape")
        shown.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        page.screenshot(path=str(path))
    finally:
        theme("JupyterLab Light")


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        call = ToolCall("mcp__notebook__run_python", {"code": "x = 1"})
        server.register(
            "ahead", Script(steps=(Step(text=LONG, tool_calls=(call,)), Step(text="A done.")))
        )
        server.register("behind", Script(steps=(Step(text="B done."),)))
        yield server


def test_the_queued_cell_names_the_cell_ahead_and_shows_its_card(
    browser: Any,
    shared_servers: SharedServers,
    model: ScriptedModelServer,
    tmp_path: Path,
    artifacts: Path,
) -> None:
    lab: Lab = shared_servers("notebook")
    name = f"queued-{tmp_path.name}.ipynb"
    session = f"shared-{tmp_path.name}"  # a rerun's kernel must not meet this attempt's session
    write_notebook(
        lab.root / name,
        [
            setup_cell(model),
            f"%%dsh -s {session}\n[[scenario:ahead]] go",
            "print('\\n'.join(f'row {i}' for i in range(80)))",  # the card is out of view
            f"%%dsh -s {session}\n[[scenario:behind]] next",
        ],
    )
    page = new_page(browser, 900)
    try:
        open_notebook(page, lab, name, "notebook")
        run_all(page)
        first, second = cells(page).nth(1), cells(page).nth(3)
        allow = first.locator(".dsh-allow")
        allow.wait_for(timeout=90_000)
        # the card by its request, wherever the notebook's windowing puts the cells in the DOM
        request = first.locator(".dsh-approval").get_attribute("data-request-id")
        card = f".dsh-approval[data-request-id='{request}']"
        note = second.locator(".dsh-note:has-text('queued behind')")
        note.wait_for(timeout=30_000)
        assert second.locator(".dsh-state").inner_text() == "queued"
        assert "the run of cell In [2]" in note.inner_text(), note.inner_text()
        assert note.locator("code").inner_text() == "%dsh pending"
        note.scroll_into_view_if_needed()
        assert not allow.evaluate(ON_SCREEN)  # the card is above, out of view
        page.screenshot(path=str(artifacts / "queued-cell-notebook7.png"))
        dark(page, note, artifacts / "queued-cell-notebook7-dark.png")
        note.locator("button:has-text('Show')").click()
        page.wait_for_function(
            f'() => {{ const b = document.querySelector("{card} .dsh-allow");'
            f" return !!b && ({ON_SCREEN})(b); }}",
            timeout=20_000,
        )
        focused = page.evaluate(
            f"() => {{ const a = document.activeElement;"
            f" const cell = document.querySelector(\"{card}\")?.closest('.jp-Cell');"
            " return a && { inFirst: !!cell && cell.contains(a),"
            " read: a.hasAttribute('data-dsh-read'), button: a.tagName === 'BUTTON' }; }"
        )
        assert focused == {"inFirst": True, "read": True, "button": False}, focused
    finally:
        page.close()
        lab.end_sessions(lambda s: s.get("path") == name)  # its kernel holds the session
