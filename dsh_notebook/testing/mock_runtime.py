"""``MockRuntime``: an in-process runtime peer for client tests (httpx's ``MockTransport``, for us).

::

    async def handler(method: str, params: dict[str, Any] | None) -> Any:
        if method == "session/prompt":
            await runtime.notify("session.event", {...})   # e.g. the receipt
            return {"messageId": "m1"}
        return standard_reply(method, params)

    async with MockRuntime(handler) as runtime, runtime.harness() as harness:
        result = await harness.start_session("s1").run("hello")

It sits on the peer side of :func:`~dsh_notebook.testing.streams.duplex` and speaks
newline-delimited JSON-RPC 2.0 with its own small framing (it does not reuse the client's
transport, so it stays an independent check of it). No process, no thread.

Guarantees:

* **Every request gets the handler's answer**: the return value (sync or async) is the ``result``;
  a raised :class:`~dsh_notebook.errors.JsonRpcError` becomes an error response with exactly its
  ``code``, ``message`` and ``data``; :class:`~dsh_notebook.transport.NoResponse` sends nothing
  (a request the runtime never answers); any other exception is ``-32603`` with its text, as the
  published runtime answers every failure.
* **Concurrency**: each request is handled in its own task, so a handler may block (a
  ``session/wait`` that returns later) while others are served, and may :meth:`MockRuntime.notify`
  or :meth:`MockRuntime.request` from inside. Frames are written whole, one at a time.
* **Order**: notifications a handler sends before it returns reach the client before its response.
* **Record**: :attr:`MockRuntime.received` holds every frame the client sent, in arrival order.
* **Lifetime**: leaving the ``async with`` block, or :meth:`MockRuntime.disconnect` from any task,
  cancels running handlers, fails pending :meth:`MockRuntime.request` calls and closes the stream
  to the client, which then sees EOF. Enter and leave in the same task; everything runs on that
  event loop. It may be made outside any loop (e.g. by a kernel's harness factory, on the
  caller's thread) and entered later on the loop that serves it.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from itertools import count
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from ..client import DeepSeekHarness, HarnessClient
from ..errors import INTERNAL_ERROR, JsonRpcError, TransportClosed, classify_rpc_error
from ..transport import NoResponse
from .streams import MemoryByteReceiveStream, MemoryByteSendStream, duplex

__all__ = ["MockHandler", "MockRuntime", "SERVER_INFO", "standard_reply"]

log = logging.getLogger(__name__)

MockHandler = Callable[[str, "dict[str, Any] | None"], Any]
"""``handler(method, params) -> result`` or an awaitable of it; raise to answer an error."""

#: The ``initialize`` result of the published runtime 0.2.1-rc.2 (see ``tests/captures``).
SERVER_INFO: dict[str, Any] = {
    "serverInfo": {"name": "deepseek-harness-sdk-runtime", "version": "0.0.1"}
}


def standard_reply(method: str, params: dict[str, Any] | None) -> Any:
    """What a fresh, idle runtime answers: the handshake, ``shutdown``, an idle ``session/wait``.

    ``initialize`` -> :data:`SERVER_INFO`; ``shutdown``, ``session/wait`` and ``session/resume``
    -> ``{}``; anything else raises the runtime's own unknown-method error (``-32603``).
    Delegate to it from a handler for the methods a test does not care about.
    """
    if method == "initialize":
        return json.loads(json.dumps(SERVER_INFO))
    if method in ("shutdown", "session/wait", "session/resume"):
        return {}
    raise JsonRpcError(INTERNAL_ERROR, f"unknown DeepSeek Harness SDK runtime method: {method}")


class _Pending:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.frame: dict[str, Any] = {}


class MockRuntime:
    """An in-process JSON-RPC peer that answers the client's requests with ``handler``.

    Args:
        handler: called as ``handler(method, params)`` for every request the client sends
            (see the module docstring for how results and exceptions are answered); ``None``
            uses :func:`standard_reply`.
    """

    def __init__(self, handler: MockHandler | None = None) -> None:
        self.handler: MockHandler = handler if handler is not None else standard_reply
        client_side, (self._receive, self._send) = duplex()
        self.client_streams: tuple[MemoryByteReceiveStream, MemoryByteSendStream] = client_side
        """The ``(receive, send)`` pair to give ``HarnessClient(streams=…)``."""
        self.received: list[dict[str, Any]] = []
        """Every frame the client sent (requests, notifications, responses), in order."""
        self._ids = count(1)
        self._pending: dict[str, _Pending] = {}
        self._write_lock = anyio.Lock()
        self._task_group: TaskGroup | None = None  # the handlers' tasks, inside _scope
        self._scope: anyio.CancelScope | None = None  # made in _serve: it needs the loop
        self._stack: AsyncExitStack | None = None
        self._closed = False

    # -- wiring --------------------------------------------------------------------------------

    def client(self, **fields: Any) -> HarnessClient:
        """A :class:`HarnessClient` connected to this peer (no process; ``fields`` as usual)."""
        return HarnessClient(streams=self.client_streams, **fields)

    def harness(self, **fields: Any) -> DeepSeekHarness:
        """A :class:`DeepSeekHarness` connected to this peer (through ``client=``).

        ``on_approval`` / ``on_user_question`` go to the harness, every other field to the client
        config; ``bridge`` defaults to ``False``.
        """
        handlers = {k: fields.pop(k) for k in ("on_approval", "on_user_question") if k in fields}
        fields.setdefault("bridge", False)
        return DeepSeekHarness(client=self.client(**fields), **handlers)

    def requests(self, method: str | None = None) -> list[dict[str, Any]]:
        """The request frames received so far (of ``method`` only, when given)."""
        return [
            f
            for f in self.received
            if "id" in f and "method" in f and (method is None or f["method"] == method)
        ]

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> MockRuntime:
        stack = AsyncExitStack()
        await stack.__aenter__()
        self._stack = stack
        outer = await stack.enter_async_context(anyio.create_task_group())
        await outer.start(self._serve)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def disconnect(self) -> None:
        """Go away like a dead runtime: the client sees EOF; handlers and pending requests end.

        Idempotent; callable from any task on the loop (the ``async with`` exit still cleans up).
        """
        if self._closed:
            return
        self._closed = True
        for pending in self._pending.values():
            pending.done.set()
        await self._send.aclose()
        if self._scope is not None:
            self._scope.cancel()

    async def aclose(self) -> None:
        """:meth:`disconnect`, then release the serving task (in the task that entered)."""
        await self.disconnect()
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    # -- sending -------------------------------------------------------------------------------

    async def send_frame(self, frame: dict[str, Any]) -> None:
        """Write one frame as one line (also for deliberately odd frames in tests)."""
        await self.send_line(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))

    async def send_line(self, line: str) -> None:
        """Write ``line`` and a newline verbatim (for malformed-input tests)."""
        if self._closed:
            raise TransportClosed("the mock runtime is closed")
        async with self._write_lock:
            await self._send.send((line + "\n").encode("utf-8"))

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """Push a notification to the client."""
        await self.send_frame({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(
        self, method: str, params: dict[str, Any], *, timeout: float | None = 10.0
    ) -> Any:
        """Send a server→client request; its ``result``.

        Raises the classified :class:`JsonRpcError` for an error response, :class:`TimeoutError`
        after ``timeout`` seconds, and :class:`TransportClosed` when the mock closes first.
        """
        request_id = f"m{next(self._ids)}"
        pending = _Pending()
        self._pending[request_id] = pending
        try:
            await self.send_frame(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            with anyio.fail_after(timeout):
                await pending.done.wait()
        finally:
            self._pending.pop(request_id, None)
        frame = pending.frame
        if not frame:
            raise TransportClosed("the mock runtime closed before the client answered")
        error = frame.get("error")
        if isinstance(error, dict):
            raise classify_rpc_error(
                int(error.get("code", 0)),
                str(error.get("message", "")),
                error.get("data"),
                method=method,
            )
        return frame.get("result")

    # -- receiving -----------------------------------------------------------------------------

    async def _serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        # Reader and handlers run under their own scope: cancelling it (disconnect) must not
        # cancel the body of the ``async with`` block that the outer task group encloses.
        self._scope = anyio.CancelScope()
        with self._scope:
            async with anyio.create_task_group() as tg:
                self._task_group = tg
                task_status.started()
                await self._read_loop()

    async def _read_loop(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = await self._receive.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    self._dispatch(json.loads(line))

    def _dispatch(self, frame: dict[str, Any]) -> None:
        self.received.append(frame)
        if "method" in frame and "id" in frame:
            assert self._task_group is not None
            self._task_group.start_soon(self._answer, frame)
        elif "id" in frame:
            pending = self._pending.get(str(frame["id"]))
            if pending is not None:
                pending.frame = frame
                pending.done.set()

    async def _answer(self, frame: dict[str, Any]) -> None:
        method, request_id = str(frame["method"]), frame["id"]
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        try:
            result = self.handler(method, frame.get("params"))
            if inspect.isawaitable(result):
                result = await _awaited(result)
            reply["result"] = result
        except NoResponse:
            return
        except JsonRpcError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                reply["error"]["data"] = exc.data
        except Exception as exc:
            log.debug("mock handler for %s raised %r", method, exc)
            reply["error"] = {"code": INTERNAL_ERROR, "message": str(exc) or type(exc).__name__}
        if not self._closed:
            await self.send_frame(reply)


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value
