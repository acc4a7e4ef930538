"""The notebook tools' own MCP endpoint against the official SDK's server, request by request.

Each request goes to two servers over the same shell: ours (:class:`NotebookMcpServer`, whose
protocol layer is :mod:`dsh_notebook.notebook_tools.mcp_endpoint`) and the SDK's
(:class:`~.helpers.sdk_oracle.SdkNotebookServer`: the same handlers, served by ``mcp``'s
low-level ``Server`` as before). The HTTP status, content type, ``Allow`` header and JSON body
must be equal; the module's documented differences are checked as documented. The table covers
what the runtime sends (MCP 2026-07-28: ``server/discover``, ``tools/list``, ``tools/call`` with
the envelope and routing headers), the handshake versions older clients send, and every way a
request can be refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import mcp_types as mt
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.mcp_endpoint import McpEndpoint
from dsh_notebook.notebook_tools.mcp_shapes import ImageBlock, TextBlock, Tool, ToolResult
from dsh_notebook.notebook_tools.schemas import tool_definitions
from dsh_notebook.notebook_tools.server import NotebookMcpServer

from .helpers.mcp_tools import run_cells
from .helpers.sdk_oracle import SdkNotebookServer

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "dsh-mcp-client", "version": "0.0.1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
OLD = {**ACCEPT, "mcp-protocol-version": "2025-06-18"}


@dataclass(frozen=True)
class Case:
    name: str
    body: Any = None
    headers: Sequence[tuple[str, str]] = ()
    method: str = "POST"
    path: str = "/mcp"
    raw: bytes | None = None
    same: str = "all"
    """What must be equal: ``all``, or ``error`` (status and JSON-RPC error code only)."""
    extra: dict[str, str] = field(default_factory=dict)


def modern(method: str, params: dict[str, Any] | None = None, ident: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": {**(params or {}), "_meta": META}}


def routed(method: str, name: str | None = None, version: str = MODERN) -> list[tuple[str, str]]:
    headers = [*ACCEPT.items(), ("mcp-protocol-version", version), ("mcp-method", method)]
    return [*headers, ("mcp-name", name)] if name is not None else headers


def swap(headers: Sequence[tuple[str, str]], key: str, value: str) -> list[tuple[str, str]]:
    return [*((k, v) for k, v in headers if k != key), (key, value)]


def old(method: str, params: Any = None, ident: Any = 1) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": ident, "method": method}
    return body if params is None else {**body, "params": params}


CALL = "tools/call"
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
CASES = [
    # 2026-07-28, as the runtime sends it
    Case("discover", modern("server/discover"), routed("server/discover")),
    Case("list", modern("tools/list"), routed("tools/list")),
    Case("call", modern(CALL, {"name": "notebook_history", "arguments": {"n": 2}}), routed(CALL, "notebook_history")),
    Case("call, no arguments", modern(CALL, {"name": "notebook_variables"}), routed(CALL, "notebook_variables")),
    Case("call, null arguments", modern(CALL, {"name": "notebook_variables", "arguments": None}), routed(CALL, "notebook_variables")),
    Case("call, non-ASCII result", modern(CALL, {"name": "describe_variable", "arguments": {"name": "word"}}), routed(CALL, "describe_variable")),
    Case("call, not approved", modern(CALL, {"name": "run_python", "arguments": {"code": "1"}}), routed(CALL, "run_python")),
    Case("call, unknown tool", modern(CALL, {"name": "nope", "arguments": {}}), routed(CALL, "nope")),
    Case("call, base64 name header", modern(CALL, {"name": "notebook_history"}), routed(CALL, "=?base64?bm90ZWJvb2tfaGlzdG9yeQ==?=")),
    Case("call, corrupt base64 name header", modern(CALL, {"name": "notebook_history"}), routed(CALL, "=?base64?bm90Z?=")),
    Case("call, arguments a list", modern(CALL, {"name": "notebook_history", "arguments": [1]}), routed(CALL, "notebook_history")),
    Case("call, no name", modern(CALL, {"arguments": {}}), routed(CALL)),
    Case("call, name a number", modern(CALL, {"name": 3}), routed(CALL, "3")),
    Case("call, wrong argument type", modern(CALL, {"name": "notebook_history", "arguments": {"n": "x"}}), routed(CALL, "notebook_history")),
    Case("call, name header differs", modern(CALL, {"name": "notebook_history"}), routed(CALL, "other")),
    Case("call, name header missing", modern(CALL, {"name": "notebook_history"}), routed(CALL)),
    Case("list, cursor", modern("tools/list", {"cursor": "x"}), routed("tools/list")),
    Case("list, cursor a number", modern("tools/list", {"cursor": 5}), routed("tools/list")),
    Case("unknown method", modern("foo/bar"), routed("foo/bar")),
    Case("ping", modern("ping"), routed("ping")),
    Case("initialize", modern("initialize", INIT), routed("initialize")),
    Case("method header differs", modern("tools/list"), routed("server/discover")),
    Case("method header missing", modern("tools/list"), [*ACCEPT.items(), ("mcp-protocol-version", MODERN)]),
    Case("method header twice", modern("tools/list"), [*routed("tools/list"), ("mcp-method", "tools/list")]),
    Case("no _meta", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, routed("tools/list")),
    Case("no params", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, routed("tools/list")),
    Case("_meta without capabilities", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}}, routed("tools/list")),
    Case("version header differs", modern("tools/list"), routed("tools/list", version="2026-07-29")),
    Case("unsupported version", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}, routed("tools/list", version="2099-01-01")),
    Case("notification", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, routed("notifications/cancelled")),
    Case("notification, unsupported version", {"jsonrpc": "2.0", "method": "notifications/cancelled"}, routed("notifications/cancelled", version="2099-01-01")),
    Case("notification, params a list", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]}, routed("notifications/cancelled")),
    Case("parse error", raw=b"{nope", headers=routed("tools/list")),
    Case("batch", [modern("tools/list")], routed("tools/list")),
    Case("posted response", {"jsonrpc": "2.0", "id": 1, "result": {}}, routed("tools/list")),
    Case("string id", modern("tools/list", ident="abc"), routed("tools/list")),
    Case("null id", modern("tools/list", ident=None), routed("tools/list")),
    Case("boolean id", modern("tools/list", ident=True), routed("tools/list")),
    Case("float id", modern("tools/list", ident=1.5), routed("tools/list")),
    Case("no jsonrpc member", {"id": 1, "method": "tools/list", "params": {"_meta": META}}, routed("tools/list")),
    Case("GET", method="GET", headers=routed("tools/list")),
    Case("DELETE", method="DELETE", headers=routed("tools/list")),
    Case("accepts only event streams", modern("tools/list"), swap(routed("tools/list"), "accept", "text/event-stream")),
    Case("accepts only JSON", modern("tools/list"), swap(routed("tools/list"), "accept", "application/json")),
    Case("accepts anything", modern("tools/list"), swap(routed("tools/list"), "accept", "*/*")),
    Case("content type text", modern("tools/list"), swap(routed("tools/list"), "content-type", "text/plain")),
    Case("content type with charset", modern("tools/list"), swap(routed("tools/list"), "content-type", "application/json; charset=utf-8")),
    Case("foreign host", modern("tools/list"), swap(routed("tools/list"), "host", "evil.example:80")),
    Case("foreign origin", modern("tools/list"), swap(routed("tools/list"), "origin", "http://evil.example")),
    Case("local origin", modern("tools/list"), swap(routed("tools/list"), "origin", "http://localhost:9")),
    Case("other path", modern("tools/list"), routed("tools/list"), path="/other"),
    Case("body over 4 MiB", modern(CALL, {"name": "run_python", "arguments": {"code": "x" * (4 * 1024 * 1024)}}), routed(CALL, "run_python")),
    # the handshake versions, one request at a time
    Case("handshake: initialize", old("initialize", INIT), list(ACCEPT.items())),
    Case("handshake: initialize 2024-11-05", old("initialize", {**INIT, "protocolVersion": "2024-11-05"}), list(ACCEPT.items())),
    Case("handshake: initialize, unknown version", old("initialize", {**INIT, "protocolVersion": "2099-01-01"}), list(ACCEPT.items())),
    Case("handshake: initialize, 2026-07-28", old("initialize", {**INIT, "protocolVersion": MODERN}), list(ACCEPT.items())),
    Case("handshake: initialize, bad params", old("initialize", {}), list(ACCEPT.items())),
    Case("handshake: initialize, client info without version", old("initialize", {**INIT, "clientInfo": {"name": "t"}}), list(ACCEPT.items())),
    Case("handshake: initialized", {"jsonrpc": "2.0", "method": "notifications/initialized"}, list(OLD.items())),
    Case("handshake: list", old("tools/list", {}), list(OLD.items())),
    Case("handshake: list, no params", old("tools/list"), list(OLD.items())),
    Case("handshake: list, no version header", old("tools/list", {}), list(ACCEPT.items())),
    Case("handshake: list, 2025-11-25", old("tools/list", {}), [*ACCEPT.items(), ("mcp-protocol-version", "2025-11-25")]),
    Case("handshake: list, 2024-11-05", old("tools/list", {}), [*ACCEPT.items(), ("mcp-protocol-version", "2024-11-05")]),
    Case("handshake: list, unknown version", old("tools/list", {}), [*ACCEPT.items(), ("mcp-protocol-version", "1999-01-01")]),
    Case("handshake: list, cursor a number", old("tools/list", {"cursor": 1}), list(OLD.items())),
    Case("handshake: call", old(CALL, {"name": "notebook_history", "arguments": {"n": 1}}), list(OLD.items())),
    Case("handshake: call, unknown tool", old(CALL, {"name": "zzz", "arguments": {}}), list(OLD.items())),
    Case("handshake: call, no name", old(CALL, {}), list(OLD.items())),
    Case("handshake: call, no params", old(CALL), list(OLD.items())),
    Case("handshake: call, arguments a list", old(CALL, {"name": "notebook_history", "arguments": [1]}), list(OLD.items())),
    Case("handshake: call, _meta a number", old(CALL, {"name": "notebook_history", "_meta": 5}), list(OLD.items())),
    Case("handshake: ping", old("ping"), list(OLD.items())),
    Case("handshake: unknown method", old("foo/bar", {}), list(OLD.items())),
    Case("handshake: server/discover", old("server/discover", {}), list(OLD.items())),
    Case("handshake: resources/list", old("resources/list", {}), list(OLD.items())),
    Case("handshake: string id", old("ping", ident="p"), list(OLD.items())),
    Case("handshake: posted response", {"jsonrpc": "2.0", "id": 2, "result": {}}, list(OLD.items())),
    Case("handshake: posted error", {"jsonrpc": "2.0", "id": 2, "error": {"code": 1, "message": "x"}}, list(OLD.items())),
    Case("handshake: session id header", old("tools/list"), [*OLD.items(), ("mcp-session-id", "abc")]),
    Case("handshake: accepts only JSON", old("tools/list"), swap(list(OLD.items()), "accept", "application/json")),
    Case("handshake: accepts only event streams", old("tools/list"), swap(list(OLD.items()), "accept", "text/event-stream")),
    Case("handshake: content type text", old("tools/list"), swap(list(OLD.items()), "content-type", "text/plain")),
    Case("handshake: content type application/jsonx", old("tools/list"), swap(list(OLD.items()), "content-type", "application/jsonx")),
    Case("handshake: foreign host", old("tools/list"), swap(list(OLD.items()), "host", "evil.example")),
    # documented differences: same status and error code, our own one-line message
    Case("handshake: parse error", raw=b"[", headers=list(OLD.items()), same="error"),
    Case("handshake: batch", [old("ping")], list(OLD.items()), same="error"),
    Case("handshake: DELETE", method="DELETE", headers=list(OLD.items()), same="error"),
]  # fmt: skip


def send(server: NotebookMcpServer[Any], case: Case) -> dict[str, Any]:
    headers = [*case.headers, ("authorization", f"Bearer {server.token}")]
    if case.raw is not None:
        content: bytes | None = case.raw
    else:
        content = None if case.body is None else json.dumps(case.body).encode()
    url = f"http://127.0.0.1:{server.port}{case.path}"
    response = httpx.request(case.method, url, content=content, headers=headers, timeout=30)
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    return {
        "status": response.status_code,
        "content-type": response.headers.get("content-type"),
        "allow": response.headers.get("allow"),
        "body": body,
    }


@pytest.fixture
def pair(shell: InteractiveShell) -> Iterator[tuple[NotebookMcpServer[Any], NotebookMcpServer[Any]]]:
    run_cells(shell, "x = 1", "word = 'café ☕ naïve'")
    ours = NotebookMcpServer[Any](shell, approve=None, executor=MainThreadExecutor()).start()
    sdk = SdkNotebookServer(shell, approve=None, executor=MainThreadExecutor()).start()
    try:
        yield ours, sdk
    finally:
        ours.stop()
        sdk.stop()


def error_code(reply: dict[str, Any]) -> tuple[int, Any]:
    body = reply["body"]
    return reply["status"], body.get("error", {}).get("code") if isinstance(body, dict) else body


def test_every_request_is_answered_as_the_sdk_answers_it(
    pair: tuple[NotebookMcpServer[Any], NotebookMcpServer[Any]],
) -> None:
    ours, sdk = pair
    differ = []
    for case in CASES:
        mine, theirs = send(ours, case), send(sdk, case)
        if case.same == "error":
            equal = error_code(mine) == error_code(theirs) and mine["status"] != 200
        else:
            equal = mine == theirs
        if not equal:
            differ.append(f"{case.name}:\n  ours {mine}\n  sdk  {theirs}")
    assert not differ, "\n".join(differ)
    # what matters to the runtime is in the table and carries what it reads
    discovered = send(ours, CASES[0])["body"]["result"]
    assert discovered["supportedVersions"] == [MODERN] and "run_python" in discovered["instructions"]


def test_a_get_is_refused_where_the_sdk_would_hold_an_empty_stream_open(
    pair: tuple[NotebookMcpServer[Any], NotebookMcpServer[Any]],
) -> None:
    ours, _ = pair
    for headers in (list(OLD.items()), routed("tools/list")):
        reply = send(ours, Case("GET", method="GET", headers=headers))
        assert reply["status"] == 405 and reply["allow"] == "POST"


def test_the_shapes_are_the_sdk_models_on_the_wire() -> None:
    png = "iVBORw0KGgo="
    result = ToolResult((TextBlock("t ☕"), ImageBlock(png)), is_error=True)
    sdk_result = mt.CallToolResult(
        content=[
            mt.TextContent(type="text", text="t ☕"),
            mt.ImageContent(type="image", data=png, mime_type="image/png"),
        ],
        is_error=True,
    )
    wire = sdk_result.model_dump(mode="json", by_alias=True, exclude_none=True)
    del wire["resultType"]  # the endpoint adds it where the protocol version has it
    assert result.wire() == wire
    for tool in tool_definitions(run_python=True, max_chars=8000):
        sdk_tool = mt.Tool(name=tool.name, description=tool.description,
                           input_schema=dict(tool.input_schema))  # fmt: skip
        assert tool.wire() == sdk_tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert Tool("t", "d", {"type": "object"}).wire()["inputSchema"] == {"type": "object"}


def test_a_tool_that_raises_is_an_internal_error_that_tells_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "sk-" + "q" * 30

    async def call_tool(name: str, arguments: dict[str, Any]) -> ToolResult:
        raise RuntimeError(f"boom {secret}")

    endpoint = McpEndpoint("t", version="1", instructions="i", list_tools=list, call_tool=call_tool)
    headers = dict(routed(CALL, secret))
    body = modern(CALL, {"name": secret, "arguments": {}})

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=endpoint)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as client:
            return await client.post("/mcp", json=body, headers=headers)

    reply = asyncio.run(post())
    assert reply.status_code == 200, reply.text
    assert reply.json()["error"] == {"code": -32603, "message": "Internal error"}
    assert "RuntimeError" in caplog.text
    assert secret not in reply.text and secret[:12] not in caplog.text
