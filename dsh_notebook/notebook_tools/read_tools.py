"""The read-only notebook tools' handlers: ``notebook_variables``, ``describe_variable``,
``notebook_history`` and ``notebook_cells`` (the server, :mod:`.server`, dispatches to them).

Guarantees:

- They never change anything. The first three read a snapshot of ``shell.user_ns`` on a worker
  thread, one call at a time, each given up on after ``read_timeout`` seconds (a ``repr`` that
  never returns is asked to stop, :mod:`dsh_notebook.context.time_limit`) and reported, so the
  next call is served.
- ``notebook_cells`` reads the notebook from the page (:data:`NotebookReader`), else the kernel's
  history, saying so (:func:`~.cells.fallback_cells`). It never waits for a busy main thread:
  while a cell runs (``%%dsh --wait`` included) the page is asked only when its reply is handled
  on a subshell (the reader knows). The calling run's ``%%dsh`` cell is marked when known, and
  with the cell tools the full sources the conversation was shown are noted for them
  (:meth:`~.cell_tools.CellTools.saw`). A call that names cells also gets their figures
  (:func:`~.cell_figures.cell_figures`: PNGs where the route takes images, else a line saying
  they are described as text).
- Each handler returns ``(text, is_error)`` (``notebook_cells`` also its PNGs); the text is
  capped at ``max_chars`` and not yet masked (the server masks every result).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from ..context.time_limit import TimedOut, call_with_time_limit
from .cell_figures import CellFigures, FigureImages, cell_figures
from .cell_tools import Caller, CellTools
from .cells import FigureLookup, cells_query, fallback_cells, format_cells, shown_cells
from .history import notebook_history
from .page_reader import NotebookReader, want_for
from .ran_cells import RanLookup, private_runs
from .refusals import UNCERTAIN_READ_NOTE
from .tool_texts import DESCRIBE_NAME_USAGE, NO_PAGE_REASON, describe_timed_out
from .variables import describe_variable, notebook_variables

__all__ = ["READ_TOOL_NAMES", "NotebookReader", "PromptCellLookup", "ReadTools"]

log = logging.getLogger(__name__)

READ_TOOL_NAMES = ("notebook_variables", "describe_variable", "notebook_history")
"""The tools that read the kernel's namespace or history (``notebook_cells`` aside)."""

PromptCellLookup = Callable[[str, Mapping[str, Any]], Awaitable[str | None]]
"""``(tool name, arguments) -> the notebook cell id of the %%dsh cell whose run made this call``,
or None when that is not known for sure (awaited on the server loop, briefly)."""


class ReadTools:
    """The read-only tools of one server (see the module docstring). Awaited on its loop."""

    def __init__(
        self,
        shell: Any,
        *,
        errors: Mapping[int, str],
        max_chars: int,
        read_timeout: float,
        cells_timeout: float,
        cell_running: Callable[[], bool],
        reader: NotebookReader | None = None,
        cells: CellTools[Any] | None = None,
        prompt_cell: PromptCellLookup | None = None,
        figures: FigureLookup | None = None,
        ran: RanLookup | None = None,
        images: FigureImages | None = None,
        takes_images: bool = False,
    ) -> None:
        self._shell = shell
        self._errors = errors
        self._max_chars = max_chars
        self._read_timeout = read_timeout
        self._cells_timeout = cells_timeout
        self._cell_running = cell_running
        self._reader = reader
        self._cells = cells
        self._prompt_cell = prompt_cell
        self._figures = figures
        self._ran = ran
        self._images = images  # the PNGs of the person's figures (FigureNotes.images)
        self._takes_images = takes_images  # the model route takes images
        self._lock: anyio.Lock | None = None

    async def read(
        self, name: str, args: Mapping[str, Any], private: tuple[str, ...] = ()
    ) -> tuple[str, bool]:
        """One of :data:`READ_TOOL_NAMES`: its text, and whether it is an error. ``private``:
        the person's private name patterns (listed by name and type, never described)."""
        shell, cap = self._shell, self._max_chars
        hidden = getattr(shell, "user_ns_hidden", {}) or {}

        def work() -> tuple[bool, str]:
            if name == "notebook_variables":
                return True, notebook_variables(
                    shell.user_ns, hidden=hidden, max_chars=cap, private=private
                )
            if name == "describe_variable":
                target = args.get("name")
                if not isinstance(target, str) or not target.strip():
                    return False, DESCRIBE_NAME_USAGE
                return describe_variable(shell.user_ns, target, cap, hidden=hidden, private=private)
            n = args.get("n", 10)
            if not isinstance(n, int) or isinstance(n, bool):
                n = 10
            page = None  # the page names its private cells (a tag set after the run)
            if self._reader is not None and self._ran is not None:
                page = self._reader(self._cells_timeout, self._cell_running(), {"window": 0})
            return True, notebook_history(
                shell, n, errors=self._errors, max_chars=cap,
                private=private_runs(page, self._ran),
            )  # fmt: skip

        timeout = self._read_timeout

        def bounded() -> tuple[bool, str]:
            outcome = call_with_time_limit(work, timeout)
            if not isinstance(outcome, TimedOut):
                return outcome
            return False, describe_timed_out(name, timeout)

        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            ok, text = await anyio.to_thread.run_sync(bounded)
        return text, not ok

    async def notebook_cells(self, args: Mapping[str, Any]) -> tuple[str, bool, list[bytes]]:
        """The page's cells, else the history, and the PNGs of the figures of the cells the
        call named (see the module docstring)."""
        shell, cap, reader = self._shell, self._max_chars, self._reader
        timeout = self._cells_timeout
        query = cells_query(args)
        if isinstance(query, str):
            return query, True, []
        this_cell, conversation, cells = None, None, self._cells
        uncertain: Caller[Any] | None = None
        try:
            if cells is not None:  # one claim of the call: its prompt cell and conversation
                caller = await cells.host.caller("notebook_cells", args, 2.0)
                if not isinstance(caller, str):
                    this_cell, conversation = caller.prompt_cell, caller.conversation
                    uncertain = None if caller.certain else caller
            elif self._prompt_cell is not None:
                this_cell = await self._prompt_cell("notebook_cells", args)
        except Exception as exc:  # a mark, never a reason to fail the read
            log.debug("the prompt cell of a notebook_cells call is unknown: %r", exc)

        def work() -> tuple[str, list[bytes]]:
            if reader is None:
                reason: Mapping[str, Any] | str = NO_PAGE_REASON
            else:
                want = want_for(query.cell_ids, query.start, query.end, this_cell)
                reason = reader(timeout, self._cell_running(), want)
            if isinstance(reason, str):
                return fallback_cells(
                    shell, reason, errors=self._errors, max_chars=cap, query=query,
                    private=private_runs(None, self._ran),
                ), []  # fmt: skip
            shown: list[Mapping[str, Any]] = []  # the cells listed (a big notebook's window)
            text = format_cells(
                reason, max_chars=cap, figures=self._figures, this_cell=this_cell,
                query=query, ran=self._ran, listed=shown,
            )  # fmt: skip
            if cells is not None:  # what this conversation saw: the full sources it was shown
                if uncertain is None:
                    cells.saw(conversation, {"cells": shown})
                else:  # credited only once every identical read showed this same view
                    view = tuple((str(c.get("id")), str(c.get("source", ""))) for c in shown)
                    for peer in cells.host.shared_read(uncertain, view):
                        cells.saw(peer, {"cells": shown})
            found = CellFigures()
            if query.chosen:  # a cell read by id or range: its figures too
                found = cell_figures(
                    shown_cells(reason, query), self._images, takes_images=self._takes_images,
                    ran=self._ran,
                )  # fmt: skip
                text = f"{text}\n\n{found.note}" if found.note else text
            # an uncertain read may count for no conversation: say so
            text = f"{text}\n\n{UNCERTAIN_READ_NOTE}" if uncertain is not None else text
            return text, found.images

        text, pngs = await anyio.to_thread.run_sync(work)
        return text, False, pngs
