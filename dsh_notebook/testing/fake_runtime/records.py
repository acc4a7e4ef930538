"""The runtime's words: version, texts of its errors and notices, and the records it builds
(messages, ids, the compact ``data.stream`` of an attempt). Pure; no IO.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

from .wire import Json

RUNTIME_VERSION = "0.2.1-rc.2"
SERVER_NAME = "deepseek-harness-sdk-runtime"
PROVIDER = "deepseek-official"
DEFAULT_REPLY = "Hello from the fake runtime."
MAX_SAFE_INTEGER = 2**53 - 1
PERMISSION_MODES = ("workspace-write", "read-only", "danger-full-access")
ESCALATION = 'escalating this command to "danger-full-access"'
APPROVAL_TEXTS = {
    "unavailable": 'Error: sandbox escalation to "danger-full-access" requires approval, '
    "but no approval channel is available",
    "rejected": f"Error: the user rejected {ESCALATION}; it stays denied, so stop and explain "
    "instead of working around it",
    "cancelled": f"Error: approval for {ESCALATION} was cancelled",
}
QUESTIONS: list[Json] = [
    {
        "id": "color",
        "question": "Which color?",
        "header": "Color",
        "options": [{"label": "Red"}, {"label": "Blue"}],
        "multiSelect": False,
    }
]
CONTEXT_HEAD = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
)
APPROVAL_ASK = (
    "Approval policy: ask. Operations that require approval may ask through the "
    "configured answerers; without an available answerer, the request fails closed."
)
APPROVAL_NEVER = (
    "Approval prompts are disabled in this session: actions that require approval "
    "are rejected automatically \u2014 do not request sandbox escalation (do not set "
    "`sandbox_permissions`)."
)
FALLBACK_TOOLS: list[Json] = [
    {
        "name": "bash",
        "description": "Execute a bash command.",
        "parameters": {"type": "object", "properties": {}},
    }
]
GARBAGE = (
    "this line is not JSON (fake runtime, malformed scenario)",
    "[1,2,3]",
    "42",
    "",
    '"a bare JSON string"',
    "null",
    '{"jsonrpc":"2.0","method":"session.event",',
)


MISSING: Any = object()


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id() -> str:
    return str(uuid.uuid4())


def js_str(value: Any) -> str:
    """``String(value)`` as JavaScript renders it in the runtime's error texts."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else js_str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def escape_id(session_id: str) -> str:
    """On-disk session id escaping of the runtime (``a/b`` -> ``a~002Fb``)."""
    return "".join(
        c if (c.isascii() and c.isalnum()) or c in "-_." else f"~{ord(c):04X}" for c in session_id
    )


def text_block(text: str) -> Json:
    return {"type": "text", "text": text}


def message(content: list[Any], source: Json, role: str = "user") -> Json:
    return {"content": content, "source": source, "role": role, "id": new_id()}


def call_id(index: int = 0) -> str:
    return f"toolu_{time.time_ns() // 1000}_{index}"


def reply_tag(text: str) -> str | None:
    match = re.search(r"\[\[reply:(.*?)\]\]", text, re.S)
    return match.group(1) if match else None


def stream_records(content: list[Json], finish: str, replay: Json, usage: Json) -> list[Json]:
    """The compact ``data.stream`` record of one model attempt (notes §13)."""
    records: list[Json] = []
    for index, block in enumerate(content):
        kind, start = block["type"], now_ms()
        records.append(
            {
                "type": "chunk",
                "time": start,
                "chunk": {"type": "block-start", "index": index, "blockType": kind},
            }
        )
        run: Json = {"time0": start, "index": index, "dt": []}
        if kind == "tool-call":
            run.update(
                type="tool-call-chunks",
                id=block["id"],
                name=block["name"],
                args=[block["arguments"]],
            )
        else:
            run.update(type=f"{kind}-chunks", texts=[block["text"]])
        records.append(run)
        records.append(
            {
                "type": "chunk",
                "time": now_ms(),
                "chunk": {"type": "block-end", "index": index, "block": block},
            }
        )
    end = now_ms()
    records.append({"type": "chunk", "time": end, "chunk": {"type": "usage", "usage": usage}})
    records.append(
        {
            "type": "chunk",
            "time": end,
            "chunk": {"type": "finish", "reason": {"kind": finish}, "replayState": replay},
        }
    )
    return records
