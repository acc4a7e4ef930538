"""``notebook_cells``: the notebook as the person sees it, as bounded text for the model.

:func:`format_cells` renders the cells the frontend extension read from the notebook model (a
``read_notebook_reply``, see :mod:`dsh_notebook.frontend.protocol`; taken here as a plain mapping,
this layer does not import the frontend one): each cell's number, its short stable id (the first
8 characters of the notebook's cell id: positions shift, ids do not), type, execution count (or
"not run"), whether it is the ``%%dsh`` cell of the run that asked (``THIS PROMPT``), whether
the agent wrote it (``dsh-agent`` tag) and whether it is selected, its source and a
summary of its outputs (stream and result text, the kinds of rich outputs, an error's exception
line). :func:`fallback_cells` is what the model gets where no extension answers: the kernel's
execution history, with a first line that says so and why.

Guarantees: pure functions over plain data, no IPython, no threads; the text is at most
``max_chars`` characters. When the whole notebook does not fit, every cell's source and outputs
are cut evenly first, in steps (each cell keeps its header line; the selected cell keeps more of
its source), so the model still sees every cell and which one is selected; only then is the end
cut. Agent-written text is returned as text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..context.describe import truncate
from ..context.notebook_context import short_id
from ..transcript.bounds import truncation_mark
from .history import notebook_history

__all__ = ["FALLBACK_NOTE", "FigureLookup", "fallback_cells", "format_cells"]

FigureLookup = Callable[[str | None, int | None], list[str]]
"""``(cell id, execution count) -> descriptions`` of the figures that cell displayed, as the
kernel recorded them (:class:`.figures.FigureNotes`); ``[]`` when unknown."""

FALLBACK_NOTE = (
    "The notebook itself could not be read ({reason}), so this is the kernel's execution "
    "history instead: only cells that ran, as they were when they ran; cells that were never "
    "run, later edits, markdown cells and the selected cell are not shown."
)

_SOURCE_CHARS = 4000
_LEVELS = (
    (4000, 800),
    (2000, 400),
    (1000, 200),
    (500, 120),
    (250, 80),
    (120, 60),
    (60, 30),
    (0, 0),
)
"""(source, output text) characters per cell, tried in order until the notebook fits."""


def _cut_to(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, the marker included (see :func:`truncate`);
    a text no longer than the marker that would replace it is kept whole."""
    if len(text) <= len(truncation_mark(len(text))):
        return text
    return truncate(text, limit)[0]


def _output_lines(outputs: Sequence[Mapping[str, Any]], limit: int) -> list[str]:
    lines: list[str] = []
    for output in outputs:
        kind = str(output.get("output_type", "?"))
        text = str(output.get("text", "")).rstrip()
        if kind == "error":
            ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
            lines.append(
                f"error: {ename}: {_cut_to(evalue, limit)}" if evalue else f"error: {ename}"
            )
            continue
        mime = [m for m in output.get("mime", []) if m != "text/plain"]
        label = "stream" if kind == "stream" else "out"
        if mime:
            label += " [" + ", ".join(mime) + "]"
        if text:
            lines.append(f"{label}: {_cut_to(text, limit)}")
        elif mime:
            lines.append(label)
    return lines


def _cell_block(
    cell: Mapping[str, Any],
    source_chars: int,
    output_chars: int,
    figures: FigureLookup | None = None,
    this_cell: str | None = None,
) -> str:
    kind = str(cell.get("cell_type", "code"))
    cell_id = cell.get("id")
    head = f"## cell {int(cell.get('index', 0)) + 1}"
    if isinstance(cell_id, str) and cell_id:
        head += f" · id {short_id(cell_id)}"
    head += f" · {kind}"
    if kind == "code":
        count = cell.get("execution_count")
        if cell.get("running"):
            head += " · running"  # or queued: the page has sent it to the kernel
        else:
            head += f" · In [{count}]" if isinstance(count, int) else " · not run"
    if this_cell is not None and cell_id == this_cell:
        head += " · THIS PROMPT (the %%dsh cell you are answering)"
    if cell.get("agent"):
        head += " · written by the agent"
    if cell.get("selected"):
        head += " · SELECTED"
    source = str(cell.get("source", "")).rstrip()
    parts = [head, _cut_to(source, source_chars) if source else "(empty)"]
    outputs = cell.get("outputs")
    if isinstance(outputs, list) and outputs:
        parts.extend("→ " + line for line in _output_lines(outputs, output_chars))
    if figures is not None and kind == "code" and output_chars > 0:
        for text in figures(
            cell_id if isinstance(cell_id, str) else None, cell.get("execution_count")
        ):
            parts.append("→ figure (described as text):\n" + _cut_to(text, output_chars * 2))
    return "\n".join(parts)


def format_cells(
    reply: Mapping[str, Any],
    *,
    max_chars: int = 8000,
    figures: FigureLookup | None = None,
    this_cell: str | None = None,
) -> str:
    """The notebook's cells as text (see the module doc), at most ``max_chars`` characters.
    ``figures`` adds the kernel's text description of the figures a cell displayed;
    ``this_cell`` (a notebook cell id) is marked ``THIS PROMPT``."""
    cells = [c for c in reply.get("cells", []) if isinstance(c, Mapping)]
    total = reply.get("total_cells")
    total = total if isinstance(total, int) else len(cells)
    path = str(reply.get("path", "")) or "the notebook"
    selected = next((int(c.get("index", 0)) + 1 for c in cells if c.get("selected")), None)
    head = f"{path} as the user sees it now (read from the open notebook): {total} cell(s)"
    head += f", cell {selected} is selected." if selected is not None else "."
    if len(cells) < total:
        head += f" Only the first {len(cells)} are listed."
    if not cells:
        return truncate(head + " The notebook is empty.", max_chars)[0]
    keep = min(_SOURCE_CHARS, max_chars // 5)  # the selected cell's source, at any level
    for source_chars, output_chars in _LEVELS:
        blocks = [
            _cell_block(c, max(source_chars, keep) if c.get("selected") else source_chars,
                        output_chars, figures, this_cell)
            for c in cells
        ]  # fmt: skip
        text = head + "\n\n" + "\n\n".join(blocks)
        if len(text) <= max_chars:
            break
    return truncate(text, max_chars)[0]


def fallback_cells(
    shell: Any,
    reason: str,
    *,
    errors: Mapping[int, str] | None = None,
    max_chars: int = 8000,
) -> str:
    """The kernel's last executed cells, introduced by :data:`FALLBACK_NOTE` with ``reason``."""
    note = FALLBACK_NOTE.format(reason=reason)
    body = notebook_history(shell, 20, errors=errors, max_chars=max(200, max_chars - len(note) - 2))
    return truncate(note + "\n\n" + body, max_chars)[0]
