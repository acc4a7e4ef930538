"""The in-process peer calls the kernel's notebook tools as the real runtime does: the published
runtime's MCP client and :class:`~dsh_notebook.testing.tool_turns.NotebookToolsCaller` call one
server, and every request they send is recorded at the server: the same protocol headers and the
same JSON-RPC body (method, params and their ``_meta``), only the transport's own headers (host,
length, keep-alive, the client library's) and the request id may differ. When the runtime's
client changes what it sends, this fails and the peer is brought in line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.client import HarnessConfig
from dsh_notebook.notebook_tools import server as server_module
from dsh_notebook.notebook_tools.edits import Grant
from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.patch import write_mcp_patch
from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.testing.harnesses import real_harness
from dsh_notebook.testing.tool_turns import NotebookToolsCaller

pytestmark = [pytest.mark.real_runtime, pytest.mark.anyio]

TRANSPORT_HEADERS = {
    "host", "content-length", "connection", "user-agent", "accept-encoding", "accept-language",
    "sec-fetch-mode",
}  # fmt: skip


@pytest.fixture(scope="module")
def scripted_model_scripts() -> dict[str, Script]:
    call = ToolCall(public_tool_name("notebook_variables"), {})
    return {"vars": Script(steps=(Step(tool_calls=(call,)), Step(text="done")))}


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every request the notebook tools servers started in this test receive, in order."""
    seen: list[dict[str, Any]] = []
    make_app = server_module.NotebookMcpServer._asgi_app

    def recording_app(self: Any) -> Any:
        app = make_app(self)

        async def record(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            body = b""

            async def read() -> Any:
                nonlocal body
                message = await receive()
                body += message.get("body", b"")
                return message

            await app(scope, read, send)
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            seen.append({"headers": headers, "body": json.loads(body) if body else None})

        return record

    monkeypatch.setattr(server_module.NotebookMcpServer, "_asgi_app", recording_app)
    return seen


def shape(request: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    headers = {k: v for k, v in request["headers"].items() if k not in TRANSPORT_HEADERS}
    body = dict(request["body"])
    body.pop("id")
    return headers, body


async def test_the_peer_sends_the_tools_call_the_runtime_sends(
    tmp_path: Path, scripted_model: ScriptedModelServer, recorded: list[dict[str, Any]]
) -> None:
    shell = InteractiveShell.instance()
    shell.user_ns["sales"] = [1, 2, 3]

    async def approve(**_: Any) -> Grant[None]:
        return Grant(owner=None)

    executor = MainThreadExecutor(loop=asyncio.get_running_loop())
    server = server_module.NotebookMcpServer(shell, approve=approve, executor=executor).start()
    mount = write_mcp_patch(server.url, server.token, directory=tmp_path)
    try:
        harness = real_harness(tmp_path, scripted_model, patches=[mount.patch_path], env=mount.env)
        async with harness:
            result = await harness.start_session("s").run("[[scenario:vars]] go")
        assert result.finish_reason == "completed"
        by_runtime = [r for r in recorded if r["body"]["method"] == "tools/call"]
        assert len(by_runtime) == 1, recorded
        config = HarnessConfig(patches=[mount.patch_path], env=mount.env)
        caller = NotebookToolsCaller.from_config(config)
        assert caller is not None and caller.url == server.url
        answer = await caller.call("notebook_variables", {})
        assert not answer["isError"] and "sales" in answer["content"][0]["text"]
        by_peer = recorded[-1]
        assert shape(by_peer) == shape(by_runtime[0])
    finally:
        server.stop()
        mount.remove()
        shell.user_ns.pop("sales", None)
