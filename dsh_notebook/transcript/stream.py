"""Live model output (``session.assistant_stream`` frames) and its replacement by the final message.

Guarantees:

- Deltas grow one node per (attempt, content-block index): ``text-delta`` → a ``text`` node,
  ``reasoning-delta`` → a ``reasoning`` node, ``tool-call-delta`` → a ``tool`` node in state
  ``streaming``. Nodes are marked ``streaming: true`` until committed.
- The committed ``assistant/message`` wins: its blocks replace every live node of the session's
  open attempts, at the position of the first one (node ids are kept where the block index and
  kind match, so a view can update in place). The bridge guarantees that all chunks of an attempt
  precede its message, and a session runs one attempt at a time.
- An attempt that ends ``abandoned``, or commits as ``assistant/attempt`` (a failed model call),
  loses its live nodes: the durable log has no text for it.
"""

from __future__ import annotations

from typing import Any

from .bounds import ARGS_MAX, LABEL_MAX, cap
from .core import Core, LiveAttempt, SessionCtx
from .interactions import QUESTION_TOOLS, question_from_tool
from .nodes import Item, NoteNode, TextNode, ToolNode

__all__ = ["commit_message", "drop_live", "handle_frame"]


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def handle_frame(core: Core, ctx: SessionCtx, frame: dict[str, Any]) -> None:
    kind = frame.get("type")
    attempt_id = frame.get("attemptId")
    if not isinstance(attempt_id, str):
        return
    if kind == "chunk":
        chunk = frame.get("chunk")
        if isinstance(chunk, dict):
            _chunk(core, ctx, attempt_id, chunk)
    elif kind == "end":
        attempt = ctx.attempts.pop(attempt_id, None)
        if attempt is None:
            return
        outcome = frame.get("outcome")
        if isinstance(outcome, dict) and outcome.get("kind") == "committed":
            for node in attempt.nodes:  # committed without a message we saw: keep, stop the spinner
                if isinstance(node, TextNode):
                    core.set(node, "streaming", False)
        else:
            _remove(core, ctx, attempt)
    # "start" and anything newer: nothing to show until a chunk arrives


def _chunk(core: Core, ctx: SessionCtx, attempt_id: str, chunk: dict[str, Any]) -> None:
    ctype = chunk.get("type")
    index = _int(chunk.get("index"))
    if ctype in ("text-delta", "reasoning-delta"):
        text = chunk.get("text")
        if isinstance(text, str) and text:
            node = core.open_text(
                ctx, attempt_id, index, "text" if ctype == "text-delta" else "reasoning"
            )
            if node.append(text):
                core.touch(node)
    elif ctype == "tool-call-delta":
        _tool_delta(core, ctx, attempt_id, index, chunk)


def _tool_delta(
    core: Core, ctx: SessionCtx, attempt_id: str, index: int, chunk: dict[str, Any]
) -> None:
    attempt = core.attempt(ctx, attempt_id)
    node = attempt.blocks.get(index)
    if not isinstance(node, ToolNode):
        call_id = chunk.get("id")
        if not isinstance(call_id, str) or call_id in ctx.tools:
            return
        node = ToolNode(id=core.new_id(), call_id=cap(call_id, LABEL_MAX), state="streaming")
        attempt.blocks[index] = node
        attempt.nodes.append(node)
        ctx.tools[call_id] = node
        core.add_item(ctx, node)
    name = chunk.get("name")
    if isinstance(name, str) and name and not node.name:
        core.set(node, "name", cap(name, LABEL_MAX))
    delta = chunk.get("argumentsDelta")
    if isinstance(delta, str) and delta and len(node.arguments) < ARGS_MAX:
        node.arguments = (node.arguments + delta)[:ARGS_MAX]
        core.touch(node)


def _remove(core: Core, ctx: SessionCtx, attempt: LiveAttempt) -> None:
    for node in attempt.nodes:
        core.remove_item(ctx, node)
        if isinstance(node, ToolNode) and ctx.tools.get(node.call_id) is node:
            del ctx.tools[node.call_id]


def drop_live(core: Core, ctx: SessionCtx) -> None:
    """Forget every open attempt of ``ctx`` and its live nodes (a failed attempt was committed)."""
    for attempt in ctx.attempts.values():
        _remove(core, ctx, attempt)
    ctx.attempts.clear()


def commit_message(core: Core, ctx: SessionCtx, content: list[Any]) -> None:
    """Replace the live nodes of ``ctx`` by the blocks of its committed ``assistant/message``."""
    attempts = list(ctx.attempts.values())
    ctx.attempts.clear()
    live: list[Item] = [node for attempt in attempts for node in attempt.nodes]
    reuse: dict[int, Item] = {}
    for attempt in attempts:
        reuse.update(attempt.blocks)
    positions = [i for i, item in enumerate(ctx.items.items) if any(item is n for n in live)]
    position = positions[0] if positions else None

    final: list[Item] = []
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype in ("text", "reasoning"):
            text = block.get("text")
            if not isinstance(text, str) or not text.strip():
                continue
            prior = reuse.get(i)
            if isinstance(prior, TextNode) and prior.kind == btype:
                text_node = prior
            else:
                text_node = TextNode(id=core.new_id(), kind=btype)
            text_node.set_text(text)
            text_node.streaming = False
            final.append(text_node)
        elif btype == "tool-call":
            call_id = block.get("id")
            if not isinstance(call_id, str):
                continue
            tool = ctx.tools.get(call_id)
            if tool is None:
                tool = ToolNode(id=core.new_id(), call_id=cap(call_id, LABEL_MAX))
                ctx.tools[call_id] = tool
            name = block.get("name")
            tool.name = cap(name, LABEL_MAX) if isinstance(name, str) else tool.name
            arguments = block.get("arguments")
            tool.set_arguments(arguments if isinstance(arguments, str) else "")
            if tool.state == "streaming":
                tool.state = "pending"
            final.append(tool)
            if tool.name in QUESTION_TOOLS:
                question_from_tool(core, ctx, tool)
        elif isinstance(btype, str):
            final.append(
                NoteNode(id=core.new_id(), note="block", text=f"[{cap(btype, LABEL_MAX)} block]")
            )

    kept = set(map(id, final))
    for old in live:
        core.remove_item(ctx, old)
        if isinstance(old, ToolNode) and id(old) not in kept and ctx.tools.get(old.call_id) is old:
            del ctx.tools[old.call_id]
    if position is None or position > len(ctx.items.items):
        position = len(ctx.items.items)
    for item in final:
        if any(item is existing for existing in ctx.items.items):
            continue  # a tool node already listed (its call event came first)
        core.add_item(ctx, item, position)
        position += 1
    for item in final:
        core.touch(item)
