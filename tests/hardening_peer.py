"""A tiny in-process peer runtime for the hardening tests (no subprocess).

``ScriptedPeer`` answers ``initialize`` / ``session/prompt`` / ``session/wait`` / ``shutdown`` over
an in-memory :func:`~dsh_notebook.testing.streams.duplex`; what it sends for a prompt is a script:
``script(session_id, message_id)`` returns the notification ``params`` (or whole frames) to send
before the prompt's response. ``session/wait`` is answered once the script was sent.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from dsh_notebook import DeepSeekHarness, HarnessClient
from dsh_notebook.testing.streams import duplex

Json = dict[str, Any]
Script = Callable[[str, str], list[Json]]


_seq = itertools.count(1)


def event(
    session: str, etype: str, data: Any = None, *, bare: bool = False, **envelope: Any
) -> Json:
    """A ``session.event`` notification frame; ``bare``: without ``seq``/``time`` (peer runtimes)."""
    ev: Json = {"type": etype, **envelope}
    if not bare:
        ev.setdefault("seq", next(_seq))
        ev.setdefault("time", 1_700_000_000_000)
    if data is not None:
        ev["data"] = data
    return {"method": "session.event", "params": {"sessionId": session, "event": ev}}


def receipt(session: str, message_id: str, *, bare: bool = False) -> Json:
    return event(
        session,
        "agent/inbox/spliced",
        {"target": "next-turn", "inserted": [{"id": message_id, "content": []}]},
        bare=bare,
    )


def status(session: str, value: str) -> Json:
    return {"method": "session.status", "params": {"sessionId": session, "status": value}}


def turn_end(session: str, reason: Any, *, bare: bool = False) -> Json:
    return event(session, "turn/end", {"turn": 1, "reason": reason}, bare=bare)


class ScriptedPeer:
    """Serves one client over in-memory streams until the client closes its side."""

    def __init__(self, script: Script, *, server_name: str = "deepseek-harness-sdk-runtime"):
        self.script = script
        self.server_name = server_name
        self.client_side, (self._receive, self._send) = duplex()
        self.methods: list[str] = []
        self._count = 0

    async def send(self, frame: Json) -> None:
        frame = {"jsonrpc": "2.0", **frame}
        await self._send.send((json.dumps(frame) + "\n").encode())

    async def serve(self) -> None:
        buffer = b""
        try:
            while True:
                try:
                    chunk = await self._receive.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        await self._handle(json.loads(line))
        finally:
            await self._send.aclose()

    async def _handle(self, frame: Json) -> None:
        method, rid, params = frame.get("method"), frame.get("id"), frame.get("params") or {}
        if method is None:
            return
        self.methods.append(method)
        if method == "initialize":
            result: Any = {
                "protocolVersion": 1,
                "serverInfo": {"name": self.server_name, "version": "0.0.1"},
            }
        elif method == "session/prompt":
            self._count += 1
            message_id = f"m{self._count}"
            for out in self.script(params["sessionId"], message_id):
                await self.send(out)
            result = {"messageId": message_id}
        elif method in ("session/wait", "shutdown"):
            result = {}
        else:
            await self.send({"id": rid, "error": {"code": -32603, "message": f"no {method}"}})
            return
        await self.send({"id": rid, "result": result})


@asynccontextmanager
async def peer_harness(script: Script, **fields: Any) -> AsyncIterator[DeepSeekHarness]:
    """A started :class:`DeepSeekHarness` whose runtime is a :class:`ScriptedPeer`."""
    peer = ScriptedPeer(script)
    failure: Exception | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(peer.serve)
        harness = DeepSeekHarness(client=HarnessClient(streams=peer.client_side, **fields))
        try:
            async with harness:
                yield harness
        except Exception as exc:  # re-raised below, not wrapped in an ExceptionGroup
            failure = exc
        tg.cancel_scope.cancel()
    if failure is not None:
        raise failure
