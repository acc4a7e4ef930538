"""The kernel <-> frontend-extension protocol, version 1 (mirror: ``js/labextension/src/protocol/``).

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
      is present; without a reply it assumes it is absent. At most 64 capabilities of at most
      200 characters (a longer list is refused whole). ``widget_bundle:<hash>`` (no
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
      notebook as the person sees it. Optional fields (:class:`~.shapes.ReadWant`) choose the
      cells of a notebook longer than :data:`MAX_READ_CELLS`: ``around`` (a cell id: the window
      is centred on it, else on the active cell), ``window`` (its size), ``cell_ids`` (cells whose
      id is one of them, or starts with one of 4+ characters; at most :data:`MAX_READ_IDS`),
      ``first``/``last`` (a range of positions from 0); the page sends those, every private cell (bare), at most
      :data:`MAX_READ_CELLS` in all; none given: the first :data:`MAX_READ_CELLS`.
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

Editing and running cells (issue 27; the whole contract: ``docs/cell-editing.md``). Every
change carries its ``origin``: ``{"session": "...", "run": "<run id>", "call": "<runtime call
id>"}``.

    - ``apply_change`` (kernel -> frontend, capability ``edit_cells``): ``{"v": 1, "type":
      "apply_change", "request_id": "c1", "origin": {...}, "change": <change>}`` where change
      is ``{"kind": "edit", "cell_id", "before", "after"}`` (edit_cell and replace_cell),
      ``{"kind": "insert", "after_cell_id", "cell_type": "code" | "markdown", "source"}`` or
      ``{"kind": "delete", "cell_id", "before"}`` (full cell ids; sources at most
      :data:`MAX_CELL_SOURCE`). The page re-checks ``before`` when it gets it, applies it as
      one undoable step and marks the cell ``metadata.dsh_notebook.edited = origin``, with the
      page's own undo record in ``metadata.dsh_notebook.undo`` (the source, count and outputs
      before; never read by the kernel: "Undo this run" without a kernel, docs/cell-editing.md);
      idempotent per ``call``. ``"record": false`` (optional): ``before`` holds what the kernel
      masks; the page keeps no copy of it in that record.
    - ``apply_change_reply`` (frontend -> kernel): ``{"v": 1, "type": "apply_change_reply",
      "request_id": "c1", "status": "applied" | "stale" | "missing" | "failed", "cell_id":
      "<full id>", "index": 7, "source": "<current source>", "message": "<= 500 chars"}``
      (``cell_id`` required with ``applied``). Every page answers; an ``applied`` counts only
      where every page that answers agrees (``FrontendLink.apply_change``).
    - ``run_cells`` (kernel -> frontend, capability ``run_cells``): ``{"v": 1, "type":
      "run_cells", "request_id": "r1", "cell_ids": [...] (1-20), "timeout_s": 60 (1-600),
      "origin": {...}}``: run them in order as the person's Run would, stop at the first error.
    - ``run_cells_reply`` (frontend -> kernel): ``{"v": 1, "type": "run_cells_reply",
      "request_id": "r1", "cells": [{"cell_id", "index": 3 | null, "status": "ok" | "error" |
      "running" | "not_run" | "missing", "execution_count": 14 | null, "outputs": [<as
      read_notebook_reply's, plus "traceback": plain text>]}]}``, bounded as
      ``read_notebook_reply``.
    - ``undo_request`` (frontend -> kernel): ``{"v": 1, "type": "undo_request", "anchor":
      "<%%dsh cell id>"}``: "Undo this run" on that cell (the newest run of it with changes).
    - ``undo_changes`` (kernel -> frontend, capability ``edit_cells``): ``{"v": 1, "type":
      "undo_changes", "request_id": "u1", "run": "<run id>", "changes": [...]}``, newest change
      first: ``{"kind": "edit", "cell_id", "before", "after"}``, ``{"kind": "insert",
      "cell_id", "source"}``, ``{"kind": "delete", "cell": {"cell_type", "source", "id"},
      "after_cell_id": "..." | null, "index": 4}``, ``{"kind": "agent_cell", "run", "call": 3,
      "source"}``; reverted as one step. ``changes: []`` (``run`` may be ``""``): the kernel has
      nothing it can undo for that request.
    - ``undo_reply`` (frontend -> kernel): ``{"v": 1, "type": "undo_reply", "request_id": "u1",
      "reverted": 3, "skipped": [{"cell_id", "reason"}]}``.

Here: :mod:`.shapes` (constants and ``TypedDict`` shapes), :mod:`.parsing` (the ``parse_*``
functions), :mod:`.messages` (the builders of what the kernel sends), :mod:`.editing` (the
editing messages' shapes, builders and parsers); everything is re-exported.

Guarantee: the ``parse_*`` functions never raise. They return ``None`` for anything that is not
a well-formed message of this version (unknown ``type``, other ``v``, wrong field types), and
the caller ignores it.
"""

from . import editing, messages, parsing, shapes
from .editing import *  # noqa: F403
from .messages import *  # noqa: F403
from .parsing import *  # noqa: F403
from .shapes import *  # noqa: F403

__all__ = [*editing.__all__, *messages.__all__, *parsing.__all__, *shapes.__all__]
"""Each submodule's ``__all__`` is its public surface; the package re-exports all of them."""
