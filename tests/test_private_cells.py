"""Private cells (issue 49 item 1, the cells): a cell the page marks ``private`` (tagged
``dsh-private``) keeps no source and no outputs in the kernel whatever a page sent, is listed by
``notebook_cells`` (every mode, and read by id) as "[private cell]", is refused by the editing
tools' target lookup before any card, and is left out of the context block's edited cells."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from dsh_notebook.context.notebook_context import NotebookFacts, notebook_context_block
from dsh_notebook.kernel.notebook.prompt_context import _page_facts, gather_facts
from dsh_notebook.notebook_tools.cell_edits import find_cell
from dsh_notebook.notebook_tools.cells import CellsQuery, format_cells
from dsh_notebook.notebook_tools.history import notebook_history
from dsh_notebook.notebook_tools.ran_cells import Ran, private_runs
from dsh_notebook.page_protocol import parse_read_notebook_reply

SECRET_SOURCE = "salaries = {'alice': 91234}  # PRIVATE-CELL-CANARY"
SECRET_OUTPUT = "PRIVATE-OUTPUT-CANARY 91234"


def cell(index: int, cell_id: str, source: str, **extra: Any) -> dict[str, Any]:
    return {"index": index, "id": cell_id, "cell_type": "code", "source": source,
            "execution_count": index + 1, "agent": False, "selected": False,
            "outputs": [{"output_type": "stream", "text": f"out {index}"}], **extra}  # fmt: skip


def reply() -> dict[str, Any]:
    private = cell(1, "bbbbbbbb-2222", SECRET_SOURCE, private=True)
    private["outputs"] = [{"output_type": "stream", "text": SECRET_OUTPUT}]  # a careless page
    return {"v": 1, "type": "read_notebook_reply", "request_id": "r1", "path": "n.ipynb",
            "total_cells": 3, "cells": [cell(0, "aaaaaaaa-1111", "x = 1"), private,
                                        cell(2, "cccccccc-3333", "x + 1")]}  # fmt: skip


def test_the_kernel_keeps_nothing_of_a_private_cell() -> None:
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None
    kept = parsed["cells"][1]
    assert kept["private"] is True and kept["source"] == "" and kept["outputs"] == []
    assert "private" not in parsed["cells"][0]
    bad = reply()
    bad["cells"][1]["private"] = "yes"
    assert parse_read_notebook_reply(bad) is None  # a malformed mark: the reply is ignored


def test_notebook_cells_lists_it_as_a_private_cell_in_every_mode() -> None:
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None
    for query in (None, CellsQuery(brief=True), CellsQuery(cell_ids=("bbbbbbbb",))):
        text = format_cells(parsed, query=query)
        assert "[private cell]" in text, text
        assert "CANARY" not in text and "91234" not in text
    assert "x = 1" in format_cells(parsed)


def test_the_editing_tools_refuse_it_before_any_card() -> None:
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None
    for given in ("bbbbbbbb-2222", "bbbbbbbb"):
        refused = find_cell(parsed["cells"], given)
        assert isinstance(refused, str) and "is private (tagged dsh-private" in refused
    assert not isinstance(find_cell(parsed["cells"], "aaaaaaaa"), str)


def test_the_context_block_names_private_cells_and_never_shows_one_as_edited() -> None:
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None

    ids = {c["execution_count"]: c["id"] for c in parsed["cells"]}

    def ran(count: int) -> Ran | None:
        return Ran(ids[count], "a digest of what ran")  # every cell reads as edited since it ran

    facts = _page_facts(parsed, "cccccccc-3333", ran)
    assert [e.position for e in facts["edited"]] == [1, 3], facts  # not the private cell 2
    assert facts["private_cells"] == (2,)
    block = notebook_context_block(NotebookFacts(**facts))
    assert "Private cells (withheld from you by the user; do not ask for them): 2" in block
    assert "CANARY" not in block


def test_the_cells_run_since_name_a_private_cells_run_without_its_code() -> None:
    """The kernel's history holds what a private cell ran; with the page read at the prompt
    (its ids) and the record of which cell each count ran, the block lists it as private."""
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None
    raw = ["", "x = 1", SECRET_SOURCE, "x + 1", "%%dsh\ngo"]
    shell = SimpleNamespace(history_manager=SimpleNamespace(input_hist_raw=raw), user_ns={})
    ids = {1: "aaaaaaaa-1111", 2: "bbbbbbbb-2222", 3: "cccccccc-3333"}

    def ran(count: int) -> Ran | None:
        return Ran(ids[count], "d") if count in ids else None

    facts = gather_facts(shell, {2: "ValueError: PRIVATE-CELL-CANARY"}, execution_count=4,
                         since=None, page=parsed, ran=ran)  # fmt: skip
    assert [(c.count, c.source) for c in facts.cells] == [
        (1, "x = 1"),
        (2, "[private cell]"),
        (3, "x + 1"),
    ]
    block = notebook_context_block(facts)
    assert "CANARY" not in block and "91234" not in block and "[private cell]" in block


def test_notebook_history_withholds_a_private_cells_run() -> None:
    parsed = parse_read_notebook_reply(reply())
    assert parsed is not None
    shell = SimpleNamespace(
        history_manager=SimpleNamespace(input_hist_raw=["", "x = 1", SECRET_SOURCE]),
        user_ns={"In": ["", "x = 1", SECRET_SOURCE], "Out": {2: SECRET_OUTPUT}},
    )
    ids = {1: "aaaaaaaa-1111", 2: "bbbbbbbb-2222"}
    private = private_runs(parsed, lambda count: Ran(ids[count], "d") if count in ids else None)
    text = notebook_history(shell, 5, private=private)
    assert "## In [2]\n[private cell]" in text and "x = 1" in text
    assert "CANARY" not in text and "91234" not in text
    assert not private_runs("no page", None)(2)
