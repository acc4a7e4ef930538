"""Does each of the person's MCP servers start, and which tools does it offer?

:func:`probe_servers` connects to every server of :mod:`.user_servers` at once (stdio: starts
its command; URL: one streamable-HTTP session), asks ``initialize`` and ``tools/list``, and
closes. A server that does not answer within ``timeout`` seconds, exits, or fails is a
:class:`ServerCheck` with a one-line ``error`` (its last stderr line, when it wrote one) and no
tools: the kernel then leaves it out of the runtime and says so once.

Guarantees: bounded (``timeout`` per server, all in parallel, plus the close); runs on a thread
of its own with its own event loop, so it may be called from any thread, the kernel's loop
included; never raises for a server's failure; a server's stderr goes to a temporary file, never
to the notebook. The texts are not masked here (the kernel masks what it shows).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .user_servers import UserServer

__all__ = ["PROBE_TIMEOUT", "ServerCheck", "probe_servers"]

PROBE_TIMEOUT = 20.0
"""Seconds a server may take to answer ``initialize`` and ``tools/list``."""

LINE_MAX = 200
TOOLS_MAX = 64


@dataclass(frozen=True)
class ServerCheck:
    """One server's answer: its tools ``(name, first line of description)``, or an error."""

    name: str
    tools: tuple[tuple[str, str], ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def probe_servers(
    servers: Sequence[UserServer], timeout: float = PROBE_TIMEOUT
) -> list[ServerCheck]:
    """Each server's :class:`ServerCheck`, in the order given (see the module docstring)."""
    if not servers:
        return []
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="dsh-mcp-probe") as pool:
        return pool.submit(asyncio.run, _probe_all(servers, timeout)).result()


async def _probe_all(servers: Sequence[UserServer], timeout: float) -> list[ServerCheck]:
    return list(await asyncio.gather(*(_probe(s, timeout) for s in servers)))


def _line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_MAX else text[: LINE_MAX - 1] + "…"


def _last_line(log: TextIO) -> str:
    try:
        log.flush()
        log.seek(0)
        lines = [line.strip() for line in log.read()[-8192:].splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    return lines[-1] if lines else ""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, FileNotFoundError):
        return "command not found"
    inner = getattr(exc, "exceptions", None)  # an exception group: its first member says it
    if isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        return _reason(inner[0])
    text = str(exc).strip()
    if "Connection closed" in text:
        return "it exited before answering"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def _probe(server: UserServer, timeout: float) -> ServerCheck:
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        try:
            tools = await asyncio.wait_for(_list_tools(server, log), timeout)
        except Exception as exc:  # the server's failure is the answer, never raised
            stderr = _last_line(log)
            reason = _reason(exc)
            if stderr and reason != "command not found":
                reason = f"{reason}; it said: {stderr}"
            return ServerCheck(server.name, error=_line(reason))
    return ServerCheck(server.name, tools=tools)


async def _list_tools(server: UserServer, log: TextIO) -> tuple[tuple[str, str], ...]:
    from mcp.client.session import ClientSession

    async with _connect(server, log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
    found: list[tuple[str, str]] = []
    for tool in listed.tools[:TOOLS_MAX]:
        description = (tool.description or "").strip().splitlines()
        found.append((tool.name, _line(description[0]) if description else ""))
    return tuple(found)


@contextlib.asynccontextmanager
async def _connect(server: UserServer, log: TextIO) -> AsyncIterator[tuple[Any, Any]]:
    """The server's read and write streams (stdio: its process; URL: an HTTP client)."""
    if server.transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=server.command, args=list(server.args), env=dict(server.env) or None,
            cwd=server.cwd,
        )  # fmt: skip
        async with stdio_client(params, errlog=log) as streams:
            yield streams[0], streams[1]
        return
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=dict(server.headers)) as client,
        streamable_http_client(server.url, http_client=client) as streams,
    ):
        yield streams[0], streams[1]
