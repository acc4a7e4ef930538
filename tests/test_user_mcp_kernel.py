"""The person's MCP servers file in the kernel (issue 49 item 4), on the in-process kernel (a
``MockRuntime``, no subprocess of the runtime): a bad entry is one line under the next run, once,
naming the file and the entry, and the run goes on; the runtime starts with the good servers'
patch; their ``env`` secrets are masked in what ``%dsh`` prints and in the run's output;
``%dsh config`` names the mount without starting the servers again; ``DshMagics.mcp_servers``
names one file, ``''`` none. The real runtime's proof is ``test_user_mcp_real.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dsh_notebook.testing.kernel import InProcessKernel

SECRET = "warehouse-token-8c1f4e"

TINY = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if 'id' not in m: continue\n"
    "    r = {'tools': [{'name': 'ping', 'inputSchema': {'type': 'object'}}]}"
    " if m['method'] == 'tools/list' else"
    " {'protocolVersion': m['params'].get('protocolVersion'), 'capabilities': {},"
    " 'serverInfo': {'name': 't', 'version': '1'}}\n"
    "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n"
)


def servers_file(path: Path, tiny: Path) -> Path:
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "wh": {"command": sys.executable, "args": [str(tiny)],
                           "env": {"WH_TOKEN": SECRET}},
                    "bad": {"command": sys.executable, "url": "http://127.0.0.1:1/"},
                }
            }
        )
    )  # fmt: skip
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    return path


def test_a_bad_entry_is_one_line_under_the_next_run_and_the_good_server_is_mounted(
    dsh_kernel: InProcessKernel, tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = Path.cwd()  # the in-process kernel works in tmp_path/ws
    path = servers_file(workspace / "dsh-mcp.json", tiny)
    dsh_kernel.run_cell("", "[[reply:first]] hello")
    first = capsys.readouterr().out
    line = f"MCP: {path}: mcpServers.bad: needs either 'command' (stdio) or 'url'"
    assert line in first and first.count("mcpServers.bad") == 1
    assert "first" in first  # the run went on
    config = dsh_kernel.agent.host.harness.config
    (patch,) = [p for p in config.patches if p.name == "user-mcp.patch.yml"]
    text = patch.read_text()
    assert '"serverName": "wh"' in text and '"bad"' not in text
    dsh_kernel.run_cell("", "[[reply:second]] again")
    assert "mcpServers.bad" not in capsys.readouterr().out  # said once

    dsh_kernel.shell.run_line_magic("dsh", "mcp")
    listed = capsys.readouterr().out
    assert "wh: 1 tool, every call asks" in listed and "mcp__wh__ping" in listed
    assert "mcpServers.bad" in listed
    dsh_kernel.shell.run_line_magic("dsh", "config")
    assert str(patch) in capsys.readouterr().out  # named, not remounted
    assert patch.exists()

    dsh_kernel.run_cell("", f"[[reply:the token is {SECRET}]] repeat it")
    shown = capsys.readouterr().out  # a run's output is masked at its exits
    assert "the token is [masked: wh.WH_TOKEN]" in shown and SECRET not in shown
    assert (SECRET, "wh.WH_TOKEN") in dsh_kernel.agent.secrets().values

def test_the_setting_names_one_file_or_none(
    dsh_kernel: InProcessKernel, tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servers_file(Path.cwd() / "dsh-mcp.json", tiny)
    dsh_kernel.magics.mcp_servers = ""
    dsh_kernel.shell.run_line_magic("dsh", "mcp")
    assert "no MCP servers of yours" in capsys.readouterr().out
    dsh_kernel.magics.mcp_servers = str(tmp_path / "missing.json")
    dsh_kernel.run_cell("", "[[reply:ok]] hello")
    out = capsys.readouterr().out
    assert f"MCP: {tmp_path / 'missing.json'}: no such file" in out and "ok" in out
