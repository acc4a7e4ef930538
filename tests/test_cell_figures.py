"""Which figures a ``notebook_cells`` call attaches (issue 49 item 3): ``cell_figures``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dsh_notebook.context.notebook_context import notebook_context_block
from dsh_notebook.kernel.notebook.prompt_context import _page_facts
from dsh_notebook.notebook_tools.cell_figures import MAX_BYTES, MAX_FIGURES, cell_figures
from dsh_notebook.notebook_tools.ran_cells import Ran

from .helpers.notebook_facts import FACTS

PNG = b"\x89PNG\r\n\x1a\n" + b"x" * 100


def cell(index: int, count: int | None, *, figure: bool = True, **more: Any) -> dict[str, Any]:
    mime = ["image/png", "text/plain"] if figure else ["text/plain"]
    return {
        "index": index,
        "id": f"id-{index}",
        "cell_type": "code",
        "execution_count": count,
        "outputs": [{"output_type": "display_data", "mime": mime, "text": "<Figure>"}],
        **more,
    }


def kept(store: dict[tuple[str | None, int | None], list[bytes | None]]) -> Any:
    return lambda cell_id, count: store.get((cell_id, count), [])


def test_an_image_route_gets_the_pngs_of_the_run_the_page_shows() -> None:
    images = kept({("id-0", 3): [PNG, PNG + b"2"], ("id-2", 5): [PNG + b"3"]})
    found = cell_figures(
        [cell(0, 3), cell(1, 4, figure=False), cell(2, 5)], images, takes_images=True
    )
    assert found.images == [PNG, PNG + b"2", PNG + b"3"]
    assert found.note == "Figures: 3 figure(s) attached as PNG (cell 1: 2, cell 3: 1)."


def test_a_text_route_gets_no_bytes_and_is_told_where_the_words_are() -> None:
    found = cell_figures([cell(6, 3)], kept({("id-6", 3): [PNG]}), takes_images=False)
    assert found.images == []
    assert found.note == (
        "Figures in cell 7: not sent as images (this model takes none); the kernel's "
        "description of each, where it has one, is in the cell's output above."
    )


def test_another_runs_figure_a_private_cell_or_a_private_run_is_never_sent() -> None:
    images = kept({("id-0", 3): [PNG], ("id-1", 4): [PNG], ("id-2", 5): [PNG]})
    stale = cell(0, 9)  # the page shows In [9]: the kept PNG is of In [3]
    private_cell = cell(1, 4, private=True)
    private_run = cell(2, 5)
    found = cell_figures(
        [stale, private_cell, private_run],
        images,
        takes_images=True,
        ran=lambda count: Ran("id-2", "d", private=True) if count == 5 else None,
    )
    assert found.images == []
    assert "no image of the figure in cell 1 (shown before" in found.note
    assert "cell 2" not in found.note and "cell 3" not in found.note  # private: not even named


def test_a_call_attaches_at_most_the_bounds_and_says_how_many_were_left() -> None:
    many = kept({(f"id-{i}", i + 1): [PNG, PNG] for i in range(4)})
    found = cell_figures([cell(i, i + 1) for i in range(4)], many, takes_images=True)
    assert len(found.images) == MAX_FIGURES
    assert f"{8 - MAX_FIGURES} more not attached" in found.note
    big = b"\x89PNG" + b"x" * (MAX_BYTES // 2 + 1)
    found = cell_figures([cell(0, 1)], kept({("id-0", 1): [big, big]}), takes_images=True)
    assert len(found.images) == 1 and "1 more not attached" in found.note


def test_no_figure_no_note() -> None:
    assert cell_figures([cell(0, 1, figure=False)], kept({}), takes_images=True).note == ""


def test_the_context_block_names_the_cells_that_show_a_figure() -> None:
    """The model learns which cells hold a figure (never a private one's), so it knows to ask."""
    page = {
        "total_cells": 4,
        "cells": [cell(0, 1), cell(1, 2, figure=False), cell(2, 3, private=True), cell(3, 4)],
    }
    facts = _page_facts(page, None, None)
    assert facts["figure_cells"] == (1, 4) and not facts["figures_partial"]
    block = notebook_context_block(replace(FACTS, **facts))
    assert "Figures in cells: 1, 4 (notebook_cells with a cell's id returns its figure)" in block
    windowed = _page_facts({**page, "total_cells": 900}, None, None)
    assert "Figures in cells: 1, 4 (of the cells read)" in notebook_context_block(
        replace(FACTS, **windowed)
    )
    assert "Figures in cells" not in notebook_context_block(FACTS)


def test_the_cells_a_note_names_are_bounded() -> None:
    many = [cell(i, i + 1) for i in range(25)]
    note = cell_figures(many, kept({}), takes_images=False).note
    assert note.startswith("Figures in cell 1, cell 2,") and "cell 10 and 15 more:" in note
    assert "cell 11" not in note
