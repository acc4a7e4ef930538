"""What the kernel keeps from ``%load_ext`` on, before any prompt: the cells' errors (for
``{Err[n]}``), the figures the person's cells showed, what ran as ``In [k]``, and the page
extension's link. Made at load, on the main thread, from light modules only (no pydantic, no
anyio, no runtime client), and handed to the agent when it is built: cells run between loading
and the first prompt are on record all the same."""

from __future__ import annotations

from typing import Any

from ...frontend import FrontendLink, current_identity
from ...notebook_tools.figures import FigureNotes
from ...notebook_tools.ran_cells import RanCells
from ..showing.kernel_facts import kernel_of
from .cell_errors import cell_error_text

__all__ = ["CellRecord"]


class CellRecord:
    """The per-kernel record of the person's cells. Its hooks run on the main thread."""

    def __init__(self, shell: Any, frontend_link: FrontendLink | None = None) -> None:
        self._shell = shell
        self.errors: dict[int, str] = {}
        self.figure_notes = FigureNotes()  # figures of the person's cells, for notebook_cells
        if shell is not None:
            self.figure_notes.install(shell)
        self.ran_cells = RanCells()  # what ran as In [k]: "edited since In [k]"
        self.frontend_link = frontend_link or FrontendLink()

    def post_run_cell(self, result: Any) -> None:
        """Record the cell's error for ``{Err[n]}`` (the traceback too), its figures, its code,
        and whether its request said the cell is private (the page's ``dsh-private`` tag: that
        run is withheld from the model even where no page can be read later). Runs inside the
        cell's request, so the request it reads is the cell's own."""
        identity = current_identity(kernel_of(self._shell))  # first: what withholds the run
        self.ran_cells.cell_finished(result, private=identity is not None and identity.private)
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        execution_count = getattr(result, "execution_count", None)
        if error is not None and isinstance(execution_count, int):
            self.errors[execution_count] = cell_error_text(error)
        self.figure_notes.cell_finished(result)

    def cell_started(self) -> None:
        """``pre_run_cell``: the figures shown from now on belong to this cell."""
        self.figure_notes.cell_started()

    def close(self) -> None:
        """Stop watching the shell's figures. Idempotent."""
        self.figure_notes.uninstall()
