"""The person's own MCP servers: the file that lists them, read and checked.

The file is JSON, shaped like the common MCP client configuration::

    {"mcpServers": {
        "warehouse": {"command": "python", "args": ["-m", "wh_mcp"], "env": {"WH_TOKEN": "…"}},
        "docs": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer …"}},
        "files": {"command": "npx", "args": ["fs-mcp"], "autoApprove": ["read_file"]},
        "old": {"command": "x", "disabled": true}
    }}

An entry is a stdio server (``command``, optional ``args``, ``env``, ``cwd``) or a streamable-HTTP
server (``url``, optional ``headers``); ``autoApprove`` lists tool names the person lets run
without a card (default: none, every call asks); ``disabled: true`` skips it. Names are the
runtime's server names (``[A-Za-z0-9_-]{1,32}``; ``notebook`` is the kernel's own), and the
model sees a tool as ``mcp__<name>__<tool>``.

Where it is found (:func:`server_files`): the ``DshMagics.mcp_servers`` setting names one file
(``""`` turns the person's servers off); otherwise ``$DSH_HOME/mcp.json`` and then
``dsh-mcp.json`` in the workspace (beside the notebook), the workspace's entry winning on a name
both list.

Guarantees: pure reading, no process, no network. Every problem is one line naming the file and
the entry (:class:`Problem`); a bad entry is left out and the others stay. ``env`` and
``headers`` values are secrets (:func:`secret_values` names them for the kernel's masking and
the runtime's gate; an absolute path is not one) and nothing here prints them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..runtime.mask_policy import ENV_MIN_CHARS

__all__ = [
    "HOME_FILE",
    "RESERVED_NAME",
    "WORKSPACE_FILE",
    "Problem",
    "UserServer",
    "load_servers",
    "read_server_file",
    "secret_values",
    "server_files",
]

WORKSPACE_FILE = "dsh-mcp.json"
"""The file beside the notebook (in the agent's workspace)."""
HOME_FILE = "mcp.json"
"""The file in ``DSH_HOME`` (every notebook of that home)."""

RESERVED_NAME = "notebook"
"""The kernel's own server (``schemas.MCP_SERVER_NAME``; repeated here so that reading the file
needs no ``mcp``, a test keeps them equal)."""

MAX_FILE_BYTES = 256 * 1024
MAX_SERVERS = 16

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ABSOLUTE_PATH = re.compile(r"^(/|[A-Za-z]:[\\/])[^\s:;]*$")
_KEYS = {"command", "args", "env", "cwd", "url", "headers", "autoApprove", "disabled", "type"}


@dataclass(frozen=True)
class UserServer:
    """One server of the person's file (``env`` and ``headers`` hold secrets; not in repr)."""

    name: str
    transport: Literal["stdio", "streamable-http"]
    source: str
    """The file it came from (as the person would name it)."""
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    auto_approve: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        """What it runs or where it is, for ``%dsh mcp`` (the command and its arguments, or
        the URL without a query)."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return self.url.split("?", 1)[0]


@dataclass(frozen=True)
class Problem:
    """One line about the file or one entry of it."""

    source: str
    entry: str | None
    text: str

    def __str__(self) -> str:
        where = f"{self.source}: mcpServers.{self.entry}" if self.entry else self.source
        return f"{where}: {self.text}"


def server_files(setting: str | None, workspace: Path, home: Path) -> list[Path]:
    """The files to read, in order (a later file's entry replaces an earlier one's)."""
    if setting is not None:
        return [Path(setting).expanduser()] if setting.strip() else []
    return [home / HOME_FILE, workspace / WORKSPACE_FILE]


def load_servers(files: Iterable[Path], *, required: bool = False) -> tuple[
    list[UserServer], list[Problem]
]:  # fmt: skip
    """The servers of ``files`` (missing files skipped unless ``required``) and every problem
    met, the servers in name order."""
    servers: dict[str, UserServer] = {}
    problems: list[Problem] = []
    for path in files:
        if not path.exists():
            if required:
                problems.append(Problem(str(path), None, "no such file"))
            continue
        found, met = read_server_file(path)
        problems += met
        servers.update((s.name, s) for s in found)
    return [servers[k] for k in sorted(servers)], problems


def read_server_file(path: Path) -> tuple[list[UserServer], list[Problem]]:
    """One file's servers and problems (an unreadable file is one problem and no server)."""
    source = str(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return [], [Problem(source, None, f"larger than {MAX_FILE_BYTES // 1024} KB")]
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(source, None, f"cannot be read ({type(exc).__name__})")]
    except json.JSONDecodeError as exc:
        return [], [Problem(source, None, f"not JSON (line {exc.lineno}: {exc.msg})")]
    table = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return [], [Problem(source, None, 'expected {"mcpServers": {name: {...}}}')]
    servers: list[UserServer] = []
    problems: list[Problem] = []
    for name, entry in table.items():
        try:
            server = _server(source, str(name), entry)
        except ValueError as exc:
            problems.append(Problem(source, _shown(str(name)), str(exc)))
            continue
        if server is not None:
            servers.append(server)
    if len(servers) > MAX_SERVERS:
        problems.append(Problem(source, None, f"more than {MAX_SERVERS} servers; the first kept"))
        servers = servers[:MAX_SERVERS]
    return servers, problems


def _shown(name: str) -> str:
    return name if _NAME.match(name) else json.dumps(name[:40])


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what!r} must be a list of strings")
    return tuple(value)


def _string_map(value: Any, what: str, key: re.Pattern[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError(f"{what!r} must be an object of strings")
    for k, v in value.items():
        if not isinstance(v, str) or not key.match(k):
            raise ValueError(f"{what!r}: {_shown(k)} must be a name with a string value")
        if "\n" in v or "\r" in v or "\0" in v:
            raise ValueError(f"{what!r}: the value of {k} must be one line")
    return dict(value)


def _server(source: str, name: str, entry: Any) -> UserServer | None:
    """One entry checked (``ValueError``: one line), or None when it is ``disabled``."""
    if not _NAME.match(name):
        raise ValueError("the name must be 1-32 of A-Z a-z 0-9 _ -")
    if name == RESERVED_NAME:
        raise ValueError(f"{RESERVED_NAME!r} is the kernel's own server; choose another name")
    if not isinstance(entry, dict):
        raise ValueError("must be an object")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    if entry.get("disabled") is True:
        return None
    kind = entry.get("type", "stdio" if "command" in entry else "http")
    if kind not in ("stdio", "http", "streamable-http"):
        raise ValueError(f"'type' {str(kind)[:20]!r} is not served (stdio or http)")
    if "disabled" in entry and not isinstance(entry["disabled"], bool):
        raise ValueError("'disabled' must be true or false")
    approve = _strings(entry.get("autoApprove", []), "autoApprove")
    has_command, has_url = "command" in entry, "url" in entry
    if has_command == has_url:
        raise ValueError("needs either 'command' (stdio) or 'url' (streamable HTTP)")
    if has_command:
        command = entry["command"]
        if not isinstance(command, str) or not command.strip():
            raise ValueError("'command' must be a non-empty string")
        if "headers" in entry:
            raise ValueError("'headers' belongs to a 'url' server")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ValueError("'cwd' must be a string")
        return UserServer(
            name, "stdio", source, command=command,
            args=_strings(entry.get("args", []), "args"),
            env=_string_map(entry.get("env", {}), "env", _ENV_NAME), cwd=cwd,
            auto_approve=approve,
        )  # fmt: skip
    url = entry["url"]
    if not isinstance(url, str) or not re.match(r"^https?://[^\s/@]+(/\S*)?$", url):
        raise ValueError("'url' must be an http(s) URL without credentials")
    for key in ("args", "env", "cwd"):
        if key in entry:
            raise ValueError(f"{key!r} belongs to a 'command' server")
    return UserServer(
        name, "streamable-http", source, url=url,
        headers=_string_map(entry.get("headers", {}), "headers", _HEADER), auto_approve=approve,
    )  # fmt: skip


def secret_values(servers: Iterable[UserServer]) -> list[tuple[str, str]]:
    """``(value, label)`` of the ``env`` and ``headers`` values that are secrets (label
    ``<server>.<NAME>``), for the kernel's one masking policy and the runtime's gate: every
    value but one shorter than :data:`~dsh_notebook.runtime.mask_policy.ENV_MIN_CHARS` (as
    for the environment) and an absolute path (a folder or a log file is not a secret, and
    masking its pieces would mask every path under it)."""
    found: list[tuple[str, str]] = []
    for server in servers:
        for key, value in [*server.env.items(), *server.headers.items()]:
            if len(value) >= ENV_MIN_CHARS and not _ABSOLUTE_PATH.match(value):
                found.append((value, f"{server.name}.{key}"))
    return found
