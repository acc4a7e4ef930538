"""``session.event`` handling: one durable session-log event of a session of the tree.

Event types this module does not show are either known to carry nothing for a reader
(:data:`SILENT`) or counted in the snapshot's ``unknown`` map; no event type raises.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dsh_notebook.protocol import SessionEvent

from .bounds import LABEL_MAX, LINE_MAX, PROMPT_MAX, RESULT_MAX, cap
from .context_tags import CONTEXT_OPEN
from .context_use import context_tokens, context_window
from .core import Core, SessionCtx
from .hints import hint_for
from .interactions import (
    QUESTION_TOOLS,
    approval_asked,
    approval_decided,
    question_from_result,
    question_from_tool,
)
from .nodes import ErrorNode, NoteNode, ToolNode, UserNode
from .plan import PlanState, goal_of, todos_of
from .stream import commit_message, drop_live

__all__ = ["SILENT", "handle_event", "text_of_blocks"]

SILENT = frozenset(
    {
        "permission/preset",
        "sandbox/mode",
        "agent/inbox/spliced",
        "step/start",
        "step/end",
        "system/message",
        "developer/message",
        "request/header",
        "session-log-deepseek/delivery-accepted",
        "llm/retry-started",
        "working-directory/change",
    }
)

_ENDINGS = {
    "aborted": "The turn was aborted.",
    "interrupted": "The previous turn was interrupted (the runtime stopped while it ran).",
    "max-tokens": "The answer stopped at the output token limit.",
    "blocked": "The turn was blocked.",
    "refusal": "The model refused to answer.",
}

FULL_RESULT_AT = "all of it: `%dsh export --format json`"
"""Where a tool result cut at :data:`RESULT_MAX` can be read whole (the run's own events)."""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any, limit: int = LINE_MAX) -> str | None:
    return cap(value, limit) if isinstance(value, str) else None


def text_of_blocks(content: Any, *, first_only: bool = False) -> str:
    """The text of a message's blocks; other blocks as ``[type …]`` placeholders."""
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif btype == "image":
            att = _dict(block.get("attachment"))
            size = f" {att.get('width')}x{att.get('height')}" if att.get("width") else ""
            parts.append(f"[image {att.get('mediaType', '')}{size}]".replace(" ]", "]"))
        elif isinstance(btype, str) and btype != "reasoning":
            parts.append(f"[{cap(btype, LABEL_MAX)} block]")
        if first_only and parts:
            break
    return "\n".join(parts) if not first_only else (parts[0] if parts else "")


def handle_event(core: Core, ctx: SessionCtx, event: SessionEvent) -> None:
    etype, data = event.type, event.data
    handler = _HANDLERS.get(etype)
    if handler is not None:
        handler(core, ctx, data)
    elif etype.startswith("compaction/"):
        if etype in ("compaction/end", "compaction/summary"):
            _compaction(core, ctx)
    elif etype not in SILENT:
        core.count_unknown(etype)
    op = event.surface_op
    if isinstance(op, dict) and op.get("op") == "replace":
        _compaction(core, ctx)


def _turn_start(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    if ctx.owner is not None:
        core.set(ctx.owner, "turns", ctx.owner.turns + 1)
        core.set(ctx.owner, "state", "running")  # a continuable child may be woken again
        return
    core.set_header("turns", core.header.turns + 1)
    if core.header.state != "running":
        core.set_header("state", "running")


def _turn_end(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    reason = _dict(data.get("reason"))
    kind = _str(reason.get("kind"), LABEL_MAX) or "unknown"
    drop_live(core, ctx)
    if ctx.owner is None:
        core.set_header("finish_reason", kind)
    if kind == "error":
        err = _dict(reason.get("error"))
        code = _str(err.get("code"), LABEL_MAX)
        status = err.get("status")
        node = ErrorNode(
            id=core.new_id(),
            message=_str(err.get("message")) or "the turn failed",
            code=code,
            status=status if isinstance(status, int) and not isinstance(status, bool) else None,
            hint=hint_for(code),
        )
        core.add_item(ctx, node)
    elif kind != "completed":
        text = _ENDINGS.get(kind, f"The turn ended: {kind}.")
        sub = _dict(reason.get("reason"))
        if kind == "aborted" and isinstance(sub.get("kind"), str):
            text = f"The turn was aborted ({cap(sub['kind'], LABEL_MAX)})."
        core.add_item(ctx, NoteNode(id=core.new_id(), note="turn-end", text=text))


def _assistant_message(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    message = _dict(data.get("message"))
    content = message.get("content")
    commit_message(core, ctx, content if isinstance(content, list) else [])
    usage = data.get("usage")
    tokens = context_tokens(usage) if ctx.owner is None else None
    if tokens is not None:  # the root's context after this step (subagents have their own)
        core.set_header("context_use", replace(core.header.context_use, tokens=tokens))
    if isinstance(usage, dict):
        if core.header.usage.add(usage):
            core.touch()
        for owner in core.owners(ctx):
            if owner.usage.add(usage):
                core.touch(owner)


def _assistant_attempt(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    drop_live(core, ctx)


def _user_message(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    source = _dict(data.get("source"))
    kind = source.get("kind")
    if kind == "user":
        first = not ctx.seen_user_message
        ctx.seen_user_message = True
        content = data.get("content")
        if first and ctx.owner is not None:
            # the task; the runtime appends a "report back" instruction as a second block
            prompt = cap(text_of_blocks(content, first_only=True), PROMPT_MAX)
            core.set(ctx.owner, "prompt", prompt)
        elif first:
            core.first_prompt(cap(text_of_blocks(content), PROMPT_MAX))
        else:
            text = cap(text_of_blocks(content), PROMPT_MAX)
            if text.strip():
                core.add_item(ctx, UserNode(id=core.new_id(), text=text))
    elif kind == "subagent-settled":
        sender = core.ctx(_str(source.get("senderSessionId"), LABEL_MAX))
        owner = sender.owner if sender is not None else None
        name = (owner.label or owner.description) if owner is not None else None
        text = (
            f"Subagent “{name}” finished; the agent continues."
            if name
            else "A subagent finished; the agent continues."
        )
        core.add_item(ctx, NoteNode(id=core.new_id(), note="subagent", text=cap(text, LINE_MAX)))
    elif kind == "user-question-reply":
        core.add_item(
            ctx,
            NoteNode(
                id=core.new_id(),
                note="question-reply",
                text="A late answer to a question was delivered.",
            ),
        )


def _tool_call(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    call_id = _str(data.get("callId"), LABEL_MAX)
    if call_id is None:
        return
    tool = ctx.tools.get(call_id)
    if tool is None:
        tool = ToolNode(id=core.new_id(), call_id=call_id)
        ctx.tools[call_id] = tool
        core.add_item(ctx, tool)
    name = _str(data.get("name"), LABEL_MAX)
    if name and tool.name != name:
        tool.name = name
    arguments = data.get("arguments")
    if isinstance(arguments, str) and (not tool.arguments or tool.state == "streaming"):
        tool.set_arguments(arguments)
    if tool.state in ("streaming", "pending"):
        tool.state = "running"
    core.touch(tool)
    if tool.name in QUESTION_TOOLS:
        question_from_tool(core, ctx, tool)


def _tool_result(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    message = _dict(data.get("message"))
    call_id = message.get("toolCallId") or _dict(message.get("source")).get("callId")
    if not isinstance(call_id, str):
        core.count_unknown("tool/result (no call id)")
        return
    tool = ctx.tools.get(call_id)
    if tool is None:  # e.g. the call was made before a resume
        tool = ToolNode(id=core.new_id(), call_id=cap(call_id, LABEL_MAX), name="(unknown tool)")
        ctx.tools[call_id] = tool
        core.add_item(ctx, tool)
    text = text_of_blocks(message.get("content"))
    error = _dict(data.get("error"))
    tool.result = cap(text, RESULT_MAX, rest=FULL_RESULT_AT)
    tool.is_error = bool(message.get("isError")) or bool(error)
    tool.error_code = _str(error.get("code"), LABEL_MAX)
    if tool.state != "rejected":
        tool.state = "failed" if tool.is_error else "done"
    core.touch(tool)
    question_from_result(core, tool, text, tool.error_code)


def _job(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    call_id = _dict(data.get("toolCall")).get("callId")
    tool = ctx.tools.get(call_id) if isinstance(call_id, str) else None
    if tool is None:
        core.count_unknown("job (no tool call)")
        return
    job = {
        "job_id": _str(data.get("jobId"), LABEL_MAX),
        "kind": _str(data.get("kind"), LABEL_MAX),
        "status": _str(data.get("status"), LABEL_MAX) or "running",
        "detail": _str(data.get("detail")),
    }
    core.set(tool, "job", job)


def _approval_policy(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    ctx.policy = _str(data.get("policy"), LABEL_MAX)


def _subagent_catalog(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    child_id = _str(data.get("childId"), LABEL_MAX)
    if child_id is None:
        return
    child = core.add_child(ctx, child_id)
    if child.owner is not None:
        if isinstance(data.get("label"), str):
            core.set(child.owner, "label", cap(data["label"], LABEL_MAX))
        if isinstance(data.get("mode"), str):
            core.set(child.owner, "mode", cap(data["mode"], LABEL_MAX))


def _session_title(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    """The runtime titles a session from its first prompt, the kernel's context block included:
    the title keeps the person's words only."""
    if ctx.owner is None and not core.title_given:
        raw = data.get("title")
        raw = raw.split(CONTEXT_OPEN)[0].rstrip() if isinstance(raw, str) else raw
        title = _str(raw, LABEL_MAX)
        if title:
            core.set_header("title", title)


def _request_context(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    window = context_window(data)
    if ctx.owner is None and window is not None:
        core.set_header("context_use", replace(core.header.context_use, window=window))
    if ctx.owner is None and not core.model_given:
        model = _str(data.get("model"), LABEL_MAX)
        if model:
            core.set_header("model", model)


def _llm_retry(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    failure = _dict(data.get("failure"))
    code = _str(failure.get("code"), LABEL_MAX) or "error"
    message = _str(failure.get("message")) or "the model request failed"
    retry, limit = data.get("retry"), data.get("maxRetries")
    count = f" (retry {retry}/{limit})" if isinstance(retry, int) and isinstance(limit, int) else ""
    text = f"Model request failed ({code}: {message}); retrying{count}."
    last = ctx.items.items[-1] if ctx.items.items else None
    if isinstance(last, NoteNode) and last.note == "retry":
        core.set(last, "text", text)
        core.set(last, "count", last.count + 1)
    else:
        core.add_item(ctx, NoteNode(id=core.new_id(), note="retry", text=text))


def _compaction(core: Core, ctx: SessionCtx) -> None:
    last = ctx.items.items[-1] if ctx.items.items else None
    if isinstance(last, NoteNode) and last.note == "compaction":
        return
    core.add_item(ctx, NoteNode(id=core.new_id(), note="compaction", text="Context compacted."))


def _todo_write(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    """A session's plan: the root's goes to the snapshot's ``plan``, a child's to its card."""
    parsed = todos_of(data)
    if parsed is None:
        core.count_unknown("malformed todo/write")
        return
    owner = ctx.owner
    plan = core.plan if owner is None else owner.plan
    if plan is None:
        plan = PlanState()
        if owner is None:
            core.plan = plan
        else:
            owner.plan = plan
    plan.write(*parsed)
    core.touch(owner)


def _goal_change(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    if ctx.owner is None:
        core.set_header("goal", goal_of(data))


PLAN_MODE_ON = "Plan mode on: the agent explores, then asks you to approve its plan before it acts."
PLAN_MODE_OFF = "Plan mode off."


def _plan_mode(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    """The runtime's plan mode changed (``plan/mode {active}``): said once per change, root only."""
    active = data.get("active")
    if ctx.owner is None and isinstance(active, bool):
        text = PLAN_MODE_ON if active else PLAN_MODE_OFF
        core.add_item(ctx, NoteNode(id=core.new_id(), note="client", text=text))


_HANDLERS = {
    "turn/start": _turn_start,
    "turn/end": _turn_end,
    "assistant/message": _assistant_message,
    "assistant/attempt": _assistant_attempt,
    "user/message": _user_message,
    "tool/call": _tool_call,
    "tool/result": _tool_result,
    "job/registered": _job,
    "job/settled": _job,
    "approval/asked": approval_asked,
    "approval/decided": approval_decided,
    "approval/policy": _approval_policy,
    "subagent/catalog": _subagent_catalog,
    "session/title": _session_title,
    "request/context": _request_context,
    "llm/retry": _llm_retry,
    "todo/write": _todo_write,
    "goal/change": _goal_change,
    "plan/mode": _plan_mode,
}
