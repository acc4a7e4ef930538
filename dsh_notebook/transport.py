"""One newline-delimited JSON-RPC 2.0 peer over byte streams the caller owns.

This is the seed's ``JsonRpcLineTransport``, in Python:

- One compact JSON object per ``\\n``-terminated UTF-8 line in both directions. ``\\r\\n`` and blank
  lines are tolerated. Lines are bounded by ``max_line_bytes`` (default
  :data:`DEFAULT_MAX_LINE_BYTES`, 64 MiB — real frames reach hundreds of KB, never this): a longer
  line closes the transport with a :class:`~dsh_notebook.errors.TransportClosed` that says so,
  instead of growing without bound. Reading a long line costs linear time.
- A frame with ``id`` and ``method`` is a request, ``id`` alone a response, ``method`` alone a
  notification. Lines that cannot be parsed *for any reason* (not JSON, nested too deep for the
  parser, not an object) or fit none of the three are ignored: counted in
  :attr:`JsonRpcLineTransport.malformed_lines` and logged at debug level, never fatal. A
  notification handler that raises is logged and counted in
  :attr:`JsonRpcLineTransport.handler_errors`; reading goes on.
- Incoming requests run concurrently, each in its own task: a request without a registered handler
  is answered ``-32601``; a handler that raises is answered ``-32603`` with the error text; a handler
  that raises :class:`NoResponse` is not answered at all (the peer cancelled the request).
- An error response rejects its pending request with a :class:`~dsh_notebook.errors.JsonRpcError`
  (the most specific subclass for its message) carrying ``code``, ``message`` and ``data``; it and
  :class:`~dsh_notebook.errors.RequestTimeout` carry ``stderr_tail`` from ``diagnostics``.
- Writes are serialized by a lock and each frame is one ``send`` call: frames never interleave.

Ordering guarantee: frames are handled in arrival order. Notifications are delivered synchronously by
the read loop, so every notification that arrived before a response has been delivered before the
coroutine awaiting that response resumes.

Concurrency: every method must be called from the event loop that runs :meth:`run`; nothing here is
thread-safe. Cancellation: cancelling a caller of :meth:`request` forgets the pending entry (a late
response is dropped); cancelling :meth:`run` closes the transport.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup

from .errors import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    RequestTimeout,
    TransportClosed,
    classify_rpc_error,
)
from .protocol.notifications import Notification

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "JsonRpcLineTransport",
    "NoResponse",
    "NotificationHandler",
    "RequestHandler",
]

log = logging.getLogger(__name__)

_loads: Callable[[bytes], Any]
try:  # a C parser roughly halves the per-frame cost; the stdlib is the fallback
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _loads = json.loads

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
_intern = sys.intern

RequestHandler = Callable[[dict[str, Any], Any], Awaitable[Any]]
"""``async handler(params, request_id) -> result`` (a JSON value or an object with ``to_wire()``)."""
NotificationHandler = Callable[[Notification], None]
"""Called synchronously on the read loop, in arrival order. Must not block."""


class NoResponse(Exception):
    """Raised by a request handler to send no response (the peer withdrew the request)."""


class _Pending:
    __slots__ = ("done", "error", "method", "result")

    def __init__(self, method: str) -> None:
        self.method = method
        self.done = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None


def _encode(frame: dict[str, Any]) -> bytes:
    return (json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


class JsonRpcLineTransport:
    """A JSON-RPC 2.0 peer over a byte stream pair. Start it with ``tg.start_soon(t.run)``.

    ``close()`` fails every pending request with :class:`TransportClosed` and stops reading; it
    does not close the streams, which belong to the caller.
    """

    def __init__(
        self,
        receive: ByteReceiveStream,
        send: ByteSendStream,
        *,
        on_notification: NotificationHandler | None = None,
        id_prefix: str = "c",
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        diagnostics: Callable[[], str] | None = None,
    ) -> None:
        self._receive = receive
        self._send = send
        self._on_notification = on_notification
        self._handlers: dict[str, RequestHandler] = {}
        self._pending: dict[str, _Pending] = {}
        self._ids = count(1)
        self._id_prefix = id_prefix
        self._write_lock = anyio.Lock()
        self._closed: TransportClosed | None = None
        self._closed_event = anyio.Event()
        self._task_group: TaskGroup | None = None
        self._max_line = max_line_bytes
        self._diagnostics = diagnostics
        self._on_eof: Callable[[], Awaitable[TransportClosed]] | None = None
        self.malformed_lines = 0
        self.handler_errors = 0

    # -- configuration -------------------------------------------------------------------------

    def set_request_handler(self, method: str, handler: RequestHandler | None) -> None:
        """Register (or with ``None`` remove) the handler for incoming requests of ``method``."""
        if handler is None:
            self._handlers.pop(method, None)
        else:
            self._handlers[method] = handler

    def stderr_tail(self) -> str:
        """What ``diagnostics`` reports now (the runtime's bounded stderr tail), else ``""``."""
        if self._diagnostics is None:
            return ""
        try:
            return self._diagnostics()
        except Exception:  # diagnostics must never replace the real error
            return ""

    @property
    def closed(self) -> TransportClosed | None:
        """The error pending and future requests fail with, once closed; else ``None``."""
        return self._closed

    async def wait_closed(self) -> None:
        await self._closed_event.wait()

    # -- reading -------------------------------------------------------------------------------

    async def run(self, *, on_eof: Callable[[], Awaitable[TransportClosed]] | None = None) -> None:
        """Read and dispatch frames until EOF, a read error, or :meth:`close`.

        On EOF the transport closes with the error ``on_eof`` produces (default: a plain
        :class:`TransportClosed`); pending requests stay pending until then, so they fail with the
        richer error (e.g. the runtime's exit status). A write that fails because the peer is gone
        closes it with that same error, not a poorer one: the EOF may lag the failed write. Never raises on bad input; an unexpected
        error of the stream closes the transport with a :class:`TransportClosed` naming it.
        """
        self._on_eof = on_eof
        async with anyio.create_task_group() as tg:
            self._task_group = tg
            try:
                await self._read_loop()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            except Exception as exc:  # an unexpected stream error: fail pending work, typed
                self.close(
                    TransportClosed(
                        f"reading from the runtime failed ({type(exc).__name__}: {exc})",
                        stderr_tail=self.stderr_tail(),
                    )
                )
            if self._closed is None:
                self.close(await on_eof() if on_eof is not None else TransportClosed())
            tg.cancel_scope.cancel()

    async def _read_loop(self) -> None:
        partial = bytearray()  # the unfinished line: appended in place, linear in its length
        receive = self._receive.receive
        dispatch = self._dispatch_line
        limit = self._max_line
        while self._closed is None:
            try:
                chunk = await receive()
            except anyio.EndOfStream:
                if partial.strip():
                    dispatch(bytes(partial))
                return
            if b"\n" not in chunk:
                partial += chunk
                if len(partial) > limit:
                    self._too_long(len(partial))
                    return
                continue
            if partial:
                partial += chunk
                data = bytes(partial)
                partial.clear()
            else:
                data = chunk
            lines = data.split(b"\n")
            partial += lines.pop()
            for line in lines:
                if len(line) > limit:
                    self._too_long(len(line))
                    return
                dispatch(line)
                if self._closed is not None:
                    return
            if len(partial) > limit:
                self._too_long(len(partial))
                return

    def _too_long(self, size: int) -> None:
        self.close(
            TransportClosed(
                f"the runtime sent a line of more than {self._max_line} bytes (at least {size}) "
                "without a newline; the transport is closed. A broken or hostile runtime, or "
                "raise max_line_bytes if frames this large are expected",
                stderr_tail=self.stderr_tail(),
            )
        )

    def _malformed(self, line: bytes, why: str) -> None:
        self.malformed_lines += 1
        log.debug("ignored malformed line (%s): %.200r", why, line)

    def _dispatch_line(self, line: bytes) -> None:
        try:
            frame = _loads(line)
        except Exception:  # ValueError, and e.g. orjson's depth limit
            if not line.strip():
                return
            try:  # what the fast parser refuses (e.g. integers past 64 bits) the stdlib may take
                frame = json.loads(line)
            except Exception:  # ValueError, RecursionError (deep nesting)
                self._malformed(line, "not parseable JSON")
                return
        if type(frame) is not dict:
            self._malformed(line, "not an object")
            return
        method = frame.get("method")
        frame_id = frame.get("id")
        has_id = type(frame_id) is str or type(frame_id) is int  # null, bool, float: no id
        if type(method) is str:
            params = frame.get("params")
            if type(params) is not dict:
                params = {}
            if has_id:
                self._start_request(frame_id, method, params)
                return
            on_notification = self._on_notification
            if on_notification is None:
                return
            # Share the repeated strings in place (values unchanged), inline: this is the
            # per-frame path, thousands a second while a run streams. Kept notifications of a
            # session then share their method, session id and event type instead of a copy
            # each; sys.intern keeps one object per distinct short string for as long as
            # something uses it, so a peer sending ever new strings grows nothing.
            sid = params.get("sessionId")
            if type(sid) is str and len(sid) <= 64:
                params["sessionId"] = _intern(sid)
            event = params.get("event")
            if type(event) is dict:
                etype = event.get("type")
                if type(etype) is str and len(etype) <= 64:
                    event["type"] = _intern(etype)
            if len(method) <= 64:
                method = _intern(method)
            try:
                on_notification(Notification(method, params))
            except Exception as exc:  # a consumer bug must not kill the transport
                self.handler_errors += 1
                log.warning("notification handler failed on %s: %r", method, exc)
            return
        if has_id and ("result" in frame or "error" in frame):
            self._resolve(frame)
            return
        self._malformed(line, "neither request, response nor notification")

    def _resolve(self, frame: dict[str, Any]) -> None:
        pending = self._pending.pop(str(frame["id"]), None)
        if pending is None:
            log.debug("dropped response with unknown id %r", frame["id"])
            return
        error = frame.get("error")
        if error is not None:
            if not isinstance(error, dict):
                error = {}
            code = error.get("code")
            message = error.get("message")
            pending.error = classify_rpc_error(
                code if isinstance(code, int) else INTERNAL_ERROR,
                message if isinstance(message, str) else "error response without a message",
                error.get("data"),
                method=pending.method,
                stderr_tail=self.stderr_tail(),
            )
        else:
            pending.result = frame.get("result")
        pending.done.set()

    # -- incoming requests ---------------------------------------------------------------------

    def _start_request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if self._task_group is None:  # pragma: no cover - run() sets it before reading
            return
        self._task_group.start_soon(self._serve_request, request_id, method, params)

    async def _serve_request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        handler = self._handlers.get(method)
        if handler is None:
            await self._write_safely(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": METHOD_NOT_FOUND, "message": f"method not found: {method}"},
                }
            )
            return
        try:
            result = await handler(params, request_id)
        except NoResponse:
            return
        except Exception as exc:
            log.warning("handler for %s failed: %s", method, exc)
            await self._write_safely(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": INTERNAL_ERROR, "message": str(exc) or type(exc).__name__},
                }
            )
            return
        if hasattr(result, "to_wire"):
            result = result.to_wire()
        await self._write_safely({"jsonrpc": "2.0", "id": request_id, "result": result})

    # -- writing -------------------------------------------------------------------------------

    async def _write(self, frame: dict[str, Any]) -> None:
        if self._closed is not None:
            raise self._closed
        data = _encode(frame)
        async with self._write_lock:
            try:
                await self._send.send(data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
                error: TransportClosed | None = None
                if self._on_eof is not None and self._closed is None:
                    # the peer is gone; its end of the story (exit status, stderr) is what the
                    # read loop would report at EOF, which may lag the failed write a little
                    try:
                        error = await self._on_eof()
                    except Exception:  # never let the diagnosis hide the failure
                        error = None
                self.close(
                    error
                    or TransportClosed(
                        f"writing to the runtime failed: {exc}", stderr_tail=self.stderr_tail()
                    )
                )
                raise self._closed from exc  # type: ignore[misc]

    async def _write_safely(self, frame: dict[str, Any]) -> None:
        try:
            await self._write(frame)
        except TransportClosed:
            log.debug("response not sent: transport closed")

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        await self._write(frame)

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> Any:
        """Send a request and return its ``result``.

        Raises :class:`JsonRpcError` (or a subclass) for an error response,
        :class:`RequestTimeout` when ``timeout`` elapses (the entry is forgotten; a late response is
        dropped), and :class:`TransportClosed` when the transport closes first.
        """
        if self._closed is not None:
            raise self._closed
        request_id = f"{self._id_prefix}{next(self._ids)}"
        pending = _Pending(method)
        self._pending[request_id] = pending
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        try:
            await self._write(frame)
            if timeout is None:
                await pending.done.wait()
            else:
                try:
                    with anyio.fail_after(timeout):
                        await pending.done.wait()
                except TimeoutError:
                    raise RequestTimeout(method, timeout, stderr_tail=self.stderr_tail()) from None
        finally:
            self._pending.pop(request_id, None)
        if pending.error is not None:
            raise pending.error
        return pending.result

    # -- closing -------------------------------------------------------------------------------

    def close(self, error: TransportClosed | None = None) -> None:
        """Stop reading and fail every pending request. Idempotent; the first error wins."""
        if self._closed is not None:
            return
        self._closed = error if error is not None else TransportClosed()
        for pending in self._pending.values():
            pending.error = self._closed
            pending.done.set()
        self._pending.clear()
        self._closed_event.set()
        if self._task_group is not None:
            self._task_group.cancel_scope.cancel()
