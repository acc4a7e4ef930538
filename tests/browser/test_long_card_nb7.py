"""A long run's waiting card and summary stay in view in Notebook 7 (issue 48 item 9), with this
checkout's extension build, a real kernel and the scripted model.

Notebook 7's scroll-output plugin boxes a code cell's outputs taller than ~1,820 px in a ~300 px
box that scrolls on its own (``jp-mod-outputsScrolled``) when the outputs change or the notebook
opens. A run whose transcript is long (a 120-paragraph answer before a ``run_python`` call) is
saved while its card waits and the page reloads: before, the card's Allow button sat below the
box's fold (the box 312 px high, the transcript ~3,600 px inside it); now the cell's outputs keep
their full height, the card is in the page. After Allow the run settles; saved and reloaded again,
the transcript's last line (its footer: "settled · ...") is in the page too, not inside a box.
The page itself is not scrolled by any of this (its scroller's position is the one it opened at).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .conftest import Lab, SharedServers, write_notebook
from .labpage import new_page, open_notebook, run_all, save_notebook, setup_cell, wait_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

LONG = "\n\n".join(f"Step {i}: looked at column c{i}; nothing odd." for i in range(120))

#: the run's cell (the second): is its output area boxed, and how tall is it inside and out
BOX = """() => {
  const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[1];
  const area = cell.querySelector('.jp-Cell-outputArea');
  return {boxed: cell.classList.contains('jp-mod-outputsScrolled'),
          inner: area.scrollHeight, outer: area.clientHeight};
}"""


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        server.register(
            "long-wait",
            Script(
                steps=(
                    Step(
                        text=LONG,
                        tool_calls=(ToolCall("mcp__notebook__run_python", {"code": "x = 1"}),),
                    ),
                    Step(text="All done."),
                )
            ),
        )
        yield server


def unboxed(page: Any) -> dict[str, Any]:
    box: dict[str, Any] = page.evaluate(BOX)
    assert not box["boxed"] and box["inner"] <= box["outer"] + 2, box
    return box


def test_a_long_runs_card_and_summary_are_not_boxed_after_a_reload(
    browser: Any, shared_servers: SharedServers, model: ScriptedModelServer, tmp_path: Path
) -> None:
    lab: Lab = shared_servers("notebook")
    name = f"long-run-{tmp_path.name}.ipynb"
    write_notebook(lab.root / name, [setup_cell(model), "%%dsh\n[[scenario:long-wait]] go"])
    page = new_page(browser, 1000)
    open_notebook(page, lab, name, "notebook")
    run_all(page)
    page.locator(".dsh-allow").wait_for(timeout=90_000)
    page.wait_for_timeout(2500)  # the live transcript reaches the page at most every 2 s
    save_notebook(page, lab, name, lambda nb: bool(nb["cells"][1]["outputs"]), "not saved")
    page.reload()
    wait_notebook(page, lab, name)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=60_000)  # the live widget again: the kernel still has the run
    page.wait_for_timeout(1500)  # the plugin checks once the session is ready
    box = unboxed(page)
    assert box["inner"] > 1_900, box  # tall enough for the plugin to box it
    allow.click()
    page.locator(".jp-RenderedMarkdown:has-text('All done.')").wait_for(timeout=60_000)

    def settled(nb: dict[str, Any]) -> bool:
        return "All done." in str(nb["cells"][1]["outputs"])

    save_notebook(page, lab, name, settled, "the settled transcript was not saved")
    page.reload()
    wait_notebook(page, lab, name)
    summary = page.locator(".jp-RenderedMarkdown:has-text('All done.')")
    summary.wait_for(timeout=30_000)
    page.wait_for_timeout(1500)
    unboxed(page)
    page.close()
