"""Issue 45, item 2, in a real ipykernel against the real runtime and the scripted model:
"Undo this run" (``%dsh undo``) gives back the kernel. Before approved code runs, the values it
rebinds, mutates or deletes are kept; undo binds them again, removes the names the run created,
brings deleted ones back, skips (and names) a value the person rebound since, names what could
not be kept (said on the card before the click) and the effects that remain (a file written).
Undo's memory is bounded; the oldest values are dropped first, and said so. No page needed."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_pending
from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

RUN_PYTHON = "mcp__notebook__run_python"
SETUP = (
    "import sqlite3\nimport numpy as np\nimport pandas as pd\n"
    "sales = pd.DataFrame({'a': [1.0, None, 3.0]})\n"
    "items = [1, 2]\nscratch = 'temporary'\nconn = sqlite3.connect(':memory:')\n"
    "a = np.zeros(75_000)\nb = np.zeros(75_000)\nbig = np.zeros(300_000)\n"
)
TRANSCRIPT = "get_ipython()._dsh_notebook_magics.agent.runs.last().view.transcript"


def run_python(code: str) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),))


def every_change(report: Path) -> str:
    return (
        "sales = sales.dropna()\nitems.append(3)\ndel scratch\ntotal = len(items)\n"
        f"conn.row_factory = None\nopen({str(report)!r}, 'w').write('x')\n"
    )


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    report = tmp_path / "report.csv"
    scripted_model.register(
        "undo-all", Script(steps=(run_python(every_change(report)), Step(text="ok")))
    )
    scripted_model.register(
        "undo-two", Script(steps=(run_python("a += 1"), run_python("b += 1"), Step(text="ok")))
    )
    scripted_model.register("undo-big", Script(steps=(run_python("big += 1"), Step(text="ok"))))
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        setup = k.execute(SETUP)
        assert setup.error is None, setup.error
        yield k


def card_changes(k: Kernel) -> list[tuple[str, str]]:
    shown = k.execute(f"print(__import__('json').dumps({TRANSCRIPT}.snapshot()))")
    snapshot: dict[str, Any] = json.loads(shown.stdout)
    cards = [i["approval"] for i in snapshot["items"] if i["kind"] == "tool" and i["approval"]]
    return [(line["kind"], line["text"]) for line in cards[-1]["changes"]]


def run_and_allow(k: Kernel, scenario: str, calls: int = 1) -> None:
    cell = k.execute(f"%%dsh\n[[scenario:{scenario}]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    for n in range(1, calls + 1):
        wait_pending(k, f"a{n}: approve run_python")
        assert "allowed" in k.execute(f"%dsh allow a{n}").stdout
    wait_done(k)


def test_undo_gives_back_rebound_mutated_and_deleted_values_and_removes_created_ones(
    kernel: Kernel, tmp_path: Path
) -> None:
    cell = kernel.execute("%%dsh\n[[scenario:undo-all]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    wait_pending(kernel, "a1: approve run_python")
    # before the click: what undo could not give back
    assert ("undo", "Not undoable: conn (sqlite3.Connection)") in card_changes(kernel)
    assert "allowed" in kernel.execute("%dsh allow a1").stdout
    wait_done(kernel)
    assert kernel.value("(len(sales), items, 'scratch' in globals(), total)") == (
        "(2, [1, 2, 3], False, 3)"
    )
    undone = kernel.execute("%dsh undo").stdout
    assert "kernel: gave back sales, items, scratch" in undone, undone
    assert "kernel: removed what the run created: total" in undone, undone
    assert "could not give back: conn (sqlite3.Connection: cannot be copied)" in undone, undone
    assert re.search(r"not undone: wrote \S*/report\.csv\n", undone), undone  # its name kept
    assert kernel.value("(len(sales), items, scratch, 'total' in globals())") == (
        "(3, [1, 2], 'temporary', False)"
    )
    assert "nothing to undo" in kernel.execute("%dsh undo").stdout  # once


def test_a_value_the_person_rebound_after_the_run_is_skipped_and_named(kernel: Kernel) -> None:
    run_and_allow(kernel, "undo-all")
    kernel.execute("items = ['mine']")
    undone = kernel.execute("%dsh undo").stdout
    assert "kernel: left as they are: items (you changed it since)" in undone, undone
    assert kernel.value("(items, len(sales))") == "(['mine'], 3)"


def test_undo_memory_is_bounded_oldest_first_and_says_so(kernel: Kernel) -> None:
    kernel.execute("%config DshMagics.undo_memory_mb = 1")  # a and b are 0.6 MB each
    run_and_allow(kernel, "undo-two", calls=2)
    assert kernel.value("(a[0], b[0])") == "(np.float64(1.0), np.float64(1.0))"
    undone = kernel.execute("%dsh undo").stdout
    assert "kernel: gave back b" in undone, undone
    assert "could not give back: a (dropped: undo_memory_mb)" in undone, undone
    assert "dropped earlier to keep undo within its memory bound" in undone, undone
    assert kernel.value("(a[0], b[0])") == "(np.float64(1.0), np.float64(0.0))"


def test_a_value_over_the_per_value_limit_is_named_before_the_click(kernel: Kernel) -> None:
    kernel.execute("%config DshMagics.undo_value_mb = 1")  # big is 2.4 MB
    cell = kernel.execute("%%dsh\n[[scenario:undo-big]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    wait_pending(kernel, "a1: approve run_python")
    assert (
        "undo",
        "Not undoable: big (ndarray: too large to keep: 2 MB, over 1 MB)",
    ) in card_changes(kernel)
    kernel.execute("%dsh reject a1")
    wait_done(kernel)


def test_the_pages_undo_this_run_gives_back_the_kernel_too(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """The button under the ``%%dsh`` cell (the page's ``undo_request`` on the link): the
    kernel's values come back on the main thread, between cells."""
    from .kernels import identity, open_link, page_kernel

    scripted_model.register("undo-page", Script(steps=(run_python("items.append(3)\nnew = 1"),
                                                       Step(text="ok"))))  # fmt: skip
    setup = "%load_ext dsh_notebook\nitems = [1, 2]"
    with page_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
        comm_id = open_link(k)
        cell = k.execute("%%dsh\n[[scenario:undo-page]] go", allow_stdin=True,
                         metadata=identity("dsh-cell"))  # fmt: skip
        assert cell.error is None, cell.error
        wait_pending(k, "a1: approve run_python")
        assert "allowed" in k.execute("%dsh allow a1").stdout
        wait_done(k)
        assert k.value("(items, new)") == "([1, 2, 3], 1)"
        data = {"v": 1, "type": "undo_request", "anchor": "dsh-cell"}
        k.client.shell_channel.send(
            k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        )
        deadline = time.monotonic() + 30
        while k.value("items") != "[1, 2]":
            assert time.monotonic() < deadline, "the kernel's values did not come back"
            time.sleep(0.2)
        assert k.value("'new' in globals()") == "False"


def test_each_cell_an_approved_run_cells_runs_is_kept_and_given_back(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """The page runs the cells (execute requests naming each cell, as JupyterLab sends them):
    each one's values are kept as it starts; ``%dsh undo`` gives them back. A later run of the
    same cell by the person is not the run's (an in-place change the person made since is not
    seen: only a name bound to another object counts as "changed since")."""
    from .fake_page import CAPABILITIES, FakePage
    from .helpers.played_page import PlayedPage
    from .kernels import identity, open_link, page_kernel

    setup = "%load_ext dsh_notebook\n%config DshMagics.default_format = 'markdown'\nitems = [1, 2]"
    with page_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
        comm_id = open_link(k, (*CAPABILITIES, "identity"))
        calls = [{"tool": "run_cells", "args": {"cell_ids": ["@2", "@3"]}}]
        text = "%%dsh\n[[scenario:notebook-calls]] " + json.dumps(calls)
        page = FakePage(["%load_ext dsh_notebook", "items.append(3)", "made = len(items)", text])
        page.cells[-1]["id"] = "dsh-cell"

        def run_results(ids: list[str]) -> list[dict[str, Any]]:
            results = []
            for n, cell_id in enumerate(ids):
                source = next(c["source"] for c in page.cells if c["id"] == cell_id)
                ran = k.execute(source, metadata={"cellId": cell_id})
                assert ran.error is None, ran.error
                results.append({"cell_id": cell_id, "index": n + 1, "status": "ok",
                                "execution_count": n + 5, "outputs": []})  # fmt: skip
            return results

        page.run_results = run_results
        played = PlayedPage(k, comm_id, page)
        run = k.execute(text, allow_stdin=True, metadata=identity("dsh-cell"))
        assert run.error is None, run.error
        deadline = time.monotonic() + 120
        while not played.waiting_ids():
            assert time.monotonic() < deadline, "the run_cells card never waited"
            played.answer()
            time.sleep(0.1)
        (key,) = played.waiting_ids()
        assert "allowed" in k.execute(f"%dsh allow {key}").stdout
        while k.value("_dsh.done()") != "True":
            assert time.monotonic() < deadline, "the run did not settle"
            played.answer()
            time.sleep(0.2)
        assert k.value("(items, made)") == "([1, 2, 3], 3)"
        again = k.execute(page.cells[1]["source"], metadata={"cellId": page.cells[1]["id"]})
        assert again.error is None  # the person runs it once more: not the run's
        undone = k.execute("%dsh undo").stdout
        assert "kernel: left as they are: items (you changed it since)" not in undone, undone
        assert "kernel: removed what the run created: made" in undone, undone
        # given back to what it held before the run's cell (the person's later run was not
        # kept as the run's: that would have left items as the run left it, skipped)
        assert "kernel: gave back items" in undone, undone
        assert k.value("('made' in globals(), items)") == "(False, [1, 2])", undone
