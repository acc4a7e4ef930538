"""The page's reading of the kernel's messages, in Python, for tests only: what the page
extension's ``parseKernelMessage`` (``js/labextension/src/protocol/parse.ts``) accepts. The shared
fixture ``js/labextension/test/fixtures/page-protocol.json`` checks both readers against the
same examples."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh_notebook.page_protocol.editing import (
    ApplyChange,
    RunCells,
    UndoChanges,
    apply_change,
    checked_change,
    checked_origin,
    run_cells,
    undo_changes,
)
from dsh_notebook.page_protocol.parsing import checked_insert_cell
from dsh_notebook.page_protocol.shapes import (
    MAX_BUNDLE_TEXT,
    MAX_READ_CELLS,
    MAX_READ_IDS,
    PROTOCOL_VERSION,
    Hello,
    InsertCell,
    ReadNotebook,
    RunOutput,
    RunOutputBundle,
    Waiting,
    WaitingCell,
)

_MAX_TEXT = 4096
_MAX_CELLS = 1000
_MAX_ID = 256
"""Longest id of an editing message (the kernel's builders' bound)."""

KernelMessage = (
    Hello | Waiting | RunOutput | InsertCell | ReadNotebook | ApplyChange | RunCells | UndoChanges
)


def _text(value: object, *, empty: bool = True) -> str | None:
    if isinstance(value, str) and len(value) <= _MAX_TEXT and (empty or value):
        return value
    return None


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= _MAX_ID else None


def _waiting_cell(raw: object) -> WaitingCell | None:
    if not isinstance(raw, Mapping):
        return None
    cell_id, kind, label = _text(raw.get("cell_id"), empty=False), raw.get("kind"), raw.get("label")
    label_text = _text(label)
    if cell_id is None or label_text is None:
        return None
    cell: WaitingCell
    if kind == "approval":
        cell = {"cell_id": cell_id, "kind": "approval", "label": label_text}
    elif kind == "question":
        cell = {"cell_id": cell_id, "kind": "question", "label": label_text}
    else:
        return None
    request_id = _text(raw.get("request_id"), empty=False)
    if request_id is not None:
        cell["request_id"] = request_id
    return cell


def _bundle_text(value: object) -> str | None:
    return value if isinstance(value, str) and len(value) <= MAX_BUNDLE_TEXT else None


def _run_output(data: Mapping[str, object]) -> RunOutput | None:
    model_id, cell_id, state = (
        _text(data.get("model_id"), empty=False),
        data.get("cell_id"),
        data.get("state"),
    )
    raw = data.get("bundle")
    if model_id is None or not isinstance(raw, Mapping):
        return None
    if cell_id is not None and not _text(cell_id, empty=False):
        return None
    markdown, plain = _bundle_text(raw.get("text/markdown")), _bundle_text(raw.get("text/plain"))
    if markdown is None or plain is None:
        return None
    assert cell_id is None or isinstance(cell_id, str)
    bundle: RunOutputBundle = {"text/markdown": markdown, "text/plain": plain}
    message: RunOutput
    if state == "live":
        message = {"v": 1, "type": "run_output", "model_id": model_id, "cell_id": cell_id,
                   "state": "live", "bundle": bundle}  # fmt: skip
    elif state == "settled":
        message = {"v": 1, "type": "run_output", "model_id": model_id, "cell_id": cell_id,
                   "state": "settled", "bundle": bundle}  # fmt: skip
    else:
        return None
    if data.get("replay") is True:
        message["replay"] = True
    return message


def parse_editing_kernel_message(data: object) -> ApplyChange | RunCells | UndoChanges | None:
    """An ``apply_change``, ``run_cells`` or ``undo_changes`` as the page must accept it (the
    kernel's builders' rules, which check every change and origin again), or ``None``."""
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    kind, request_id = data.get("type"), _id(data.get("request_id"))
    if request_id is None:
        return None
    origin = checked_origin(data.get("origin"))
    if kind == "apply_change":
        change = checked_change(data.get("change"))
        if origin is None or change is None or data.get("record", False) is not False:
            return None
        return apply_change(request_id, origin, change, record="record" not in data)
    if kind == "run_cells":
        ids, timeout = data.get("cell_ids"), data.get("timeout_s")
        if origin is None or not isinstance(ids, list) or type(timeout) is not int:
            return None
        if not all(isinstance(i, str) for i in ids):
            return None
        return run_cells(request_id, [str(i) for i in ids], timeout, origin)
    if kind == "undo_changes":
        run, changes = data.get("run"), data.get("changes")
        if not isinstance(run, str) or not isinstance(changes, list):
            return None
        return undo_changes(request_id, run, changes)  # each change checked there
    return None


def parse_kernel_message(data: object) -> KernelMessage | None:
    """A comm message the page receives from the kernel, or ``None`` (the page ignores it)."""
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    kind = data.get("type")
    if kind == "hello":
        kernel_version = _text(data.get("kernel_version"))
        if kernel_version is None:
            return None
        return {"v": 1, "type": "hello", "kernel_version": kernel_version}
    if kind == "waiting":
        count, raw_cells = data.get("count"), data.get("cells")
        if type(count) is not int or count < 0 or not isinstance(raw_cells, list):
            return None
        if len(raw_cells) > _MAX_CELLS:
            return None
        cells = [_waiting_cell(c) for c in raw_cells]
        if any(c is None for c in cells):
            return None
        return {"v": 1, "type": "waiting", "count": count, "cells": [c for c in cells if c]}
    if kind == "run_output":
        return _run_output(data)
    if kind == "insert_cell":
        return checked_insert_cell(data)
    if kind == "read_notebook":
        return _read_notebook(data)
    if kind in ("apply_change", "run_cells", "undo_changes"):
        return parse_editing_kernel_message(data)
    return None


def _position(value: object) -> bool:
    return type(value) is int and value >= 0


def _read_notebook(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """``parse.ts`` ``parseReadNotebook``: the request id and the optional choice of cells."""
    request_id = _text(data.get("request_id"), empty=False)
    if request_id is None:
        return None
    message: dict[str, Any] = {"v": 1, "type": "read_notebook", "request_id": request_id}
    around, window, ids = data.get("around"), data.get("window"), data.get("cell_ids")
    if around is not None:
        if not isinstance(around, str) or not 0 < len(around) <= 200:
            return None
        message["around"] = around
    if window is not None:
        if not _position(window) or int(str(window)) > MAX_READ_CELLS:
            return None
        message["window"] = window
    if ids is not None:
        if not isinstance(ids, list) or len(ids) > MAX_READ_IDS:
            return None
        if not all(isinstance(i, str) and 1 <= len(i) <= 200 for i in ids):
            return None
        message["cell_ids"] = list(ids)
    for key in ("first", "last"):
        value = data.get(key)
        if value is not None:
            if not _position(value):
                return None
            message[key] = value
    if "first" in message and "last" in message and message["last"] < message["first"]:
        return None
    return message
