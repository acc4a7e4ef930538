"""A figure the person's own cell drew reaches the model when it reads that cell by id (issue 49
item 3), end to end: a real ipykernel with the inline backend, the real runtime and the scripted
model recording every request; the page is played by this test (protocol-exact replies). The
kernel keeps the PNG the cell's display sent (``FigureNotes``), the page names the cell and its
``In [k]``, and ``notebook_cells(cell_ids=[…])`` attaches it: the model's request carries the
image and the line saying so. The context block names the cell as one with a figure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import answers_reads, play_page_until
from .kernels import PAGE_CAPABILITIES, Kernel, identity, open_link, page_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

FIGURE_CELL = "f1f1f1f1-0000-4000-8000-000000000001"
PROMPT_CELL = "p2p2p2p2-0000-4000-8000-000000000002"
PLOT = (
    "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
    "fig, ax = plt.subplots(figsize=(2, 1.5))\nax.plot([1, 3, 2])\nax.set_title('Trend')\n"
    "plt.show()"
)


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    pytest.importorskip("matplotlib_inline")
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def test_the_persons_figure_reaches_the_model_when_it_reads_that_cell(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    scripted_model.register(
        "cell-figure-real",
        Script(
            steps=(
                Step(
                    tool_calls=(
                        ToolCall(
                            public_tool_name("notebook_cells"), {"cell_ids": [FIGURE_CELL[:8]]}
                        ),
                    )
                ),
                Step(text="done"),
            )
        ),
    )
    plotted = kernel.execute(PLOT, metadata={**identity(FIGURE_CELL), "cellId": FIGURE_CELL})
    assert plotted.error is None, plotted.error
    count = int(plotted.reply["execution_count"])
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook"))
    prompt = "%%dsh -s figures\n[[scenario:cell-figure-real]] what does it show?"
    cells = [
        (FIGURE_CELL, PLOT, count, [{"output_type": "display_data", "mime": ["image/png", "text/plain"],
                                     "text": "<Figure size 200x150 with 1 Axes>"}]),
        (PROMPT_CELL, prompt, None, []),
    ]  # fmt: skip
    start, first = len(kernel.iopub), len(scripted_model.requests)
    run = kernel.execute(prompt, allow_stdin=True, metadata=identity(PROMPT_CELL))
    assert run.error is None, run.error
    answer = answers_reads(kernel, comm_id, start, cells)

    play_page_until(kernel, scripted_model, "cell-figure-real", 2, answer, since=first)
    requests = [r.body for r in scripted_model.requests[first:] if r.scenario == "cell-figure-real"]
    last = json.dumps(requests[-1])
    assert "Figures: 1 figure(s) attached as PNG (cell 1: 1)." in last
    assert '{"type": "image", "source": {"type": "base64"' in last  # the figure itself
    assert 'axes 1/1 \\"Trend\\"' in last  # and its description, as before
