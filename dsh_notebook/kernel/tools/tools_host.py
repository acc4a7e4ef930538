"""The notebook tools' server in the kernel: started with the runtime, asked through the broker.

When the runtime starts, an MCP server on 127.0.0.1 gives the agent ``notebook_variables``,
``describe_variable``, ``notebook_history``, ``notebook_cells`` (asking the page through the
frontend link) and ``run_python``; every result the model gets has the kernel's secrets (asked
for at each call) masked.

Every ``run_python`` call is an approval **of the run whose agent made it**: the call is matched
to the runtime's own ``tool/call`` event, known by cause (:mod:`.tool_calls`: an ordering
barrier on the runtime's stdio proves the call's event was seen; the session and the call id), the
run registry (:mod:`.runs`) names the run holding that session (or its root's, for a subagent),
and the broker decides it by that run's policy and scopes, on that run's card. The decision and
the run travel together: the approved call's agent cell is that run's. A call no run of this
kernel owns (its run settled, no ``tool/call`` seen) is refused and the model is told why; a call
the kernel cannot tell apart from another run's identical call is decided by the person only
(never by a run's ``allow``, ``reject`` or scope). The person may edit the code on the card ("Edit,
then run"): the broker returns the edit to this very call, which runs it instead. Approved code
runs on the kernel's main thread while no cell executes, or inside a waiting cell, which pumps it
(:meth:`NotebookToolsHost.pump`).

Thread-safety: :meth:`mount` runs on whatever thread starts the runtime; the approval callback
runs on the MCP server's loop and hands the request to the host loop; ``pump`` and the cell hooks
run on the kernel's main thread.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from ...context.changes_text import changes_of
from ...context.consequences import analyse
from ...notebook_tools.cell_figures import FigureImages
from ...notebook_tools.cell_tools import ORIGIN_TIMEOUT
from ...notebook_tools.edits import Grant, Refusal
from ...notebook_tools.page_reader import NotebookReader
from ...notebook_tools.ran_cells import RanLookup
from ...notebook_tools.refusals import (
    CONNECTION_LOST_MESSAGE,
    NO_RUN_MESSAGE,
    READ_ONLY_MESSAGE,
    UNMATCHED_MESSAGE,
    refusal_text,
)
from ...protocol import ApprovalRequest
from ..host import RuntimeHost
from ..registry.broker import Broker, Decision
from ..registry.runs import ActiveRun, ApprovedCall, Runs
from .kernel_undo import not_undoable
from .tool_calls import CallOrigins, Origin

Matched = tuple[Origin[ActiveRun], ActiveRun]
"""A notebook tool call matched to its ``tool/call`` origin and the run holding its session."""

if TYPE_CHECKING:
    from ...notebook_tools.cell_tools import EditsHost
    from ...notebook_tools.server import CallRecorder
    from ...runtime.secret import Secrets

__all__ = ["BARRIER_TIMEOUT", "ORIGIN_TIMEOUT", "Matched", "NotebookToolsHost"]

log = logging.getLogger(__name__)

PROMPT_CELL_TIMEOUT = 2.0
"""Seconds a read call waits at most to learn its prompt cell (a mark, not a decision)."""

CHANGES_SECONDS = 0.5
"""Seconds describing the values one card's Changes name may take in all (then type names)."""

BARRIER_TIMEOUT = 10.0
"""Seconds the ordering barrier waits for the runtime's answer (normally a millisecond)."""


class NotebookToolsHost:
    """Starts, reuses and stops the notebook tools server of one kernel."""

    def __init__(
        self,
        shell: Any,
        host: RuntimeHost,
        broker: Broker,
        *,
        errors: dict[int, str],
        runs: Runs,
        origins: CallOrigins,
        kernel_loop: asyncio.AbstractEventLoop | None,
        record: CallRecorder[ApprovedCall] | None = None,
        read_notebook: NotebookReader | None = None,
        figure_notes: Callable[[str | None, int | None], list[str]] | None = None,
        figure_images: FigureImages | None = None,
        ran_cells: RanLookup | None = None,
        secrets: Callable[[], Secrets] | None = None,
        edits: Callable[[NotebookToolsHost], EditsHost[Matched]] | None = None,
        undo_limit: Callable[[], int] = lambda: 256 * 2**20,
    ) -> None:
        self._shell = shell
        self._host = host
        self._broker = broker
        self._errors = errors
        self._runs = runs
        self._origins = origins
        self._kernel_loop = kernel_loop
        self._record = record  # the agent cells, or None
        self._read_notebook = read_notebook  # FrontendLink.read_notebook: notebook_cells
        self._figure_notes = figure_notes  # FigureNotes.lookup: figures of the person's cells
        self._figure_images = figure_images  # FigureNotes.images: their PNGs
        self._ran_cells = ran_cells  # RanCells.lookup: what ran as In [k]
        self._secrets = secrets  # NotebookAgent.secrets: masked in every tool result, per call
        self.undo_limit = undo_limit
        """The largest value undo keeps (bytes): the card names what it cannot keep."""
        self.edits: EditsHost[Matched] | None = edits(self) if edits is not None else None
        """The cell tools' kernel side (made by ``edits`` from this host: it matches and decides
        their calls here), or None."""
        self._lock = threading.Lock()
        self._served: Any = None  # (NotebookMcpServer, McpMount) while the tools are served

    def mount(self, *, enabled: bool, run_python: bool, max_chars: int, images: bool = True) -> Any:
        """Start (or reuse) the server; the patch mounting it, or None when the tools are off.

        Called with the config on every runtime start, so ``%dsh restart`` applies changed
        settings (``images``: the model route takes images, see
        :func:`~dsh_notebook.client.config.takes_images`). Missing ``mcp`` (the ``jupyter``
        extra) turns the tools off with a warning.
        """
        if not enabled or self._shell is None:
            self.stop()
            return None
        try:
            from ...notebook_tools.executor import MainThreadExecutor
            from ...notebook_tools.patch import write_mcp_patch
            from ...notebook_tools.server import (
                NotebookMcpServer,
                NotebookToolsSettings,
                environment_secrets,
            )
        except ImportError as exc:
            log.warning(
                "dsh: notebook tools are off (%s); pip install 'dsh-notebook[jupyter]'", exc
            )
            return None
        settings = NotebookToolsSettings(
            run_python=run_python, max_chars=max_chars, images=images, cell_tools=run_python
        )
        with self._lock:
            if self._served is not None and self._served[0].settings == settings:
                return self._served[1]
        self.stop()
        executor = MainThreadExecutor(max_pending=settings.max_pending, loop=self._kernel_loop)
        server = NotebookMcpServer(
            self._shell,
            approve=self._approve,
            executor=executor,
            errors=self._errors,
            settings=settings,
            record=self._record,
            read_notebook=self._read_notebook,
            figure_notes=self._figure_notes,
            figure_images=self._figure_images,
            ran_cells=self._ran_cells,
            secrets=self._secrets or environment_secrets,
            prompt_cell=self._prompt_cell,
            edits=self.edits,
        ).start()
        mount = write_mcp_patch(server.url, server.token)
        atexit.register(mount.remove)
        with self._lock:
            self._served = (server, mount)
        return mount

    def stop(self) -> None:
        """Stop the server and remove its patch file. Idempotent."""
        with self._lock:
            served, self._served = self._served, None
        if served is not None:
            served[0].stop()
            served[1].remove()
            atexit.unregister(served[1].remove)  # the mount is not kept until exit

    async def _approve(
        self, *, tool_name: str, reason: str, arguments: Mapping[str, Any]
    ) -> Grant[ApprovedCall] | Refusal | None:
        """A tool call asks (MCP server loop): matched to the run whose agent made it, decided by
        the broker on the host loop; a :class:`Grant` owned by that run, or a :class:`Refusal`
        whose text says who refused and why (:func:`~..notebook_tools.refusals.refusal_text`)."""
        matched = await self.match(tool_name, arguments)
        if isinstance(matched, Refusal):
            return matched
        origin, run = matched
        # the code is the reason (capped on the card) and, whole, what "Edit, then run" opens on
        return await self.decide(
            origin, run, tool_name=tool_name, reason=reason, editable=True, proposed=reason,
            runs=((None, reason),),
        )  # fmt: skip

    async def match(
        self, tool_name: str, arguments: Mapping[str, Any], timeout: float | None = None
    ) -> Matched | Refusal:
        """The call's ``tool/call`` origin and the run holding its session (server loop; found
        by the claim), or the refusal the model reads (no such event, or its run has ended)."""
        try:
            wait = ORIGIN_TIMEOUT if timeout is None else timeout  # read now: tests shorten it
            origin = await self._origin(tool_name, arguments, wait)
        except Exception as exc:
            log.warning("dsh: %s call not matched, refused: %s", tool_name, exc)
            return Refusal(UNMATCHED_MESSAGE)
        if origin is None:
            log.warning("dsh: a %s call matched no tool/call of a watched session", tool_name)
            return Refusal(UNMATCHED_MESSAGE)
        if origin.run is None:  # the claim asked the registry: no run owns the session
            return Refusal(NO_RUN_MESSAGE)
        return origin, origin.run

    async def decide(
        self,
        origin: Origin[ActiveRun],
        run: ActiveRun,
        *,
        tool_name: str,
        reason: str,
        editable: bool,
        proposed: str | None = None,
        target: str | None = None,
        runs: Sequence[tuple[str | None, str]] = (),
    ) -> Grant[ApprovedCall] | Refusal:
        """The broker's decision on a matched call (server loop -> host loop): a :class:`Grant`
        owned by ``run`` (with the person's edit, if any), or a :class:`Refusal`. An uncertain
        origin is decided by the person only. A read-only run's call is refused here, before
        any card: nobody is asked, whatever ``--on-approval`` or a scope says.

        ``runs``: the code the call runs, as ``(label, source)`` (``run_python``: one piece
        without a label; ``run_cells``: each code cell, labelled): the card says what it will
        change (:meth:`changes_of`), and for an editable call, what the person's edit will."""
        if run.policy.read_only:
            return Refusal(READ_ONLY_MESSAGE)
        request = ApprovalRequest(
            session_id=origin.session_id,
            tool_name=tool_name,
            call_id=origin.call_id,
            reason=reason,
        )

        # a worker thread of anyio's (the namespace is read as the read tools read it)
        changes = await anyio.to_thread.run_sync(self.changes_of, runs) if runs else None

        def analyse(code: str) -> tuple[tuple[str, str], ...] | None:
            return self.changes_of(((None, code),))

        async def ask() -> Decision:
            return await self._broker.approve_call(
                request, editable=editable, person_only=not origin.certain,
                proposed=proposed, target=target, owner=run, changes=changes,
                analyse=analyse if editable and runs else None,
            )  # fmt: skip

        try:
            decision = await asyncio.wrap_future(self._host.submit(ask))
        except Exception as exc:  # the host loop is gone: the runtime is stopping
            log.warning("dsh: %s approval failed closed: %s", tool_name, exc)
            return Refusal(CONNECTION_LOST_MESSAGE)
        if decision.outcome != "allowed-once":
            return Refusal(
                refusal_text(decision.outcome, decision.decided_by, decision.note, tool=tool_name)
            )
        return Grant(
            code=decision.code,
            owner=ApprovedCall(run, session_id=origin.session_id, call_id=origin.call_id),
        )

    def namespace(self) -> Any:
        """The person's namespace (``user_ns``), or ``None`` without a shell."""
        return getattr(self._shell, "user_ns", None)

    def on_main(self, fn: Callable[[], None]) -> bool:
        """Run ``fn`` on the kernel's main thread between cells (the tools' executor); at once
        when called there with no server. False when it could not be queued."""
        served = self._served
        if served is not None:
            try:
                served[0].executor.submit(fn)
            except Exception as exc:
                log.warning("dsh: could not queue work for the main thread: %s", exc)
                return False
            return True
        if threading.current_thread() is threading.main_thread():
            fn()
            return True
        return False

    def changes_of(
        self, runs: Sequence[tuple[str | None, str]]
    ) -> tuple[tuple[str, str], ...] | None:
        """What the code of a card will change, as its Changes lines (a worker thread: it reads
        ``user_ns`` by key, as the read tools do, and describes the values it names within
        :data:`CHANGES_SECONDS` in all; the code is never run). ``None`` without a shell."""
        namespace = getattr(self._shell, "user_ns", None)
        if namespace is None:
            return None
        seconds = CHANGES_SECONDS / max(1, len(runs))
        lines: list[tuple[str, str]] = []
        for label, code in runs:
            if label is not None:
                lines.append(("cell", label))
            lines.extend(changes_of(code, namespace, describe_seconds=seconds))
            # what "Undo this run" could not give back, said before the click
            kept = not_undoable(analyse(code, namespace), namespace, self.undo_limit())
            if kept:
                lines.append(("undo", "Not undoable: " + ", ".join(kept)))
        return tuple(lines)

    async def _prompt_cell(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        """The ``%%dsh`` cell of the run that made a read call (MCP server loop), when the
        kernel knows it for sure; waits at most :data:`PROMPT_CELL_TIMEOUT` for the call's
        ``tool/call`` event."""
        origin = await self._origin(tool_name, arguments, PROMPT_CELL_TIMEOUT)
        if origin is None or not origin.certain or origin.run is None:
            return None
        return origin.run.cell_id

    async def _origin(
        self, tool_name: str, arguments: Mapping[str, Any], timeout: float
    ) -> Origin[ActiveRun] | None:
        """Who made this call of notebook tool ``tool_name`` (its ``tool/call`` event) and the
        run owning its session (the one registry lookup of the call), known by cause
        (:mod:`.tool_calls`): first an ordering barrier on the runtime's stdio channel (at most
        :data:`BARRIER_TIMEOUT`; it fails when the runtime is gone, and the call is refused),
        then the claim among the events seen by then. An event that is only seen later, within
        ``timeout`` seconds (waited for off the server loop), gives an uncertain origin."""
        from ...notebook_tools.schemas import public_tool_name  # the server runs: mcp is there

        await asyncio.wrap_future(self._host.barrier(BARRIER_TIMEOUT))
        name, run_of = public_tool_name(tool_name), self._runs.run_of
        found = self._origins.claim(name, arguments, run_of=run_of, timeout=0)
        if found is not None or timeout <= 0:
            return found
        log.warning("dsh: no tool/call seen for a %s call after the ordering barrier; a match "
                    "found later is decided by the person only", tool_name)  # fmt: skip
        return await asyncio.to_thread(
            self._origins.claim, name, arguments, run_of=run_of, timeout=timeout
        )

    def pump(self) -> None:
        """Run approved ``run_python`` calls here (main thread; a waiting cell)."""
        served = self._served
        if served is not None:
            served[0].executor.pump()

    def cell_started(self) -> None:
        """A cell starts: ``run_python`` waits while it runs."""
        served = self._served
        if served is not None:
            served[0].executor.cell_started()

    def cell_finished(self) -> None:
        """A cell finished: queued ``run_python`` calls run once the kernel is idle."""
        served = self._served
        if served is not None:
            served[0].executor.cell_finished()
