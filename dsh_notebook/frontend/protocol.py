"""The kernel <-> frontend-extension protocol, version 1 (mirror: ``js/labextension/src/protocol.ts``).

Every message between the kernel and the ``dsh-notebook`` JupyterLab extension is named here.
Two carriers:

``identity`` (frontend -> kernel, on every ``execute_request``)
    The extension adds ``metadata.dsh_notebook`` to each execute request a notebook sends::

        {"v": 1, "id": "<32 hex>", "path": "dir/a.ipynb", "cell_id": "<cell id>" | null,
         "forked_from": "<32 hex>"}        # forked_from only on a copy

    It travels with the request itself, so the kernel knows the notebook of every cell with no
    race (a comm reply would queue behind the execute requests of a Run All).

Comm ``dsh_notebook.frontend`` (the extension registers this target on every notebook kernel)
    The kernel opens it; ``data`` of every message is one JSON object with ``v`` and ``type``:

    - ``hello`` (kernel -> frontend, the comm_open data): ``{"v": 1, "type": "hello",
      "kernel_version": "0.1.0"}``.
    - ``hello_reply`` (frontend -> kernel): ``{"v": 1, "type": "hello_reply", "version":
      "0.1.0", "capabilities": ["waiting"]}``. This is how the kernel learns that the extension
      is present; without a reply it assumes it is absent. ``widget_bundle:<hash>`` (no
      message of its own): the page serves the run widget's bundle of that content hash, so
      new widgets get a small loader as ``_esm`` (see :mod:`dsh_notebook.widget.bundle`).
    - ``waiting`` (kernel -> frontend): ``{"v": 1, "type": "waiting", "count": 1, "cells":
      [{"cell_id": "...", "kind": "approval" | "question", "label": "bash"}]}``. The whole
      current state (latest wins); ``count == 0`` clears the signal.
    - ``run_output`` (kernel -> frontend, capability ``run_output``): ``{"v": 1, "type":
      "run_output", "model_id": "<widget model id>", "cell_id": "..." | null, "state": "live" |
      "settled", "bundle": {"text/markdown": "...", "text/plain": "..."}}``. The static
      transcript of the run shown by that widget: ``live`` now and then while it runs (what a
      save keeps if the kernel is gone when the notebook is reopened), ``settled`` once, before
      the widget is closed (the page replaces the widget output with it, also when it no longer
      knows the output's ``display_id``: after a reload, or in a second page). Each text is at
      most :data:`MAX_BUNDLE_TEXT` characters (the kernel cuts longer ones with a note).

    - ``insert_cell`` (kernel -> frontend, capability ``insert_cell``): ``{"v": 1, "type":
      "insert_cell", "anchor": "<cell id of the %%dsh cell>", "session": "...", "run": "<run
      id>", "call": 1, "source": "...", "outputs": [<nbformat v4 output>, ...]}``. An approved
      ``run_python`` call of run ``run`` that has finished: the page inserts an unexecuted code
      cell with ``source`` (the kernel's text, first line a comment naming the agent) and
      ``outputs`` below the anchor, after the agent cells already there, tagged
      :data:`AGENT_TAG`, with ``metadata.dsh_notebook.agent = {session, run, call, anchor}``.
      Outputs are ``stream``, ``display_data``, ``execute_result`` or ``error``; their data
      holds only :data:`AGENT_OUTPUT_MIMES` (strings), never HTML. Sent once, when the call
      finished; a page that is not connected then does not get it (the transcript keeps the
      code).
    - ``read_notebook`` (kernel -> frontend, capability ``read_notebook``): ``{"v": 1, "type":
      "read_notebook", "request_id": "n1"}``: the agent's ``notebook_cells`` tool asks for the
      notebook as the person sees it.
    - ``read_notebook_reply`` (frontend -> kernel): ``{"v": 1, "type": "read_notebook_reply",
      "request_id": "n1", "path": "a.ipynb", "total_cells": 12, "cells": [{"index": 0, "id":
      "...", "cell_type": "code" | "markdown" | "raw", "source": "...", "execution_count": 3 |
      null, "agent": false, "selected": true, "outputs": [{"output_type": "stream" |
      "execute_result" | "display_data" | "error", "mime": ["text/plain", "image/png"], "text":
      "...", "ename": "KeyError", "evalue": "'x'"}]}]}``, read from the notebook model (so cells
      never run and unsaved edits are there). ``agent`` is the ``dsh-agent`` tag; ``running: true`` (absent otherwise, and from pages before
      JupyterLab 4.1) says the page runs the cell or has it queued; an output's
      ``text`` is a stream's text, or a display's ``text/markdown`` else ``text/plain``. The frontend
      bounds it (:data:`MAX_READ_CELLS` cells, :data:`MAX_READ_SOURCE` characters of source and
      :data:`MAX_OUTPUT_TEXT` of text per output, :data:`MAX_READ_OUTPUTS` outputs per cell);
      the kernel rejects a reply over those bounds.
    - ``subshell_ready`` (frontend -> kernel): ``{"v": 1, "type": "subshell_ready"}``, sent
      once the page's comm has its own subshell (JupyterLab 4.4+ / Notebook 7 on ipykernel 7
      start one per comm target after the comm opened, so ``hello_reply`` usually travels
      before it). It carries nothing: its header's ``subshell_id`` tells the kernel that the
      page's replies are handled while a cell runs (``FrontendLink.replies_off_main``); every
      message of the page updates that. A kernel that does not know it ignores it.

    A side that does not announce the matching capability in ``hello_reply`` never receives a
    message of it.

Guarantee: the ``parse_*`` functions never raise. They return ``None`` for anything that is not
a well-formed message of this version (unknown ``type``, other ``v``, wrong field types), and
the caller ignores it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final, Literal, TypedDict

PROTOCOL_VERSION: Final = 1
METADATA_KEY: Final = "dsh_notebook"
COMM_TARGET: Final = "dsh_notebook.frontend"
RESERVED_TYPES: Final = frozenset[str]()
"""Message types named for later use; none are left (``insert_cell`` and ``read_notebook`` are
implemented)."""
AGENT_TAG: Final = "dsh-agent"
"""The cell tag of a cell the agent wrote (an inserted ``run_python`` call)."""
AGENT_OUTPUT_MIMES: Final = ("text/plain", "image/png", "image/jpeg")
MAX_CELL_SOURCE: Final = 512 * 1024
"""The longest ``source`` of an ``insert_cell``."""
MAX_CELL_OUTPUTS: Final = 64
MAX_OUTPUTS_TEXT: Final = 8 * 1024 * 1024
"""The most characters all outputs of one ``insert_cell`` may hold (images included)."""

WaitingKind = Literal["approval", "question"]

_ID = re.compile(r"[0-9a-f]{32}")
_MAX_TEXT = 4096
_MAX_CELLS = 1000
MAX_BUNDLE_TEXT: Final = 256 * 1024
"""The longest ``text/markdown`` or ``text/plain`` of a ``run_output`` bundle."""
RUN_OUTPUT_STATES: Final = ("live", "settled")
MAX_READ_CELLS: Final = 500
"""Most cells one ``read_notebook_reply`` carries (``total_cells`` says how many there are)."""
MAX_READ_SOURCE: Final = 20000
"""Longest ``source`` of one cell in a ``read_notebook_reply`` (the frontend cuts longer ones)."""
MAX_OUTPUT_TEXT: Final = 2000
"""Longest ``text`` of one output in a ``read_notebook_reply``."""
MAX_READ_OUTPUTS: Final = 20
"""Most outputs listed per cell in a ``read_notebook_reply``."""
CELL_TYPES: Final = ("code", "markdown", "raw")
OUTPUT_TYPES: Final = ("stream", "execute_result", "display_data", "error", "update_display_data")
RunOutputState = Literal["live", "settled"]


class _IdentityRequired(TypedDict):
    v: Literal[1]
    id: str
    path: str
    cell_id: str | None


class IdentityMetadata(_IdentityRequired, total=False):
    """``metadata.dsh_notebook`` of an ``execute_request``."""

    forked_from: str


class Hello(TypedDict):
    v: Literal[1]
    type: Literal["hello"]
    kernel_version: str


class HelloReply(TypedDict):
    v: Literal[1]
    type: Literal["hello_reply"]
    version: str
    capabilities: list[str]


class WaitingCell(TypedDict):
    cell_id: str
    kind: WaitingKind
    label: str


class Waiting(TypedDict):
    v: Literal[1]
    type: Literal["waiting"]
    count: int
    cells: list[WaitingCell]


# keys with "/" need the functional form
RunOutputBundle = TypedDict("RunOutputBundle", {"text/markdown": str, "text/plain": str})


class _RunOutputRequired(TypedDict):
    v: Literal[1]
    type: Literal["run_output"]
    model_id: str
    cell_id: str | None
    state: RunOutputState
    bundle: RunOutputBundle


class RunOutput(_RunOutputRequired, total=False):
    """``replay: True`` on a message sent again in answer to a page's ``hello_reply``: that page
    may have lost the run's output (reloaded before a save) and puts it back in the cell."""

    replay: Literal[True]


class AgentCellOrigin(TypedDict):
    """``metadata.dsh_notebook.agent`` of an inserted cell."""

    session: str
    run: str
    call: int
    anchor: str


class InsertCell(TypedDict):
    v: Literal[1]
    type: Literal["insert_cell"]
    anchor: str
    session: str
    run: str
    call: int
    source: str
    outputs: list[dict[str, object]]


class ReadNotebook(TypedDict):
    v: Literal[1]
    type: Literal["read_notebook"]
    request_id: str


class _CellOutputRequired(TypedDict):
    output_type: str


class CellOutput(_CellOutputRequired, total=False):
    """One output of a cell, summarized: the mime types of rich data, its text, an error."""

    mime: list[str]
    text: str
    ename: str
    evalue: str


class _NotebookCellRequired(TypedDict):
    index: int
    id: str
    cell_type: str
    source: str
    execution_count: int | None
    agent: bool
    selected: bool
    outputs: list[CellOutput]


class NotebookCell(_NotebookCellRequired, total=False):
    running: bool
    """Present (true) while the page runs the cell or has it queued (JupyterLab 4.1+)."""


class ReadNotebookReply(TypedDict):
    v: Literal[1]
    type: Literal["read_notebook_reply"]
    request_id: str
    path: str
    total_cells: int
    cells: list[NotebookCell]


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
    if kind == "approval":
        return {"cell_id": cell_id, "kind": "approval", "label": label_text}
    if kind == "question":
        return {"cell_id": cell_id, "kind": "question", "label": label_text}
    return None


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


def _output(raw: object) -> dict[str, object] | None:
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


def _size(value: object) -> int:
    """Characters of the strings in an output (its data, text, traceback)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return sum(_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(_size(v) for v in value)
    return 0


def _insert_cell(data: Mapping[str, object]) -> InsertCell | None:
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
    outputs = [_output(o) for o in raw_outputs]
    if any(o is None for o in outputs):
        return None
    kept = [o for o in outputs if o is not None]
    if sum(_size(o) for o in kept) > MAX_OUTPUTS_TEXT:
        return None
    return {"v": 1, "type": "insert_cell", "anchor": anchor, "session": session, "run": run,
            "call": call, "source": source, "outputs": kept}  # fmt: skip


def parse_kernel_message(
    data: object,
) -> Hello | Waiting | RunOutput | InsertCell | ReadNotebook | None:
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
        return _insert_cell(data)
    if kind == "read_notebook":
        request_id = _text(data.get("request_id"), empty=False)
        return None if request_id is None else read_notebook(request_id)
    return None


def hello(kernel_version: str) -> Hello:
    return {"v": 1, "type": "hello", "kernel_version": kernel_version}


def read_notebook(request_id: str) -> ReadNotebook:
    """The ``read_notebook`` request; the reply carries the same ``request_id``."""
    return {"v": 1, "type": "read_notebook", "request_id": request_id}


def waiting(cells: Sequence[WaitingCell]) -> Waiting:
    """The ``waiting`` message for ``cells`` (the whole current state; ``[]`` clears it)."""
    listed = [
        WaitingCell(cell_id=c["cell_id"], kind=c["kind"], label=c["label"][:200]) for c in cells
    ]
    return {"v": 1, "type": "waiting", "count": len(listed), "cells": listed}


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    note = f"\n\n… (cut: {len(text) - limit:,} more characters; the whole run is in the kernel)"
    return text[: limit - len(note)] + note


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
        output = _output(raw)
        if output is None or len(kept) >= MAX_CELL_OUTPUTS - 1 or _size(output) > budget:
            left_out += 1
            continue
        budget -= _size(output)
        kept.append(output)
    if left_out:
        note = f"dsh: {left_out} more output(s) of this call are not shown here; run the cell.\n"
        kept.append({"output_type": "stream", "name": "stderr", "text": note})
    message = {"v": 1, "type": "insert_cell", "anchor": anchor, "session": session, "run": run,
               "call": call, "source": source, "outputs": kept}  # fmt: skip
    return _insert_cell(message)
