"""Reading the frontend protocol's messages (:mod:`dsh_notebook.page_protocol`).

Guarantee: the ``parse_*`` functions never raise. They return ``None`` for anything that is not
a well-formed message of this version (unknown ``type``, other ``v``, wrong field types), and
the caller ignores it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .shapes import (
    AGENT_OUTPUT_MIMES,
    CELL_TYPES,
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
    HelloReply,
    IdentityMetadata,
    InsertCell,
    NotebookCell,
    ReadNotebookReply,
)

__all__ = [
    "parse_identity",
    "parse_read_notebook_reply",
    "parse_frontend_message",
]

_ID = re.compile(r"[0-9a-f]{32}")
_MAX_TEXT = 4096
_MAX_CELLS = 1000
_MAX_CAPABILITIES = 64
"""Most capabilities one ``hello_reply`` may announce (a page announces about ten)."""
_MAX_CAPABILITY = 200
"""Longest capability name (``widget_bundle:<hash>`` included)."""


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
    if raw.get("private") is True:  # anything else (absent, false, malformed) is not private
        result["private"] = True
    return result


def _head(data: object) -> str | None:
    if not isinstance(data, Mapping) or data.get("v") != PROTOCOL_VERSION:
        return None
    kind = data.get("type")
    return kind if isinstance(kind, str) else None


def _bounded(value: object, limit: int) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


_OUTPUT_TEXTS: tuple[tuple[str, int], ...] = (
    ("text", MAX_OUTPUT_TEXT),
    ("ename", _MAX_TEXT),
    ("evalue", MAX_OUTPUT_TEXT),
)


def checked_output(raw: object, *, traceback: bool = False) -> CellOutput | None:
    """One summarized output as the page sends it (``read_notebook_reply``), or ``None``: a known
    ``output_type``, at most 32 ``mime`` types of 1-200 characters, bounded texts. With
    ``traceback``, also an error's plain-text ``traceback`` (at most :data:`MAX_OUTPUT_TEXT`), as
    a ``run_cells_reply`` carries it (the result is then an ``editing.RunCellOutput``)."""
    if not isinstance(raw, Mapping) or raw.get("output_type") not in OUTPUT_TYPES:
        return None
    output: CellOutput = {"output_type": str(raw["output_type"])}
    mime = raw.get("mime")
    if mime is not None:
        if not isinstance(mime, list) or len(mime) > 32:
            return None
        if not all(isinstance(m, str) and 0 < len(m) <= 200 for m in mime):
            return None
        output["mime"] = [str(m) for m in mime]
    texts = (*_OUTPUT_TEXTS, ("traceback", MAX_OUTPUT_TEXT)) if traceback else _OUTPUT_TEXTS
    for key, limit in texts:
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
    parsed = [checked_output(o) for o in outputs]
    if any(o is None for o in parsed):
        return None
    running, private = raw.get("running", False), raw.get("private", False)
    if type(running) is not bool or type(private) is not bool:
        return None
    if private:  # never kept, whatever a page sent
        source, parsed = "", []
    assert isinstance(count, int) or count is None
    cell: NotebookCell = {"index": index, "id": cell_id, "cell_type": str(cell_type),
                          "source": source, "execution_count": count, "agent": agent,
                          "selected": selected, "outputs": [o for o in parsed if o is not None]}  # fmt: skip
    if running:
        cell["running"] = True
    if private:
        cell["private"] = True
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
    chosen = data.get("chosen", False)
    if type(chosen) is not bool:
        return None
    reply: ReadNotebookReply = {
        "v": 1, "type": "read_notebook_reply", "request_id": request_id, "path": path,
        "total_cells": total, "cells": [c for c in cells if c is not None],
    }  # fmt: skip
    if chosen:
        reply["chosen"] = True
    return reply


def parse_frontend_message(data: object) -> HelloReply | None:
    """A ``hello_reply`` the kernel received from the extension, or ``None`` (ignore it; a
    ``read_notebook_reply`` is parsed by :func:`parse_read_notebook_reply`). At most 64
    capabilities of 1-200 characters each; a longer list is refused whole."""
    if _head(data) != "hello_reply":
        return None
    assert isinstance(data, Mapping)
    version, capabilities = _text(data.get("version")), data.get("capabilities")
    if version is None or not isinstance(capabilities, list):
        return None
    if len(capabilities) > _MAX_CAPABILITIES:
        return None  # refused before looking at each: a page announces about ten
    if not all(_bounded(c, _MAX_CAPABILITY) for c in capabilities):
        return None
    return {"v": 1, "type": "hello_reply", "version": version, "capabilities": list(capabilities)}


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
