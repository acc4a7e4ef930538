"""Editing and running the person's cells (issue 27, docs/cell-editing.md) in a real JupyterLab 4
(and Notebook 7) in chromium with this checkout's extension build and a real kernel.

The page's side, on its own: the kernel end is the real ``FrontendLink`` comm, driven by the test
through :mod:`.pagelink` (the kernel's cell-editing side is tested with it in
``test_cell_editing_agent.py``).

- ``apply_change``: an edit lands in the cell as one undoable step (``z`` in command mode brings the
  old source back), marked ``metadata.dsh_notebook.edited`` and highlighted; the same message
  again is answered ``applied`` without a second change; a stale one (the person typed) and one
  for a missing cell change nothing and say so.
- ``run_cells``: cells run in place in order (outputs and execution counts in the notebook), the
  first error stops the rest, its plain traceback is returned; a slow cell is answered
  ``running`` at ``timeout_s`` and is not interrupted.
- "Undo this run" on the ``%%dsh`` cell: asks the kernel (``undo_request``), reverts the ledger it
  sends as one step (one ``z`` brings it all back), skips the cell the person changed and shows
  the result; with no answer it falls back to removing the run's agent cells and says so.
- "Show in notebook" (the widget's ``dsh-show-cell`` event) selects the cell; Ask dsh embeds the
  failing cell's code and traceback under its short id; Fix with dsh is offered next to it.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import Lab, SharedServers, write_notebook
from .labpage import (
    cells,
    command_mode,
    fresh,
    open_page,
    run_cell,
    save_notebook,
    source_of,
    wait_kernel_idle,
    wait_source,
)
from .pagelink import PageLink, setup_source

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

ORIGIN = {"session": "s1", "run": "r1", "call": "call_1", "anchor": "prompt"}


@pytest.fixture(scope="module")
def lab(extlab: Lab) -> Lab:
    return extlab


def connect(page: Any, lab: Lab, name: str) -> PageLink:
    """Run the setup cell (0); once the page answered hello, the link to drive."""
    run_cell(page, lab, name, 0)
    link = PageLink((lab.root / name).parent)
    hello = link.wait(lambda m: m.get("type") == "hello_reply", 30, "hello_reply")
    assert {"edit_cells", "run_cells"} <= set(hello["capabilities"]), hello
    return link


def edit(request_id: str, cell_id: str, before: str, after: str, **origin: str) -> dict[str, Any]:
    return {
        "v": 1,
        "type": "apply_change",
        "request_id": request_id,
        "origin": {**ORIGIN, **origin},
        "change": {"kind": "edit", "cell_id": cell_id, "before": before, "after": after},
    }


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_apply_change_is_one_undoable_step_once_and_never_stale(
    browser: Any, shared_servers: SharedServers, app: str
) -> None:
    name = "edit.ipynb"
    lab = shared_servers(app)
    write_notebook(
        lab.root / name,
        [("setup", setup_source()), ("target", "y = a + 1"), ("other", "z = 3")],
    )
    page = open_page(browser, lab, name, app)
    link = connect(page, lab, name)

    sent = link.send(edit("c1", "target", "y = a + 1", "y = b + 1"))
    wait_source(page, 1, "y = b + 1")
    print(f"\napply_change sent -> cell source changed ({app}): {time.monotonic() - sent:.3f} s")
    assert "dsh-agent-edited" in (cells(page).nth(1).get_attribute("class") or "")
    reply = link.reply_to("c1", "apply_change_reply")
    assert reply["status"] == "applied" and reply["cell_id"] == "target", reply
    assert reply["index"] == 1 and reply["source"] == "y = b + 1"

    # the same change again (a second page, a re-send): applied, not applied twice
    link.send(edit("c2", "target", "y = a + 1", "y = b + 1"))
    assert link.reply_to("c2", "apply_change_reply")["status"] == "applied"
    # a change whose `before` is not what the cell holds: stale, nothing changes
    link.send(edit("c3", "other", "z = 2", "z = 4", call="call_2"))
    stale = link.reply_to("c3", "apply_change_reply")
    assert stale["status"] == "stale" and stale["source"] == "z = 3", stale
    link.send(edit("c4", "gone", "x", "y", call="call_3"))
    assert link.reply_to("c4", "apply_change_reply")["status"] == "missing"
    assert source_of(page, 2) == "z = 3"

    # the metadata marks the edit; JupyterLab's undo takes it back in one step
    saved = save_notebook(
        page,
        lab,
        name,
        lambda nb: "dsh_notebook" in nb["cells"][1]["metadata"],
        "the edit's mark was never saved",
        cell=2,
    )["cells"][1]
    assert saved["metadata"]["dsh_notebook"]["edited"] == ORIGIN, saved["metadata"]
    page.keyboard.press("z")
    wait_source(page, 1, "y = a + 1")
    assert source_of(page, 2) == "z = 3"
    page.close()


def test_run_cells_in_place_stop_at_error_and_answer_running(browser: Any, lab: Lab) -> None:
    name, _ = fresh(lab, "run")
    write_notebook(
        lab.root / name,
        [
            ("setup", setup_source()),
            ("first", "print('first ran')\n40 + 2"),
            ("boom", "1/0"),
            ("never", "print('never ran')"),
            ("slow", "import time\ntime.sleep(6)\nprint('slept, not interrupted')"),
        ],
    )
    page = open_page(browser, lab, name)
    link = connect(page, lab, name)
    link.send(
        {
            "v": 1,
            "type": "run_cells",
            "request_id": "r1",
            "cell_ids": ["first", "boom", "never"],
            "timeout_s": 60,
            "origin": ORIGIN,
        }
    )
    reply = link.reply_to("r1", "run_cells_reply", 60)
    by_id = {c["cell_id"]: c for c in reply["cells"]}
    assert [c["status"] for c in reply["cells"]] == ["ok", "error", "not_run"], reply
    first, boom = by_id["first"], by_id["boom"]
    assert first["outputs"][0] == {"output_type": "stream", "text": "first ran\n"}
    assert first["outputs"][1]["text"] == "42"
    assert isinstance(first["execution_count"], int)
    assert boom["execution_count"] == first["execution_count"] + 1
    error = boom["outputs"][0]
    assert error["ename"] == "ZeroDivisionError" and "\x1b" not in error["traceback"]
    assert error["traceback"].rstrip().endswith("ZeroDivisionError: division by zero")
    # in the notebook as the person's Run: outputs and counts in the cells
    assert "first ran" in cells(page).nth(1).locator(".jp-OutputArea").inner_text()
    assert "ZeroDivisionError" in cells(page).nth(2).locator(".jp-OutputArea").inner_text()
    assert cells(page).nth(3).locator(".jp-OutputArea-output").count() == 0

    start = time.monotonic()
    link.send(
        {
            "v": 1,
            "type": "run_cells",
            "request_id": "r2",
            "cell_ids": ["slow", "first"],
            "timeout_s": 1,
            "origin": ORIGIN,
        }
    )
    slow = link.reply_to("r2", "run_cells_reply", 60)
    assert [c["status"] for c in slow["cells"]] == ["running", "running"], slow
    # never interrupted: the slow cell finishes and the next one runs after it
    page.locator(".jp-OutputArea-output:has-text('slept, not interrupted')").wait_for(
        timeout=30_000
    )
    wait_kernel_idle(lab, name)
    assert time.monotonic() - start >= 6
    assert "KeyboardInterrupt" not in cells(page).nth(4).locator(".jp-OutputArea").inner_text()
    page.close()


def test_undo_this_run_reverts_a_mixed_run_in_one_step_and_skips_the_persons_cell(
    browser: Any, lab: Lab
) -> None:
    name, _ = fresh(lab, "undo")
    write_notebook(
        lab.root / name,
        [
            ("setup", setup_source()),
            ("prompt", "%%dsh\nfix my cells"),
            ("a", "a = 1"),
            ("b", "b = 2"),
            ("c", "c = 3"),
        ],
    )
    page = open_page(browser, lab, name)
    link = connect(page, lab, name)
    link.send(edit("e1", "a", "a = 1", "a = 10"))
    link.send(edit("e2", "b", "b = 2", "b = 20", call="call_2"))
    link.send(
        {
            "v": 1,
            "type": "apply_change",
            "request_id": "e3",
            "origin": {**ORIGIN, "call": "call_3"},
            "change": {
                "kind": "insert",
                "after_cell_id": "c",
                "cell_type": "code",
                "source": "d = 4",
            },
        }
    )
    link.send(
        {
            "v": 1,
            "type": "apply_change",
            "request_id": "e4",
            "origin": {**ORIGIN, "call": "call_4"},
            "change": {"kind": "delete", "cell_id": "c", "before": "c = 3"},
        }
    )
    link.send(
        {
            "v": 1,
            "type": "insert_cell",
            "anchor": "prompt",
            "session": "s1",
            "run": "r1",
            "call": 5,
            "source": "# dsh agent: run_python call 5\nprint('agent')",
            "outputs": [],
        }
    )
    inserted = link.reply_to("e3", "apply_change_reply")["cell_id"]
    assert link.reply_to("e4", "apply_change_reply")["status"] == "applied"
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')"
        ".length === 6",
        polling=100,
    )
    # the person changes one of the edited cells afterwards
    cells(page).nth(4).locator(".jp-InputArea-editor").click()  # "b = 20" (below the agent cell)
    assert source_of(page, 4) == "b = 20"
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    page.keyboard.press("Escape")

    bar = cells(page).nth(1).locator(".dsh-agent-cells-bar")
    bar.wait_for(timeout=10_000)
    assert "1 agent cell" in bar.inner_text() and "changed 3 cells" in bar.inner_text(), (
        bar.inner_text()
    )
    ledger = [  # what the kernel applied for run r1, newest first
        {"kind": "agent_cell", "run": "r1", "call": 5,
         "source": "# dsh agent: run_python call 5\nprint('agent')"},
        {"kind": "delete", "cell": {"cell_type": "code", "source": "c = 3", "id": "c"},
         "after_cell_id": "b", "index": 5},
        {"kind": "insert", "cell_id": inserted, "source": "d = 4"},
        {"kind": "edit", "cell_id": "b", "before": "b = 2", "after": "b = 20"},
        {"kind": "edit", "cell_id": "a", "before": "a = 1", "after": "a = 10"},
    ]  # fmt: skip
    bar.locator(".dsh-undo-run").click()
    request = link.wait(lambda m: m.get("type") == "undo_request", 10, "undo_request")
    assert request == {"v": 1, "type": "undo_request", "anchor": "prompt"}
    link.send({"v": 1, "type": "undo_changes", "request_id": "u1", "run": "r1", "changes": ledger})
    reply = link.reply_to("u1", "undo_reply")
    assert reply["reverted"] == 4, reply
    assert reply["skipped"] == [{"cell_id": "b", "reason": "changed since the agent's edit"}]
    shown = cells(page).nth(1).locator(".dsh-undo-result")
    assert "4 changes reverted, 1 skipped" in shown.inner_text(), shown.inner_text()
    expected = ["%%dsh\nfix my cells", "a = 1", "b = 20  # mine", "c = 3"]
    deadline = time.monotonic() + 10
    while (sources := [source_of(page, i) for i in range(cells(page).count())])[1:] != expected:
        if time.monotonic() > deadline:
            command_mode(page, 0)
            page.keyboard.press("Control+s")
            page.wait_for_timeout(1500)
            saved = lab.api(f"/api/contents/{name}?content=1")["content"]["cells"]
            raise AssertionError((sources, [(c["id"], c["source"]) for c in saved]))
        page.wait_for_timeout(100)

    # one step: a single z brings the whole run back
    command_mode(page, 0)
    page.keyboard.press("z")
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')"
        ".length === 6",
        polling=100,
    )
    assert source_of(page, 3) == "a = 10"

    # no kernel answer: the page reverts the run from what the notebook keeps (its undo records,
    # its agent cells), and says the kernel's values are not restored (issue 45 item 4)
    cells(page).nth(1).locator(".dsh-undo-run").click()
    cells(page).nth(1).locator(".dsh-undo-result:has-text('did not answer')").wait_for(
        timeout=10_000
    )
    said = cells(page).nth(1).locator(".dsh-undo-result").inner_text()
    assert "Undone from what the notebook keeps" in said, said
    assert "the kernel's values are not restored" in said, said
    assert "# dsh agent" not in "".join(source_of(page, i) for i in range(cells(page).count()))
    sources = [source_of(page, i) for i in range(cells(page).count())]
    assert "a = 1" in sources and "a = 10" not in sources, sources
    page.close()


def test_show_in_notebook_ask_and_fix_on_a_failed_cell(browser: Any, lab: Lab) -> None:
    name, _ = fresh(lab, "show")
    code = 'total = {"a": 1}\nprint(f"{total}")\n1/0'
    write_notebook(
        lab.root / name,
        [("setup", setup_source()), ("broken1a2b3c4d", code), ("tail", "x = 1")]
        + [(f"pad{i}", f"# padding {i}\n" * 8) for i in range(12)],
    )
    page = open_page(browser, lab, name)
    connect(page, lab, name)
    run_cell(page, lab, name, 1)

    # the widget's "Show in notebook": by short id, from inside the notebook
    page.evaluate(
        "() => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')"
        ".dispatchEvent(new CustomEvent('dsh-show-cell', {bubbles: true, composed: true,"
        " detail: {cellId: 'pad11'}}))"
    )
    last = cells(page).nth(14)
    page.wait_for_function(
        "(n) => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[n]"
        ".classList.contains('jp-mod-active')",
        arg=14,
        polling=100,
    )
    assert last.is_visible()

    cells(page).nth(1).locator(".dsh-nb-fix").wait_for(timeout=10_000)
    cells(page).nth(1).locator(".dsh-nb-ask").click()
    asked = source_of(page, 2)
    assert asked.startswith("%%dsh\nCell broken1a raised an error."), asked
    assert 'print(f"{{total}}")' in asked  # kept verbatim by the kernel's interpolation
    assert "ZeroDivisionError: division by zero" in asked
    assert "{In[" not in asked and "{Err[" not in asked
    page.close()
