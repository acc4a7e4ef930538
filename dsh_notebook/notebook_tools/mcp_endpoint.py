"""The notebook tools' MCP endpoint: JSON-RPC 2.0 over streamable HTTP, one POST in, one reply out.

:class:`McpEndpoint` is an ASGI app serving one MCP server (a name, instructions, a tool list and
a call handler) without sessions, every reply ``application/json``: what the official SDK's
low-level ``Server`` serves with ``streamable_http_app(json_response=True, stateless_http=True,
host="127.0.0.1")``, the server it replaced, without importing the SDK (about half a second of
CPU and 37 MiB in every kernel's first prompt). ``tests/test_mcp_endpoint.py`` sends the same
requests to both and compares the replies.

Every request, in this order (the first failure answers):

1. the path is ``/mcp`` (else ``404``); a body over 4 MiB is ``413``;
2. DNS-rebinding protection: a POST's ``Content-Type`` is JSON (``400``); ``Host`` is
   ``127.0.0.1``, ``localhost`` or ``[::1]`` with a port (``421``); an ``Origin``, when sent, is
   ``http://`` one of those (``403``);
3. the ``MCP-Protocol-Version`` header picks the generation, as the SDK does: a handshake version
   (``2024-11-05`` … ``2025-11-25``) or none is served as below under *handshake*; anything else
   under *2026-07-28*.

**2026-07-28** (what the runtime speaks). POST only (``405``), ``Accept`` admits JSON (``406``).
The body is one JSON-RPC request; its ``params._meta`` carries the protocol version and client
capabilities, and the ``Mcp-Method`` (and for ``tools/call`` ``Mcp-Name``) headers repeat the
body. Methods: ``server/discover``, ``tools/list``, ``tools/call``. Results carry
``resultType: "complete"`` and the ``serverInfo`` stamp in ``_meta``; discovery and the tool list
are ``cacheScope: "private"``, ``ttlMs: 0``. A notification is acknowledged ``202``. Errors are
JSON-RPC errors with the spec's HTTP status: ``400`` for a parse error, an invalid body or
params, a header that disagrees with the body and an unsupported version; ``404`` for an unknown
method.

**Handshake versions**, each request on its own (nothing is remembered between requests, so
``tools/call`` needs no ``initialize`` first): ``initialize`` (answers the requested version if
it is a handshake version, else ``2025-11-25``), ``ping``, ``tools/list``, ``tools/call``.
Notifications and posted responses are acknowledged ``202``. JSON-RPC errors are HTTP ``200``,
except a body that cannot be parsed or is no JSON-RPC message (``400``).

Where this differs from the SDK, no conforming client goes: a GET is ``405`` (the SDK's
stateless path holds an event stream open on which nothing is ever sent); a malformed body's
message is one line of ours, not pydantic's; a spec method this server does not serve is
"Method not found" whatever its params; ``Mcp-Param-*`` headers are not read (no tool here
declares one, so the SDK reads none either).

Guarantees: handlers run on the server's event loop, in the request's own task, one call each;
a handler that raises gives JSON-RPC ``-32603`` "Internal error" (only its exception's type is
logged, nothing of it sent); the reply is written only after the handler returned. JSON is written ASCII-only, so any
text (a lone surrogate included) can be sent.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .mcp_shapes import Tool, ToolResult

__all__ = [
    "ASGIApp",
    "HANDSHAKE_VERSIONS",
    "MODERN_VERSION",
    "McpEndpoint",
    "Receive",
    "Scope",
    "Send",
]

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MODERN_VERSION: Final = "2026-07-28"
HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PATH: Final = "/mcp"
MAX_BODY: Final = 4 * 1024 * 1024

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
HEADER_MISMATCH: Final = -32020
UNSUPPORTED_VERSION: Final = -32022

_STATUS: Final = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    UNSUPPORTED_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}
"""The 2026-07-28 HTTP status of a JSON-RPC error code (others: 200)."""

_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
_SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
_ROUTING_HEADERS: Final = ("mcp-protocol-version", "mcp-method", "mcp-name")
_ALLOWED_HOSTS: Final = ("127.0.0.1", "localhost", "[::1]")
_B64_SENTINEL: Final = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")
_INVALID_BODY: Final = "Body must be a single JSON-RPC request or notification object"
_INVALID_PARAMS: Final = "Invalid request parameters"
_CAPABILITIES: Final = {"tools": {"listChanged": False}}

ListTools = Callable[[], Sequence[Tool]]
CallTool = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]


class _Reply(Exception):
    """A JSON-RPC error to answer with (raised by the checks, caught once per request)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def _invalid_params() -> _Reply:
    return _Reply(INVALID_PARAMS, _INVALID_PARAMS, "")


def _not_found(method: str) -> _Reply:
    return _Reply(METHOD_NOT_FOUND, "Method not found", method)


@dataclass(frozen=True)
class _Request:
    method: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (lower case), as Starlette reads it for the SDK."""
        return next((value for key, value in self.headers if key == name), None)


class McpEndpoint:
    """The ASGI app (see the module's guarantees). ``list_tools`` is read at each listing;
    ``call_tool(name, arguments)`` answers each ``tools/call``."""

    def __init__(
        self,
        name: str,
        *,
        version: str,
        instructions: str,
        list_tools: ListTools,
        call_tool: CallTool,
    ) -> None:
        self._info = {"name": name, "version": version}
        self._instructions = instructions
        self._list_tools = list_tools
        self._call_tool = call_tool

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = tuple(
            (bytes(k).decode("latin-1").lower(), bytes(v).decode("latin-1"))
            for k, v in scope.get("headers", ())
        )
        if scope.get("path") != PATH:
            await _respond(send, 404, b"Not Found", "text/plain; charset=utf-8")
            return
        body = await _read_body(headers, receive)
        if body is None:
            await _respond(send, 413, b"Request body too large", None)
            return
        request = _Request(str(scope.get("method", "")).upper(), headers, body)
        refused = _transport_refusal(request)
        if refused is not None:
            status, text = refused
            await _respond(send, status, text.encode(), None)
            return
        version = request.header("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            await self._modern(request, send)
        else:
            await self._handshake(request, version, send)

    # -- 2026-07-28 ------------------------------------------------------------------------------

    async def _modern(self, request: _Request, send: Send) -> None:
        if request.method != "POST":
            await _respond(send, 405, b"", None, extra=((b"allow", b"POST"),))
            return
        if not _accepts_json(request.header("accept")):
            await _respond(send, 406, b"", None)
            return
        try:
            decoded = json.loads(request.body)
        except (ValueError, RecursionError):
            await _error_reply(send, None, _Reply(PARSE_ERROR, "Parse error"), modern=True)
            return
        if isinstance(decoded, dict) and "id" not in decoded:
            if not _is_notification(decoded):
                await _error_reply(send, None, _Reply(INVALID_REQUEST, _INVALID_BODY), True)
                return
            version = request.header("mcp-protocol-version") or ""
            if version != MODERN_VERSION:
                await _error_reply(send, None, _unsupported(version), modern=True)
                return
            await _respond(send, 202, b"", None)
            return
        if not _is_request(decoded):
            await _error_reply(send, None, _Reply(INVALID_REQUEST, _INVALID_BODY), modern=True)
            return
        ident = decoded["id"]
        try:
            _check_envelope(decoded, request)
            result = await self._serve_modern(decoded["method"], decoded.get("params"))
        except _Reply as reply:
            await _error_reply(send, ident, reply, modern=True)
            return
        await _json(send, 200, {"jsonrpc": "2.0", "id": ident, "result": result})

    async def _serve_modern(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        stamp = {"_meta": {_SERVER_INFO_KEY: dict(self._info)}}
        if method == "server/discover":
            return {
                "supportedVersions": [MODERN_VERSION],
                "capabilities": _CAPABILITIES,
                "instructions": self._instructions,
                "ttlMs": 0,
                "cacheScope": "private",
                "resultType": "complete",
                **stamp,
            }
        if method == "tools/list":
            return {**await self._tools(params), "ttlMs": 0, "cacheScope": "private",
                    "resultType": "complete", **stamp}  # fmt: skip
        if method == "tools/call":
            return {**await self._call(params), "resultType": "complete", **stamp}
        raise _not_found(method)

    # -- handshake versions ----------------------------------------------------------------------

    async def _handshake(self, request: _Request, version: str | None, send: Send) -> None:
        if request.method != "POST":
            reply = _Reply(INVALID_REQUEST, "Method Not Allowed")
            await _error_reply(send, None, reply, modern=False, status=405,
                               extra=((b"allow", b"POST"),))  # fmt: skip
            return
        if not _accepts_json(request.header("accept")):
            reply = _Reply(INVALID_REQUEST, "Not Acceptable: Client must accept application/json")
            await _error_reply(send, None, reply, modern=False, status=406)
            return
        content_type = (request.header("content-type") or "").split(";")[0]
        if "application/json" not in (part.strip() for part in content_type.split(",")):
            message = "Unsupported Media Type: Content-Type must be application/json"
            await _error_reply(send, None, _Reply(INVALID_REQUEST, message), False, status=415)
            return
        try:
            decoded = json.loads(request.body)
        except (ValueError, RecursionError) as exc:
            reply = _Reply(PARSE_ERROR, f"Parse error: {exc}")
            await _error_reply(send, None, reply, modern=False, status=400)
            return
        if _is_request(decoded):
            ident = decoded["id"]
            try:
                result = await self._serve_handshake(decoded["method"], decoded.get("params"))
            except _Reply as reply:
                await _error_reply(send, ident, reply, modern=False)
                return
            await _json(send, 200, {"jsonrpc": "2.0", "id": ident, "result": result})
        elif _is_notification(decoded) or _is_response(decoded):
            await _respond(send, 202, b"", "application/json")
        else:
            message = "Validation error: the body is not one JSON-RPC 2.0 message"
            await _error_reply(send, None, _Reply(INVALID_PARAMS, message), False, status=400)

    async def _serve_handshake(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        if params is not None and not isinstance(params.get("_meta", {}), dict):
            raise _invalid_params()
        if method == "initialize":
            requested = _initialize_version(params)
            return {
                "protocolVersion": requested if requested in HANDSHAKE_VERSIONS
                else HANDSHAKE_VERSIONS[-1],
                "capabilities": _CAPABILITIES,
                "serverInfo": dict(self._info),
                "instructions": self._instructions,
            }  # fmt: skip
        if method == "ping":
            return {}
        if method == "tools/list":
            return await self._tools(params or {})
        if method == "tools/call":
            return await self._call(params)
        raise _not_found(method)

    # -- the two tool methods --------------------------------------------------------------------

    async def _tools(self, params: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(params.get("cursor", ""), str):
            raise _invalid_params()
        return {"tools": [tool.wire() for tool in self._list_tools()]}

    async def _call(self, params: dict[str, Any] | None) -> dict[str, Any]:
        if params is None or not isinstance(params.get("name"), str):
            raise _invalid_params()
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise _invalid_params()
        try:
            result = await self._call_tool(params["name"], dict(arguments or {}))
        except Exception as exc:  # its type only: the text (or the name) could hold a secret
            log.error("a notebook tool call failed: %s", type(exc).__name__)
            raise _Reply(INTERNAL_ERROR, "Internal error") from None
        return result.wire()


# -- checks ----------------------------------------------------------------------------------------


def _transport_refusal(request: _Request) -> tuple[int, str] | None:
    """DNS-rebinding protection (and a POST's JSON content type), as the SDK checks them."""
    if request.method == "POST":
        content_type = request.header("content-type")
        if content_type is None or not content_type.lower().startswith("application/json"):
            return 400, "Invalid Content-Type header"
    host = request.header("host")
    if not host or not any(host.startswith(f"{allowed}:") for allowed in _ALLOWED_HOSTS):
        return 421, "Invalid Host header"
    origin = request.header("origin")
    if origin and not any(origin.startswith(f"http://{allowed}:") for allowed in _ALLOWED_HOSTS):
        return 403, "Invalid Origin header"
    return None


def _accepts_json(accept: str | None) -> bool:
    types = [part.split(";")[0].strip().lower() for part in (accept or "").split(",")]
    return any(t in ("*/*", "application/json", "application/*") for t in types)


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _is_notification(body: Any) -> bool:
    """A JSON-RPC 2.0 call by its shape (a method, params an object if any), whatever its
    ``id``: the SDK takes a call whose ``id`` is malformed for a notification too."""
    return (
        isinstance(body, dict)
        and body.get("jsonrpc") == "2.0"
        and isinstance(body.get("method"), str)
        and isinstance(body.get("params", {}), dict | None)
    )


def _is_request(body: Any) -> bool:
    return _is_notification(body) and _is_id(body.get("id"))


def _is_response(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and body.get("jsonrpc") == "2.0"
        and ("result" in body or "error" in body)
        and (_is_id(body.get("id")) or body.get("id") is None)
    )


def _check_envelope(body: dict[str, Any], request: _Request) -> None:
    """The 2026-07-28 ladder: routing headers once each, the envelope in ``params._meta``, the
    headers equal to the body, a supported version (the first failure raises)."""
    seen: set[str] = set()
    for key, _ in request.headers:
        if key in _ROUTING_HEADERS:
            if key in seen:
                raise _Reply(HEADER_MISMATCH, f"{key} header appears more than once")
            seen.add(key)
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        raise _Reply(
            INVALID_PARAMS,
            "params._meta must be an object carrying the required "
            f"{_VERSION_KEY!r} and {_CAPABILITIES_KEY!r} envelope keys",
        )
    missing = [key for key in (_VERSION_KEY, _CAPABILITIES_KEY) if key not in meta]
    if missing:
        raise _Reply(
            INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    version = meta[_VERSION_KEY]
    if request.header("mcp-protocol-version") != version:
        raise _Reply(
            HEADER_MISMATCH,
            "mcp-protocol-version header does not match the request envelope's protocol version",
        )
    if request.header("mcp-method") != body["method"]:
        raise _Reply(HEADER_MISMATCH, "mcp-method header does not match the request body's method")
    assert isinstance(params, dict)
    name = params.get("name") if body["method"] == "tools/call" else None
    if name is not None and _decode_header(request.header("mcp-name")) != name:
        raise _Reply(
            HEADER_MISMATCH, "mcp-name header does not match the request body's 'name' parameter"
        )
    if version != MODERN_VERSION:
        raise _unsupported(version)


def _unsupported(requested: str) -> _Reply:
    data = {"supported": [MODERN_VERSION], "requested": requested}
    return _Reply(UNSUPPORTED_VERSION, "Unsupported protocol version", data)


def _initialize_version(params: dict[str, Any] | None) -> str:
    """The requested version of a well-formed ``initialize`` (else the invalid-params error)."""
    if params is None:
        raise _invalid_params()
    version, capabilities, info = (
        params.get("protocolVersion"), params.get("capabilities"), params.get("clientInfo"),
    )  # fmt: skip
    if not (
        isinstance(version, str)
        and isinstance(capabilities, dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    ):
        raise _invalid_params()
    return version


def _decode_header(value: str | None) -> str | None:
    """A header value, its ``=?base64?…?=`` form decoded (``None`` when that form is corrupt)."""
    if value is None:
        return None
    found = _B64_SENTINEL.fullmatch(value)
    if found is None:
        return value
    payload = found.group("payload")
    try:
        decoded = base64.b64decode(payload, validate=True)
        if base64.b64encode(decoded).decode("ascii") != payload:
            return None
        return decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


# -- ASGI ------------------------------------------------------------------------------------------


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _read_body(headers: Iterable[tuple[str, str]], receive: Receive) -> bytes | None:
    """The request's body, or ``None`` when it is (or says it is) over :data:`MAX_BODY`."""
    for key, value in headers:
        if key == "content-length" and value.strip().isdigit() and int(value) > MAX_BODY:
            return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: str | None,
    extra: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    headers = [(b"content-length", str(len(body)).encode())]
    if content_type is not None:
        headers.append((b"content-type", content_type.encode()))
    headers.extend(extra)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(
    send: Send, status: int, message: Mapping[str, Any],
    extra: Sequence[tuple[bytes, bytes]] = (),
) -> None:  # fmt: skip
    body = json.dumps(message, separators=(",", ":")).encode("ascii")
    await _respond(send, status, body, "application/json", extra)


async def _error_reply(
    send: Send,
    ident: Any,
    reply: _Reply,
    modern: bool,
    *,
    status: int | None = None,
    extra: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    """A JSON-RPC error (``id`` null when the request's could not be read); its HTTP status is
    ``status``, else the 2026-07-28 table's (``modern``) or 200."""
    if status is None:
        status = _STATUS.get(reply.code, 200) if modern else 200
    message = {"jsonrpc": "2.0", "id": ident, "error": reply.error()}
    await _json(send, status, message, extra)
