"""Scripted tool turns for the in-process kernel's peer: the scripted model's :class:`Script`
played as the runtime plays it, its notebook tool calls made over MCP to the kernel's own server.

::

    kernel.peer.scripts["undo"] = Script(steps=(
        Step(tool_calls=(ToolCall("mcp__notebook__run_python", {"code": "x = 1"}),)),
        Step(text="done"),
    ))
    kernel.run_cell("", "[[scenario:undo]] go")

Guarantees:

* **The call is the runtime's**: a ``mcp__notebook__<tool>`` call is sent to the server the
  kernel mounted (the ``url`` of its patch, the bearer token from the runtime's environment) as
  the published runtime's MCP client sends it (protocol ``2026-07-28``: the same headers, the
  same ``_meta``; captured from runtime 0.2.1-rc.2), and its result is what the server answered.
  The kernel's server is not replaced: approval, the cards, ownership, undo and masking run as in
  a kernel.
* **Events in the runtime's order** (``tests/captures/bash.jsonl``): per step ``step/start``,
  ``assistant/message`` (the step's text and tool-call blocks), then per call ``tool/call`` —
  written before the server is called, which is what lets the kernel tell whose call it is —
  the call, ``tool/result``; ``step/end``. A step without tool calls is the answer and ends the
  turn. Calls of one step run one after another, in order.
* **Bounded**: a call other than the notebook's (``bash``, ``subagent``, …) is answered as
  unavailable (the peer runs no runtime tools); a script longer than :data:`MAX_STEPS` ends
  with an error; each prompt plays its script from its first step (the model's step index is
  not derived from history).

Threads: everything runs on the host loop (the MCP request itself in a worker thread, so the
loop goes on serving the kernel's barrier while the server decides the call).
"""

from __future__ import annotations

import itertools
import json
import re
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio

from ..client import HarnessConfig
from ..notebook_tools.patch import MCP_PLUGIN_ID, MCP_TOKEN_ENV
from ..notebook_tools.schemas import public_tool_name
from ..scripted_model import Script, Step

__all__ = ["MAX_STEPS", "NotebookToolsCaller", "ToolTurns"]

MAX_STEPS = 50
PROTOCOL_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "dsh-mcp-client", "version": "0.0.1"}
_URL = re.compile(r'^\s*url: "(http://[^"]+)"\s*$', re.M)

Emit = Callable[[str, dict[str, Any]], Awaitable[None]]
"""``emit(event_type, data)``: one ``session.event`` of the turn's session."""


class NotebookToolsCaller:
    """Calls the kernel's notebook MCP server as the runtime's MCP client does."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self._token = token
        self._ids = itertools.count()

    @classmethod
    def from_config(cls, config: HarnessConfig) -> NotebookToolsCaller | None:
        """The server a runtime started with ``config`` mounts (``None``: no notebook tools)."""
        for patch in config.patches:
            text = Path(patch).read_text(encoding="utf-8")
            found = _URL.search(text)
            if f"id: {MCP_PLUGIN_ID}" in text and found:
                token = config.env.get(MCP_TOKEN_ENV, "")
                reveal = getattr(token, "reveal", None)
                return cls(found.group(1), reveal() if callable(reveal) else str(token))
        return None

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``tools/call``; the result object (an MCP error becomes an error result)."""
        meta = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        params = {"name": tool, "arguments": dict(arguments), "_meta": meta}
        body = {"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": next(self._ids)}
        headers = {
            "authorization": f"Bearer {self._token}",
            "mcp-protocol-version": PROTOCOL_VERSION,
            "mcp-method": "tools/call",
            "mcp-name": tool,
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        }
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )

        def post() -> dict[str, Any]:
            try:
                with urllib.request.urlopen(request, timeout=3600) as response:
                    answer: dict[str, Any] = json.loads(response.read())
            except urllib.error.HTTPError as exc:
                return _error_result(f"HTTP {exc.code}: {exc.read().decode(errors='replace')}")
            if "error" in answer:
                return _error_result(str(answer["error"].get("message")))
            result: dict[str, Any] = answer["result"]
            return result

        return await anyio.to_thread.run_sync(post, abandon_on_cancel=True)


def _error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"MCP error: {message}"}], "isError": True}


class ToolTurns:
    """Plays scripts for one peer: :attr:`scripts` by scenario name."""

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self._ids = itertools.count(1)

    def script_for(self, prompt: str) -> Script | None:
        """The script a prompt's ``[[scenario:NAME]]`` tag names, if registered here."""
        found = re.search(r"\[\[scenario:([A-Za-z0-9_.-]+)\]\]", prompt)
        return self.scripts.get(found.group(1)) if found else None

    async def play(self, script: Script, emit: Emit, caller: NotebookToolsCaller | None) -> str:
        """Run ``script``'s steps as turn 1 of the session ``emit`` writes to; the answer."""
        for index in range(MAX_STEPS):
            step = _fixed(script, index)
            await anyio.sleep(step.delay)
            number = index + 1
            await emit("step/start", {"turn": 1, "step": number})
            calls = [(f"toolu_peer_{next(self._ids)}", call) for call in step.tool_calls]
            content: list[dict[str, Any]] = (
                [{"type": "text", "text": step.text}] if step.text else []
            )
            content += [
                {"type": "tool-call", "id": cid, "name": c.name, "arguments": json.dumps(c.input)}
                for cid, c in calls
            ]
            message = {"role": "assistant", "content": content}
            await emit("assistant/message", {"turn": 1, "step": number, "message": message})
            for call_id, call in calls:
                arguments = json.dumps(dict(call.input))
                await emit(
                    "tool/call",
                    {"turn": 1, "step": number, "callId": call_id, "name": call.name,
                     "arguments": arguments},
                )  # fmt: skip
                result = await self._result(call.name, dict(call.input), caller)
                tool_message = {
                    "role": "tool", "source": {"kind": "tool", "callId": call_id},
                    "toolCallId": call_id, "content": result.get("content", []),
                    "isError": bool(result.get("isError")),
                }  # fmt: skip
                await emit("tool/result", {"turn": 1, "step": number, "message": tool_message})
            await emit("step/end", {"turn": 1, "step": number})
            if not calls:
                return step.text
        return f"the scripted turn did not end within {MAX_STEPS} steps"

    async def _result(
        self, name: str, arguments: dict[str, Any], caller: NotebookToolsCaller | None
    ) -> dict[str, Any]:
        prefix = public_tool_name("")
        if not name.startswith(prefix) or caller is None:
            return _error_result(f"{name} is not available in the in-process peer")
        return await caller.call(name[len(prefix) :], arguments)


def _fixed(script: Script, index: int) -> Step:
    if index >= len(script.steps):
        if script.repeat_last:
            index = len(script.steps) - 1
        else:
            return script.after_last or Step(text="(the script has no more steps)")
    step = script.steps[index]
    if not isinstance(step, Step):
        raise TypeError("the in-process peer plays fixed steps only (no step factories)")
    return step
