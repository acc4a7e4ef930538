"""The ``notebook-calls`` scenario: notebook tool calls named in the prompt, in order.

Prompt format (keep it: browser tests use it)::

    [[scenario:notebook-calls]] [{"tool": "edit_cell", "args": {"cell_id": "@2", ...}}, ...]

The JSON list after the marker (to the end of that line) names notebook tools by their raw name
(``edit_cell``; the model calls ``mcp__notebook__edit_cell``). The model first calls
``notebook_cells`` (so the conversation has seen the notebook), then each listed call, one per
step, each after the previous result, then answers a final text quoting the first line of every
tool result in order (``1. <first line>`` …, ``notebook_cells``' included). An argument value
``"@N"`` (also inside a list) is the short id of the cell at position N (1-based) in the
``notebook_cells`` result (its ``## cell N · id xxxxxxxx`` header); an unknown position stays
as written. A malformed list answers one text saying so, and calls nothing.

Pure functions of the request body; no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from .analysis import tool_result_text
from .steps import ScriptContext, Step, ToolCall

__all__ = ["MARKER", "notebook_calls_step", "planned_calls", "resolve_args", "tool_results"]

MARKER: Final = "[[scenario:notebook-calls]]"
_PREFIX: Final = "mcp__notebook__"
_CELL: Final = re.compile(r"^## cell (\d+) · id ([0-9A-Za-z_-]+)", re.MULTILINE)


def planned_calls(prompt: str) -> list[tuple[str, dict[str, Any]]] | str:
    """The ``(tool, args)`` list after the marker, or why it cannot be read."""
    at = prompt.find(MARKER)
    if at < 0:
        return "no [[scenario:notebook-calls]] marker"
    line = prompt[at + len(MARKER) :].split("\n", 1)[0].strip()
    try:
        raw = json.loads(line) if line else []
    except ValueError as exc:
        return f"the call list is not JSON ({exc})"
    if not isinstance(raw, list):
        return "the call list is not a JSON list"
    calls: list[tuple[str, dict[str, Any]]] = []
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("tool"), str):
            return 'each call is {"tool": NAME, "args": {...}}'
        args = item.get("args", {})
        if not isinstance(args, Mapping):
            return f"the args of {item['tool']} are not an object"
        calls.append((str(item["tool"]), dict(args)))
    return calls


def tool_results(body: Mapping[str, Any]) -> list[str]:
    """The text of every ``tool_result`` after the newest user message whose own text holds
    the marker."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    start = 0
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        blocks: list[Any] = [{"type": "text", "text": content}] if isinstance(content, str) else []
        blocks += content if isinstance(content, list) else []
        if any(  # the prompt's own text; a tool result may quote it (notebook_cells does)
            isinstance(b, Mapping) and b.get("type") == "text" and MARKER in str(b.get("text"))
            for b in blocks
        ):
            start = index + 1
    texts: list[str] = []
    for message in messages[start:]:
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                texts.append(tool_result_text(block.get("content"), ""))
    return texts


def resolve_args(args: Any, cells_text: str) -> Any:
    """``args`` with each ``"@N"`` replaced by the short id of cell N in ``cells_text``."""
    ids = {int(n): short for n, short in _CELL.findall(cells_text)}
    if isinstance(args, str) and re.fullmatch(r"@\d+", args):
        return ids.get(int(args[1:]), args)
    if isinstance(args, Mapping):
        return {k: resolve_args(v, cells_text) for k, v in args.items()}
    if isinstance(args, list):
        return [resolve_args(v, cells_text) for v in args]
    return args


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "(empty)")


def final_text(results: Sequence[str]) -> str:
    lines = [f"{i}. {_first_line(t)}" for i, t in enumerate(results, start=1)]
    return "Notebook calls done. First lines of the results:\n" + "\n".join(lines)


def notebook_calls_step(ctx: ScriptContext) -> Step:
    """The step for ``ctx`` (see the module doc)."""
    calls = planned_calls(ctx.prompt_text)
    if isinstance(calls, str):
        return Step(text=f"notebook-calls: {calls}; nothing was called.")
    step = ctx.step_index
    if step == 0:
        return Step(
            text="Reading the notebook first.",
            tool_calls=(ToolCall(_PREFIX + "notebook_cells", {}),),
        )
    results = tool_results(ctx.body)
    if step <= len(calls):
        tool, args = calls[step - 1]
        resolved = resolve_args(args, results[0] if results else "")
        return Step(text=f"Calling {tool}.", tool_calls=(ToolCall(_PREFIX + tool, resolved),))
    return Step(text=final_text(results))
