"""What an approved ``run_python`` call leaves behind: its figures under its tool card, and a code
cell in the notebook (the agent cell).

:class:`AgentCells` is the notebook tools server's one recorder (:class:`~dsh_notebook.
notebook_tools.server.CallRecorder`): one sink gets the call's result once, on the kernel's main
thread right after the code ran, and does both.

Figures. For a call it can place — the grant's owner is an :class:`~.runs.ApprovedCall`, so the
run and the runtime's call id are known — the sink posts the call's figures (the PNGs matplotlib
made, base64) to the run's view as a :class:`~dsh_notebook.transcript.facts.Figures` fact; the
live widget and the static transcript (both modes, wait included) then show them where the call
is. Posting to the pump is thread-safe and ordered after the call's ``tool/call`` event (it
arrived before the call); a failure to post is logged and never stops the agent cell.

Agent cells. When a call is approved the recorder decides, once, whether the call is kept as a
cell: ``%config DshMagics.agent_cells`` is on, the call belongs to a run (the one the approval was
decided for, handed over with the grant — never looked up again) whose ``%%dsh`` cell is known
(its id came with the execute request, i.e. the ``dsh-notebook`` extension is there) and a page
that inserts cells is connected. Only then is the call numbered (1, 2, … per run, in approval
order, which is the order the calls run); after the code ran the ``insert_cell`` message goes to
the page, which inserts the cell below the ``%%dsh`` cell. Everywhere else (nbclient, VS Code,
the option off) nothing changes: the code stays in the transcript only. The call's outputs are
captured when the sink has something to do (figures to show, or a cell to send).

The model's result says so when the cell was sent to the page (:func:`kept_note`, its first
line); everywhere else the result says nothing about a cell. The cell's
code and outputs are masked with the one policy the model's copy has
(:func:`~dsh_notebook.runtime.secret.redact`): the key and each piece of it of 8 or more
characters become ``***``, images are left as they are. The cell's
text is the code that ran, under one comment line naming the agent, the session and the run; it
is not executed when inserted. Thread-safety: :meth:`AgentCells.__call__` runs on the MCP
server's loop, the sink on the kernel's main thread; the per-run counter is under a lock. A
sent cell is recorded in the undo ledger (:mod:`.undo`) as the run's ``agent_cell`` change.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...frontend import FrontendLink
from ...page_protocol import insert_cell
from ...runtime.secret import Secrets, redact
from ...transcript.bounds import FIGURES_MAX
from ...transcript.facts import Figures
from ..registry.runs import ActiveRun, ApprovedCall
from ..showing.pump import LiveView
from .undo import UndoLedger

if TYPE_CHECKING:  # notebook_tools needs the jupyter extra; only its result type is used here
    from ...notebook_tools.run_python import RunPythonResult

__all__ = ["AgentCells", "agent_cell_source", "kept_note"]

log = logging.getLogger(__name__)


def agent_cell_source(code: str, session: str, run_id: str, call: int) -> str:
    """The inserted cell's text: one comment line, then exactly the code that ran."""
    head = (
        f"# dsh agent: run_python call {call} of run {run_id} (session {session}), approved by you"
    )
    return f"{head}\n{code}"


def kept_note(call: int) -> str:
    """What the model reads first in the result of a call kept as agent cell ``call``."""
    return (
        f"This code is now a cell of the notebook: agent cell {call} of this run, below the "
        "user's %%dsh prompt cell, with its output. Do not repeat the code in your answer."
    )


Sink = Callable[["RunPythonResult"], "str | None"]


class AgentCells:
    """The recorder of one kernel's notebook tools (see the module docstring)."""

    def __init__(
        self,
        link: FrontendLink,
        *,
        enabled: Callable[[], bool],
        secrets: Callable[[], Secrets] = tuple,
        undo: UndoLedger | None = None,
        figures: Callable[[LiveView, Figures], None] | None = None,
    ) -> None:
        """``enabled``: whether agent cells are on now (``%config DshMagics.agent_cells``);
        ``figures``: where a call's figures are posted (the UI pump), or None: not shown."""
        self._link = link
        self._undo = undo
        self._enabled = enabled
        self._secrets = secrets
        self._figures = figures
        self._lock = threading.Lock()

    def __call__(self, code: str, owner: ApprovedCall | None) -> Sink | None:
        """A just-approved call (server loop; ``owner``: the call and its run, ``None`` when the
        approver named none): the sink that shows its figures and sends its cell, or ``None``
        (nothing to do: its outputs are not captured)."""
        if owner is None:
            return None
        call = owner
        cell = self._cell(code, call.run)
        show = self._figures
        if cell is None and show is None:
            return None

        def sink(result: RunPythonResult) -> str | None:  # kernel main thread, after the code
            if show is not None and result.figures:
                _post_figures(show, call, result)
            return cell(result) if cell is not None else None

        return sink

    def _cell(self, code: str, run: ActiveRun) -> Sink | None:
        """The sink that sends ``run``'s agent cell of this call, numbered now; ``None`` when the
        call is not kept as a cell."""
        if not self._enabled() or not self._link.can_insert_cells() or run.cell_id is None:
            return None
        anchor = run.cell_id
        with self._lock:
            run.agent_calls += 1
            call = run.agent_calls
        session, run_id = run.handle.session, run.run_id
        secrets = self._secrets()
        source = redact(agent_cell_source(code, session, run_id, call), secrets)

        def send(result: RunPythonResult) -> str | None:
            # agent code is untrusted: it may print the key or a piece of it, and the cell is
            # saved; images (base64) are not searched (runtime.secret.redact)
            outputs = redact(list(result.cell_outputs), secrets)
            message = insert_cell(anchor, session, run_id, call, source, outputs)
            if message is None:
                log.warning("dsh: the agent cell of call %s is too large to insert", call)
                return None
            if not self._link.send_insert_cell(message):
                return None
            with self._lock:
                run.agent_cells += 1
            if self._undo is not None:  # "Undo this run" removes it again
                self._undo.record(run_id, anchor, {"kind": "agent_cell", "run": run_id,
                                                   "call": call, "source": source})  # fmt: skip
            return kept_note(call)

        return send


def _post_figures(
    post: Callable[[LiveView, Figures], None], call: ApprovedCall, result: RunPythonResult
) -> None:
    """Show the call's figures under its tool card (logged, never raised)."""
    try:
        pngs = tuple(base64.b64encode(png).decode("ascii") for png in result.figures[:FIGURES_MAX])
        post(call.run.view, Figures(call.session_id, call.call_id, pngs))
    except Exception:
        log.exception("dsh: showing the figures of a run_python call failed")
