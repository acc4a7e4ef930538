"""The apply path of the cell tools through a real ipykernel, the real runtime and the scripted
model (``notebook-calls``), the page (or two pages) played over the kernel's own channels.

- An edit decided by ``%dsh allow ID`` is sent once the deciding cell has ended (before, an
  apply decided in a cell found the kernel busy and was dropped: "the kernel is busy").
- A cell longer than the page's read bound is refused before any card, with the true reason
  (before, the card was shown and the page's before-check refused it as "changed").
- Two pages of one notebook that do not share edits: the model hears "Applied" only when every
  page that answered applied it (before, the first page to answer was believed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.cell_tools import PAGE_READ_SOURCE
from dsh_notebook.page_protocol import MAX_READ_SOURCE
from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.scripted_model.notebook_calls import tool_results

from .fake_page import CAPABILITIES, FakePage
from .helpers.played_page import PlayedPage
from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def prompt(calls: list[dict[str, Any]], options: str = "") -> str:
    return f"%%dsh {options}\n[[scenario:notebook-calls]] " + json.dumps(calls)


def start(k: Kernel, model: ScriptedModelServer, page: FakePage, text: str) -> None:
    page.cells[-1]["id"] = "dsh-cell"
    model.clear_requests()
    run = k.execute(text, allow_stdin=True, metadata=identity("dsh-cell"))
    assert run.error is None, run.error


def model_requests(model: ScriptedModelServer) -> list[dict[str, Any]]:
    return [r.body for r in model.requests if r.scenario == "notebook-calls" and r.body]


def final_text(model: ScriptedModelServer) -> str:
    """Every tool result the model read, after ``notebook_cells``' (one per call, in order)."""
    return "\n---\n".join(tool_results(model_requests(model)[-1])[1:])


def settle(k: Kernel, model: ScriptedModelServer, calls: int, *pages: PlayedPage) -> None:
    """Answer as ``pages`` (in that order, each time) until the model got its last request
    (``notebook_cells``, each call, the final text), then until the run is done."""
    deadline = time.monotonic() + 120
    while len(model_requests(model)) < calls + 2:
        assert time.monotonic() < deadline, "the model got fewer requests than planned"
        k.drain_iopub(0.2)
        for page in pages:  # each message is answered by the pages in this order
            page.answer(drain=False)
        time.sleep(0.1)
    while k.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run did not settle"
        time.sleep(0.2)


def test_edits_allowed_with_percent_dsh_allow_land_once_the_deciding_cell_ends(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """Item 4: each card is answered by a cell (``%dsh allow ID`` and a second of work after
    it); the kernel is busy with that cell when the decision comes, and the change is sent when
    the cell has ended, not dropped."""
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": f"@{n}", "old_text": "= 1", "new_text": "= 2"}}
        for n in (2, 3, 4)
    ]
    comm_id = open_link(kernel, (*CAPABILITIES, "identity"))
    text = prompt(calls)
    page = FakePage(["%load_ext dsh_notebook", "a = 1", "b = 1", "c = 1", text])
    played = PlayedPage(kernel, comm_id, page)
    start(kernel, scripted_model, page, text)
    allowed: list[str] = []
    deadline = time.monotonic() + 120
    while len(model_requests(scripted_model)) < len(calls) + 2:
        assert time.monotonic() < deadline, f"the model got fewer requests ({allowed=})"
        played.answer()
        for key in played.waiting_ids():
            if key not in allowed:
                allowed.append(key)
                decided = kernel.execute(f"%dsh allow {key}\nimport time; time.sleep(1.0)")
                assert decided.error is None, decided.error
        time.sleep(0.1)
    while kernel.value("_dsh.done()") != "True":
        played.answer()
        assert time.monotonic() < deadline, "the run did not settle"
    assert len(allowed) == 3, final_text(scripted_model)
    assert [page.source(n) for n in (2, 3, 4)] == ["a = 2", "b = 2", "c = 2"]
    final = final_text(scripted_model)
    assert final.count("Applied: Edited cell") == 3, final[:3000]
    assert "busy" not in final, final[:3000]


def test_a_cell_longer_than_the_read_bound_is_refused_before_any_card_with_the_reason(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """Item 6: the page sends a long cell cut to ``MAX_READ_SOURCE``; an edit of it could never
    pass the page's before-check, so it is refused before asking, saying why and what to do."""
    long_source = "x = 1\n" + "# filler line of a long cell\n" * 1000  # 29,006 characters
    assert len(long_source) > MAX_READ_SOURCE == PAGE_READ_SOURCE
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}},
        {"tool": "delete_cell", "args": {"cell_id": "@2"}},
    ]
    comm_id = open_link(kernel, (*CAPABILITIES, "identity"))
    text = prompt(calls, "--on-approval allow")
    page = FakePage(["%load_ext dsh_notebook", long_source, text])
    played = PlayedPage(kernel, comm_id, page)
    start(kernel, scripted_model, page, text)
    settle(kernel, scripted_model, len(calls), played)
    assert page.source(2) == long_source  # untouched
    assert page.sent_of("apply_change") == []  # nothing was sent to apply
    final = final_text(scripted_model)
    assert final.count("too long to edit") == 2, final[:3000]
    assert "29,006 characters" in final, final[:3000]
    assert "cell changed" not in final, final[:3000]


def test_two_pages_of_one_notebook_never_make_an_applied_out_of_one_pages_word(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """Item 7, two played pages (two tabs of one notebook without collaboration: two kernel
    connections, each with its own copy). The outdated page B answers first and applies the
    edit; page A, where the person changed the cell, answers ``stale``. The model must not hear
    "Applied"; it is told the pages disagree."""
    calls = [
        {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}}
    ]
    comm_id = open_link(kernel, (*CAPABILITIES, "identity"))
    text = prompt(calls, "--on-approval allow")
    in_a = FakePage(["%load_ext dsh_notebook", "x = 1\nprint(x)  # the person's edit", text])
    in_b = FakePage(["%load_ext dsh_notebook", "x = 1", text])
    a = PlayedPage(kernel, comm_id, in_a)  # the test client's connection: open_link's page
    b = PlayedPage(kernel, comm_id, in_b, session="page-b")  # a second tab
    b.send({"v": 1, "type": "hello_reply", "version": "0.1.0",
            "capabilities": [*CAPABILITIES, "identity"]})  # fmt: skip
    start(kernel, scripted_model, in_b, text)
    in_a.cells[-1]["id"] = "dsh-cell"
    settle(kernel, scripted_model, len(calls), b, a)  # B answers every message first
    assert in_b.source(2) == "x = 2" and in_a.source(2).startswith("x = 1\nprint"), final_text(
        scripted_model
    )
    final = final_text(scripted_model)
    assert "Applied" not in final, final[:3000]
    assert "2 pages" in final and "stale" in final, final[:3000]
