"""The turn the analyst answers, read from one Messages request (pure; no IO).

A *turn* starts at the newest user message with human text (the prompt) and holds every tool call
the model made after it together with its result. The analyst is stateless: everything it knows
about its own progress comes from this record, so parent and subagent requests, retries and
restarts need no memory on the server side.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..scripted_model import Step, ToolCall, analyze_request
from ..scripted_model.analysis import NOTICE_MESSAGE_PREFIXES, NOTICE_PREFIXES, tool_result_text

__all__ = ["PARENT_NOTICE", "Exchange", "Turn", "read_turn", "say"]

#: How the runtime starts the first user message of a subagent child (a notice it writes).
PARENT_NOTICE: Final = "Your parent agent id is "
_PARENT_ID: Final = re.compile(r"^\s*" + re.escape(PARENT_NOTICE) + r'"([^"]+)"')


@dataclass(frozen=True)
class Exchange:
    """One tool call of this turn and what came back.

    Attributes:
        name: the tool name as the model called it (``mcp__notebook__run_python``, ``bash``).
        input: the call's arguments.
        result: the result's text (text blocks joined); ``None`` while it has no result.
        is_error: whether the runtime marked the result as an error (a rejection, a failure).
    """

    name: str
    input: Mapping[str, Any]
    result: str | None
    is_error: bool

    @property
    def tool(self) -> str:
        """The bare tool name: ``run_python`` for ``mcp__notebook__run_python``."""
        return self.name.rsplit("__", 1)[-1]


@dataclass(frozen=True)
class Turn:
    """What the analyst knows when it picks its next step.

    Attributes:
        prompt: the person's own text of the prompt: its first human text block (interpolated
            ``{var}`` descriptions included); text blocks after it (a notebook context block
            the client may add) are not the question.
        tools: the names of the tools the request offers.
        exchanges: this turn's tool calls with their results, oldest first.
        notices: runtime-written texts of the newest user message (e.g. a subagent settled).
        parent: the parent's session id when this is a subagent child's request (the runtime's
            parent-id notice opens the child's history, so every step of the child has it),
            else ``None``.
    """

    prompt: str
    tools: frozenset[str]
    exchanges: tuple[Exchange, ...]
    notices: tuple[str, ...] = ()
    parent: str | None = None

    def offers(self, tool: str) -> bool:
        """Whether ``tool`` (bare name) is offered, natively or as a notebook MCP tool."""
        return any(name == tool or name.endswith("__" + tool) for name in self.tools)

    def call(self, tool: str, args: dict[str, Any], text: str) -> Step:
        """A step that says ``text`` and calls ``tool`` (bare name, see :meth:`tool_name`)."""
        return Step(text=text, tool_calls=(ToolCall(self.tool_name(tool), args),))

    def tool_name(self, tool: str) -> str:
        """The offered name of ``tool`` (``mcp__notebook__run_python``), else ``tool``."""
        for name in sorted(self.tools):
            if name == tool or name.endswith("__" + tool):
                return name
        return tool

    def done(self, tool: str) -> list[Exchange]:
        """This turn's answered calls of ``tool`` (bare name), oldest first."""
        return [e for e in self.exchanges if e.tool == tool and e.result is not None]


def read_turn(body: Mapping[str, Any]) -> Turn:
    """The turn of request ``body``: prompt, offered tools, tool calls with results.

    The prompt is found as the scripted model finds its tagged message (the newest user message
    with human text, see :func:`~dsh_notebook.scripted_model.analyze_request`); tool calls are
    the ``tool_use`` blocks of the assistant messages after it, matched to ``tool_result`` blocks
    by id. Malformed parts are skipped, never raised on.
    """
    analysis = analyze_request(body)
    raw_tools = body.get("tools")
    tools = frozenset(
        str(t["name"])
        for t in (raw_tools if isinstance(raw_tools, list) else [])
        if isinstance(t, Mapping) and isinstance(t.get("name"), str)
    )
    raw = body.get("messages")
    messages = [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []
    # the assistant messages of this turn are the last step_index ones
    assistant_seen = 0
    start = len(messages)
    for index in range(len(messages) - 1, -1, -1):
        if assistant_seen == analysis.step_index:
            break
        if messages[index].get("role") == "assistant":
            assistant_seen += 1
        start = index
    calls: list[tuple[str, str, Mapping[str, Any]]] = []
    results: dict[str, tuple[str, bool]] = {}
    for message in messages[start:]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "tool_use" and message.get("role") == "assistant":
                args = block.get("input")
                calls.append(
                    (
                        str(block.get("id", "")),
                        str(block.get("name", "")),
                        args if isinstance(args, Mapping) else {},
                    )
                )
            elif block.get("type") == "tool_result":
                results[str(block.get("tool_use_id", ""))] = (
                    tool_result_text(block.get("content"), "\n"),
                    bool(block.get("is_error")),
                )
    exchanges = tuple(
        Exchange(name, args, *results.get(cid, (None, False))) for cid, name, args in calls
    )
    return Turn(
        prompt=_own_text(messages) or analysis.prompt_text,
        tools=tools,
        exchanges=exchanges,
        notices=analysis.notices,
        parent=_parent_of(messages),
    )


def _own_text(messages: list[Mapping[str, Any]]) -> str | None:
    """The first human text block of the newest user message that has one."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            continue
        texts = [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "text"
        ]
        if texts and texts[0].lstrip().startswith(NOTICE_MESSAGE_PREFIXES):
            continue
        human = [t for t in texts if not t.lstrip().startswith(NOTICE_PREFIXES)]
        if human:
            return human[0]
    return None


def _parent_of(messages: list[Mapping[str, Any]]) -> str | None:
    """The parent id that the runtime's notice names in the history's user messages, if any."""
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "text":
                match = _PARENT_ID.match(str(block.get("text", "")))
                if match:
                    return match.group(1)
    return None


def say(text: str) -> Step:
    """The analyst's answer ``text`` as the model's last step of the turn."""
    return Step(text=text, output_tokens=max(1, len(text) // 4))
