"""The protocol's constants and message shapes (``TypedDict``s), version 1; the protocol itself
is described in :mod:`dsh_notebook.page_protocol`."""

from __future__ import annotations

from typing import Final, Literal, TypedDict

__all__ = [
    "PROTOCOL_VERSION",
    "METADATA_KEY",
    "COMM_TARGET",
    "RESERVED_TYPES",
    "AGENT_TAG",
    "AGENT_OUTPUT_MIMES",
    "MAX_CELL_SOURCE",
    "MAX_CELL_OUTPUTS",
    "MAX_OUTPUTS_TEXT",
    "WaitingKind",
    "MAX_BUNDLE_TEXT",
    "RUN_OUTPUT_STATES",
    "MAX_READ_CELLS",
    "MAX_READ_IDS",
    "MAX_READ_SOURCE",
    "MAX_OUTPUT_TEXT",
    "MAX_READ_OUTPUTS",
    "CELL_TYPES",
    "OUTPUT_TYPES",
    "RunOutputState",
    "IdentityMetadata",
    "Hello",
    "HelloReply",
    "WaitingCell",
    "Waiting",
    "RunOutputBundle",
    "RunOutput",
    "AgentCellOrigin",
    "InsertCell",
    "ReadNotebook",
    "CellOutput",
    "NotebookCell",
    "ReadNotebookReply",
    "ReadWant",
]

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

MAX_BUNDLE_TEXT: Final = 256 * 1024
"""The longest ``text/markdown`` or ``text/plain`` of a ``run_output`` bundle."""
RUN_OUTPUT_STATES: Final = ("live", "settled")
MAX_READ_CELLS: Final = 500
"""Most cells one ``read_notebook_reply`` carries (``total_cells`` says how many there are)."""
MAX_READ_IDS: Final = 50
"""Most ``cell_ids`` one ``read_notebook`` may name."""
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
    """``metadata.dsh_notebook`` of an ``execute_request``. ``private`` (only ever ``True``):
    the cell carries the ``dsh-private`` tag, so the kernel withholds this run from the model."""

    forked_from: str
    private: bool


class Hello(TypedDict):
    v: Literal[1]
    type: Literal["hello"]
    kernel_version: str


class HelloReply(TypedDict):
    v: Literal[1]
    type: Literal["hello_reply"]
    version: str
    capabilities: list[str]


class _WaitingCellRequired(TypedDict):
    cell_id: str
    kind: WaitingKind
    label: str


class WaitingCell(_WaitingCellRequired, total=False):
    request_id: str
    """The broker's id (``a1``, ``q2``) that ``%dsh allow``/``answer`` take: how the page tells
    the person to answer when the asking cell is not in the notebook any more. Additive: absent
    from older kernels, ignored by older pages."""


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


class _ReadNotebookRequired(TypedDict):
    v: Literal[1]
    type: Literal["read_notebook"]
    request_id: str


class ReadWant(TypedDict, total=False):
    """Which cells a ``read_notebook`` asks for (each optional; none: the first
    :data:`MAX_READ_CELLS`)."""

    around: str
    """The cell id the window is centred on (the asking ``%%dsh`` cell); else the active cell."""
    window: int
    """At most this many cells around ``around`` (0 to :data:`MAX_READ_CELLS`; default
    :data:`MAX_READ_CELLS` with ``around``, else 0)."""
    cell_ids: list[str]
    """Cells whose id is one of these (1-200 characters) or starts with one of 4 or more (at
    most :data:`MAX_READ_IDS`), wherever they are."""
    first: int
    """The first position (from 0) of a range of cells."""
    last: int
    """The last position of that range, included."""


class ReadNotebook(_ReadNotebookRequired, ReadWant):
    """The ``read_notebook`` request: the page also sends every private cell, bare."""


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
    private: bool
    """Present (true) for a cell tagged ``dsh-private``: its ``source`` is empty and it has no
    ``outputs`` (the page never sends them; the kernel drops them if one does)."""


class _ReadNotebookReplyRequired(TypedDict):
    v: Literal[1]
    type: Literal["read_notebook_reply"]
    request_id: str
    path: str
    total_cells: int
    cells: list[NotebookCell]


class ReadNotebookReply(_ReadNotebookReplyRequired, total=False):
    chosen: bool
    """Present (true) when the page chose the cells by the request's :class:`ReadWant` (so an
    id it did not send is in no cell); absent from pages that send the first cells only."""
