"""The in-kernel MCP server: the agent's window onto the live notebook.

:class:`NotebookMcpServer` serves the notebook tools over MCP **streamable HTTP** (stateless,
JSON responses; the protocol is :mod:`.mcp_endpoint`'s) on ``127.0.0.1`` at a free port:

============================ =================================================================
``notebook_variables``       the person's variables (table; read-only)
``describe_variable(name)``  one variable in detail (read-only)
``notebook_history(n)``      the last ``n`` executed cells with results and errors (read-only)
``notebook_cells``           the notebook as the person sees it, from the frontend extension
                             (read-only; falls back to the history, saying so)
``run_python(code)``         run code in the kernel, **after the person approves that call**
``edit_cell`` … ``run_cells`` change or run the person's cells by id, each approved; only with
                             an ``edits`` host (the kernel's; :mod:`.cell_tools`)
============================ =================================================================

The tools themselves are plain functions (:mod:`.variables`, :mod:`.history`, :mod:`.cells`,
:mod:`.run_python`); the read-only ones are handled by :mod:`.read_tools`, the cell tools by
:mod:`.cell_tools`; what the model reads about them is in :mod:`.schemas`. The runtime mounts
the server with the patch written by :mod:`.patch`; the model sees the tools as
``mcp__notebook__<tool>``.

Guarantees:

- **Authentication.** Every HTTP request must carry ``Authorization: Bearer <token>``, a random
  per-server token (:func:`secrets.token_urlsafe`, compared in constant time by :mod:`.auth`); anything else gets
  ``401`` before it reaches MCP. The socket is bound to 127.0.0.1 only, and the endpoint's DNS
  rebinding protection (``Host``/``Origin`` allow-list) is on.
- **Threads.** The server runs uvicorn on its own daemon thread and event loop. Read-only tools
  run on a worker thread, one at a time, reading a snapshot of ``shell.user_ns`` (they may
  observe a value while a running cell changes it; they never change anything). ``run_python``
  runs only on the thread that pumps the :class:`~.executor.MainThreadExecutor` — in a kernel,
  the main thread, between cells — never concurrently with a cell.
- **Approval.** Every ``run_python`` call first awaits ``approve(tool_name="run_python",
  reason=<the code>, arguments=<the call's arguments>)`` (on the server loop). Only a
  :class:`~.edits.Grant` runs code: the call's own, or the person's edit of it (this call only),
  and then the result starts by saying so and quoting exactly what ran. A
  :class:`~.edits.Refusal` runs nothing and the model gets its reason (the texts:
  :mod:`.refusals`); anything else — ``None``, an empty edit, an exception, a cancellation —
  runs nothing and the model gets a tool error saying the user rejected it.
- **Bounds.** Tool text is capped at ``settings.max_chars``; a read-only tool that has not
  finished after ``settings.read_timeout`` seconds (a variable's ``repr`` that never returns) is
  given up on and reported, and the next call is served (the slow code is asked to stop, see
  :mod:`dsh_notebook.context.time_limit`); at most ``settings.max_pending``
  approved calls wait for the main thread (more are refused with a clear message); a call that
  has not *started* within ``settings.start_timeout`` seconds (the kernel stayed busy) is
  withdrawn and reported. Once started, the code runs until it ends or is interrupted.
- **Interrupt.** "Interrupt kernel" (SIGINT) raises ``KeyboardInterrupt`` in the running code
  (how: :mod:`.executor`). The model is told the user stopped it.
- **Recording.** An optional ``record(code, owner)`` (:class:`CallRecorder`, ``owner`` from the
  grant) is asked on the server loop right after a call was approved; when it returns a sink,
  the code runs with its outputs captured as nbformat outputs and the sink gets the
  :class:`~.run_python.RunPythonResult` on the kernel's main thread right after the code ran,
  before the model's result is sent. The sentence it returns (where the code was kept: "agent
  cell 2 of this run, below the prompt") opens the model's result. A failing recorder or sink is
  logged and ignored: the result then says nothing about a cell.
- **Figures.** PNGs are attached only when ``settings.images`` (the model route takes images)
  and the code did not raise; otherwise the result says how many were not sent and why.
- **Secrets.** Every result (each tool, error paths included) goes out through
  :func:`~.masking.mask_result` with the secrets ``secrets()`` names at that moment (default:
  :func:`environment_secrets`): each key, and each piece of it of 8 or more characters, is
  ``***``; images are not changed. Should the lookup or the masking fail, the model gets an
  error saying the result was withheld, never the unmasked text. A tool's failure is logged
  with the secrets masked in its traceback.
- **Lifecycle.** :meth:`NotebookMcpServer.start` returns once the socket accepts requests (or
  raises); :meth:`NotebookMcpServer.stop` is idempotent and bounded (graceful, then forced, then
  the daemon thread is abandoned) and withdraws every queued ``run_python`` call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from secrets import token_urlsafe
from typing import Any, Generic, Protocol, TypeVar

import uvicorn

from ..runtime.mask_policy import Masking
from ..runtime.secret import Secrets, redact
from ..transcript.bounds import PROPOSED_MAX
from ..transcript.tool_table import CELL_TOOL_NAMES
from . import tool_texts as texts
from .auth import BearerAuth
from .cell_figures import FigureImages
from .cell_tools import CellTools, EditsHost
from .cells import FigureLookup
from .edits import Grant, Refusal, edited_note
from .executor import ExecutorClosed, ExecutorFull, ItemInterrupted, MainThreadExecutor
from .masking import mask_result
from .mcp_endpoint import McpEndpoint
from .mcp_shapes import TextBlock, ToolResult, png_block
from .mcp_shapes import text_result as _text
from .page_reader import NotebookReader
from .ran_cells import RanLookup, shell_history, source_at_run
from .read_tools import READ_TOOL_NAMES, PromptCellLookup, ReadTools
from .refusals import REJECTED_MESSAGE, code_too_long_text
from .run_python import RunPythonResult, run_python
from .schemas import MCP_SERVER_NAME, instructions, tool_definitions

__all__ = [
    "Approver",
    "CallRecorder",
    "NotebookMcpServer",
    "NotebookReader",
    "PromptCellLookup",
    "NotebookToolsSettings",
    "SecretsLookup",
    "environment_secrets",
]

log = logging.getLogger(__name__)


_Owned = TypeVar("_Owned", covariant=True)
_Recorded = TypeVar("_Recorded", contravariant=True)
CallOwner = TypeVar("CallOwner")
"""Who makes the calls a server's approver grants and its recorder gets (the kernel's
``ApprovedCall``): passed from one to the other unread."""


class Approver(Protocol[_Owned]):
    """Decides one call; a :class:`~.edits.Grant` only for an explicit allow. Awaited on the
    server's loop. ``arguments`` are the call's, as the server received them."""

    def __call__(
        self, *, tool_name: str, reason: str, arguments: Mapping[str, Any]
    ) -> Awaitable[Grant[_Owned] | Refusal | None]: ...


RanSink = Callable[[RunPythonResult], "str | None"]
"""Gets a call's result right after the code ran; returns the sentence the model reads about
where the code was kept (e.g. the agent cell below the prompt), or ``None`` (not kept). A sink
with a ``before()`` method has it called on the same thread right before the code runs (the
kernel keeps the values the code changes, for "Undo this run"); one whose ``wants_outputs`` is
``False`` gets the result without its nbformat outputs (nothing of it becomes a cell)."""


class CallRecorder(Protocol[_Recorded]):
    """Asked on the server loop once a ``run_python`` call is approved: a sink that gets the
    call's result on the kernel's main thread right after the code ran (and says where the code
    was kept), or ``None`` (do not record this call)."""

    def __call__(self, code: str, owner: _Recorded | None) -> RanSink | None: ...


@dataclass(frozen=True)
class NotebookToolsSettings:
    """Switches and bounds. ``enabled=False`` means: do not start a server at all."""

    enabled: bool = True
    run_python: bool = True
    max_chars: int = 8000
    max_pending: int = 4
    start_timeout: float = 300.0
    """Seconds an approved ``run_python`` may wait for the kernel to become idle."""
    read_timeout: float = 10.0
    """Seconds a read-only tool may take (describing values runs the person's ``repr``s)."""
    stop_timeout: float = 3.0
    cells_timeout: float = 3.0
    """Seconds ``notebook_cells`` waits for the notebook page before it falls back."""
    cell_tools: bool = True
    """Offer the five cell tools (they answer one line where no page can apply them)."""
    images: bool = True
    """The model route takes image input: ``run_python`` attaches its figures as PNGs (else it
    says they were not sent; their text descriptions are sent either way). See
    :func:`dsh_notebook.client.config.takes_images`."""


SecretsLookup = Callable[[], Secrets]
"""The secrets to mask right now (called on the server loop for every tool result): the kernel's
``NotebookAgent.secrets()`` (the key in the environment, the configured one, one typed with
``%dsh key``, the environment's secret-looking variables, the credential shapes, the person's
patterns)."""


def environment_secrets() -> Masking:
    """The default :data:`SecretsLookup`: ``DEEPSEEK_API_KEY`` and the secret-looking variables
    of the kernel's environment, and the credential shapes."""
    key = os.environ.get("DEEPSEEK_API_KEY")
    return Masking.build([(key, "DEEPSEEK_API_KEY")] if key else [])


# -- the server ----------------------------------------------------------------------------------


class NotebookMcpServer(Generic[CallOwner]):
    """One per kernel. Construct, :meth:`start`, hand :attr:`url` and :attr:`token` to the
    runtime (see :mod:`.patch`), :meth:`stop` with the runtime host."""

    def __init__(
        self,
        shell: Any,
        *,
        approve: Approver[CallOwner] | None,
        executor: MainThreadExecutor,
        errors: Mapping[int, str] | None = None,
        settings: NotebookToolsSettings | None = None,
        token: str | None = None,
        record: CallRecorder[CallOwner] | None = None,
        read_notebook: NotebookReader | None = None,
        figure_notes: FigureLookup | None = None,
        figure_images: FigureImages | None = None,
        secrets: SecretsLookup = environment_secrets,
        prompt_cell: PromptCellLookup | None = None,
        ran_cells: RanLookup | None = None,
        edits: EditsHost[Any] | None = None,
    ) -> None:
        self.shell = shell
        self.secrets = secrets
        self.record = record
        self.approve = approve
        self.executor = executor
        self.errors: Mapping[int, str] = errors if errors is not None else {}
        self.settings = settings or NotebookToolsSettings()
        self.token = token or token_urlsafe(32)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._uvicorn: uvicorn.Server | None = None
        self._port: int | None = None
        self.cells: CellTools[Any] | None = None
        """The cell tools' handlers (and their stale ledger), with an ``edits`` host."""
        if edits is not None and self.settings.cell_tools:
            self.cells = CellTools(
                edits, read_notebook, cell_running=lambda: self.executor.cell_running,
                read_timeout=self.settings.cells_timeout, max_chars=self.settings.max_chars,
                figures=figure_notes,
                ran_source=partial(source_at_run, ran=ran_cells, history=shell_history(shell)),
            )  # fmt: skip
        self._reads = ReadTools(
            shell, errors=self.errors, max_chars=self.settings.max_chars,
            read_timeout=self.settings.read_timeout, cells_timeout=self.settings.cells_timeout,
            cell_running=lambda: self.executor.cell_running, reader=read_notebook,
            cells=self.cells, prompt_cell=prompt_cell, figures=figure_notes, ran=ran_cells,
            images=figure_images, takes_images=self.settings.images,
        )  # fmt: skip
        self._tools = tool_definitions(
            run_python=self.settings.run_python, max_chars=self.settings.max_chars,
            cell_tools=self.cells is not None,
        )  # fmt: skip

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the notebook MCP server is not started")
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    @property
    def tool_names(self) -> list[str]:
        return [tool.name for tool in self._tools]

    def start(self, timeout: float = 10.0) -> NotebookMcpServer[CallOwner]:
        """Bind 127.0.0.1 on a free port and serve on a daemon thread; returns when serving."""
        with self._lock:
            if self.running:
                return self
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
            config = uvicorn.Config(
                self._asgi_app(),
                loop="asyncio",
                http="h11",
                lifespan="on",
                log_config=None,
                log_level="warning",
                access_log=False,
                timeout_graceful_shutdown=max(1, int(self.settings.stop_timeout)),
            )
            server = uvicorn.Server(config)
            thread = threading.Thread(
                target=self._serve, args=(server, sock), name="dsh-notebook-mcp", daemon=True
            )
            self._uvicorn, self._thread, self._port = server, thread, port
            thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the notebook MCP server did not start (see the kernel log)")
            time.sleep(0.01)
        return self

    @staticmethod
    def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # pragma: no cover - logged, the thread just ends
            log.warning("the notebook MCP server stopped: %s", exc)
        finally:
            with contextlib.suppress(OSError):
                sock.close()

    def stop(self) -> None:
        """Stop serving; withdraw queued ``run_python`` calls. Idempotent, bounded."""
        with self._lock:
            server, thread = self._uvicorn, self._thread
            self._uvicorn = self._thread = None
        self.executor.close()
        if server is None or thread is None:
            return
        server.should_exit = True
        thread.join(self.settings.stop_timeout)
        if thread.is_alive():
            server.force_exit = True
            thread.join(1.0)
        if thread.is_alive():  # pragma: no cover - a wedged handler; the thread is a daemon
            log.warning("the notebook MCP server thread did not stop in time; abandoned")

    def _instructions(self) -> str:
        """What the server tells the model (its MCP ``instructions``) with these settings."""
        return instructions(
            run_python=self.settings.run_python,
            max_chars=self.settings.max_chars,
            cell_tools=self.cells is not None,
        )

    def _asgi_app(self) -> BearerAuth:
        endpoint = McpEndpoint(
            MCP_SERVER_NAME,
            version="1",
            instructions=self._instructions(),
            list_tools=lambda: self._tools,
            call_tool=self._call_tool,
        )
        return BearerAuth(endpoint, self.token)

    # -- handlers (server loop) ------------------------------------------------------------------

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Every tool's result, masked: the one exit of tool results towards the model."""
        result = await self._dispatch(name, arguments)
        try:
            return mask_result(
                result, self.secrets(), self.settings.max_chars
            )  # the secrets of this moment
        except Exception as exc:  # fail closed: an unchecked result never leaves
            # the exception's text could repeat what it failed to mask: its type only
            log.error("masking the result of notebook tool %s failed: %s", name, type(exc))
            return _text(texts.WITHHELD_MESSAGE, error=True)

    def _masked_traceback(self) -> str:
        """The exception being handled, formatted, with the secrets masked (the log too must not
        hold the key); only a note when the secrets cannot be looked up."""
        try:
            return redact(traceback.format_exc(), self.secrets())
        except Exception as exc:
            return f"(traceback withheld: the secrets to mask could not be read: {type(exc)})"

    def _private(self) -> tuple[str, ...]:
        """The person's private name patterns of this moment (none when the lookup gives plain
        secrets; a failed lookup fails the call, and masking then withholds its result)."""
        policy = self.secrets()
        return policy.private if isinstance(policy, Masking) else ()

    async def _dispatch(self, name: str, args: dict[str, Any]) -> ToolResult:
        try:
            if name == "run_python":
                return await self._run_python(args)
            if name == "notebook_cells":
                text, error, pngs = await self._reads.notebook_cells(args)
                images = tuple(png_block(png) for png in pngs)
                return ToolResult((TextBlock(text), *images), is_error=error)
            if name in READ_TOOL_NAMES:
                text, error = await self._reads.read(name, args, self._private())
                return _text(text, error=error)
            if self.cells is not None and name in CELL_TOOL_NAMES:
                cells = self.cells
                run = name == "run_cells"
                text, error = await (cells.run(args) if run else cells.edit(name, args))
                return _text(text, error=error)
            return _text(texts.unknown_tool(name, self.tool_names), error=True)
        except Exception as exc:  # a bug of ours must not look like a hung tool
            log.error("notebook tool %s failed:\n%s", name, self._masked_traceback())
            return _text(texts.tool_failed(exc), error=True)

    async def _run_python(self, arguments: dict[str, Any]) -> ToolResult:
        code = arguments.get("code")
        if not self.settings.run_python:
            return _text(texts.RUN_PYTHON_OFF, error=True)
        if not isinstance(code, str) or not code.strip():
            return _text(texts.RUN_PYTHON_CODE_USAGE, error=True)
        if len(code) > PROPOSED_MAX:  # the card would show it cut: never approved blind
            return _text(code_too_long_text(len(code), PROPOSED_MAX), error=True)
        if self.executor.pending >= self.executor.max_pending:
            return _text(self._busy_message(), error=True)
        grant: Grant[CallOwner] | None = None
        if self.approve is not None:
            try:
                verdict = await self.approve(
                    tool_name="run_python", reason=code, arguments=arguments
                )
            except Exception as exc:
                log.warning("run_python approval failed closed: %s", exc)
            else:
                if isinstance(verdict, Refusal):
                    return _text(verdict.message, error=True)
                if isinstance(verdict, Grant) and (verdict.code is None or verdict.code.strip()):
                    grant = verdict
        if grant is None:
            return _text(REJECTED_MESSAGE, error=True)
        edited = grant.code
        if edited is not None:
            code = edited  # the person's code, for this call only
        cap = self.settings.max_chars
        shell = self.shell
        sink: RanSink | None = None
        if self.record is not None:
            try:
                sink = self.record(code, grant.owner)
            except Exception:
                log.exception("recording a run_python call failed; it runs unrecorded")

        kept: list[str] = []

        def call() -> RunPythonResult:  # main thread, between cells
            before = getattr(sink, "before", None)
            if callable(before):  # the kernel keeps what the code changes, for undo
                try:
                    before()
                except Exception:
                    log.exception("keeping the values a run_python call changes failed")
            outputs = sink is not None and getattr(sink, "wants_outputs", True) is not False
            result = run_python(shell, code, max_chars=cap, outputs=outputs)
            if sink is not None:
                try:
                    where = sink(result)
                except Exception:
                    log.exception("recording a run_python result failed")
                else:
                    if where:
                        kept.append(where)
            return result

        try:
            future = self.executor.submit(call)
        except ExecutorFull:
            return _text(self._busy_message(), error=True)
        except ExecutorClosed:
            return _text(texts.SHUTTING_DOWN, error=True)
        waiter = asyncio.wrap_future(future)
        try:
            done, _ = await asyncio.wait({waiter}, timeout=self.settings.start_timeout)
            if not done and future.cancel():
                return _text(texts.withdrawn_busy(self.settings.start_timeout), error=True)
            result = await waiter
        except asyncio.CancelledError:
            future.cancel()  # withdrawn if it has not started; a running call finishes
            raise
        except ExecutorClosed:
            return _text(texts.SHUT_DOWN_BEFORE_RUN, error=True)
        except ItemInterrupted:
            return _text(texts.INTERRUPTED, error=True)
        images = self.settings.images
        text = result.as_text(cap, images=images, notes=kept)
        if edited is not None:
            text = edited_note(edited, cap) + text
        figures = result.figures if result.sends_images(images) else ()
        pngs = tuple(png_block(png) for png in figures)
        return ToolResult((TextBlock(text), *pngs), is_error=not result.ok)

    def _busy_message(self) -> str:
        return texts.busy_queue(self.executor.max_pending)
