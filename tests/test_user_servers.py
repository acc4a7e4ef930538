"""The person's MCP servers file (issue 49 item 4): read and checked with one line per problem
naming the file and the entry, where it is found, which values are secrets, the patch that mounts
them, and the probe that leaves a server that does not start out (no runtime here; the real
runtime's proof is ``test_user_mcp_real.py``)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.patch import USER_GATE_PLUGIN, render_user_patch, write_user_patch
from dsh_notebook.notebook_tools.schemas import MCP_SERVER_NAME
from dsh_notebook.notebook_tools.user_probe import probe_servers
from dsh_notebook.notebook_tools.user_servers import (
    RESERVED_NAME,
    UserServer,
    load_servers,
    read_server_file,
    secret_values,
    server_files,
)


def write(path: Path, servers: Any) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_the_reserved_name_is_the_notebook_servers() -> None:
    assert RESERVED_NAME == MCP_SERVER_NAME


def test_a_good_file_reads_as_servers(tmp_path: Path) -> None:
    path = write(tmp_path / "dsh-mcp.json", {
        "wh": {"command": "python", "args": ["-m", "wh"], "env": {"WH_TOKEN": "abcdefgh12"}},
        "docs": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer xyz12345"},
                 "autoApprove": ["search"]},
        "off": {"command": "x", "disabled": True},
    })  # fmt: skip
    servers, problems = read_server_file(path)
    assert problems == []
    assert [(s.name, s.transport) for s in servers] == [
        ("wh", "stdio"),
        ("docs", "streamable-http"),
    ]
    assert servers[0].target == "python -m wh"
    assert servers[1].auto_approve == ("search",)
    assert "abcdefgh12" not in repr(servers) and "xyz12345" not in repr(servers)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"command": "x", "url": "http://a/"}, "needs either 'command' (stdio) or 'url'"),
        ({"args": ["a"]}, "needs either 'command'"),
        ({"command": ""}, "'command' must be a non-empty string"),
        ({"command": "x", "args": "a b"}, "'args' must be a list of strings"),
        ({"command": "x", "env": {"A": 1}}, "'env': A must be a name with a string value"),
        ({"command": "x", "env": {"A": "x\ny"}}, "'env': the value of A must be one line"),
        ({"command": "x", "autoApprove": "all"}, "'autoApprove' must be a list of strings"),
        ({"command": "x", "tools": []}, "unknown key 'tools'"),
        ({"command": "x", "type": "sse"}, "'type' 'sse' is not served"),
        ({"url": "ftp://a/b"}, "'url' must be an http(s) URL without credentials"),
        ({"url": "https://me:pw@a/b"}, "'url' must be an http(s) URL without credentials"),
        ({"url": "https://a/b", "env": {}}, "'env' belongs to a 'command' server"),
        ("python", "must be an object"),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_file_and_the_entry(
    tmp_path: Path, entry: Any, says: str
) -> None:
    path = write(tmp_path / "dsh-mcp.json", {"bad": entry, "good": {"command": "x"}})
    servers, problems = read_server_file(path)
    assert [s.name for s in servers] == ["good"]  # the others stay
    (problem,) = problems
    line = str(problem)
    assert line.startswith(f"{path}: mcpServers.bad: ")
    assert says in line and "\n" not in line


@pytest.mark.parametrize(
    ("name", "says"),
    [("notebook", "'notebook' is the kernel's own server"), ("a b", "the name must be 1-32")],
)
def test_names_the_runtime_cannot_take_are_refused(tmp_path: Path, name: str, says: str) -> None:
    _, (problem,) = read_server_file(write(tmp_path / "m.json", {name: {"command": "x"}}))
    assert says in str(problem)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not JSON (line 1"),
        ('{"servers": {}}', 'expected {"mcpServers": {name: {...}}}'),
        ("[]", 'expected {"mcpServers"'),
    ],
)
def test_a_bad_file_is_one_line_naming_it(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "dsh-mcp.json"
    path.write_text(text)
    servers, (problem,) = read_server_file(path)
    assert servers == [] and str(problem) == f"{path}: {problem.text}" and says in problem.text


def test_where_the_file_is_found(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir(), ws.mkdir()
    assert server_files(None, ws, home) == [home / "mcp.json", ws / "dsh-mcp.json"]
    assert server_files("", ws, home) == []  # off
    write(home / "mcp.json", {"a": {"command": "home-a"}, "b": {"command": "home-b"}})
    write(ws / "dsh-mcp.json", {"a": {"command": "workspace-a"}})
    servers, problems = load_servers(server_files(None, ws, home))
    assert problems == []
    assert [(s.name, s.command) for s in servers] == [("a", "workspace-a"), ("b", "home-b")]
    missing = tmp_path / "nope.json"
    assert load_servers(server_files(str(missing), ws, home), required=True)[1][0].text == (
        "no such file"
    )
    assert load_servers(server_files(None, tmp_path / "none", tmp_path / "none")) == ([], [])


def test_env_and_header_values_are_secrets_but_short_values_and_paths_are_not() -> None:
    servers = [
        UserServer(
            "wh",
            "stdio",
            "f",
            command="x",
            env={
                "WH_TOKEN": "tok-12345678",
                "DEBUG": "1",
                "DATA": "/home/me/data",
                "USER_ID": "u-9876543",
            },
        ),
        UserServer(
            "docs",
            "streamable-http",
            "f",
            url="https://a/",
            headers={"Authorization": "Bearer abcdefgh"},
        ),
    ]
    assert secret_values(servers) == [
        ("tok-12345678", "wh.WH_TOKEN"),
        ("u-9876543", "wh.USER_ID"),
        ("Bearer abcdefgh", "docs.Authorization"),
    ]


def test_the_patch_mounts_each_server_behind_the_gate(tmp_path: Path) -> None:
    servers = [
        UserServer("wh", "stdio", "f", command="python", args=("-m", "wh"),
                   env={"WH_TOKEN": "tok-12345678"}, auto_approve=("ping",)),
        UserServer("docs", "streamable-http", "f", url="https://a/mcp"),
    ]  # fmt: skip
    text = render_user_patch(servers)
    lines = text.splitlines()
    assert lines[1] == "- insert:" and lines[2] == "    - id: dsh-notebook-user-mcp-gate"
    gate = json.loads(lines[4].split("config: ", 1)[1])
    assert gate == {"servers": {"wh": ["ping"], "docs": []},
                    "secrets": [["tok-12345678", "wh.WH_TOKEN"]], "fragment": 8}  # fmt: skip
    configs = [json.loads(line.split("config: ", 1)[1]) for line in lines[5:] if "config: " in line]
    assert configs[0]["serverName"] == "wh" and configs[0]["transport"] == "stdio"
    assert configs[0]["env"] == {"WH_TOKEN": "tok-12345678"}
    assert configs[1] == {
        "transport": "streamable-http", "serverName": "docs", "url": "https://a/mcp",
        "headers": {}, "toolCallTimeoutMs": 1800000, "failOnStartupError": False,
    }  # fmt: skip
    assert str(USER_GATE_PLUGIN) in text and USER_GATE_PLUGIN.exists()
    with pytest.raises(ValueError, match="distinct"):
        render_user_patch([servers[0], servers[0]])
    mount = write_user_patch(servers, directory=tmp_path)
    assert stat.S_IMODE(mount.patch_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(mount.patch_path.parent.stat().st_mode) == 0o700
    mount.remove()
    assert not mount.patch_path.parent.exists()


def test_the_probe_lists_tools_and_leaves_out_what_does_not_start(tmp_path: Path) -> None:
    server = tmp_path / "tiny.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' not in m: continue\n"
        "    r = {'tools': [{'name': 'echo', 'description': 'Echo.\\nMore.',"
        " 'inputSchema': {'type': 'object'}}]} if m['method'] == 'tools/list' else"
        " {'protocolVersion': m['params'].get('protocolVersion'), 'capabilities': {},"
        " 'serverInfo': {'name': 't', 'version': '1'}}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n"
    )
    exits = "import sys; print('bad setup', file=sys.stderr); sys.exit(3)"
    checks = probe_servers([
        UserServer("tiny", "stdio", "f", command=sys.executable, args=(str(server),)),
        UserServer("exits", "stdio", "f", command=sys.executable, args=("-c", exits)),
        UserServer("missing", "stdio", "f", command=str(tmp_path / "no-such-command")),
    ], timeout=20)  # fmt: skip
    assert [(c.name, c.tools, c.error) for c in checks] == [
        ("tiny", (("echo", "Echo."),), None),
        ("exits", (), "it exited before answering; it said: bad setup"),
        ("missing", (), "command not found"),
    ]


def test_a_failure_while_mounting_leaves_the_servers_out_with_one_line() -> None:
    from dsh_notebook.kernel.tools.user_mcp import UserMcp

    def where() -> tuple[str | None, Path, Path]:
        raise PermissionError("home is not readable")

    servers = UserMcp(where)
    assert servers.lines() == [
        "dsh: your MCP servers cannot be read (PermissionError: home is not readable)"
    ]
    assert servers.mount() is None  # the runtime starts without them
    assert servers.take_notes() == [
        "MCP: your servers are left out (PermissionError: home is not readable)"
    ]
    assert servers.take_notes() == []  # said once


def test_a_stdio_server_is_checked_in_the_workspace_and_read_only_asks_for_every_tool(
    tmp_path: Path,
) -> None:
    from dsh_notebook.kernel.tools.user_mcp import UserMcp

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "here.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' not in m: continue\n"
        "    r = {'tools': []} if m['method'] == 'tools/list' else"
        " {'protocolVersion': m['params'].get('protocolVersion'), 'capabilities': {},"
        " 'serverInfo': {'name': 't', 'version': '1'}}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n"
    )
    entry = {"command": sys.executable, "args": ["here.py"], "autoApprove": ["look"]}
    write(workspace / "dsh-mcp.json", {"here": entry})
    servers = UserMcp(lambda: (None, workspace, tmp_path / "home"))
    mount = servers.mount()  # a relative path works as the runtime runs it: in the workspace
    assert mount is not None and servers.take_notes() == []
    assert '{"servers": {"here": ["look"]}' in mount.patch_path.read_text()
    read_only = servers.mount(read_only=True)  # a read-only runtime: every call asks
    assert read_only is not None and not mount.patch_path.exists()  # the old patch is gone
    assert '{"servers": {"here": []}' in read_only.patch_path.read_text()
    servers.stop()
    assert not read_only.patch_path.exists()


GATE_CHECK = """
import { apply } from %(gate)s;
const on = {};
apply({ on: (name, fn) => { on[name] = fn; } }, %(config)s);
const allow = async () => ({ kind: 'allow' });
const accept = async () => ({ kind: 'accept' });
const text = (t) => ({ content: [{ type: 'text', text: t }, { type: 'image', data: 'QUJD' }] });
const out = [
  await on['tools/pre-execute']({ name: 'mcp__wh__query', arguments: { sql: 'select 1' } }, allow),
  await on['tools/pre-execute']({ name: 'mcp__wh__ping', arguments: {} }, allow),
  await on['tools/pre-execute']({ name: 'mcp__notebook__run_python', arguments: {} }, allow),
  await on['tools/pre-execute']({ name: 'bash', arguments: {} }, allow),
  await on['tools/post-execute']({ name: 'mcp__wh__query' },
    text('token tok-12345678-abc, a piece 2345678-a, none here'), accept),
  await on['tools/post-execute']({ name: 'bash' }, text('tok-12345678-abc'), accept),
];
console.log(JSON.stringify(out));
"""


def test_the_gate_asks_for_the_persons_tools_and_masks_their_results(tmp_path: Path) -> None:
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    servers = [
        UserServer("wh", "stdio", "f", command="x", env={"WH_TOKEN": "tok-12345678-abc"},
                   auto_approve=("ping",)),
    ]  # fmt: skip
    line = render_user_patch(servers).splitlines()[4]
    config = line.split("config: ", 1)[1]
    script = tmp_path / "check.mjs"
    script.write_text(GATE_CHECK % {"gate": json.dumps(str(USER_GATE_PLUGIN)), "config": config})
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ask, ping, notebook, bash, masked, other = json.loads(done.stdout)
    assert ask == {"kind": "ask", "reason": 'your MCP server wh: {"sql":"select 1"}'}
    assert ping == notebook == bash == {"kind": "allow"}  # autoApprove, and not theirs
    assert masked["content"][0]["text"] == (
        "token [masked: wh.WH_TOKEN], a piece [masked: wh.WH_TOKEN], none here"
    )
    assert masked["content"][1] == {"type": "image", "data": "QUJD"}
    assert other == {"kind": "accept"}  # another tool's result is not theirs to change
