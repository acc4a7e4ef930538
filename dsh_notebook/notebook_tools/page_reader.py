"""Reading the notebook from the page: the reader's type and what to ask it for.

A notebook may be longer than one ``read_notebook_reply`` carries
(:data:`~dsh_notebook.page_protocol.MAX_READ_CELLS`), so each read names the cells it needs
(:class:`~dsh_notebook.page_protocol.ReadWant`) and the page sends those wherever they are:
:func:`want_for` turns a ``notebook_cells`` query into that choice (the window around the
asking ``%%dsh`` cell for a listing; the named cells and range, with the window, for a chosen
read); :func:`want_cells` is the choice of the editing tools (the target and its neighbours).

Guarantee: pure functions; a choice never asks for more than the page may send.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..page_protocol import MAX_READ_CELLS, ReadWant

__all__ = ["NotebookReader", "want_cells", "want_for"]


class NotebookReader(Protocol):
    """Reads the notebook from the page, waiting at most ``timeout`` seconds (called on a worker
    thread): a ``read_notebook_reply`` mapping, or a sentence saying why not. ``busy`` says a
    cell holds the main thread: then the reader asks only where the page's reply is handled
    elsewhere (a subshell), else it only says why there is no answer
    (:meth:`dsh_notebook.frontend.FrontendLink.read_notebook`). ``want`` chooses the cells."""

    def __call__(
        self, timeout: float, busy: bool, want: ReadWant | None = None, /
    ) -> Mapping[str, Any] | str: ...


def want_for(
    cell_ids: tuple[str, ...], start: int | None, end: int | None, around: str | None
) -> ReadWant:
    """The cells a ``notebook_cells`` call needs: those named (``cell_ids``, positions
    ``start``-``end`` from 1, both included) alone, else (a listing) the widest window around
    ``around`` (the asking ``%%dsh`` cell; the page's active cell when ``None``)."""
    chosen = bool(cell_ids) or start is not None or end is not None
    want: ReadWant = {"window": 0 if chosen else MAX_READ_CELLS}
    if around and not chosen:
        want["around"] = around
    if cell_ids:
        want["cell_ids"] = list(cell_ids)
    if chosen and (start is not None or end is not None):
        want["first"] = (start or 1) - 1
        if end is not None:
            want["last"] = end - 1
    return want


def want_cells(cell_ids: Sequence[str]) -> ReadWant:
    """The cells an editing tool needs: ``cell_ids`` (full, short or prefixes) and the cells
    around the first (the one above it names its place); none named: the first cells."""
    ids = [i.strip() for i in cell_ids if i.strip()]
    if not ids:
        return {}
    return {"cell_ids": ids, "around": ids[0], "window": 3}
