"""Big notebooks (issue 49 item 5): the page sends at most ``MAX_READ_CELLS`` cells, so the
kernel asks for the ones it needs (a window around the asking ``%%dsh`` cell, cells by id or
position) and says which cells exist and which are not listed; it never denies a cell that
exists. Here: the request the kernel builds, the page's choice (the test's mirror of
``cells.ts``) and ``format_cells`` over what the page sent."""

from __future__ import annotations

from typing import Any

from dsh_notebook import page_protocol as protocol
from dsh_notebook.notebook_tools.cells import CellsQuery, format_cells
from dsh_notebook.notebook_tools.page_reader import want_cells, want_for

from .fake_page import cell_id
from .helpers.page_window import page_reply
from .page_parser import parse_kernel_message


def notebook(n: int) -> list[dict[str, Any]]:
    return [
        {"index": i, "id": cell_id(i + 1), "cell_type": "code", "source": f"x_{i + 1} = {i + 1}",
         "execution_count": i + 1, "agent": False, "selected": False, "outputs": []}
        for i in range(n)
    ]  # fmt: skip


def read(cells: list[dict[str, Any]], want: Any) -> dict[str, Any]:
    """What the page answers to the request the kernel sends for ``want``."""
    request = protocol.read_notebook("n1", want)
    assert parse_kernel_message(request) == request  # the page accepts it unchanged
    reply = protocol.parse_read_notebook_reply(page_reply(request, cells))
    assert reply is not None
    return dict(reply)


def test_the_listing_of_a_1000_cell_notebook_is_a_window_around_the_prompt_at_cell_900() -> None:
    cells, prompt = notebook(1000), cell_id(900)
    reply = read(cells, want_for((), None, None, prompt))
    assert reply["total_cells"] == 1000 and len(reply["cells"]) == 500  # the page's bound
    text = format_cells(reply, this_cell=prompt)
    assert len(text) <= 8000
    assert "1000 cell(s)" in text
    assert f"## cell 900 · id {prompt[:8]} · code · In [900] · THIS PROMPT" in text
    assert "## cell 899 · " in text and "x_899 = 899" in text  # its neighbours, with sources
    assert "## cell 901 · " in text and "x_901 = 901" in text
    assert "not listed: cells 1-" in text and "(they exist: ask with start/end" in text
    brief = format_cells(reply, this_cell=prompt, query=CellsQuery(brief=True))
    assert len(brief) <= 8000 and "cell 900 · id " in brief and "THIS PROMPT" in brief


def test_a_cell_anywhere_is_read_by_id_or_range_and_never_denied() -> None:
    cells = notebook(1000)
    wanted = cell_id(950)[:8]
    query = CellsQuery(cell_ids=(wanted,))
    reply = read(cells, want_for(query.cell_ids, None, None, cell_id(900)))
    text = format_cells(reply, query=query)
    assert "Showing only the cells asked for (950)" in text and "x_950 = 950" in text
    ranged = CellsQuery(start=700, end=702)
    text = format_cells(read(cells, want_for((), 700, 702, None)), query=ranged)
    assert "Showing only the cells asked for (700, 701, 702)" in text
    # a page that sent only the first 500 (an older extension): an id it lacks is not denied
    older = {**read(cells, None), "cells": cells[:500]}
    assert "chosen" not in older
    text = format_cells(older, query=query)
    assert "No cell has id" not in text and "it may exist" in text
    # a page that chose the cells asked for: an id it did not send is in no cell
    absent = CellsQuery(cell_ids=("ffffffff",))
    text = format_cells(read(cells, want_for(absent.cell_ids, None, None, None)), query=absent)
    assert "No cell has id 'ffffffff'" in text


def test_a_200_cell_listing_shows_the_prompts_neighbours_not_markers() -> None:
    cells = notebook(200)
    for c in cells:
        c["source"] = f"# step {c['index'] + 1}\n" + "value = compute()\n" * 6
    prompt = cell_id(150)
    text = format_cells(read(cells, want_for((), None, None, prompt)), this_cell=prompt)
    assert len(text) <= 8000
    assert "# step 149\nvalue = compute()" in text and "THIS PROMPT" in text
    assert "not listed: cells 1-" in text


def test_the_edit_tools_ask_for_their_target_and_its_neighbours() -> None:
    cells = notebook(1000)
    reply = read(cells, want_cells([cell_id(950)[:8]]))
    assert [c["index"] for c in reply["cells"]] == [948, 949, 950]
    assert protocol.read_notebook("n2", {"window": 9999, "cell_ids": ["", "c1", "x" * 201]}) == {
        "v": 1, "type": "read_notebook", "request_id": "n2", "window": 500, "cell_ids": ["c1"],
    }  # fmt: skip


def test_a_short_nbformat_id_is_read_exactly() -> None:
    """nbformat ids are 1-64 characters: a notebook written elsewhere may have ``c1``; the page
    matches one under 4 characters exactly (a prefix that short would name many cells)."""
    cells = notebook(30)
    for i, c in enumerate(cells):
        c["id"] = f"c{i + 1}"
    query = CellsQuery(cell_ids=("c1",))
    reply = read(cells, want_for(query.cell_ids, None, None, None))
    assert [c["id"] for c in reply["cells"]] == ["c1"]
    assert "Showing only the cells asked for (1)" in format_cells(reply, query=query)


def test_a_windowed_listing_names_only_the_cells_it_shows_as_seen() -> None:
    """The stale check credits a conversation with the cells a result listed: in a big
    notebook the window, not every cell the page sent."""
    cells, prompt = notebook(1000), cell_id(900)
    listed: list[Any] = []
    format_cells(read(cells, want_for((), None, None, prompt)), this_cell=prompt, listed=listed)
    positions = [c["index"] + 1 for c in listed]
    assert 900 in positions and len(positions) < 500
    assert positions == list(range(positions[0], positions[0] + len(positions)))
