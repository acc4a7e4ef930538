"""Server-sent events of one successful Anthropic-Messages reply (pure; no IO)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from .steps import Step

__all__ = ["encode_sse", "iter_sse_events"]


def encode_sse(event: dict[str, Any]) -> bytes:
    """One SSE frame: ``event: <type>`` and a compact JSON ``data:`` line."""
    payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"event: {event['type']}\ndata: {payload}\n\n".encode()


def iter_sse_events(step: Step, *, model: str = "deepseek-flash") -> Iterator[dict[str, Any]]:
    """The SSE event payloads (``data:`` objects, in order) of a successful reply to ``step``.

    Tool-use ids are generated fresh (``toolu_<hex>``) unless the :class:`ToolCall` sets one.
    """
    yield {
        "type": "message_start",
        "message": {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": 0},
        },
    }
    index = 0
    if step.thinking is not None:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "thinking", "thinking": ""},
        }
        if step.thinking:
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "thinking_delta", "thinking": step.thinking},
            }
        yield {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "signature_delta", "signature": step.signature},
        }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    deltas = step.text_deltas()
    if deltas or step.text_chunks is not None:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
        for piece in deltas:
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": piece},
            }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    for call in step.tool_calls:
        call_id = call.id or f"toolu_{uuid.uuid4().hex[:24]}"
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": call_id, "name": call.name, "input": {}},
        }
        raw = json.dumps(dict(call.input), ensure_ascii=False)
        n = max(1, min(call.json_chunks, len(raw)))
        size = -(-len(raw) // n)
        for pos in range(0, len(raw), size):
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": raw[pos : pos + size]},
            }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": step.effective_stop_reason, "stop_sequence": None},
        "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
    }
    yield {"type": "message_stop"}
