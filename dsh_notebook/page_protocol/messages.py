"""Building the frontend protocol's kernel -> frontend messages
(:mod:`dsh_notebook.page_protocol`): each builder returns a well-formed message, or ``None``
where one could not be (then nothing is sent)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..transcript.bounds import truncation_mark
from .parsing import (
    checked_insert_cell,
    normalized_output,
    output_size,
)
from .shapes import (
    MAX_BUNDLE_TEXT,
    MAX_CELL_OUTPUTS,
    MAX_OUTPUTS_TEXT,
    MAX_READ_CELLS,
    MAX_READ_IDS,
    Hello,
    InsertCell,
    ReadNotebook,
    ReadWant,
    RunOutput,
    RunOutputBundle,
    RunOutputState,
    Waiting,
    WaitingCell,
)

__all__ = [
    "hello",
    "read_notebook",
    "waiting",
    "run_output",
    "insert_cell",
]


def hello(kernel_version: str) -> Hello:
    return {"v": 1, "type": "hello", "kernel_version": kernel_version}


def read_notebook(request_id: str, want: ReadWant | None = None) -> ReadNotebook:
    """The ``read_notebook`` request for the cells ``want`` chooses (see :class:`ReadWant`;
    ``None``: the first :data:`MAX_READ_CELLS`); the reply carries the same ``request_id``.
    Out-of-bounds choices are clamped, ids of 1-200 characters kept (at most
    :data:`MAX_READ_IDS`), so the page never refuses the request."""
    message: ReadNotebook = {"v": 1, "type": "read_notebook", "request_id": request_id}
    want = want or {}
    around = want.get("around")
    if isinstance(around, str) and 0 < len(around) <= 200:
        message["around"] = around
    if "window" in want:
        message["window"] = max(0, min(int(want["window"]), MAX_READ_CELLS))
    ids = [i for i in want.get("cell_ids", []) if 0 < len(i) <= 200][:MAX_READ_IDS]
    if ids:
        message["cell_ids"] = ids
    first, last = want.get("first"), want.get("last")
    if first is not None:
        message["first"] = max(0, first)
    if last is not None:
        message["last"] = max(last, message.get("first", 0))
    return message


def waiting(cells: Sequence[WaitingCell]) -> Waiting:
    """The ``waiting`` message for ``cells`` (the whole current state; ``[]`` clears it)."""
    listed: list[WaitingCell] = []
    for c in cells:
        cell = WaitingCell(cell_id=c["cell_id"], kind=c["kind"], label=c["label"][:200])
        if "request_id" in c:
            cell["request_id"] = c["request_id"]
        listed.append(cell)
    return {"v": 1, "type": "waiting", "count": len(listed), "cells": listed}


_IN_KERNEL = "the whole run is in the kernel"


def _cut(text: str, limit: int) -> str:
    """``text``, or its head and the one truncation marker: at most ``limit`` characters."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(truncation_mark(len(text), rest=_IN_KERNEL)) - 2)
    return f"{text[:keep]}\n\n{truncation_mark(len(text) - keep, rest=_IN_KERNEL)}"


def run_output(
    model_id: str,
    cell_id: str | None,
    state: RunOutputState,
    markdown: str,
    plain: str,
    *,
    limit: int = MAX_BUNDLE_TEXT,
) -> RunOutput:
    """The ``run_output`` message; a text longer than ``limit`` is cut with a note."""
    bundle: RunOutputBundle = {
        "text/markdown": _cut(markdown, limit),
        "text/plain": _cut(plain, limit),
    }
    return {"v": 1, "type": "run_output", "model_id": model_id, "cell_id": cell_id,
            "state": state, "bundle": bundle}  # fmt: skip


def insert_cell(
    anchor: str,
    session: str,
    run: str,
    call: int,
    source: str,
    outputs: Sequence[Mapping[str, object]],
) -> InsertCell | None:
    """The ``insert_cell`` message, or ``None`` when it would not be well-formed (an anchor
    or session too long, a source past :data:`MAX_CELL_SOURCE`): then nothing is sent. Outputs
    past :data:`MAX_CELL_OUTPUTS` or the :data:`MAX_OUTPUTS_TEXT` budget are left out, with a
    ``stderr`` note saying how many."""
    kept: list[dict[str, object]] = []
    budget, left_out = MAX_OUTPUTS_TEXT - 200, 0
    for raw in outputs:
        output = normalized_output(raw)
        if output is None or len(kept) >= MAX_CELL_OUTPUTS - 1 or output_size(output) > budget:
            left_out += 1
            continue
        budget -= output_size(output)
        kept.append(output)
    if left_out:
        note = f"dsh: {left_out} more output(s) of this call are not shown here; run the cell.\n"
        kept.append({"output_type": "stream", "name": "stderr", "text": note})
    message = {"v": 1, "type": "insert_cell", "anchor": anchor, "session": session, "run": run,
               "call": call, "source": source, "outputs": kept}  # fmt: skip
    return checked_insert_cell(message)
