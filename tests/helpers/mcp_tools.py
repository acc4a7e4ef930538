"""The notebook tools server over an in-process shell: the ``shell`` fixture, cells, tool calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.notebook_tools.executor import (
    MainThreadExecutor,
)
from dsh_notebook.notebook_tools.server import NotebookMcpServer

PROTOCOL = "2025-06-18"


JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def reset(sh: InteractiveShell) -> None:
    sh.reset(new_session=True)  # type: ignore[no-untyped-call]


def run_cell(sh: InteractiveShell, cell: str) -> Any:
    return sh.run_cell(cell, store_history=True)  # type: ignore[no-untyped-call]


def fresh_shell() -> Iterator[InteractiveShell]:
    """The global shell, reset before and after (the ``shell`` fixture of ``tests/conftest.py``)."""
    sh = InteractiveShell.instance()
    reset(sh)
    try:
        yield sh
    finally:
        reset(sh)


def run_cells(sh: InteractiveShell, *cells: str) -> None:
    for cell in cells:
        run_cell(sh, cell)


def rpc(method: str, params: dict[str, Any] | None = None, ident: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}


def server_factory(shell: InteractiveShell) -> Iterator[Callable[..., NotebookMcpServer]]:
    """Start notebook tools servers on ``shell``; each stopped after (``make_server``)."""
    servers: list[NotebookMcpServer] = []

    def make(**kwargs: Any) -> NotebookMcpServer:
        kwargs.setdefault("approve", None)
        kwargs.setdefault("executor", MainThreadExecutor())
        server = NotebookMcpServer(shell, **kwargs).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


def call(server: NotebookMcpServer, body: dict[str, Any], **headers: str) -> httpx.Response:
    merged = {**JSON_HEADERS, "Authorization": f"Bearer {server.token}",
              "mcp-protocol-version": PROTOCOL, **headers}  # fmt: skip
    return httpx.post(server.url, json=body, headers=merged, timeout=10)


def tool_call(server: NotebookMcpServer, name: str, /, **arguments: Any) -> dict[str, Any]:
    response = call(server, rpc("tools/call", {"name": name, "arguments": arguments}))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])
