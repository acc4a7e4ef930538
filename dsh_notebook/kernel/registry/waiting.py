"""The waiting signal: which notebook cells have a request waiting for the person.

The broker calls :class:`WaitingSignal` (its ``on_change``) with what waits now whenever an item
starts or stops waiting; the signal names, for each pending request, the ``%%dsh`` cell of the
run it belongs to (the run registry's :meth:`~.runs.Runs.run_of`, the one answer to "which run")
and sends the list to the page (``waiting``: the cell's badge, the page title). A request no run
owns, or whose run's cell is unknown (no frontend extension), is left out. An empty list clears
the signal.

Thread-safety: called on the host loop; :meth:`~..frontend.link.FrontendLink.send_waiting` may be
called from any thread and keeps the latest list for a page that connects later.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...frontend import FrontendLink
from ...page_protocol import WaitingCell
from .broker import Pending
from .runs import Runs

__all__ = ["LABEL_MAX", "WaitingSignal"]

LABEL_MAX = 80
"""The longest question text a waiting cell's label shows."""


class WaitingSignal:
    """Tells the page which cells wait for the person (see the module docstring)."""

    def __init__(self, runs: Runs, link: FrontendLink) -> None:
        self._runs = runs
        self._link = link

    def __call__(self, pending: Mapping[str, Pending]) -> None:
        """What waits now changed (host loop): send the cells ``pending`` names, in its order,
        one entry per request whose run's cell is known."""
        cells: list[WaitingCell] = []
        for request_id, item in pending.items():
            run = self._runs.run_of(item.request.session_id)
            if run is None or run.cell_id is None:
                continue
            if item.kind == "approval":
                label = str(item.request.tool_name)
            else:
                questions = item.request.questions
                label = questions[0].question[:LABEL_MAX] if questions else "a question"
            cells.append(
                {
                    "cell_id": run.cell_id,
                    "kind": item.kind,
                    "label": label,
                    "request_id": request_id,
                }
            )
        self._link.send_waiting(cells)
