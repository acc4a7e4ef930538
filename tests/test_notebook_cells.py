"""``notebook_cells`` pieces without a browser: the ``read_notebook`` messages, the link's
bounded wait for the page's reply (delivered on another thread, as the kernel's main thread
does), and the text the model gets (bounded, every cell kept)."""

from __future__ import annotations

import threading
import time
from typing import Any

from dsh_notebook import page_protocol as protocol
from dsh_notebook.notebook_tools.cells import format_cells

from .helpers.frontend_link import REPLY, make
from .page_parser import parse_kernel_message

CELL: dict[str, Any] = {
    "index": 0,
    "id": "c1",
    "cell_type": "code",
    "source": "df = load()",
    "execution_count": 2,
    "agent": False,
    "selected": False,
    "outputs": [
        {"output_type": "stream", "text": "loaded 3 rows\n"},
        {"output_type": "display_data", "mime": ["image/png", "text/plain"], "text": "<Figure>"},
    ],
}
PAGE: dict[str, Any] = {
    "v": 1,
    "type": "read_notebook_reply",
    "request_id": "n1",
    "path": "a.ipynb",
    "total_cells": 1,
    "cells": [CELL],
}


def test_reply_is_parsed_within_bounds_and_anything_else_ignored() -> None:
    assert protocol.parse_read_notebook_reply(PAGE) == dict(PAGE)
    assert parse_kernel_message(protocol.read_notebook("n7")) == {
        "v": 1, "type": "read_notebook", "request_id": "n7"}  # fmt: skip
    too_long = {**CELL, "source": "x" * (protocol.MAX_READ_SOURCE + 1)}
    for bad in (
        {**PAGE, "request_id": ""},
        {**PAGE, "cells": [{**CELL, "cell_type": "html"}]},
        {**PAGE, "cells": [{**CELL, "agent": "yes"}]},
        {**PAGE, "cells": [{**CELL, "execution_count": -1}]},
        {**PAGE, "cells": [{**CELL, "outputs": [{"output_type": "surprise"}]}]},
        {**PAGE, "cells": [too_long]},
        {**PAGE, "cells": [CELL] * (protocol.MAX_READ_CELLS + 1)},
        {**PAGE, "v": 2},
    ):
        assert protocol.parse_read_notebook_reply(bad) is None
    assert protocol.parse_frontend_message(PAGE) is None  # not a hello_reply


def answer_later(comm: Any, delay: float = 0.1) -> threading.Thread:
    """Play the page: answer the last request after ``delay`` from another thread."""

    def run() -> None:
        time.sleep(delay)
        request = comm.sent[-1]
        comm.receive({**PAGE, "request_id": "wrong"})  # nobody waits for it: dropped
        comm.receive({**PAGE, "request_id": request["request_id"]})

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def read_off_main(link: Any, timeout: float, main_thread_busy: bool = False) -> Any:
    box: list[Any] = []
    worker = threading.Thread(
        target=lambda: box.append(link.read_notebook(timeout, main_thread_busy))
    )
    worker.start()
    worker.join(10)
    return box[0]


def test_link_asks_the_page_and_waits_bounded() -> None:
    link, comms = make()
    assert "not connected" in read_off_main(link, 1)  # no comm: says so at once
    link.open()
    comms[0].receive({**REPLY, "capabilities": ["waiting"]})
    assert "too old" in read_off_main(link, 1)  # the page cannot read cells
    comms[0].receive({**REPLY, "capabilities": ["waiting", "read_notebook"]})
    assert "main thread" in link.read_notebook(1)  # would deadlock on itself: refused at once
    assert "busy running a cell" in read_off_main(link, 0)  # the caller knows: nothing sent
    assert "busy running a cell" in read_off_main(link, 5, main_thread_busy=True)  # no subshell
    assert [m["type"] for m in comms[0].sent] == []
    page = answer_later(comms[0])
    got = read_off_main(link, 5)
    page.join()
    assert got["cells"] == [CELL] and comms[0].sent[-1]["type"] == "read_notebook"
    started = time.monotonic()
    assert "did not answer within 0.3 s" in read_off_main(link, 0.3)  # nobody answers
    assert time.monotonic() - started < 2


def test_text_marks_runs_outputs_agent_and_selection() -> None:
    page = {**PAGE, "total_cells": 3, "cells": [
        CELL,
        {**CELL, "index": 1, "cell_type": "markdown", "source": "# Notes", "outputs": [],
         "execution_count": None},
        {**CELL, "index": 2, "source": "", "execution_count": None, "agent": True,
         "selected": True, "outputs": []},
    ]}  # fmt: skip
    text = format_cells(page)
    assert text.startswith("a.ipynb as the user sees it now (read from the open notebook): ")
    assert "## cell 1 · id c1 · code · In [2]\ndf = load()\n→ stream: loaded 3 rows" in text
    assert "→ out [image/png]: <Figure>" in text
    assert "## cell 2 · id c1 · markdown\n# Notes" in text
    assert "## cell 3 · id c1 · code · not run · written by the agent · SELECTED\n(empty)" in text


def test_each_cell_shows_its_short_id_and_the_prompt_cell_is_marked() -> None:
    ids = ["3f9a1c2e-0000-4000-8000-000000000001", "77aa01bb-0000-4000-8000-000000000002"]
    page = {**PAGE, "total_cells": 2, "cells": [
        {**CELL, "id": ids[0]},
        {**CELL, "index": 1, "id": ids[1], "source": "%%dsh\nwhy?", "outputs": []},
    ]}  # fmt: skip
    text = format_cells(page, this_cell=ids[1])
    assert "## cell 1 · id 3f9a1c2e · code · In [2]\n" in text
    assert "## cell 2 · id 77aa01bb · code · In [2] · THIS PROMPT" in text
    assert text.count("THIS PROMPT") == 1
    assert "THIS PROMPT" not in format_cells(page)  # unknown caller: nothing is claimed


def test_a_cell_the_page_runs_or_queued_reads_as_running() -> None:
    running = {**CELL, "index": 0, "execution_count": None, "running": True}
    rerun = {**CELL, "index": 1, "running": True}  # an earlier count: it is running again
    reply = protocol.parse_read_notebook_reply(
        {**PAGE, "total_cells": 2, "cells": [running, rerun]}
    )
    assert reply is not None and [c.get("running") for c in reply["cells"]] == [True, True]
    text = format_cells(dict(reply))
    assert "## cell 1 · id c1 · code · running\n" in text
    assert "## cell 2 · id c1 · code · running\n" in text
    idle = protocol.parse_read_notebook_reply({**PAGE, "cells": [{**CELL, "running": False}]})
    assert idle is not None and "running" not in idle["cells"][0]  # only ever true when present
    assert (
        protocol.parse_read_notebook_reply({**PAGE, "cells": [{**CELL, "running": "yes"}]}) is None
    )


def test_a_big_notebook_is_cut_evenly_and_keeps_every_cell() -> None:
    cells = [
        {**CELL, "index": i, "source": f"# cell {i}\n" + "x = 1\n" * 2000, "selected": i == 59}
        for i in range(60)
    ]
    text = format_cells({**PAGE, "total_cells": 60, "cells": cells}, max_chars=8000)
    assert len(text) <= 8000
    assert "cell 60 is selected" in text
    assert all(f"## cell {i + 1} ·" in text for i in range(60))  # every header survives the cut
    assert "SELECTED\n# cell 59\nx = 1\nx = 1" in text  # the selected cell keeps more source


def test_a_page_on_a_subshell_is_asked_while_a_cell_holds_the_main_thread() -> None:
    """JupyterLab 4.4+ sends comm messages on a subshell of its own: its reply is handled there
    while a cell (``%%dsh --wait``) runs, so the page is asked even then."""
    link, comms = make()
    link.open()
    comm = comms[0]
    assert comm.msg is not None
    hello = {**REPLY, "capabilities": ["waiting", "read_notebook"]}
    comm.msg({"header": {"subshell_id": None}, "content": {"comm_id": "x", "data": hello}})
    assert not link.replies_off_main  # the reply went before the page's subshell started
    ready = {"v": 1, "type": "subshell_ready"}
    comm.msg({"header": {"subshell_id": "page-1"}, "content": {"comm_id": "x", "data": ready}})
    assert link.replies_off_main
    assert link.capabilities == frozenset(["waiting", "read_notebook"])  # nothing else changed
    page = answer_later(comm)
    got = read_off_main(link, 5, main_thread_busy=True)
    page.join()
    assert got["cells"] == [CELL]
    # the main shell handles the first hello_reply only after a running cell, so later than the
    # subshell's message: it must not undo what that one said
    comm.msg({"header": {"subshell_id": None}, "content": {"comm_id": "x", "data": hello}})
    assert link.replies_off_main
    assert comm.close is not None
    comm.close({})  # the comm closed: a new page must say it again
    assert not link.replies_off_main
