"""``HarnessClient``: the low-level protocol client — one runtime process, one transport.

Lifecycle: ``async with HarnessClient(config) as client`` spawns the runtime (or, for tests, uses
the byte streams you pass: the transport seam) and starts the reader; :meth:`initialize` performs
the handshake; leaving the block runs the close ladder. A client starts once and closes once:
start after close is refused, so no runtime is ever without an owner. ``aclose`` may be called
from any task, concurrently and repeatedly. Every method must run on one event loop.

What the client owns: request ids, the pending-request table, the session tree and subscriptions,
the server→client request handlers. When the runtime dies, every pending request and every
subscription fails with :class:`~dsh_notebook.errors.TransportClosed` carrying the exit status and
the stderr tail, and nothing waits forever — also when the runtime exits while a process it
started keeps its stdout open (the exit itself is watched). Timeouts, error responses and protocol
errors of a spawned runtime carry its bounded stderr tail too (``stderr_tail``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from pydantic import TypeAdapter, ValidationError

from ..errors import (
    ConfigError,
    JsonRpcError,
    RequestTimeout,
    SdkProtocolError,
    TransportClosed,
    UnsupportedByRuntime,
)
from ..protocol import (
    EmptyResult,
    InitializeCapabilities,
    InitializeParams,
    InitializeResult,
    SessionPromptResult,
    SessionQueryResult,
    WorkingDirectoryResult,
)
from ..runtime import LaunchSpec, RuntimeProcess
from ..transport import JsonRpcLineTransport, RequestHandler
from .background import Background
from .config import HarnessConfig
from .results import excerpt
from .routing import Router, Subscription

__all__ = ["BARRIER_METHOD", "SERVER_NAME", "HarnessClient"]

log = logging.getLogger(__name__)

STDERR_SETTLE_MAX = 0.5
"""Seconds a failed start waits at most for the runtime's last stderr lines."""

SERVER_NAME = "deepseek-harness-sdk-runtime"
BARRIER_METHOD = "dsh_notebook/ordering-barrier"
"""A method no runtime serves: :meth:`HarnessClient.barrier` asks it only for the answer's place
in the runtime's output (0.2.1 answers every unknown method at once with ``-32603``)."""
EXIT_EOF_GRACE = 1.0
"""Seconds the reader may still drain stdout after the runtime exited before the client gives up
on EOF (a grandchild in its own session can hold the pipe open forever)."""
FAST_SHUTDOWN_TIMEOUT = 0.25
FAST_GRACE = 0.3
T = TypeVar("T")
_UNSET: Any = object()


def _parse(model: Any, value: Any, method: str, stderr_tail: str = "") -> Any:
    try:
        return TypeAdapter(model).validate_python(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())) or 'result'}: {e.get('msg')}"
            for e in exc.errors()[:3]
        )
        error = SdkProtocolError(
            f"{method} returned an unexpected result ({problems}): {excerpt(value)}",
            stderr_tail=stderr_tail,
        )
    raise error


class HarnessClient:
    """A JSON-RPC client of one runtime process (or of a given stream pair)."""

    def __init__(
        self,
        config: HarnessConfig | None = None,
        *,
        streams: tuple[ByteReceiveStream, ByteSendStream] | None = None,
        **fields: Any,
    ) -> None:
        self.config = HarnessConfig.from_fields(config, **fields)
        self._streams = streams
        self.router = Router(self.config.subscription_buffer)
        self.process: RuntimeProcess | None = None
        self.launch_spec: LaunchSpec | None = None
        self.transport: JsonRpcLineTransport | None = None
        self.server_info: InitializeResult | None = None
        self._background: Background | None = None
        self._close_done: anyio.Event | None = None
        self._query_supported: bool | None = None
        self._handlers: dict[str, RequestHandler] = {}
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> HarnessClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Spawn the runtime (unless streams were given) and start reading. Does not initialize.

        A client starts once: a second ``start()``, or one after :meth:`aclose` (also after a
        failed start), raises :class:`ConfigError` — create a new client instead, so no runtime
        is ever left without an owner. On failure the child is closed before the error propagates.
        The reader runs as a task owned by this client (see :mod:`.background`), not inside the
        caller's cancel scope: any task may later call :meth:`aclose`.
        """
        if self._closed:
            raise ConfigError(
                "this client is closed and cannot start again: create a new HarnessClient "
                "(or DeepSeekHarness)"
            )
        if self._background is not None:
            raise ConfigError("this client was already started")
        background = Background()
        self._background = background
        try:
            if self._streams is None:
                self.launch_spec = self.config.launch_spec()
                self.process = await RuntimeProcess.spawn(self.launch_spec)
                receive: ByteReceiveStream = self.process.stdout
                send: ByteSendStream = self.process.stdin
            else:
                receive, send = self._streams
            process = self.process
            transport = JsonRpcLineTransport(
                receive,
                send,
                on_notification=self.router.dispatch,  # no hop: this runs once per frame
                max_line_bytes=self.config.max_line_bytes,
                diagnostics=(lambda: process.stderr_tail.text()) if process is not None else None,
            )
            for method, handler in self._handlers.items():
                transport.set_request_handler(method, handler)
            self.transport = transport
            if process is not None:
                background.start(process.drain_stderr, "dsh-runtime-stderr")
                background.start(self._watch_exit, "dsh-runtime-exit")
            background.start(self._read, "dsh-runtime-reader")
        except BaseException:
            await self.aclose(fast=True)
            raise

    async def _read(self) -> None:
        assert self.transport is not None
        transport = self.transport
        process = self.process

        async def on_eof() -> TransportClosed:
            if process is None:
                return TransportClosed("the peer closed the stream")
            if self._closed:
                return TransportClosed("the client was closed")
            return await process.closed_error("the runtime exited unexpectedly")

        try:
            await transport.run(on_eof=on_eof)
        except Exception as exc:  # a broken stream or a bug: fail everything, never hang
            log.error("the runtime reader failed: %r", exc)
            transport.close(
                TransportClosed(
                    f"reading from the runtime failed ({type(exc).__name__}: {exc})",
                    stderr_tail=transport.stderr_tail(),
                )
            )
        finally:
            self.router.fail_all(transport.closed or TransportClosed())

    async def _watch_exit(self) -> None:
        """Notice the runtime's exit itself: a process it started may keep its stdout open."""
        process, transport = self.process, self.transport
        assert process is not None and transport is not None
        await process.wait()
        with anyio.move_on_after(EXIT_EOF_GRACE):
            await transport.wait_closed()  # normally EOF follows the exit at once
        if transport.closed is None:
            transport.close(
                await process.closed_error(
                    "the runtime exited, but something it started still holds its stdout open",
                    wait=0,
                )
            )

    async def _shutdown_process(self, fast: bool) -> None:
        if self.process is None:
            return
        transport = self.transport

        async def shutdown() -> object:
            if transport is None or transport.closed is not None:
                return None
            return await transport.request("shutdown", None)

        cfg = self.config
        if fast:  # a failed start: nothing durable to flush yet, bound the whole ladder tightly
            await self.process.close(
                shutdown if self.server_info is not None else None,
                shutdown_timeout=min(cfg.shutdown_timeout, FAST_SHUTDOWN_TIMEOUT),
                grace=min(cfg.close_grace, FAST_GRACE),
            )
        else:
            await self.process.close(
                shutdown, shutdown_timeout=cfg.shutdown_timeout, grace=cfg.close_grace
            )

    async def aclose(self, *, fast: bool = False) -> None:
        """Close ladder, then stop reading. Never raises for a dead runtime.

        Idempotent and safe from any task, concurrently: the first call closes, later and
        concurrent calls wait until that close has finished. Shielded from cancellation; it
        cancels nothing but this client's own tasks. ``fast`` (used after a failed start) bounds
        the ladder to about a second: no ``shutdown`` request unless initialized, short graces.
        """
        if self._close_done is not None:
            with anyio.CancelScope(shield=True):
                await self._close_done.wait()
            return
        self._closed = True
        done = self._close_done = anyio.Event()
        try:
            with anyio.CancelScope(shield=True):
                try:
                    await self._shutdown_process(fast)
                finally:
                    closed = TransportClosed("the client was closed")
                    if self.transport is not None:
                        self.transport.close(closed)
                    self.router.fail_all(closed)
                    if self._background is not None:
                        await self._background.aclose()
        finally:
            done.set()

    @property
    def closing(self) -> bool:
        """True once :meth:`aclose` has begun."""
        return self._closed

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def dsh_home(self) -> Path | None:
        """The home the running runtime was launched with."""
        return self.launch_spec.dsh_home if self.launch_spec is not None else None

    # -- server→client requests ----------------------------------------------------------------

    def set_request_handler(self, method: str, handler: RequestHandler | None) -> None:
        """Handle incoming requests of ``method`` (``None`` removes: answered ``-32601``)."""
        if handler is None:
            self._handlers.pop(method, None)
        else:
            self._handlers[method] = handler
        if self.transport is not None:
            self.transport.set_request_handler(method, handler)

    # -- subscriptions -------------------------------------------------------------------------

    def subscribe(
        self, sessions: Iterable[str] | None = None, *, maxsize: int | None = None
    ) -> Subscription:
        """Notifications of the trees rooted at ``sessions`` (``None``: all), bounded, in order."""
        sub = self.router.subscribe(sessions, maxsize=maxsize)
        if self.transport is not None and self.transport.closed is not None:
            sub.fail(self.transport.closed)
        return sub

    # -- requests ------------------------------------------------------------------------------

    def _stderr_tail(self) -> str:
        return self.transport.stderr_tail() if self.transport is not None else ""

    async def _stderr_after_failure(self) -> str:
        """The stderr tail once the runtime had a moment to say why it failed.

        stderr and stdout are separate pipes: the reason a runtime writes just before its error
        answer (or before it hangs) may still be on its way when the error arrives. Waits until
        the tail is non-empty and has not changed for 0.1 s, at most
        :data:`STDERR_SETTLE_MAX` seconds; only failure paths pay it."""
        tail = self._stderr_tail()
        with anyio.move_on_after(STDERR_SETTLE_MAX):
            while True:
                await anyio.sleep(0.1)
                newer = self._stderr_tail()
                if newer and newer == tail:
                    break
                tail = newer
        return self._stderr_tail()

    def _require_transport(self) -> JsonRpcLineTransport:
        if self.transport is None:
            raise TransportClosed("the client is not started")
        return self.transport

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = _UNSET
    ) -> Any:
        """Send any request; the raw ``result``. ``timeout`` defaults to ``request_timeout``."""
        transport = self._require_transport()
        bound = self.config.request_timeout if timeout is _UNSET else timeout
        return await transport.request(method, params, timeout=bound)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._require_transport().notify(method, params)

    async def initialize(
        self, *, approval_requests: bool = False, user_questions: bool = False
    ) -> InitializeResult:
        """The handshake: the runtime's readiness barrier, bounded by ``initialize_timeout``.

        Raises :class:`RequestTimeout` naming the profile, or :class:`SdkProtocolError` when the
        server does not identify as ``deepseek-harness-sdk-runtime``.
        """
        cfg = self.config
        params = InitializeParams(
            cwd=str(cfg.resolve_cwd()),
            provider=cfg.provider,
            model=cfg.model,
            reasoning_effort=cfg.effective_reasoning_effort,
            max_tokens=cfg.max_tokens,
            approval_requests=True if approval_requests else None,
            capabilities=InitializeCapabilities(user_questions=True) if user_questions else None,
        )
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            raw = await self.request("initialize", wire, timeout=cfg.initialize_timeout)
        except RequestTimeout as exc:
            raise RequestTimeout(
                "initialize",
                exc.timeout,
                profile=cfg.profile,
                stderr_tail=await self._stderr_after_failure(),
            ) from None
        except JsonRpcError as exc:  # the runtime refused to start: say what it printed
            tail = await self._stderr_after_failure()
            if tail == exc.stderr_tail:
                raise
            raise type(exc)(
                exc.code, exc.message, exc.data, method=exc.method, stderr_tail=tail
            ) from None
        result: InitializeResult = _parse(InitializeResult, raw, "initialize", self._stderr_tail())
        if result.server_info.name != SERVER_NAME:
            raise SdkProtocolError(
                f"initialize: the server identifies as {result.server_info.name!r}, expected "
                f"{SERVER_NAME!r}; is dsh_bin a DeepSeek Harness runtime started with an sdk "
                "profile?",
                stderr_tail=self._stderr_tail(),
            )
        self.server_info = result
        return result

    async def session_prompt(
        self, session_id: str, blocks: list[dict[str, Any]]
    ) -> SessionPromptResult:
        raw = await self.request(
            "session/prompt", {"sessionId": session_id, "contentBlocks": blocks}
        )
        result: SessionPromptResult = _parse(
            SessionPromptResult, raw, "session/prompt", self._stderr_tail()
        )
        return result

    async def session_query(self, session_id: str, blocks: list[dict[str, Any]]) -> Any:
        """``session/query``; :class:`UnsupportedByRuntime` when the runtime does not serve it.

        Support is detected on the first call and cached for this client.
        """
        if self._query_supported is False:
            raise UnsupportedByRuntime(
                -32603, "session/query is not served by this runtime", method="session/query"
            )
        try:
            raw = await self.request(
                "session/query", {"sessionId": session_id, "contentBlocks": blocks}
            )
        except UnsupportedByRuntime:
            self._query_supported = False
            raise
        self._query_supported = True
        return _parse(SessionQueryResult, raw, "session/query", self._stderr_tail())

    async def session_resume(self, session_id: str) -> None:
        _parse(
            EmptyResult,
            await self.request("session/resume", {"sessionId": session_id}),
            "session/resume",
        )

    async def session_wait(self, session_id: str) -> None:
        """Returns once the tree is idle; every notification of the wait was delivered before."""
        raw = await self.request("session/wait", {"sessionId": session_id}, timeout=None)
        _parse(EmptyResult, raw, "session/wait", self._stderr_tail())

    async def get_working_directory(self, session_id: str) -> str:
        raw = await self.request("session/working-directory/get", {"sessionId": session_id})
        result: WorkingDirectoryResult = _parse(
            WorkingDirectoryResult, raw, "working-directory/get"
        )
        return result.cwd

    async def set_working_directory(self, session_id: str, path: str) -> str:
        raw = await self.request(
            "session/working-directory/set", {"sessionId": session_id, "path": str(path)}
        )
        result: WorkingDirectoryResult = _parse(
            WorkingDirectoryResult, raw, "working-directory/set"
        )
        return result.cwd

    async def barrier(self, timeout: float) -> None:
        """Returns once every frame the runtime wrote before it read this request has been
        dispatched (each of its notifications seen by every tap).

        The runtime writes its frames to one stdout in order, and the transport dispatches the
        lines it reads in order, so the answer to a request comes after everything written
        before the request was read. The request is one the runtime does not serve
        (:data:`BARRIER_METHOD`): it changes nothing, and its error answer is the awaited
        event. Raises :class:`TransportClosed` when the runtime is gone and
        :class:`RequestTimeout` after ``timeout`` seconds."""
        try:
            await self.request(BARRIER_METHOD, None, timeout=timeout)
        except JsonRpcError:  # the expected answer: "unknown method"
            pass  # (TransportClosed and RequestTimeout are no JsonRpcError: they propagate)

    async def shutdown(self) -> None:
        """The ``shutdown`` request alone (the runtime then exits); prefer :meth:`aclose`."""
        await self.request("shutdown", None, timeout=self.config.shutdown_timeout)
