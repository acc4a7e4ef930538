"""Fix with dsh without a key (issue 47 item 3) through a real ipykernel, the real runtime and
the demo analyst on a scripted model server that records every request: a cell with a typo'd
column really raised; the prompt the page's Fix with dsh button sends names the cell by short id
and carries the traceback. The analyst reads the cell by id (``notebook_cells``), the frame's
columns, proposes ``edit_cell`` of the one line; the person allows it (``%dsh allow``, the
waiting signal's id); the page applies it; the analyst asks ``run_cells`` of that cell, the
person allows, the page runs it in the kernel (played by this test over the kernel's channels,
as a browser tab's connection sends), and the analyst's answer says it ran."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.analyst import ANALYST_SCENARIO, analyst_script
from dsh_notebook.scripted_model import ScriptedModelServer

from .fake_page import CAPABILITIES, FakePage
from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = pytest.mark.timeout(300)

DATA = (
    "import pandas as pd\n"
    "trips = pd.DataFrame({'station': ['A', 'B', 'A'], 'minutes': [10.0, 20.0, 15.0]})"
)
TYPO = (
    'by_station = trips.groupby("staton")["minutes"].mean()\nprint(by_station.round(1).to_dict())'
)
FIXED = (
    'by_station = trips.groupby("station")["minutes"].mean()\nprint(by_station.round(1).to_dict())'
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def analyst() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(
        scripts={ANALYST_SCENARIO: analyst_script()}, default_scenario=ANALYST_SCENARIO
    ) as server:
        yield server


@pytest.fixture
def kernel(tmp_path: Path, analyst: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, analyst.base_url) as k:
        yield k


def run_reply(k: Kernel, page: FakePage, data: dict[str, Any]) -> dict[str, Any]:
    """The page's ``run_cells_reply``: each cell run in the kernel as the person's Run would."""
    results = []
    for wanted in data["cell_ids"]:
        i = next(n for n, c in enumerate(page.cells) if c["id"] == wanted)
        ran = k.execute(page.cells[i]["source"], metadata=identity(wanted))
        count = ran.reply.get("execution_count")
        page.cells[i]["execution_count"] = count
        errors = [m["content"] for m in ran.outputs if m["msg_type"] == "error"]
        outputs: list[dict[str, Any]] = [
            {"output_type": "stream", "mime": ["text/plain"], "text": ran.stdout}
        ] if ran.stdout else []  # fmt: skip
        outputs += [
            {"output_type": "error", "mime": [], "ename": e["ename"], "evalue": e["evalue"],
             "traceback": ANSI.sub("", "\n".join(e["traceback"]))}
            for e in errors
        ]  # fmt: skip
        results.append({"cell_id": wanted, "index": i, "status": "error" if errors else "ok",
                        "execution_count": count, "outputs": outputs})  # fmt: skip
    return {"v": 1, "type": "run_cells_reply", "request_id": data["request_id"], "cells": results}


def fix_with_dsh(
    k: Kernel, analyst: ScriptedModelServer, data: str, typo: str
) -> tuple[FakePage, list[tuple[str, Any]], int, str]:
    """Run ``data``, then ``typo`` (it raises), then the Fix with dsh prompt for it, the page
    played and each card allowed by the person; the page, the analyst's calls, the cards
    allowed and everything the kernel showed."""
    comm_id = open_link(k, (*CAPABILITIES, "identity"))
    page = FakePage(["%load_ext dsh_notebook", data, typo, ""])
    target, prompt_cell = page.cells[2]["id"], page.cells[3]["id"]
    assert k.execute(data, metadata=identity(page.cells[1]["id"])).error is None
    failed = k.execute(typo, metadata=identity(target))
    assert failed.error is not None
    traceback = ANSI.sub("", "\n".join(next(
        m["content"]["traceback"] for m in failed.outputs if m["msg_type"] == "error"
    )))  # fmt: skip
    prompt = (  # what the page's Fix with dsh button inserts and runs (insertions.ts fixSource)
        f"%%dsh\nFix the error in cell {target[:8]} (edit it with edit_cell; I will review the "
        f"diff).\n\n```\n{traceback}\n```"
    )
    page.cells[3]["source"] = prompt
    analyst.clear_requests()
    started = k.execute(prompt, allow_stdin=True, metadata=identity(prompt_cell))
    assert started.error is None, started.error

    seen, allowed = len(k.iopub), set()
    deadline = time.monotonic() + 180
    while not any("Ran 1 cell(s)" in json.dumps(r.body or {}) for r in analyst.requests) \
            or k.value("_dsh.done()") != "True":  # fmt: skip
        assert time.monotonic() < deadline, [r.body for r in analyst.requests][-1:]
        k.drain_iopub(0.2)
        new = k.iopub[seen:]
        seen = len(k.iopub)
        for msg in new:
            content = msg["content"]
            if msg["msg_type"] != "comm_msg" or content.get("comm_id") != comm_id:
                continue
            message = content["data"]
            replies: list[dict[str, Any]] = []
            if message.get("type") == "run_cells":
                replies.append(run_reply(k, page, message))
            else:
                page.receive = replies.append  # type: ignore[method-assign]
                page.send(message)
            for reply in replies:
                out = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
                k.client.shell_channel.send(out)
            if message.get("type") == "waiting":
                for cell in message["cells"]:
                    rid = cell.get("request_id")
                    if rid and rid not in allowed:  # the person allows the card
                        allowed.add(rid)
                        assert k.execute(f"%dsh allow {rid}").error is None
        time.sleep(0.1)
    # the run is done, and its last words may still be on their way (the UI pump's last
    # flush): what iopub sends until it has been quiet for a second
    k.drain_iopub(1.0)
    bodies = [r.body for r in analyst.requests if r.scenario == ANALYST_SCENARIO and r.body]
    calls = [
        (b["name"].rsplit("__", 1)[-1], b["input"])
        for m in bodies[-1]["messages"] if m["role"] == "assistant"
        for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"
    ]  # fmt: skip
    shown = json.dumps([m["content"] for m in k.iopub], ensure_ascii=False)
    return page, calls, len(allowed), json.dumps(bodies[-1]["messages"], ensure_ascii=False) + shown


def test_fix_with_dsh_edits_the_typod_column_and_runs_the_cell(
    kernel: Kernel, analyst: ScriptedModelServer
) -> None:
    page, calls, allowed, shown = fix_with_dsh(kernel, analyst, DATA, TYPO)
    target = page.cells[2]["id"]
    assert page.source(3) == FIXED  # the page applied the one-line change
    assert kernel.value("by_station.round(1).to_dict()") == "{'A': 12.5, 'B': 20.0}"
    assert [c[0] for c in calls] == [
        "notebook_cells", "notebook_variables", "describe_variable", "edit_cell", "run_cells",
    ], calls  # fmt: skip
    assert calls[0][1] == {"cell_ids": [target[:8]]}  # read by id first: the stale check
    assert calls[3][1] == {
        "cell_id": target[:8],
        "old_text": 'by_station = trips.groupby("staton")["minutes"].mean()',
        "new_text": 'by_station = trips.groupby("station")["minutes"].mean()',
    }
    assert "Applied: Edited cell 3 · id 00000003" in shown
    assert "Ran 1 cell(s) in the notebook (ok)." in shown
    assert "{'A': 12.5, 'B': 20.0}" in shown
    assert allowed == 2  # two cards: the edit, then the run
    assert f"Cell {target[:8]} ran without an error with `station`." in shown


def test_fix_with_dsh_points_a_missing_file_to_the_close_one_in_its_folder(
    kernel: Kernel, analyst: ScriptedModelServer
) -> None:
    data = "from pathlib import Path\nPath('trips.csv').write_text('station,minutes\\nA,10\\n')"
    typo = "import pandas as pd\nrows = len(pd.read_csv('trips.cvs'))\nprint(rows)"
    page, calls, allowed, shown = fix_with_dsh(kernel, analyst, data, typo)
    assert [c[0] for c in calls] == ["notebook_cells", "glob", "edit_cell", "run_cells"], calls
    assert "Cell 00000003 ran without an error with `trips.csv`." in shown
    assert (
        page.source(3) == "import pandas as pd\nrows = len(pd.read_csv('trips.csv'))\nprint(rows)"
    )
    assert kernel.value("rows") == "1"
    assert allowed == 2
