"""The editing messages of the frontend protocol (version 1, additive; issue 27): their shapes,
the builders of what the kernel sends and the parsers of what the page answers.

``apply_change`` / ``apply_change_reply`` (capability ``edit_cells``), ``run_cells`` /
``run_cells_reply`` (capability ``run_cells``), ``undo_request`` (page -> kernel), ``undo_changes``
/ ``undo_reply``; described in :mod:`dsh_notebook.page_protocol` and
``docs/cell-editing.md``.

Guarantees: builders return a well-formed message or ``None`` (a source past
:data:`MAX_CELL_SOURCE`, an empty or over-long id list: nothing is sent); the ``parse_*``
functions never raise and return ``None`` for anything malformed or over the bounds below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal, TypedDict, cast

from .parsing import checked_output
from .shapes import (
    CELL_TYPES,
    MAX_CELL_SOURCE,
    MAX_READ_OUTPUTS,
    PROTOCOL_VERSION,
    CellOutput,
)

MAX_RUN_CELLS: Final = 20
"""Most cells one ``run_cells`` runs."""
MAX_RUN_TIMEOUT: Final = 600
MAX_MESSAGE: Final = 500
"""Longest ``message`` of a failed ``apply_change_reply`` and ``reason`` of a skipped undo."""
MAX_UNDO_CHANGES: Final = 1000
_MAX_ID: Final = 256
_MAX_TEXT: Final = 4096
APPLY_STATUSES: Final = ("applied", "stale", "missing", "failed")
RUN_STATUSES: Final = ("ok", "error", "running", "not_run", "missing")

ApplyStatus = Literal["applied", "stale", "missing", "failed"]
RunStatus = Literal["ok", "error", "running", "not_run", "missing"]

__all__ = [
    "MAX_RUN_CELLS",
    "MAX_RUN_TIMEOUT",
    "ChangeOrigin",
    "EditChange",
    "InsertChange",
    "DeleteChange",
    "Change",
    "ApplyChange",
    "ApplyChangeReply",
    "RunCells",
    "RunCellOutput",
    "RunCellResult",
    "RunCellsReply",
    "UndoRequest",
    "UndoChange",
    "UndoChanges",
    "UndoReply",
    "checked_change",
    "apply_change",
    "run_cells",
    "undo_changes",
    "parse_apply_change_reply",
    "parse_run_cells_reply",
    "parse_undo_request",
    "parse_undo_reply",
]


class _Origin(TypedDict):
    session: str
    run: str
    call: str


class ChangeOrigin(_Origin, total=False):
    """Who made a change: the runtime session, the kernel's run id, the runtime's call id, and
    (when known) the id of the run's ``%%dsh`` cell, where the page shows "Undo this run"."""

    anchor: str


class EditChange(TypedDict):
    kind: Literal["edit"]
    cell_id: str
    before: str
    after: str


class InsertChange(TypedDict):
    kind: Literal["insert"]
    after_cell_id: str
    cell_type: str
    source: str


class DeleteChange(TypedDict):
    kind: Literal["delete"]
    cell_id: str
    before: str


Change = EditChange | InsertChange | DeleteChange


class _ApplyChangeRequired(TypedDict):
    v: Literal[1]
    type: Literal["apply_change"]
    request_id: str
    origin: ChangeOrigin
    change: Change


class ApplyChange(_ApplyChangeRequired, total=False):
    record: Literal[False]
    """Present (``false``) when the change's ``before`` holds what the kernel masks (a secret or
    a private value): the page keeps no copy of that source in the notebook's undo records
    (undoing that change then needs the kernel)."""


class _ApplyChangeReplyRequired(TypedDict):
    v: Literal[1]
    type: Literal["apply_change_reply"]
    request_id: str
    status: ApplyStatus


class ApplyChangeReply(_ApplyChangeReplyRequired, total=False):
    cell_id: str
    index: int
    source: str
    message: str


class RunCells(TypedDict):
    v: Literal[1]
    type: Literal["run_cells"]
    request_id: str
    cell_ids: list[str]
    timeout_s: int
    origin: ChangeOrigin


class RunCellOutput(CellOutput, total=False):
    traceback: str
    """The plain-text traceback of an ``error`` output (ANSI stripped)."""


class RunCellResult(TypedDict):
    cell_id: str
    index: int | None
    status: RunStatus
    execution_count: int | None
    outputs: list[RunCellOutput]


class RunCellsReply(TypedDict):
    v: Literal[1]
    type: Literal["run_cells_reply"]
    request_id: str
    cells: list[RunCellResult]


class UndoRequest(TypedDict):
    v: Literal[1]
    type: Literal["undo_request"]
    anchor: str


class UndoEdit(TypedDict):
    kind: Literal["edit"]
    cell_id: str
    before: str
    after: str


class UndoInsert(TypedDict):
    kind: Literal["insert"]
    cell_id: str
    source: str


class DeletedCell(TypedDict):
    cell_type: str
    source: str
    id: str


class UndoDelete(TypedDict):
    kind: Literal["delete"]
    cell: DeletedCell
    after_cell_id: str | None
    index: int


class UndoAgentCell(TypedDict):
    kind: Literal["agent_cell"]
    run: str
    call: int
    source: str


UndoChange = UndoEdit | UndoInsert | UndoDelete | UndoAgentCell


class UndoChanges(TypedDict):
    v: Literal[1]
    type: Literal["undo_changes"]
    request_id: str
    run: str
    changes: list[UndoChange]


class UndoSkipped(TypedDict):
    cell_id: str
    reason: str


class UndoReply(TypedDict):
    v: Literal[1]
    type: Literal["undo_reply"]
    request_id: str
    reverted: int
    skipped: list[UndoSkipped]


# -- helpers -----------------------------------------------------------------------------------


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= _MAX_ID else None


def _source(value: object) -> str | None:
    return value if isinstance(value, str) and len(value) <= MAX_CELL_SOURCE else None


def _bounded(value: object, limit: int) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


def _head(data: object, kind: str) -> Mapping[str, object] | None:
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    if data.get("type") != kind or _id(data.get("request_id")) is None:
        return None
    return data


def _count(value: object) -> bool:
    return value is None or (type(value) is int and value >= 0)


# -- changes and origins (the builders check with these) ---------------------------------------


def checked_origin(raw: object) -> ChangeOrigin | None:
    if not isinstance(raw, Mapping):
        return None
    session, run, call = _id(raw.get("session")), _id(raw.get("run")), _id(raw.get("call"))
    if session is None or run is None or call is None:
        return None
    origin: ChangeOrigin = {"session": session, "run": run, "call": call}
    anchor = _id(raw.get("anchor"))
    if anchor is not None:
        origin["anchor"] = anchor
    return origin


def checked_change(raw: object) -> Change | None:
    """``raw`` as a well-formed ``change`` of an ``apply_change``, or ``None``."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("kind")
    if kind == "edit":
        cell_id, before, after = _id(raw.get("cell_id")), raw.get("before"), raw.get("after")
        b, a = _source(before), _source(after)
        if cell_id is None or b is None or a is None:
            return None
        return {"kind": "edit", "cell_id": cell_id, "before": b, "after": a}
    if kind == "insert":
        after_id, cell_type, source = (
            _id(raw.get("after_cell_id")),
            raw.get("cell_type"),
            _source(raw.get("source")),
        )
        if after_id is None or cell_type not in ("code", "markdown") or source is None:
            return None
        return {"kind": "insert", "after_cell_id": after_id, "cell_type": str(cell_type),
                "source": source}  # fmt: skip
    if kind == "delete":
        cell_id, before_text = _id(raw.get("cell_id")), _source(raw.get("before"))
        if cell_id is None or before_text is None:
            return None
        return {"kind": "delete", "cell_id": cell_id, "before": before_text}
    return None


def _undo_change(raw: object) -> UndoChange | None:
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("kind")
    if kind == "edit":
        change = checked_change(raw)
        return change if change is not None and change["kind"] == "edit" else None
    if kind == "insert":
        cell_id, source = _id(raw.get("cell_id")), _source(raw.get("source"))
        if cell_id is None or source is None:
            return None
        return {"kind": "insert", "cell_id": cell_id, "source": source}
    if kind == "delete":
        cell, after_id, index = raw.get("cell"), raw.get("after_cell_id"), raw.get("index")
        if not isinstance(cell, Mapping) or type(index) is not int or index < 0:
            return None
        cell_id, cell_type, source = _id(cell.get("id")), cell.get("cell_type"), cell.get("source")
        text = _source(source)
        if cell_id is None or cell_type not in CELL_TYPES or text is None:
            return None
        if after_id is not None and _id(after_id) is None:
            return None
        assert after_id is None or isinstance(after_id, str)
        return {"kind": "delete", "cell": {"cell_type": str(cell_type), "source": text,
                "id": cell_id}, "after_cell_id": after_id, "index": index}  # fmt: skip
    if kind == "agent_cell":
        run, call, source = _id(raw.get("run")), raw.get("call"), _source(raw.get("source"))
        if run is None or type(call) is not int or call < 1 or source is None:
            return None
        return {"kind": "agent_cell", "run": run, "call": call, "source": source}
    return None


# -- builders (kernel -> page) -----------------------------------------------------------------


def apply_change(
    request_id: str, origin: ChangeOrigin, change: Change, *, record: bool = True
) -> ApplyChange | None:
    """The ``apply_change`` message, or ``None`` when it would not be well-formed; ``record=False``
    asks the page to keep no copy of the source before (see :class:`ApplyChange`)."""
    checked, source = checked_change(change), checked_origin(origin)
    if checked is None or source is None or _id(request_id) is None:
        return None
    message: ApplyChange = {"v": 1, "type": "apply_change", "request_id": request_id,
                            "origin": source, "change": checked}  # fmt: skip
    if not record:
        message["record"] = False
    return message


def run_cells(
    request_id: str, cell_ids: Sequence[str], timeout_s: int, origin: ChangeOrigin
) -> RunCells | None:
    """The ``run_cells`` message (1 to :data:`MAX_RUN_CELLS` ids, 1 to 600 s), or ``None``."""
    ids = [c for c in cell_ids if _id(c) is not None]
    checked = checked_origin(origin)
    if not 1 <= len(ids) == len(cell_ids) <= MAX_RUN_CELLS or checked is None:
        return None
    if type(timeout_s) is not int or not 1 <= timeout_s <= MAX_RUN_TIMEOUT:
        return None
    return {"v": 1, "type": "run_cells", "request_id": request_id, "cell_ids": ids,
            "timeout_s": timeout_s, "origin": checked}  # fmt: skip


def undo_changes(request_id: str, run: str, changes: Sequence[UndoChange]) -> UndoChanges | None:
    """The ``undo_changes`` message (``changes`` already in reverse order), or ``None``. An
    empty ``changes`` list (``run`` may then be ``""``) tells the page there is nothing the
    kernel can undo."""
    checked = [_undo_change(c) for c in changes]
    if any(c is None for c in checked) or len(checked) > MAX_UNDO_CHANGES:
        return None
    if _id(request_id) is None or not isinstance(run, str) or len(run) > _MAX_ID:
        return None
    return {"v": 1, "type": "undo_changes", "request_id": request_id, "run": run,
            "changes": [c for c in checked if c is not None]}  # fmt: skip


# -- parsers (page -> kernel) ------------------------------------------------------------------


def parse_apply_change_reply(data: object) -> ApplyChangeReply | None:
    """An ``apply_change_reply`` within bounds, or ``None`` (ignore it)."""
    raw = _head(data, "apply_change_reply")
    if raw is None:
        return None
    request_id, status = str(raw["request_id"]), raw.get("status")
    if status not in APPLY_STATUSES:
        return None
    reply: ApplyChangeReply = {"v": 1, "type": "apply_change_reply", "request_id": request_id,
                               "status": status}  # fmt: skip
    cell_id, index = raw.get("cell_id"), raw.get("index")
    source, message = raw.get("source"), raw.get("message")
    if cell_id is not None:
        if _id(cell_id) is None:
            return None
        reply["cell_id"] = str(cell_id)
    if index is not None:
        if type(index) is not int or index < 0:
            return None
        reply["index"] = index
    if source is not None:
        if _source(source) is None:
            return None
        reply["source"] = str(source)
    if message is not None:
        if _bounded(message, MAX_MESSAGE) is None:
            return None
        reply["message"] = str(message)
    if status == "applied" and "cell_id" not in reply:
        return None
    return reply


def _run_cell(raw: object) -> RunCellResult | None:
    if not isinstance(raw, Mapping):
        return None
    cell_id, index, status = _id(raw.get("cell_id")), raw.get("index"), raw.get("status")
    count, outputs = raw.get("execution_count"), raw.get("outputs", [])
    if cell_id is None or status not in RUN_STATUSES or not _count(index) or not _count(count):
        return None
    if not isinstance(outputs, list) or len(outputs) > MAX_READ_OUTPUTS:
        return None
    parsed = [cast("RunCellOutput | None", checked_output(o, traceback=True)) for o in outputs]
    if any(o is None for o in parsed):
        return None
    assert index is None or isinstance(index, int)
    assert count is None or isinstance(count, int)
    return {"cell_id": cell_id, "index": index, "status": cast(RunStatus, status),
            "execution_count": count, "outputs": [o for o in parsed if o is not None]}  # fmt: skip


def parse_run_cells_reply(data: object) -> RunCellsReply | None:
    """A ``run_cells_reply`` within bounds, or ``None`` (ignore it)."""
    raw = _head(data, "run_cells_reply")
    if raw is None:
        return None
    cells = raw.get("cells")
    if not isinstance(cells, list) or len(cells) > MAX_RUN_CELLS:
        return None
    parsed = [_run_cell(c) for c in cells]
    if any(c is None for c in parsed):
        return None
    return {"v": 1, "type": "run_cells_reply", "request_id": str(raw["request_id"]),
            "cells": [c for c in parsed if c is not None]}  # fmt: skip


def parse_undo_request(data: object) -> UndoRequest | None:
    """The page's "Undo this run" (``anchor``: the ``%%dsh`` cell's id), or ``None``."""
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    anchor = _id(data.get("anchor"))
    if data.get("type") != "undo_request" or anchor is None:
        return None
    return {"v": 1, "type": "undo_request", "anchor": anchor}


def parse_undo_reply(data: object) -> UndoReply | None:
    """An ``undo_reply`` within bounds, or ``None`` (ignore it)."""
    raw = _head(data, "undo_reply")
    if raw is None:
        return None
    reverted, skipped = raw.get("reverted"), raw.get("skipped")
    if type(reverted) is not int or reverted < 0 or not isinstance(skipped, list):
        return None
    if len(skipped) > MAX_UNDO_CHANGES:
        return None
    items: list[UndoSkipped] = []
    for item in skipped:
        if not isinstance(item, Mapping):
            return None
        cell_id, reason = _id(item.get("cell_id")), _bounded(item.get("reason"), MAX_MESSAGE)
        if cell_id is None or reason is None:
            return None
        items.append({"cell_id": cell_id, "reason": reason})
    return {"v": 1, "type": "undo_reply", "request_id": str(raw["request_id"]),
            "reverted": reverted, "skipped": items}  # fmt: skip
