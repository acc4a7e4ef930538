"""Reading the frontend protocol's messages (:mod:`dsh_notebook.frontend.protocol`).

Guarantee: the ``parse_*`` functions never raise. They return ``None`` for anything that is not
a well-formed message of this version (unknown ``type``, other ``v``, wrong field types), and
the caller ignores it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .editing import ApplyChange, RunCells, UndoChanges, parse_editing_kernel_message
from .shapes import (
    AGENT_OUTPUT_MIMES,
    CELL_TYPES,
    MAX_BUNDLE_TEXT,
    MAX_CELL_OUTPUTS,
    MAX_CELL_SOURCE,
    MAX_OUTPUT_TEXT,
    MAX_OUTPUTS_TEXT,
    MAX_READ_CELLS,
    MAX_READ_OUTPUTS,
    MAX_READ_SOURCE,
    METADATA_KEY,
    OUTPUT_TYPES,
    PROTOCOL_VERSION,
    CellOutput,
    Hello,
    HelloReply,
    IdentityMetadata,
    InsertCell,
    NotebookCell,
    ReadNotebook,
    ReadNotebookReply,
    RunOutput,
    RunOutputBundle,
    Waiting,
    WaitingCell,
)

KernelEditingMessage = ApplyChange | RunCells | UndoChanges
_ID = re.compile(r"[0-9a-f]{32}")
_MAX_TEXT = 4096
_MAX_CELLS = 1000


def _text(value: object, *, empty: bool = True) -> str | None:
    if isinstance(value, str) and len(value) <= _MAX_TEXT and (empty or value):
        return value
    return None


def _is_id(value: object) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def parse_identity(metadata: object) -> IdentityMetadata | None:
    """The identity in an execute request's ``metadata`` (the whole metadata mapping), or
    ``None`` when it is absent, of another version or malformed."""
    if not isinstance(metadata, Mapping):
        return None
    raw = metadata.get(METADATA_KEY)
    if not isinstance(raw, Mapping) or raw.get("v") != PROTOCOL_VERSION:
        return None
    notebook_id, path, cell_id = raw.get("id"), _text(raw.get("path")), raw.get("cell_id")
    if not _is_id(notebook_id) or path is None:
        return None
    if cell_id is not None and not _text(cell_id, empty=False):
        return None
    assert isinstance(notebook_id, str)
    assert cell_id is None or isinstance(cell_id, str)
    result: IdentityMetadata = {"v": 1, "id": notebook_id, "path": path, "cell_id": cell_id}
    forked_from = raw.get("forked_from")
    if forked_from is not None:
        if not _is_id(forked_from):
            return None
        assert isinstance(forked_from, str)
        result["forked_from"] = forked_from
    return result


def _head(data: object) -> str | None:
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    kind = data.get("type")
    return kind if isinstance(kind, str) else None


def _bounded(value: object, limit: int) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


def _cell_output(raw: object) -> CellOutput | None:
    if not isinstance(raw, Mapping) or raw.get("output_type") not in OUTPUT_TYPES:
        return None
    output: CellOutput = {"output_type": str(raw["output_type"])}
    mime = raw.get("mime")
    if mime is not None:
        if (
            not isinstance(mime, list)
            or len(mime) > 32
            or not all(_text(m, empty=False) for m in mime)
        ):
            return None
        output["mime"] = [str(m) for m in mime]
    for key, limit in (
        ("text", MAX_OUTPUT_TEXT),
        ("ename", _MAX_TEXT),
        ("evalue", MAX_OUTPUT_TEXT),
    ):
        value = raw.get(key)
        if value is None:
            continue
        text = _bounded(value, limit)
        if text is None:
            return None
        output[key] = text  # type: ignore[literal-required]
    return output


def _notebook_cell(raw: object) -> NotebookCell | None:
    if not isinstance(raw, Mapping):
        return None
    index, cell_id, cell_type = raw.get("index"), _text(raw.get("id")), raw.get("cell_type")
    source, count = _bounded(raw.get("source"), MAX_READ_SOURCE), raw.get("execution_count")
    agent, selected, outputs = raw.get("agent"), raw.get("selected"), raw.get("outputs")
    if type(index) is not int or index < 0 or cell_id is None or cell_type not in CELL_TYPES:
        return None
    if source is None or not (count is None or (type(count) is int and count >= 0)):
        return None
    if type(agent) is not bool or type(selected) is not bool:
        return None
    if not isinstance(outputs, list) or len(outputs) > MAX_READ_OUTPUTS:
        return None
    parsed = [_cell_output(o) for o in outputs]
    if any(o is None for o in parsed):
        return None
    running = raw.get("running", False)
    if type(running) is not bool:
        return None
    assert isinstance(count, int) or count is None
    cell: NotebookCell = {"index": index, "id": cell_id, "cell_type": str(cell_type),
                          "source": source, "execution_count": count, "agent": agent,
                          "selected": selected, "outputs": [o for o in parsed if o is not None]}  # fmt: skip
    if running:
        cell["running"] = True
    return cell


def parse_read_notebook_reply(data: object) -> ReadNotebookReply | None:
    """A ``read_notebook_reply`` within the bounds above, or ``None`` (ignore it)."""
    if _head(data) != "read_notebook_reply":
        return None
    assert isinstance(data, Mapping)
    request_id, path = _text(data.get("request_id"), empty=False), _text(data.get("path"))
    total, raw_cells = data.get("total_cells"), data.get("cells")
    if request_id is None or path is None or type(total) is not int or total < 0:
        return None
    if not isinstance(raw_cells, list) or len(raw_cells) > MAX_READ_CELLS:
        return None
    cells = [_notebook_cell(c) for c in raw_cells]
    if any(c is None for c in cells):
        return None
    return {"v": 1, "type": "read_notebook_reply", "request_id": request_id, "path": path,
            "total_cells": total, "cells": [c for c in cells if c is not None]}  # fmt: skip


def parse_frontend_message(data: object) -> HelloReply | None:
    """A ``hello_reply`` the kernel received from the extension, or ``None`` (ignore it; a
    ``read_notebook_reply`` is parsed by :func:`parse_read_notebook_reply`)."""
    if _head(data) != "hello_reply":
        return None
    assert isinstance(data, Mapping)
    version, capabilities = _text(data.get("version")), data.get("capabilities")
    if version is None or not isinstance(capabilities, list):
        return None
    if not all(_text(c, empty=False) for c in capabilities):
        return None
    return {"v": 1, "type": "hello_reply", "version": version, "capabilities": list(capabilities)}


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


def _string_list(value: object) -> str | None:
    """nbformat multiline text: a string or a list of strings, joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    return None


def normalized_output(raw: object) -> dict[str, object] | None:
    """An nbformat v4 output as an ``insert_cell`` may carry it (its kind, and only
    :data:`AGENT_OUTPUT_MIMES` string data), or ``None`` when it cannot be one."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("output_type")
    if kind == "stream":
        name, text = raw.get("name"), _string_list(raw.get("text"))
        if name not in ("stdout", "stderr") or text is None:
            return None
        return {"output_type": "stream", "name": name, "text": text}
    if kind == "error":
        ename, evalue, tb = raw.get("ename"), raw.get("evalue"), raw.get("traceback")
        if not isinstance(ename, str) or not isinstance(evalue, str) or not isinstance(tb, list):
            return None
        if not all(isinstance(line, str) for line in tb):
            return None
        return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": list(tb)}
    if kind not in ("display_data", "execute_result"):
        return None
    data, metadata = raw.get("data"), raw.get("metadata", {})
    if not isinstance(data, Mapping) or not isinstance(metadata, Mapping):
        return None
    kept: dict[str, str] = {}
    for mime, value in data.items():
        text = _string_list(value)
        if mime not in AGENT_OUTPUT_MIMES or text is None:
            return None  # HTML, scripts, anything else: the whole message is refused
        kept[mime] = text
    meta = {k: dict(v) for k, v in metadata.items() if k in kept and isinstance(v, Mapping)}
    out: dict[str, object] = {"output_type": kind, "data": kept, "metadata": meta}
    if kind == "execute_result":
        count = raw.get("execution_count")
        out["execution_count"] = count if type(count) is int else None
    return out


def output_size(value: object) -> int:
    """Characters of the strings in an output (its data, text, traceback)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return sum(output_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(output_size(v) for v in value)
    return 0


def checked_insert_cell(data: Mapping[str, object]) -> InsertCell | None:
    """``data`` as a well-formed ``insert_cell`` message (the builder and the parser agree on
    what that is because both use this), or ``None``."""
    anchor, session, run = (
        _text(data.get("anchor"), empty=False),
        _text(data.get("session"), empty=False),
        _text(data.get("run"), empty=False),
    )
    call, source, raw_outputs = data.get("call"), data.get("source"), data.get("outputs")
    if anchor is None or session is None or run is None:
        return None
    if type(call) is not int or call < 1:
        return None
    if not isinstance(source, str) or len(source) > MAX_CELL_SOURCE:
        return None
    if not isinstance(raw_outputs, list) or len(raw_outputs) > MAX_CELL_OUTPUTS:
        return None
    outputs = [normalized_output(o) for o in raw_outputs]
    if any(o is None for o in outputs):
        return None
    kept = [o for o in outputs if o is not None]
    if sum(output_size(o) for o in kept) > MAX_OUTPUTS_TEXT:
        return None
    return {"v": 1, "type": "insert_cell", "anchor": anchor, "session": session, "run": run,
            "call": call, "source": source, "outputs": kept}  # fmt: skip


def parse_kernel_message(
    data: object,
) -> Hello | Waiting | RunOutput | InsertCell | ReadNotebook | KernelEditingMessage | None:
    """A comm message the extension receives from the kernel, or ``None`` (ignore it). The
    frontend's ``parseKernelMessage`` applies the same rules; this one serves tests and tools."""
    kind = _head(data)
    if kind is None:
        return None
    assert isinstance(data, Mapping)
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
        request_id = _text(data.get("request_id"), empty=False)
        return (
            None
            if request_id is None
            else {"v": 1, "type": "read_notebook", "request_id": request_id}
        )
    if kind in ("apply_change", "run_cells", "undo_changes"):
        return parse_editing_kernel_message(data)
    return None
