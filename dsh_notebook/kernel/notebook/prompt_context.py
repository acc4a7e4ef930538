"""Gather the facts of the notebook context block from what the kernel already knows.

The block itself is built (pure) by :mod:`dsh_notebook.context.notebook_context`; this module only
reads: the page extension's identity on the execute request (path, cell id: main thread, inside
the cell), the raw input history, the cell errors the agent recorded, the Python version and the
``__version__`` of data libraries the notebook's namespace holds (a module such as ``pd``, a
class or function from one, or a value of one of its types). It imports nothing and runs no
user code beyond attribute reads, each guarded; it never raises.

With a connected page, :func:`read_page_now` asks it for its cells from inside the ``%%dsh`` cell
(answered only where the page sends on a subshell of its own: then within
:data:`PAGE_READ_TIMEOUT`; otherwise at once, unanswered), so the block can give the prompt's
position and the cells edited since they ran (:func:`~dsh_notebook.notebook_tools.ran_cells.
edited_since`), or say they are not known.
"""

from __future__ import annotations

import platform
import re
import sys
import threading
import types
from collections.abc import Mapping
from typing import Any, Final

from ...context.notebook_context import CellRun, EditedCell, NotebookFacts
from ...context.private import PRIVATE_CELL
from ...frontend import current_identity
from ...notebook_tools.cell_figures import shows_figure
from ...notebook_tools.page_reader import NotebookReader, want_for
from ...notebook_tools.ran_cells import RanLookup, edited_since, private_runs
from ..showing.display import kernel_of

__all__ = [
    "DATA_LIBRARIES",
    "PAGE_READ_TIMEOUT",
    "current_execution_count",
    "gather_facts",
    "imported_libraries",
    "read_page_now",
]

PAGE_READ_TIMEOUT: Final = 3.0
"""Seconds a prompt waits at most for the page's cells (only a page that answers on a subshell).
Such a page answers in a fraction of a second; the margin is for a loaded machine (a busy
browser, other kernels). The cell waits this long only when the page is that slow."""
UNREAD_NOTE: Final = (
    "the notebook page did not answer while this prompt's cell ran; notebook_cells marks them"
)

DATA_LIBRARIES: Final = (
    "pandas", "numpy", "polars", "pyarrow", "scipy", "sklearn", "statsmodels", "matplotlib",
    "seaborn", "plotly", "altair", "xarray", "duckdb", "torch",
)  # fmt: skip
"""The libraries whose versions the block names, in this order, when the notebook uses them."""

_NAMES_SCANNED: Final = 5000  # namespace entries looked at, at most
_ANSI: Final = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def imported_libraries(namespace: Mapping[str, Any]) -> list[tuple[str, str, str | None]]:
    """``(library, version, alias)`` of the :data:`DATA_LIBRARIES` the namespace uses, ordered as
    that tuple. ``alias`` is ``as pd`` for ``import pandas as pd``, ``plt = matplotlib.pyplot``
    for a submodule, ``None`` when no module object is bound. Only libraries already imported
    (in ``sys.modules``) with a string ``__version__`` count. Never raises."""
    aliases: dict[str, str | None] = {}
    try:
        items = list(namespace.items())[:_NAMES_SCANNED]
    except Exception:
        return []
    for key, value in items:
        if not isinstance(key, str) or key.startswith("_"):
            continue
        try:
            if isinstance(value, types.ModuleType):
                module = str(value.__name__)
            elif isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
                module = str(getattr(value, "__module__", "") or "")
            else:
                module = str(type(value).__module__)
        except Exception:
            continue
        top = module.split(".", 1)[0]
        if top not in DATA_LIBRARIES:
            continue
        alias = None
        if isinstance(value, types.ModuleType):
            alias = (f"as {key}" if key != top else None) if module == top else f"{key} = {module}"
        if aliases.get(top) is None:
            aliases[top] = alias
    out: list[tuple[str, str, str | None]] = []
    for name in DATA_LIBRARIES:
        if name not in aliases:
            continue
        version = getattr(sys.modules.get(name), "__version__", None)
        if isinstance(version, str):
            out.append((name, version, aliases[name]))
    return out


def current_execution_count(shell: Any, cell: str) -> int | None:
    """The execution count of the ``%%dsh`` cell running now, whose body is ``cell`` (main
    thread, inside the cell), when the history confirms it; else ``None``.

    IPython 9 increments ``shell.execution_count`` *before* the cell runs (8 after), so there it
    is the next cell's number; the raw history holds the running cell at its own count, so when
    its last entry is this cell, that count is the answer. A cell run without history (nbval
    runs cells with ``store_history=False``) or the magic called directly has no count."""
    raw = _raw_inputs(shell) or []
    last = raw[-1] if len(raw) > 1 else None
    # the magic's body ends with a newline the raw history has stripped
    if isinstance(last, str) and last.lstrip().startswith("%%") and cell.strip() in last:
        return len(raw) - 1
    return None


def read_page_now(
    read: NotebookReader, shell: Any = None, timeout: float = PAGE_READ_TIMEOUT
) -> Mapping[str, Any] | str:
    """The page's ``read_notebook_reply``, or why not, asked from the kernel's main thread inside
    a cell (``read`` is :meth:`~dsh_notebook.frontend.FrontendLink.read_notebook`, which must run
    on another thread and is told the main thread is busy): the window of cells around the
    running ``%%dsh`` cell of ``shell``'s kernel (wherever it is in a long notebook). Waits at
    most ``timeout`` seconds and a half; never raises."""
    box: list[Mapping[str, Any] | str] = []
    identity = current_identity(kernel_of(shell)) if shell is not None else None
    around = identity.cell_id if identity is not None else None
    want = want_for((), None, None, around)

    def work() -> None:
        try:
            box.append(read(timeout, True, want))
        except Exception as exc:
            box.append(f"the page could not be read ({type(exc).__name__})")

    worker = threading.Thread(target=work, name="dsh-context-read", daemon=True)
    worker.start()
    worker.join(timeout + 0.5)
    return box[0] if box else "the notebook page did not answer in time"


def _page_facts(
    page: Mapping[str, Any] | str | None, cell_id: str | None, ran: RanLookup | None
) -> dict[str, Any]:
    if page is None:
        return {}
    if isinstance(page, str):
        return {"edited_note": UNREAD_NOTE}
    position = None
    edited: list[EditedCell] = []
    private: list[int] = []
    figures: list[int] = []
    cells = [c for c in page.get("cells", []) if isinstance(c, Mapping)]
    for i, cell in enumerate(cells):
        where = int(cell.get("index", i)) + 1
        if cell_id is not None and cell.get("id") == cell_id:
            position = where
        if cell.get("private"):
            private.append(where)
        elif shows_figure(cell):
            figures.append(where)
        count = edited_since(cell, ran)
        if count is not None and not cell.get("private"):  # a private cell is never shown
            edited.append(EditedCell(where, str(cell.get("id")), count, str(cell.get("source"))))
    total = page.get("total_cells")
    return {"position": position, "edited": tuple(edited), "private_cells": tuple(private),
            "cells_total": total if isinstance(total, int) else None,
            "figure_cells": tuple(figures),
            "figures_partial": isinstance(total, int) and total > len(cells)}  # fmt: skip


def gather_facts(
    shell: Any,
    errors: Mapping[int, str],
    *,
    execution_count: int | None,
    since: int | None,
    page: Mapping[str, Any] | str | None = None,
    ran: RanLookup | None = None,
) -> NotebookFacts:
    """The facts for the cell running now (call on the main thread, inside the cell).

    ``since`` is the execution count of the conversation's previous prompt in this kernel
    (``None``: its first); the cells listed are those with a count after it and before this
    one. ``page`` is :func:`read_page_now`'s answer where a page is connected (``None``: no
    page, nothing is said about edits); with ``ran`` it gives the cells edited since they ran.
    The referenced values are filled in by the planner."""
    identity = current_identity(kernel_of(shell))
    cells: list[CellRun] = []
    raw = _raw_inputs(shell)
    private = private_runs(page, ran)
    if execution_count is not None and raw is not None:
        first = since + 1 if since is not None else 1
        for count in range(max(first, 1), min(execution_count, len(raw))):
            source = raw[count]
            if not isinstance(source, str) or not source.strip():
                continue
            if private(count):  # a private cell's run: named, never its code or its error
                cells.append(CellRun(count, PRIVATE_CELL))
                continue
            cells.append(CellRun(count, source, _last_line(errors.get(count))))
    return NotebookFacts(
        path=identity.path if identity is not None else None,
        cell_id=identity.cell_id if identity is not None else None,
        execution_count=execution_count,
        python=platform.python_version(),
        libraries=tuple(imported_libraries(getattr(shell, "user_ns", {}) or {})),
        cells=tuple(cells),
        since=since,
        **_page_facts(page, identity.cell_id if identity is not None else None, ran),
    )


def _raw_inputs(shell: Any) -> list[Any] | None:
    """The raw cell sources by execution count (``[0]`` is empty), as the person typed them."""
    try:
        raw = shell.history_manager.input_hist_raw
    except Exception:
        raw = None
    if not isinstance(raw, list):
        try:
            raw = shell.user_ns.get("In")
        except Exception:
            return None
    return raw if isinstance(raw, list) else None


def _last_line(error: str | None) -> str | None:
    if not isinstance(error, str):
        return None
    lines = _ANSI.sub("", error).splitlines()
    return next((ln.strip() for ln in reversed(lines) if ln.strip()), None)
