"""What the kernel ran as ``In [k]``, so a cell the page shows can be said to be edited since.

The page shows each code cell's current source and the execution count of its last run; the
kernel knows what it ran under that count. :class:`RanCells` files, for every cell that finishes
(``post_run_cell``), the cell id the execute request named (``result.info.cell_id``: JupyterLab
and Notebook 7 send it), a digest of the source that ran, and whether the page said the cell was
private (its ``dsh-private`` tag rides on the request: such a run is withheld from the model
even where no page can be read later). :func:`edited_since` compares a page cell with that
record.

Guarantees: a cell is called edited only when the kernel ran its count in this kernel (not one
the page kept from an earlier kernel: the recorded id must be the page cell's own, when the
kernel knew the id) and the source differs beyond trailing whitespace; a cell whose source the
page cut, or whose count the kernel did not record (it ran before ``%load_ext dsh_notebook``, or
the kernel restarted), is not known and never marked. Memory: the newest :data:`KEPT` runs, a
digest and an id each.

:func:`source_at_run` gives the whole source a page cell had when it last ran (``run_cells``'
card marks the lines added since): IPython's raw input history holds it under the count, and it
counts only when the record above says that count ran this cell, with this very source (the
digests agree); anything else is not known (``None``), never a guess. :meth:`RanCells.cell_finished` runs on the main thread,
:meth:`RanCells.lookup` on any (under a lock). Never raises.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

__all__ = [
    "KEPT",
    "History",
    "Ran",
    "RanCells",
    "RanLookup",
    "digest",
    "edited_since",
    "is_cut",
    "private_runs",
    "shell_history",
    "source_at_run",
]

KEPT: Final = 5000
"""Runs remembered (the newest)."""


class Ran(NamedTuple):
    """What the kernel filed for one ``In [k]``."""

    cell_id: str | None
    """The cell id the execute request named (``None``: it named none)."""
    digest: str
    """:func:`digest` of the source that ran."""
    private: bool = False
    """The request said the cell is tagged ``dsh-private``."""


RanLookup = Callable[[int], "Ran | None"]
"""``execution count -> what ran under it`` (:class:`Ran`), or ``None`` when the kernel did not
record that count."""

History = Callable[[int], "str | None"]
"""``execution count -> the raw source that ran under it`` (IPython's ``In``), or ``None``."""

_CUT_MARK: Final = re.compile(r"\[… [\d,]+ characters omitted …\]")
"""The page's mark on a source longer than it sends (``cells.ts`` ``truncationMark``, spelled as
:func:`dsh_notebook.transcript.bounds.truncation_mark`)."""


def digest(source: str) -> str:
    """The digest of a cell source as compared here (trailing whitespace ignored)."""
    return hashlib.sha1(source.rstrip().encode("utf-8", "surrogatepass")).hexdigest()


class RanCells:
    """The cells this kernel ran since the package loaded: count → (cell id, source digest)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, Ran] = {}

    def cell_finished(self, result: Any, *, private: bool = False) -> None:
        """File a finished cell (an IPython ``ExecutionResult``); anything else is ignored.
        ``private``: its request said the cell is private."""
        try:
            count = getattr(result, "execution_count", None)
            info = getattr(result, "info", None)
            raw = getattr(info, "raw_cell", None)
            cell_id = getattr(info, "cell_id", None)
            if not isinstance(count, int) or isinstance(count, bool) or not isinstance(raw, str):
                return
            entry = Ran(
                cell_id if isinstance(cell_id, str) and cell_id else None, digest(raw), private
            )
        except Exception:
            return
        with self._lock:
            self._runs.pop(count, None)
            self._runs[count] = entry
            while len(self._runs) > KEPT:
                del self._runs[next(iter(self._runs))]

    def lookup(self, count: int) -> Ran | None:
        with self._lock:
            return self._runs.get(count)


def edited_since(cell: Mapping[str, Any], ran: RanLookup | None) -> int | None:
    """The execution count ``k`` when the page's ``cell`` (a ``read_notebook_reply`` cell) shows
    ``In [k]`` and its source differs from what this kernel ran as ``In [k]``; else ``None``
    (not edited, running, or not known: see the module doc)."""
    if ran is None or cell.get("cell_type", "code") != "code" or cell.get("running"):
        return None
    count, source = cell.get("execution_count"), cell.get("source")
    if not isinstance(count, int) or isinstance(count, bool) or not isinstance(source, str):
        return None
    if _CUT_MARK.search(source):
        return None
    try:
        entry = ran(count)
    except Exception:
        return None
    if entry is None:
        return None
    ran_id, ran_digest = entry.cell_id, entry.digest
    if ran_id is not None and ran_id != cell.get("id"):
        return None  # In [k] here ran another cell: the page's count is an earlier kernel's
    return count if digest(source) != ran_digest else None


def is_cut(source: str) -> bool:
    """Whether the page sent ``source`` cut (its truncation mark is in it)."""
    return _CUT_MARK.search(source) is not None


def shell_history(shell: Any) -> History:
    """The raw input of ``In [k]`` from ``shell``'s history (``None``: no such entry, no shell)."""

    def source(count: int) -> str | None:
        raw = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
        if not isinstance(raw, list) or not 0 < count < len(raw):
            return None
        entry = raw[count]
        return entry if isinstance(entry, str) else None

    return source


def source_at_run(
    cell: Mapping[str, Any], ran: RanLookup | None, history: History | None
) -> str | None:
    """The whole source ``cell`` (a ``read_notebook_reply`` cell) had when it last ran as the
    ``In [k]`` the page shows, or ``None`` when that is not known for sure: never run, a count
    this kernel did not record for this cell id (an earlier kernel's, a run before the package
    loaded, a kernel that did not know the cell id), or a history entry whose digest is not the
    one recorded at that run."""
    if ran is None or history is None or cell.get("cell_type", "code") != "code":
        return None
    count = cell.get("execution_count")
    if not isinstance(count, int) or isinstance(count, bool):
        return None
    try:
        entry = ran(count)
        if entry is None or entry.cell_id is None or entry.cell_id != cell.get("id"):
            return None
        source = history(count)
    except Exception:
        return None
    if source is None or digest(source) != entry.digest:
        return None
    return source


def private_runs(
    page: Mapping[str, Any] | str | None,
    ran: RanLookup | None,
) -> Callable[[int], bool]:
    """Whether the kernel ran ``In [count]`` for a private cell: its request said so (the page
    sends the tag with the request; ``ran`` is the record of each count's request), or ``page``
    (a ``read_notebook_reply``) marks private the cell id that count's request named (a tag set
    after the run). Always ``False`` without that record."""
    if ran is None:
        return lambda count: False
    ids: set[object] = set()
    if isinstance(page, Mapping):
        cells = page.get("cells", [])
        ids = {c.get("id") for c in cells if isinstance(c, Mapping) and c.get("private")}

    def private(count: int) -> bool:
        try:
            entry = ran(count)
        except Exception:
            return False
        return entry is not None and (entry.private or entry.cell_id in ids)

    return private
