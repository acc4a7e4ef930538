"""Agent cells in a real ipykernel with the real runtime and the scripted model, the page played
by this test over the kernel's own channels (execute metadata with the cell id, ``hello_reply``
as a ``comm_msg``): two approved ``run_python`` calls of a background run send two
``insert_cell`` messages on IOPub, in call order, anchored at the ``%%dsh`` cell, with the code
and outputs, while the kernel is idle between cells; ``DshMagics.agent_cells = False`` sends none
(the code still runs).

A real kernel is the point: the approved code runs on the kernel's main thread from ipykernel's
own event loop while no cell runs (the in-process shell has no such loop between cells), the
calls come from the real runtime through the notebook tools server, and the cells leave on IOPub
as ``comm_msg``. The pieces (numbering, the message, the outputs, ``agent_cells = False``) are
unit-tested in ``test_agent_cells``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.scripted_model.builtin import AGENT_CELLS_CODE

from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = pytest.mark.timeout(300)

PROMPT = "%%dsh --on-approval allow\n[[scenario:notebook-two-calls]] make the rows"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def insert_cells(k: Kernel, comm_id: str, until: str, timeout: float = 120) -> list[dict[str, Any]]:
    """The ``insert_cell`` data sent on ``comm_id`` once the run is done and ``until`` is a name
    in the kernel (every IOPub message the client read is in ``k.iopub``)."""
    first = len(k.iopub)
    deadline = time.monotonic() + timeout
    while k.value(f"'{until}' in globals() and _dsh.done()") != "True":
        assert time.monotonic() < deadline, f"{until} never appeared"
        k.drain_iopub(0.5)
    k.drain_iopub(0.5)
    return [
        m["content"]["data"]
        for m in k.iopub[first:]
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("type") == "insert_cell"
    ]


def test_two_approved_calls_send_two_cells_in_order(kernel: Kernel) -> None:
    comm_id = open_link(kernel)
    run = kernel.execute(PROMPT, allow_stdin=True, metadata=identity("dsh-cell"))
    assert run.error is None, run.error  # background: the cell returned at once
    cells = insert_cells(kernel, comm_id, "agent_total")
    assert [c["call"] for c in cells] == [1, 2]
    assert {c["anchor"] for c in cells} == {"dsh-cell"}
    assert len({c["run"] for c in cells}) == 1
    assert cells[0]["session"] == "nb-0123456789ab"
    for cell, code in zip(cells, AGENT_CELLS_CODE, strict=True):
        head, _, body = cell["source"].partition("\n")
        assert head.startswith("# dsh agent: run_python call") and body == code
    assert cells[0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "rows: 3\n"}]
    kinds = [o["output_type"] for o in cells[1]["outputs"]]
    assert kinds == ["display_data", "execute_result"], [
        {**o, "data": {k: v[:60] for k, v in o.get("data", {}).items()}}
        for o in cells[1]["outputs"]
    ]
    assert cells[1]["outputs"][1]["data"] == {"text/plain": "60"}
    assert kernel.value("(agent_rows, agent_total)") == "([3, 1, 2], 6)"


def test_agent_cells_off_sends_none_and_the_code_still_runs(kernel: Kernel) -> None:
    comm_id = open_link(kernel)
    kernel.execute("%config DshMagics.agent_cells = False")
    run = kernel.execute(PROMPT, allow_stdin=True, metadata=identity("dsh-cell"))
    assert run.error is None, run.error
    assert insert_cells(kernel, comm_id, "agent_total") == []
    assert kernel.value("agent_total") == "6"
