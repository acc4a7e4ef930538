"""Issue 45, item 2, in a real ipykernel against the real runtime and the scripted model: the
kernel's values given back through the page's "Undo this run" (the link's ``undo_request``) and
for the cells an approved ``run_cells`` ran (execute requests naming each cell, as JupyterLab
sends them). What undo gives back, skips and names, and its memory bound, are in
``test_kernel_undo_in_process``; the ledger itself, ``test_kernel_undo``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_pending

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

RUN_PYTHON = "mcp__notebook__run_python"


def run_python(code: str) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),))


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
