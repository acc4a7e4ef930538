"""Figures as text: the describer over real matplotlib figures (Agg), and ``run_python``
carrying the description of figures it created or showed (inline backend's ``plt.show()``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.context.figures import MAX_SERIES, describe_figure
from dsh_notebook.notebook_tools.run_python import run_python

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def test_lines_titles_labels_limits_and_legend() -> None:
    fig, ax = plt.subplots()
    fig.suptitle("Sales 2024")
    ax.plot([1, 2, 3, 4], [120.0, 90.5, 130.25, 99], label="north")
    ax.plot([1, 2, 3], [5, 7, 9], "o", label="south")
    ax.set(title="Monthly revenue", xlabel="month", ylabel="revenue (k€)", yscale="log")
    ax.legend(title="region")
    text = describe_figure(fig, number=1)
    assert text.startswith('Figure 1 "Sales 2024" (6.4x4.8 in, 1 axes)')
    assert 'axes 1/1 "Monthly revenue": x "month"' in text
    assert 'y "revenue (k€)"' in text and "(log)" in text
    assert 'line "north": 4 points, x 1..4, y 90.5..130.2' in text
    assert 'markers "south": 3 points, x 1..3, y 5..9' in text
    assert 'legend "region": north, south' in text


def test_bars_scatter_image_and_colorbar() -> None:
    fig, (left, right) = plt.subplots(1, 2)
    left.bar(["north", "south", "east"], [3, 4, 5], label="units")
    points = right.scatter([1, 2, 3], [3, 4, 1], c=[0.1, 0.5, 0.9])
    fig.colorbar(points, label="score")
    text = describe_figure(fig)
    assert 'bars "units": 3 bars, values 3..5 (north=3, south=4, east=5)' in text
    assert "ticks north, south, east" in text
    assert "scatter: 3 points, x 1..3, y 1..4, colour values 0.1..0.9" in text
    assert 'colorbar "score": 0.1..0.9' in text and "2 axes" in text
    _, ax = plt.subplots()
    ax.imshow([[0, 1], [2, 3], [4, 5]])
    assert "image: 3x2 pixels, colour scale 0..5" in describe_figure(ax)


def test_bounded_and_never_raises() -> None:
    fig, ax = plt.subplots()
    for i in range(40):
        ax.plot([0, 1], [i, i + 1], label=f"series {i}")
    text = describe_figure(fig)
    assert f"… {40 - MAX_SERIES} more series" in text
    assert len(describe_figure(fig, max_chars=300)) <= 300
    assert describe_figure(42) == "not a matplotlib figure: int"


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    sh = InteractiveShell.instance()
    sh.reset(new_session=True)  # type: ignore[no-untyped-call]
    sh.run_cell("import matplotlib.pyplot as plt", store_history=True)  # type: ignore[no-untyped-call]
    yield sh
    sh.reset(new_session=True)  # type: ignore[no-untyped-call]


CODE = (
    "fig, ax = plt.subplots()\n"
    "ax.plot([1, 2, 3], [10, 30, 20], label='revenue')\n"
    "ax.set_title('Revenue by month')\n"
    "ax.legend()\n"
)


def test_run_python_describes_a_figure_it_left_open(shell: InteractiveShell) -> None:
    result = run_python(shell, CODE)
    assert len(result.figures) == 1 and len(result.figure_texts) == 1
    text = result.as_text()
    assert (
        'figure 1 (described as text):\nFigure (6.4x4.8 in, 1 axes)\naxes 1/1 "Revenue by month"'
        in text
    )
    assert 'line "revenue": 3 points, x 1..3, y 10..30' in text
    assert "1 figure(s) attached as PNG" in text


def test_run_python_describes_a_shown_figure(shell: InteractiveShell) -> None:
    """The inline backend's ``plt.show()`` displays and closes the figure inside the call."""
    pytest.importorskip("matplotlib_inline")
    shell.run_cell("%matplotlib inline", store_history=False)  # type: ignore[no-untyped-call]
    formatter: Any = shell.display_formatter
    result = run_python(shell, CODE + "plt.show()")
    assert plt.get_fignums() == []  # closed by show(): only the PNG and the description remain
    assert len(result.figures) == 1
    assert 'axes 1/1 "Revenue by month"' in result.as_text()
    assert "format" not in vars(formatter)  # the watch is removed again
    matplotlib.use("Agg")


def test_figures_of_the_persons_cells_are_noted_for_notebook_cells(
    shell: InteractiveShell,
) -> None:
    """The inline backend shows a cell's figure at ``post_execute`` and closes it; the notes
    keep its description under the cell's count (and id), the agent's run_python is left out."""
    pytest.importorskip("matplotlib_inline")
    from dsh_notebook.notebook_tools.cells import format_cells
    from dsh_notebook.notebook_tools.figures import FigureNotes

    notes = FigureNotes()
    notes.install(shell)
    started = lambda *_: notes.cell_started()  # noqa: E731
    shell.events.register("pre_execute", started)
    shell.events.register("post_run_cell", notes.cell_finished)
    try:
        shell.run_cell("%matplotlib inline", store_history=True)  # type: ignore[no-untyped-call]
        ran = shell.run_cell(CODE, store_history=True)  # type: ignore[no-untyped-call]
        count = ran.execution_count
        assert plt.get_fignums() == []  # shown and closed by the backend: only notes remain
        (noted,) = notes.lookup(None, count)
        assert 'axes 1/1 "Revenue by month"' in noted and 'line "revenue"' in noted
        (png,) = notes.images(None, count)  # the PNG the display sent, for an image route
        assert png is not None and png.startswith(b"\x89PNG") and len(png) > 1000
        assert notes.images(None, count + 1) == []
        assert notes.lookup(None, count + 1) == [] and notes.lookup("other", None) == []
        notes.cell_started()  # run_python pumped inside a cell (%%dsh --wait)
        run_python(shell, CODE + "plt.show()")  # the agent's figure: not the cell's
        assert notes._current == []
        notes.cell_started()
        assert notes.lookup(None, count) == [noted] and len(notes._notes) == 1
        page = {"path": "a.ipynb", "total_cells": 1, "cells": [
            {"index": 0, "id": "c1", "cell_type": "code", "source": CODE,
             "execution_count": count, "agent": False, "selected": False,
             "outputs": [{"output_type": "display_data", "mime": ["image/png", "text/plain"],
                          "text": "<Figure size 640x480 with 1 Axes>"}]},
        ]}  # fmt: skip
        text = format_cells(page, figures=notes.lookup)
        assert "→ out [image/png]: <Figure size 640x480 with 1 Axes>" in text
        assert (
            '→ figure (described as text):\nFigure (6.4x4.8 in, 1 axes)\naxes 1/1 "Revenue' in text
        )
    finally:
        shell.events.unregister("pre_execute", started)
        shell.events.unregister("post_run_cell", notes.cell_finished)
        notes.uninstall()
        assert "format" not in vars(shell.display_formatter)
        matplotlib.use("Agg")
