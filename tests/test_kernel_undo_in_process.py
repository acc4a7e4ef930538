"""Issue 45, item 2, in the in-process kernel (the extension in this worker's shell, the runtime
a scripted peer whose ``run_python`` calls go over MCP to the kernel's own notebook tools server):
"Undo this run" (``%dsh undo``) gives back the kernel. Before approved code runs, the values it
rebinds, mutates or deletes are kept; undo binds them again, removes the names the run created,
brings deleted ones back, skips (and names) a value the person rebound since, names what could
not be kept (said on the card before the click) and the effects that remain (a file written).
Undo's memory is bounded; the oldest values are dropped first, and said so.

The page's "Undo this run" button and the cells a ``run_cells`` call ran, over a real kernel's
channels and the real runtime, are in ``test_kernel_undo_real``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, Step, ToolCall

from .helpers.in_process import InProcessSession, in_process_session
from .helpers.real_kernel import wait_done, wait_pending

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
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessSession]:
    report = tmp_path / "report.csv"
    with in_process_session(tmp_path, monkeypatch) as k:
        scripts = k.peer.scripts
        scripts["undo-all"] = Script(steps=(run_python(every_change(report)), Step(text="ok")))
        scripts["undo-two"] = Script(
            steps=(run_python("a += 1"), run_python("b += 1"), Step(text="ok"))
        )
        scripts["undo-big"] = Script(steps=(run_python("big += 1"), Step(text="ok")))
        setup = k.execute(SETUP)
        assert setup.error is None, setup.error
        yield k


def card_changes(k: InProcessSession) -> list[tuple[str, str]]:
    shown = k.execute(f"print(__import__('json').dumps({TRANSCRIPT}.snapshot()))")
    snapshot: dict[str, Any] = json.loads(shown.stdout)
    cards = [i["approval"] for i in snapshot["items"] if i["kind"] == "tool" and i["approval"]]
    return [(line["kind"], line["text"]) for line in cards[-1]["changes"]]


def run_and_allow(k: InProcessSession, scenario: str, calls: int = 1) -> None:
    cell = k.execute(f"%%dsh\n[[scenario:{scenario}]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    for n in range(1, calls + 1):
        wait_pending(k, f"a{n}: approve run_python")
        assert "allowed" in k.execute(f"%dsh allow a{n}").stdout
    wait_done(k)


def test_undo_gives_back_rebound_mutated_and_deleted_values_and_removes_created_ones(
    kernel: InProcessSession, tmp_path: Path
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


def test_a_value_the_person_rebound_after_the_run_is_skipped_and_named(
    kernel: InProcessSession,
) -> None:
    run_and_allow(kernel, "undo-all")
    kernel.execute("items = ['mine']")
    undone = kernel.execute("%dsh undo").stdout
    assert "kernel: left as they are: items (you changed it since)" in undone, undone
    assert kernel.value("(items, len(sales))") == "(['mine'], 3)"


def test_undo_memory_is_bounded_oldest_first_and_says_so(kernel: InProcessSession) -> None:
    kernel.execute("%config DshMagics.undo_memory_mb = 1")  # a and b are 0.6 MB each
    run_and_allow(kernel, "undo-two", calls=2)
    assert kernel.value("(a[0], b[0])") == "(np.float64(1.0), np.float64(1.0))"
    undone = kernel.execute("%dsh undo").stdout
    assert "kernel: gave back b" in undone, undone
    assert "could not give back: a (dropped: undo_memory_mb)" in undone, undone
    assert "dropped earlier to keep undo within its memory bound" in undone, undone
    assert kernel.value("(a[0], b[0])") == "(np.float64(1.0), np.float64(0.0))"


def test_a_value_over_the_per_value_limit_is_named_before_the_click(
    kernel: InProcessSession,
) -> None:
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
