"""The context block's edited cells (issue 25, item 4 of the review): with the page read from
inside the ``%%dsh`` cell, the block gives the prompt's position and the cells whose page source
differs from what this kernel ran; with a page that cannot answer it says they are not known;
with no page it says nothing about them. Also measures a typical block with them."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from dsh_notebook.context.notebook_context import EditedCell, notebook_context_block
from dsh_notebook.kernel.notebook.prompt_context import UNREAD_NOTE, gather_facts, read_page_now
from dsh_notebook.notebook_tools.ran_cells import RanCells

from .helpers.notebook_facts import FACTS

PROMPT = "3f9a1c2e-5b1d-4068-a9e7-c3f10b000001"


def test_the_block_lists_the_edited_cells_and_the_prompts_position() -> None:
    facts = replace(
        FACTS,
        position=14,
        edited=(EditedCell(4, "9c0d1e2f-aaaa", 9, 'sales.groupby("region").sum()'),),
    )
    block = notebook_context_block(facts)
    assert "This prompt: cell 14, the %%dsh cell with id 3f9a1c2e, In [12]\n" in block
    assert (
        "Cells edited since they ran (their outputs are from the older source):\n"
        '  cell 4 · id 9c0d1e2f · In [9]: sales.groupby("region").sum()\n'
    ) in block
    print(f"typical block with an edited cell: {len(block)} characters, ~{len(block) // 4} tokens")
    assert "Cells edited since they ran: none" in notebook_context_block(replace(FACTS, edited=()))
    unread = notebook_context_block(replace(FACTS, edited_note=UNREAD_NOTE))
    assert f"Cells edited since they ran: not known ({UNREAD_NOTE})" in unread
    assert "edited" not in notebook_context_block(FACTS)  # no page: nothing claimed


def shell() -> Any:
    return SimpleNamespace(
        user_ns={}, history_manager=SimpleNamespace(input_hist_raw=["", "a = 1", "b = 2"])
    )


def test_gather_compares_the_page_with_what_ran() -> None:
    ran = RanCells()
    for count, source, cell_id in ((1, "a = 1", "c-a"), (2, "b = 2", "c-b")):
        info = SimpleNamespace(raw_cell=source, cell_id=cell_id)
        ran.cell_finished(SimpleNamespace(execution_count=count, info=info))
    page = {"cells": [
        {"index": 0, "id": "c-a", "cell_type": "code", "source": "a = 10", "execution_count": 1},
        {"index": 1, "id": "c-b", "cell_type": "code", "source": "b = 2", "execution_count": 2},
    ]}  # fmt: skip
    facts = gather_facts(shell(), {}, execution_count=3, since=None, page=page, ran=ran.lookup)
    assert facts.edited == (EditedCell(1, "c-a", 1, "a = 10"),)
    unread = gather_facts(shell(), {}, execution_count=3, since=None, page="busy", ran=ran.lookup)
    assert unread.edited is None and unread.edited_note == UNREAD_NOTE
    alone = gather_facts(shell(), {}, execution_count=3, since=None)
    assert alone.edited is None and alone.edited_note is None


def test_the_page_is_read_off_the_main_thread_and_the_wait_is_bounded() -> None:
    threads: list[threading.Thread] = []

    def read(timeout: float, busy: bool, want: Any = None) -> Any:
        threads.append(threading.current_thread())
        assert busy  # the reader is told a cell holds the main thread
        return {"cells": []}

    assert read_page_now(read) == {"cells": []}
    assert threads[0] is not threading.main_thread()

    def hangs(timeout: float, busy: bool, want: Any = None) -> Any:
        time.sleep(5)
        return {}

    started = time.monotonic()
    assert read_page_now(hangs, timeout=0.2) == "the notebook page did not answer in time"
    assert time.monotonic() - started < 1.5
