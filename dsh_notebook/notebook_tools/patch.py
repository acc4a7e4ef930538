"""The runtime patch that mounts the kernel's notebook MCP server (:mod:`.server`).

The published runtime (0.2.1-rc.2) ships the MCP client plugin ``@deepseek-ai/dsh-mcp-client``
(not mounted by the ``sdk`` profile). Its config, read from the runtime's own schema::

    transport: stdio            | streamable-http
    serverName: [A-Za-z0-9_-]{1,32}   (tools become mcp__<serverName>__<tool>)
    command, args, env, cwd     (stdio)
    url, headers                (streamable-http; headers: a string→string map)
    toolCallTimeoutMs           (default 60000; per tools/call)
    failOnStartupError          (default false: a failed connection leaves no tools, silently)
    maxInstructionBytes, reconnect: {enabled, initialDelayMs, maxDelayMs, maxAttempts}

:func:`write_mcp_patch` writes a ``--patch`` file that ``insert``s one such plugin pointing at the
server. The bearer token is **not** in the file: the header is a ``!!js`` expression reading
:data:`MCP_TOKEN_ENV` from the runtime's environment, and the token goes into
``HarnessConfig.env`` (which ``describe()`` masks, the name containing ``TOKEN``). The file still
lives in a fresh private directory (``0700``; file ``0600``) removed by :meth:`McpMount.remove`.

:func:`write_user_patch` writes the patch of the person's own servers
(:mod:`.user_servers`): one such plugin per server (``failOnStartupError: false``: a server that
does not start leaves the runtime running without it), and the approval gate
(``bridge/user-mcp-gate.mjs``) that makes every call of their tools ask, except the tools the
person listed in ``autoApprove``, and masks their ``env`` and ``headers`` values (and their
pieces, the kernel's fragment rule) in what their tools return. Their ``env`` and ``headers`` values are in that file, which
lives in its own private directory like the notebook server's.

Guarantees: pure file writing, no network, no runtime. The returned :class:`McpMount` carries the
patch path (for ``HarnessConfig.patches``) and the environment entries (for ``HarnessConfig.env``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..runtime.secret import FRAGMENT_CHARS
from .schemas import MCP_SERVER_NAME
from .user_servers import UserServer, secret_values

__all__ = [
    "MCP_CLIENT_PLUGIN",
    "MCP_PLUGIN_ID",
    "MCP_TOKEN_ENV",
    "McpMount",
    "USER_GATE_PLUGIN",
    "render_mcp_patch",
    "render_user_patch",
    "write_mcp_patch",
    "write_user_patch",
]

MCP_CLIENT_PLUGIN = "@deepseek-ai/dsh-mcp-client"
MCP_PLUGIN_ID = "dsh-notebook-mcp"
MCP_TOKEN_ENV = "DSH_NOTEBOOK_MCP_TOKEN"
"""Environment variable of the runtime process that holds the server's bearer token."""

USER_GATE_PLUGIN = Path(__file__).resolve().parent.parent / "bridge" / "user-mcp-gate.mjs"
"""The approval gate of the person's servers (a runtime plugin, package data)."""

USER_TOOL_CALL_TIMEOUT_MS = 30 * 60 * 1000
"""A call of a person's tool includes the approval wait too."""

DEFAULT_TOOL_CALL_TIMEOUT_MS = 30 * 60 * 1000
"""``run_python`` includes the person's approval time, so the runtime's 60 s default is short."""

_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass(frozen=True)
class McpMount:
    """A written patch: add :attr:`patch_path` to ``patches`` and :attr:`env` to ``env``."""

    patch_path: Path
    env: dict[str, str] = field(repr=False)

    def remove(self) -> None:
        """Delete the patch and its private directory. Idempotent."""
        with contextlib.suppress(OSError):
            shutil.rmtree(self.patch_path.parent)


def _quote(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid double-quoted YAML scalar


def render_mcp_patch(
    url: str,
    *,
    server_name: str = MCP_SERVER_NAME,
    token_env: str = MCP_TOKEN_ENV,
    tool_call_timeout_ms: int = DEFAULT_TOOL_CALL_TIMEOUT_MS,
    fail_on_startup_error: bool = True,
) -> str:
    """The patch YAML text (see the module docstring). ``url`` must be a loopback http URL."""
    if not re.match(r"^http://(127\.0\.0\.1|localhost|\[::1\]):\d+/", url):
        raise ValueError(f"the notebook MCP url must be a loopback http URL, got {url!r}")
    if not _SERVER_NAME.match(server_name):
        raise ValueError("server_name must match [A-Za-z0-9_-]{1,32}")
    if not re.match(r"^[A-Z_][A-Z0-9_]*$", token_env):
        raise ValueError("token_env must be an environment variable name")
    if tool_call_timeout_ms < 1:
        raise ValueError("tool_call_timeout_ms must be positive")
    header = f"'Bearer ' + (process.env.{token_env} ?? '')"
    return (
        "# dsh-notebook: mounts this kernel's notebook tools (an MCP server on 127.0.0.1).\n"
        f"# The bearer token is read from the runtime's environment ({token_env}).\n"
        "- insert:\n"
        f"    - id: {MCP_PLUGIN_ID}\n"
        f"      name: {_quote(MCP_CLIENT_PLUGIN)}\n"
        "      config:\n"
        "        transport: streamable-http\n"
        f"        serverName: {_quote(server_name)}\n"
        f"        url: {_quote(url)}\n"
        "        headers:\n"
        f"          Authorization: !!js {_quote(header)}\n"
        f"        toolCallTimeoutMs: {int(tool_call_timeout_ms)}\n"
        f"        failOnStartupError: {'true' if fail_on_startup_error else 'false'}\n"
    )


def write_mcp_patch(
    url: str,
    token: str,
    *,
    directory: str | os.PathLike[str] | None = None,
    server_name: str = MCP_SERVER_NAME,
    tool_call_timeout_ms: int = DEFAULT_TOOL_CALL_TIMEOUT_MS,
    fail_on_startup_error: bool = True,
) -> McpMount:
    """Write the patch into a new private directory (under ``directory`` or the temp dir)."""
    if not token or any(c in token for c in "\r\n"):
        raise ValueError("token must be a non-empty single-line string")
    text = render_mcp_patch(
        url,
        server_name=server_name,
        tool_call_timeout_ms=tool_call_timeout_ms,
        fail_on_startup_error=fail_on_startup_error,
    )
    folder = Path(tempfile.mkdtemp(prefix="dsh-notebook-mcp-", dir=directory))  # mode 0700
    path = folder / "notebook-mcp.patch.yml"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return McpMount(patch_path=path, env={MCP_TOKEN_ENV: token})


def _write_private(text: str, directory: str | os.PathLike[str] | None, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="dsh-notebook-mcp-", dir=directory))  # mode 0700
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _user_config(server: UserServer) -> dict[str, object]:
    config: dict[str, object] = {"transport": server.transport, "serverName": server.name}
    if server.transport == "stdio":
        config.update(command=server.command, args=list(server.args), env=dict(server.env))
        if server.cwd:
            config["cwd"] = server.cwd
    else:
        config.update(url=server.url, headers=dict(server.headers))
    config.update(toolCallTimeoutMs=USER_TOOL_CALL_TIMEOUT_MS, failOnStartupError=False)
    return config


def render_user_patch(servers: list[UserServer], gate: Path = USER_GATE_PLUGIN) -> str:
    """The patch YAML of the person's ``servers`` (each config a JSON flow mapping, which YAML
    reads as is), the gate first. It holds their ``env`` and ``headers`` values."""
    names = [s.name for s in servers]
    if len(set(names)) != len(names) or not all(_SERVER_NAME.match(n) for n in names):
        raise ValueError("server names must be distinct and match [A-Za-z0-9_-]{1,32}")
    if MCP_SERVER_NAME in names:
        raise ValueError(f"{MCP_SERVER_NAME!r} is the notebook's own server")
    approved = {s.name: list(s.auto_approve) for s in servers}
    secrets = [list(pair) for pair in secret_values(servers)]
    gate_config = {"servers": approved, "secrets": secrets, "fragment": FRAGMENT_CHARS}
    lines = [
        "# dsh-notebook: the person's own MCP servers and the gate that makes their tools ask.",
        "- insert:",
        "    - id: dsh-notebook-user-mcp-gate",
        f"      name: {_quote(str(gate))}",
        f"      config: {json.dumps(gate_config)}",
    ]
    for server in servers:
        lines += [
            f"    - id: {_quote('dsh-user-mcp-' + server.name)}",
            f"      name: {_quote(MCP_CLIENT_PLUGIN)}",
            f"      config: {json.dumps(_user_config(server))}",
        ]
    return "\n".join(lines) + "\n"


def write_user_patch(
    servers: list[UserServer], *, directory: str | os.PathLike[str] | None = None
) -> McpMount:
    """Write the person's servers' patch into a new private directory (``0700``, file ``0600``)."""
    path = _write_private(render_user_patch(servers), directory, "user-mcp.patch.yml")
    return McpMount(patch_path=path, env={})
