"""The notebook tools' server in the kernel: started with the runtime, asked through the broker.

When the runtime starts, an MCP server on 127.0.0.1 gives the agent ``notebook_variables``,
``describe_variable``, ``notebook_history``, ``notebook_cells`` (asking the page through the
frontend link) and ``run_python``; every result the model gets has the kernel's secrets (asked
for at each call) masked. Every ``run_python`` call is an
approval of the newest run still in progress (the broker decides it by that run's policy; with no
run in progress it is rejected). The person may edit the code on the card ("Edit, then run"):
the broker returns the edit to this very call, which runs it instead. Approved code runs on the kernel's main thread while no cell
executes, or inside a waiting cell, which pumps it (:meth:`NotebookToolsHost.pump`).

Thread-safety: :meth:`mount` runs on whatever thread starts the runtime; the approval callback
runs on the MCP server's loop and hands the request to the host loop; ``pump`` and the cell hooks
run on the kernel's main thread.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..notebook_tools.edits import EditedCode
from ..protocol import ApprovalRequest
from .broker import Broker, Decision
from .host import RuntimeHost

__all__ = ["NotebookToolsHost"]

log = logging.getLogger(__name__)


class NotebookToolsHost:
    """Starts, reuses and stops the notebook tools server of one kernel."""

    def __init__(
        self,
        shell: Any,
        host: RuntimeHost,
        broker: Broker,
        *,
        errors: dict[int, str],
        current_session: Callable[[], str],
        kernel_loop: asyncio.AbstractEventLoop | None,
        record: Any = None,
        read_notebook: Callable[[float, bool], Any] | None = None,
        figure_notes: Callable[[str | None, int | None], list[str]] | None = None,
        secrets: Callable[[], tuple[str, ...]] | None = None,
    ) -> None:
        self._shell = shell
        self._host = host
        self._broker = broker
        self._errors = errors
        self._current_session = current_session
        self._kernel_loop = kernel_loop
        self._record = record  # a notebook_tools.server.CallRecorder (agent cells), or None
        self._read_notebook = read_notebook  # FrontendLink.read_notebook: notebook_cells
        self._figure_notes = figure_notes  # FigureNotes.lookup: figures of the person's cells
        self._secrets = secrets  # NotebookAgent.secrets: masked in every tool result, per call
        self._lock = threading.Lock()
        self._served: Any = None  # (NotebookMcpServer, McpMount) while the tools are served

    def mount(self, *, enabled: bool, run_python: bool, max_chars: int) -> Any:
        """Start (or reuse) the server; the patch mounting it, or None when the tools are off.

        Called with the config on every runtime start, so ``%dsh restart`` applies changed
        settings. Missing ``mcp`` (the ``jupyter`` extra) turns the tools off with a warning.
        """
        if not enabled or self._shell is None:
            self.stop()
            return None
        try:
            from ..notebook_tools.executor import MainThreadExecutor
            from ..notebook_tools.patch import write_mcp_patch
            from ..notebook_tools.server import (
                NotebookMcpServer,
                NotebookToolsSettings,
                environment_secrets,
            )
        except ImportError as exc:
            log.warning(
                "dsh: notebook tools are off (%s); pip install 'dsh-notebook[jupyter]'", exc
            )
            return None
        settings = NotebookToolsSettings(run_python=run_python, max_chars=max_chars)
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
            secrets=self._secrets or environment_secrets,
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

    async def _approve(self, *, tool_name: str, reason: str) -> bool | EditedCode:
        """A tool call asks the person (MCP server loop -> broker on the host loop): ``True``,
        the person's edited code for this call, or ``False``."""
        request = ApprovalRequest(
            session_id=self._current_session(), tool_name=tool_name, reason=reason
        )

        async def ask() -> Decision:
            return await self._broker.approve_call(request, editable=True)

        try:
            decision = await asyncio.wrap_future(self._host.submit(ask))
        except Exception as exc:
            log.warning("dsh: %s approval failed closed: %s", tool_name, exc)
            return False
        if decision.outcome != "allowed-once":
            return False
        return True if decision.code is None else EditedCode(decision.code)

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
