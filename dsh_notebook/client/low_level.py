"""``HarnessClient``: the low-level protocol client — one runtime process, one transport.

Lifecycle: ``async with HarnessClient(config) as client`` spawns the runtime (or, for tests, uses
the byte streams you pass: the transport seam) and starts the reader; :meth:`initialize` performs
the handshake; leaving the block runs the close ladder. The client must be entered and exited in the
same task (anyio structured concurrency); every method must run on that event loop.

What the client owns: request ids, the pending-request table, the session tree and subscriptions,
the server→client request handlers. When the runtime dies, every pending request and every
subscription fails with :class:`~dsh_notebook.errors.TransportClosed` carrying the exit status and
the stderr tail, and nothing waits forever.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup
from pydantic import TypeAdapter, ValidationError

from ..errors import (
    ConfigError,
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
    Notification,
    SessionPromptResult,
    SessionQueryResult,
    WorkingDirectoryResult,
)
from ..runtime import LaunchSpec, RuntimeProcess
from ..transport import JsonRpcLineTransport, RequestHandler
from .config import HarnessConfig
from .routing import Router, Subscription

__all__ = ["SERVER_NAME", "HarnessClient"]

log = logging.getLogger(__name__)

SERVER_NAME = "deepseek-harness-sdk-runtime"
T = TypeVar("T")
_UNSET: Any = object()


def _parse(model: Any, value: Any, method: str) -> Any:
    try:
        return TypeAdapter(model).validate_python(value)
    except ValidationError as exc:
        raise SdkProtocolError(f"{method} returned an unexpected result: {exc}") from None


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
        self._stack: AsyncExitStack | None = None
        self._query_supported: bool | None = None
        self._handlers: dict[str, RequestHandler] = {}
        self._task_group: TaskGroup | None = None
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> HarnessClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Spawn the runtime (unless streams were given) and start reading. Does not initialize."""
        if self._stack is not None:
            raise ConfigError("this client was already started")
        stack = AsyncExitStack()
        await stack.__aenter__()
        self._stack = stack
        try:
            if self._streams is None:
                self.launch_spec = self.config.launch_spec()
                self.process = await RuntimeProcess.spawn(self.launch_spec)
                receive: ByteReceiveStream = self.process.stdout
                send: ByteSendStream = self.process.stdin
            else:
                receive, send = self._streams
            transport = JsonRpcLineTransport(receive, send, on_notification=self._on_notification)
            for method, handler in self._handlers.items():
                transport.set_request_handler(method, handler)
            self.transport = transport
            tg = await stack.enter_async_context(anyio.create_task_group())
            self._task_group = tg
            if self.process is not None:
                tg.start_soon(self.process.drain_stderr)
            tg.start_soon(self._read)
        except BaseException:
            await self.aclose()
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

        await transport.run(on_eof=on_eof)
        self.router.fail_all(transport.closed or TransportClosed())

    def _on_notification(self, notification: Notification) -> None:
        self.router.dispatch(notification)

    async def _shutdown_process(self) -> None:
        if self.process is None:
            return
        transport = self.transport

        async def shutdown() -> object:
            if transport is None or transport.closed is not None:
                return None
            return await transport.request("shutdown", None)

        await self.process.close(
            shutdown, shutdown_timeout=self.config.shutdown_timeout, grace=self.config.close_grace
        )

    async def aclose(self) -> None:
        """Close ladder, then stop reading. Idempotent; never raises for a dead runtime."""
        if self._closed:
            return
        self._closed = True
        stack, self._stack = self._stack, None
        if stack is None:
            return
        try:
            with anyio.CancelScope(shield=True):
                await self._shutdown_process()
        finally:
            closed = TransportClosed("the client was closed")
            if self.transport is not None:
                self.transport.close(closed)
            self.router.fail_all(closed)
            if self._task_group is not None:
                self._task_group.cancel_scope.cancel()
            await stack.aclose()

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
            raise RequestTimeout("initialize", exc.timeout, profile=cfg.profile) from None
        result: InitializeResult = _parse(InitializeResult, raw, "initialize")
        if result.server_info.name != SERVER_NAME:
            raise SdkProtocolError(
                f"initialize: the server identifies as {result.server_info.name!r}, expected "
                f"{SERVER_NAME!r}; is dsh_bin a DeepSeek Harness runtime started with an sdk profile?"
            )
        self.server_info = result
        return result

    async def session_prompt(
        self, session_id: str, blocks: list[dict[str, Any]]
    ) -> SessionPromptResult:
        raw = await self.request(
            "session/prompt", {"sessionId": session_id, "contentBlocks": blocks}
        )
        result: SessionPromptResult = _parse(SessionPromptResult, raw, "session/prompt")
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
        return _parse(SessionQueryResult, raw, "session/query")

    async def session_resume(self, session_id: str) -> None:
        _parse(
            EmptyResult,
            await self.request("session/resume", {"sessionId": session_id}),
            "session/resume",
        )

    async def session_wait(self, session_id: str) -> None:
        """Returns once the tree is idle; every notification of the wait was delivered before."""
        raw = await self.request("session/wait", {"sessionId": session_id}, timeout=None)
        _parse(EmptyResult, raw, "session/wait")

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

    async def shutdown(self) -> None:
        """The ``shutdown`` request alone (the runtime then exits); prefer :meth:`aclose`."""
        await self.request("shutdown", None, timeout=self.config.shutdown_timeout)
