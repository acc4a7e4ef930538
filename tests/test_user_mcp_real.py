"""The person's own MCP servers, end to end (issue 49 item 4): a real ipykernel, the real runtime
and the scripted model. ``dsh-mcp.json`` beside the notebook lists a tiny stdio MCP server
written here (plain JSON-RPC on stdin/stdout, an ``env`` token of its own) and a broken one (a
command that prints a line and exits).

- ``%dsh mcp`` lists the tiny server and its tool, and says why the broken one is left out;
- the model's requests carry ``mcp__tiny__echo`` and nothing of the broken server;
- the scripted model calls the tool: the call asks first (the runtime's approval, a card), and
  runs once allowed; the card reads ``echo (tiny)``; the model gets the server's answer;
- the broken server is one line under the run, which goes on and answers;
- the server's ``env`` token reaches no exit: not the model (the gate masks the tool's result),
  not the transcript, not ``%dsh mcp``.

Nothing leaves 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_pending, wait_shown
from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

TOKEN = "tiny-token-5f1c2a9e7b"
"""The tiny server's ``env`` value: a secret by the file's rule."""
AUTO_TOKEN = "auto-token-0d3e8b51c4"

TINY_SERVER = r"""
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "tiny", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "description": "Echo the text back.",
                             "inputSchema": {"type": "object",
                                             "properties": {"text": {"type": "string"}},
                                             "required": ["text"]}}]}
    elif method == "tools/call":
        text = msg["params"]["arguments"]["text"]
        with open(os.environ["TINY_LOG"], "a") as log:
            log.write(text + "\n")
        result = {"content": [{"type": "text",
                               "text": f"tiny says {text} with {os.environ['TINY_TOKEN']}"}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""

BROKEN = "import sys; print('broken: no config here', file=sys.stderr); sys.exit(3)"

SCRIPTS = {
    "user-mcp": Script(
        steps=(
            Step(tool_calls=(ToolCall("mcp__tiny__echo", {"text": "hello"}),)),
            Step(text="The tiny server answered."),
        )
    ),
    "user-mcp-web": Script(
        steps=(
            Step(tool_calls=(ToolCall("mcp__web__lookup", {"q": "tea"}),)),
            Step(text="Looked up."),
        )
    ),
    "user-mcp-more": Script(
        steps=(
            Step(tool_calls=(ToolCall("mcp__auto__echo", {"text": "free"}),)),
            Step(tool_calls=(ToolCall("mcp__tiny__echo", {"text": "nope"}),)),
            Step(text="Understood."),
        )
    ),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


def write_servers(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    server = tmp_path / "tiny_server.py"
    server.write_text(TINY_SERVER)
    log = tmp_path / "tiny.log"
    config = {
        "mcpServers": {
            "tiny": {
                "command": sys.executable,
                "args": [str(server)],
                "env": {"TINY_TOKEN": TOKEN, "TINY_LOG": str(log)},
            },
            "auto": {
                "command": sys.executable,
                "args": [str(server)],
                "env": {"TINY_TOKEN": AUTO_TOKEN, "TINY_LOG": str(tmp_path / "auto.log")},
                "autoApprove": ["echo"],
            },
            "broken": {"command": sys.executable, "args": ["-c", BROKEN]},
        }
    }
    (workspace / "dsh-mcp.json").write_text(json.dumps(config))
    return log


@pytest.fixture
def started(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[tuple[Kernel, Path]]:
    log = write_servers(tmp_path)
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k, log


def tool_names(body: object) -> list[str]:
    assert isinstance(body, dict)
    return [str(t.get("name")) for t in body.get("tools", [])]


def test_a_person_server_is_listed_asked_called_and_a_broken_one_left_out(
    started: tuple[Kernel, Path], scripted_model: ScriptedModelServer
) -> None:
    kernel, log = started
    listed = kernel.execute("%dsh mcp")
    assert listed.error is None, listed.error
    assert "tiny: 1 tool" in listed.stdout, listed.stdout
    assert "mcp__tiny__echo  Echo the text back." in listed.stdout
    assert "broken: left out: it exited before answering; it said: broken: no config here" in (
        listed.stdout
    )
    assert TOKEN not in listed.stdout

    since = len(scripted_model.requests)
    cell = kernel.execute("%%dsh\n[[scenario:user-mcp]] ask tiny", allow_stdin=True)
    assert cell.error is None, cell.error
    pending = wait_pending(kernel, "a1: approve")
    assert "echo (tiny)" in pending or "mcp__tiny__echo" in pending, pending
    assert not log.exists()  # asked before the server saw the call
    allowed = kernel.execute("%dsh allow a1")
    assert "allowed" in allowed.stdout, allowed.stdout
    wait_done(kernel)
    assert log.read_text() == "hello\n"

    requests = [r for r in scripted_model.requests[since:] if r.scenario == "user-mcp"]
    assert len(requests) == 2
    names = tool_names(requests[0].body)
    assert "mcp__tiny__echo" in names
    assert not [n for n in names if n.startswith("mcp__broken__")]
    answer = json.dumps(requests[1].body)
    assert "tiny says hello with [masked: tiny.TINY_TOKEN]" in answer
    assert TOKEN not in json.dumps([r.body for r in scripted_model.requests])

    shown = wait_shown(kernel, "**Tool** `echo` (tiny)")  # the card names the server
    assert "MCP server broken did not start (it exited before answering" in shown
    assert "The tiny server answered." in shown  # the run went on
    stderr = [
        m["content"]["text"]
        for m in kernel.iopub
        if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    ]
    assert not [t for t in stderr if "did not start" in t]  # one line: the note, no log line
    assert TOKEN not in shown


def test_auto_approved_tools_run_unasked_and_a_rejected_call_never_reaches_the_server(
    started: tuple[Kernel, Path], scripted_model: ScriptedModelServer, tmp_path: Path
) -> None:
    kernel, log = started
    listed = kernel.execute("%dsh mcp").stdout
    assert "auto: 1 tool, asks except echo" in listed, listed
    assert "tiny: 1 tool, every call asks" in listed
    since = len(scripted_model.requests)
    cell = kernel.execute("%%dsh\n[[scenario:user-mcp-more]] both", allow_stdin=True)
    assert cell.error is None, cell.error
    pending = wait_pending(kernel, "approve")
    assert "auto" not in pending, pending  # the listed tool ran without a card
    assert (tmp_path / "auto.log").read_text() == "free\n"
    key = pending.strip().split(":")[0]
    rejected = kernel.execute(f'%dsh reject {key} --note "not this one"')
    assert "rejected" in rejected.stdout, rejected.stdout
    wait_done(kernel)
    assert not log.exists()  # the rejected call never reached the tiny server
    requests = [r for r in scripted_model.requests[since:] if r.scenario == "user-mcp-more"]
    assert len(requests) == 3
    last = json.dumps(requests[2].body)
    # the runtime's own words (its approval service carries no note of the person's)
    assert 'Error: the user rejected tool \\"mcp__tiny__echo\\"' in last, last[-2000:]
    assert "tiny says free with [masked: auto.TINY_TOKEN]" in json.dumps(requests[1].body)
    assert AUTO_TOKEN not in json.dumps([r.body for r in requests])


WEB_TOKEN = "web-bearer-6a0d93f2e1"


@contextlib.contextmanager
def serve_web() -> Iterator[str]:
    """A streamable-HTTP MCP server on 127.0.0.1 that answers only ``Bearer WEB_TOKEN``; its
    tool ``lookup`` says the token back (a server that leaks it)."""
    import threading
    import time

    import uvicorn
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("web")

    @server.tool()
    def lookup(q: str) -> str:
        """Look a word up."""
        return f"web found {q} (signed {WEB_TOKEN})"

    app = server.streamable_http_app()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != (
            f"Bearer {WEB_TOKEN}".encode()
        ):
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await app(scope, receive, send)

    config = uvicorn.Config(guarded, host="127.0.0.1", port=0, log_level="error")
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert time.monotonic() < deadline, "the web server did not start"
        time.sleep(0.05)
    port = web.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        thread.join(10)


@pytest.fixture
def web_kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with serve_web() as url:
        config = {
            "mcpServers": {"web": {"url": url, "headers": {"Authorization": f"Bearer {WEB_TOKEN}"}}}
        }
        path = tmp_path / "servers.json"  # named by the setting, not found beside the notebook
        path.write_text(json.dumps(config))
        setup = f"%load_ext dsh_notebook\n%config DshMagics.mcp_servers = {str(path)!r}"
        with scripted_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
            yield k


def test_a_url_server_with_a_secret_header_is_listed_and_called(
    web_kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    listed = web_kernel.execute("%dsh mcp").stdout
    assert "web: 1 tool, every call asks  [http://127.0.0.1:" in listed, listed
    assert "mcp__web__lookup  Look a word up." in listed
    since = len(scripted_model.requests)
    cell = web_kernel.execute(
        "%%dsh --on-approval allow\n[[scenario:user-mcp-web]] look it up", allow_stdin=True
    )
    assert cell.error is None, cell.error
    wait_done(web_kernel)
    requests = [r for r in scripted_model.requests[since:] if r.scenario == "user-mcp-web"]
    assert len(requests) == 2
    assert "mcp__web__lookup" in tool_names(requests[0].body)
    answer = json.dumps(requests[1].body)
    # the header's value is "Bearer <token>": its piece " <token>" is masked (the fragment rule)
    assert "web found tea (signed[masked: web.Authorization])" in answer
    assert WEB_TOKEN not in json.dumps([r.body for r in scripted_model.requests])
    shown = wait_shown(web_kernel, "**Tool** `lookup` (web)")
    assert WEB_TOKEN not in shown
