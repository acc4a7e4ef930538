"""Approvals and questions: the runtime's events merged with the client's own facts.

Approvals. The runtime writes ``approval/asked`` (its id, tool, call id, reason) and later
``approval/decided`` (its id, outcome). The client knows the request it answered (the bridge's
request id) and who decided. Both are merged into one :class:`ApprovalNode` per approval: by call
id when known, else the latest undecided approval of the same session and tool. The runtime's
outcome is the truth: if it differs from the client's answer, ``decided_by`` becomes ``"runtime"``.
An outcome other than ``allowed-once`` marks the tool call ``rejected``.

Questions. An ``ask_user_question`` (or ``exit_plan_mode``) tool call opens a question card from
its arguments; the client's ``question-asked`` fact attaches its request id (by call id, else the
latest unclaimed card of the session). Answers come from the client's facts, or from the tool
result when the client never saw the question (e.g. answered by another party).
"""

from __future__ import annotations

import json
from typing import Any

from . import schema
from .bounds import DIFF_MAX, LABEL_MAX, LINE_MAX, PROPOSED_MAX, cap
from .changes import bounded_changes
from .core import Core, SessionCtx
from .display import has_long_reason, is_cell_edit
from .nodes import ApprovalNode, QuestionNode, ToolNode

__all__ = [
    "QUESTION_TOOLS",
    "approval_asked",
    "approval_cancelled",
    "approval_decided",
    "local_approval_decided",
    "local_approval_requested",
    "local_question_answered",
    "local_question_asked",
    "local_question_cancelled",
    "normalize_answers",
    "normalize_questions",
    "question_from_result",
    "question_from_tool",
]

QUESTION_TOOLS = frozenset({"ask_user_question", "exit_plan_mode"})
_MAX_QUESTIONS = 20
_MAX_OPTIONS = 50


def _str(value: Any, limit: int = LINE_MAX) -> str | None:
    return cap(value, limit) if isinstance(value, str) else None


# approvals -----------------------------------------------------------------------------------


def _place_approval(core: Core, ctx: SessionCtx, node: ApprovalNode) -> None:
    tool = ctx.tools.get(node.call_id) if node.call_id else None
    if tool is not None and tool.approval is None:
        tool.approval = node
        node.parent = tool
        core.touch(node)
    else:
        core.add_item(ctx, node)
    ctx.approval_list.append(node)


def _find_approval(
    ctx: SessionCtx, call_id: str | None, tool_name: str, *, wire: bool
) -> ApprovalNode | None:
    """An undecided approval still missing its runtime id (``wire``) or its request id."""
    for node in reversed(ctx.approval_list):
        missing = node.approval_id is None if wire else node.request_id is None
        if not missing or node.state != "pending":
            continue
        if call_id and node.call_id:
            if node.call_id == call_id:
                return node
        elif node.tool_name == tool_name:
            return node
    return None


def _set_outcome(core: Core, node: ApprovalNode, outcome: str) -> None:
    core.set(node, "outcome", cap(outcome, LABEL_MAX))
    core.set(node, "state", "decided")
    host = node.parent
    if outcome != "allowed-once" and isinstance(host, ToolNode):
        core.set(host, "state", "rejected")


def approval_asked(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    approval_id = _str(data.get("id"), LABEL_MAX)
    if approval_id is None or approval_id in ctx.approvals:
        return
    tool_name = _str(data.get("toolName"), LABEL_MAX) or ""
    call_id = _str(data.get("callId"), LABEL_MAX)
    node = _find_approval(ctx, call_id, tool_name, wire=True)
    if node is None:
        node = ApprovalNode(id=core.new_id(), session_id=ctx.session_id, tool_name=tool_name)
        node.call_id = call_id
        _place_approval(core, ctx, node)
    core.set(node, "approval_id", approval_id)
    if node.reason is None:
        limit = DIFF_MAX if has_long_reason(tool_name) else LINE_MAX
        core.set(node, "reason", _str(data.get("reason"), limit))
    ctx.approvals[approval_id] = node


def approval_decided(core: Core, ctx: SessionCtx, data: dict[str, Any]) -> None:
    node = ctx.approvals.get(str(data.get("id")))
    outcome = _str(data.get("outcome"), LABEL_MAX)
    if node is None or outcome is None:
        core.count_unknown("approval/decided (unmatched)")
        return
    if node.outcome is not None and node.outcome != outcome:
        core.set(node, "decided_by", "runtime")
    elif node.decided_by is None:
        if ctx.policy == "never":
            core.set(node, "decided_by", "policy")
        elif outcome in ("unavailable", "cancelled"):
            core.set(node, "decided_by", "runtime")
    _set_outcome(core, node, outcome)


def approval_cancelled(core: Core, request_id: str, reason: str | None) -> None:
    """The bridge stopped waiting (``timeout`` → rejected, ``aborted`` → cancelled, else rejected)."""
    node = core.approvals_by_request.get(request_id)
    if node is None or node.state != "pending":
        return
    core.set(node, "decided_by", "timeout" if reason == "timeout" else "runtime")
    _set_outcome(core, node, "cancelled" if reason == "aborted" else "rejected")


def local_approval_requested(
    core: Core,
    ctx: SessionCtx,
    *,
    request_id: str,
    tool_name: str,
    call_id: str | None,
    reason: str | None,
    proposed: str | None = None,
    target: str | None = None,
    changes: tuple[tuple[str, str], ...] | None = None,
) -> None:
    """``changes``: the card's Changes lines (bounded by :func:`.changes.bounded_changes`).
    A cell-editing tool's reason (a diff) and ``run_cells``' (the cells it runs) are kept up
    to :data:`DIFF_MAX` characters, others up to ``LINE_MAX``; ``proposed`` (what the card's
    editor opens on: a ``run_python`` call's code, a cell edit's new source) whole or not at all
    (see :mod:`.bounds`)."""
    if request_id in core.approvals_by_request:
        return
    limit = DIFF_MAX if has_long_reason(tool_name) else LINE_MAX
    node = _find_approval(ctx, call_id, tool_name, wire=False)
    if node is None:
        node = ApprovalNode(
            id=core.new_id(), session_id=ctx.session_id, tool_name=cap(tool_name, LABEL_MAX)
        )
        node.call_id = call_id
        node.reason = _str(reason, limit)
        _place_approval(core, ctx, node)
    core.set(node, "request_id", request_id)
    if reason and (node.reason is None or limit > LINE_MAX):
        core.set(node, "reason", _str(reason, limit))  # the runtime's copy was cut at LINE_MAX
    if proposed is not None and len(proposed) <= PROPOSED_MAX:
        core.set(node, "proposed", proposed)
    if target is not None:
        core.set(node, "target", _str(target, LABEL_MAX))
    if changes is not None:
        core.set(node, "changes", bounded_changes(changes))
    core.approvals_by_request[request_id] = node


def local_approval_decided(
    core: Core,
    *,
    request_id: str,
    outcome: str,
    decided_by: str,
    code: str | None = None,
    note: str | None = None,
    changes: tuple[tuple[str, str], ...] | None = None,
) -> None:
    """``changes``: what the edited ``code`` will change (replaces the request's lines).
    ``code``: the person edited the proposal and this ran instead: ``proposed`` becomes it
    (whole or none), and for ``run_python`` the card's reason (the code itself) too, capped; a
    cell edit's reason keeps the agent's diff. The call's arguments keep the agent's. ``note``:
    the person's words with a rejection, kept on the card."""
    node = core.approvals_by_request.get(request_id)
    if node is None:
        return
    if node.outcome is not None and node.outcome != outcome:
        # the runtime already decided otherwise (e.g. the answer came too late)
        core.set(node, "decided_by", "runtime")
        return
    if code is not None and outcome == "allowed-once":
        if changes is not None:
            core.set(node, "changes", bounded_changes(changes))
        core.set(node, "proposed", code if len(code) <= PROPOSED_MAX else None)
        if not is_cell_edit(node.tool_name):
            core.set(node, "reason", _str(code))
    if note is not None and outcome == "rejected":
        core.set(node, "note", _str(note))
    core.set(node, "decided_by", decided_by)
    _set_outcome(core, node, outcome)


# questions -----------------------------------------------------------------------------------


def normalize_questions(raw: Any) -> list[schema.Question]:
    """``[{id, question, header, detail, options: [{label, description}], multi_select}]``, capped."""
    out: list[schema.Question] = []
    if not isinstance(raw, list):
        return out
    for q in raw[:_MAX_QUESTIONS]:
        if not isinstance(q, dict):
            continue
        options: list[schema.QuestionOption] = []
        for opt in (
            (q.get("options") or [])[:_MAX_OPTIONS] if isinstance(q.get("options"), list) else []
        ):
            if isinstance(opt, dict) and isinstance(opt.get("label"), str):
                options.append(
                    {
                        "label": cap(opt["label"], LINE_MAX),
                        "description": _str(opt.get("description")),
                    }
                )
        multi = q.get("multiSelect", q.get("multi_select"))
        out.append(
            {
                "id": _str(q.get("id"), LABEL_MAX) or "",
                "question": _str(q.get("question")) or "",
                "header": _str(q.get("header"), LABEL_MAX),
                "detail": _str(q.get("detail")),
                "options": options,
                "multi_select": bool(multi),
            }
        )
    return out


def normalize_answers(raw: Any) -> list[schema.Answer]:
    """``[{id, selected: [str], custom: str | None}]``, capped (``custom`` always present)."""
    out: list[schema.Answer] = []
    if not isinstance(raw, list):
        return out
    for a in raw[:_MAX_QUESTIONS]:
        if not isinstance(a, dict):
            continue
        selected = a.get("selected")
        labels = (
            [cap(s, LINE_MAX) for s in selected[:_MAX_OPTIONS] if isinstance(s, str)]
            if isinstance(selected, list)
            else []
        )
        out.append(
            {
                "id": _str(a.get("id"), LABEL_MAX) or "",
                "selected": labels,
                "custom": _str(a.get("custom")),
            }
        )
    return out


def _attach_question(
    core: Core, ctx: SessionCtx, node: QuestionNode, tool: ToolNode | None
) -> None:
    if tool is not None:
        tool.question = node
        node.parent = tool
        core.touch(node)
    else:
        core.add_item(ctx, node)
    core.questions.append(node)


def question_from_tool(core: Core, ctx: SessionCtx, tool: ToolNode) -> None:
    """Open (or refresh) the question card of an ``ask_user_question`` call from its arguments."""
    try:
        parsed = json.loads(tool.arguments) if tool.arguments.strip() else {}
    except ValueError:
        parsed = {}
    questions = normalize_questions(parsed.get("questions")) if isinstance(parsed, dict) else []
    if tool.question is not None:
        if tool.question.request_id is None and questions:
            core.set(tool.question, "questions", questions)
        return
    if not questions:
        return  # e.g. exit_plan_mode: the client's question-asked fact opens the card
    node = QuestionNode(
        id=core.new_id(), session_id=ctx.session_id, call_id=tool.call_id, questions=questions
    )
    _attach_question(core, ctx, node, tool)


def question_from_result(core: Core, tool: ToolNode, text: str, error_code: str | None) -> None:
    node = tool.question
    if node is None or node.state != "pending":
        return
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("answers"), list) and not tool.is_error:
        core.set(node, "answers", normalize_answers(parsed["answers"]))
        core.set(node, "state", "answered")
    elif error_code == "ASK_CANCELLED":
        core.set(node, "state", "dismissed")
    elif isinstance(parsed, dict) and parsed.get("pending") is True:
        core.set(node, "state", "cancelled")
    elif tool.is_error:
        core.set(node, "state", "failed")


def local_question_asked(
    core: Core,
    ctx: SessionCtx,
    *,
    request_id: str,
    questions: list[dict[str, Any]],
    call_id: str | None,
) -> None:
    if request_id in core.questions_by_request:
        return
    node: QuestionNode | None = None
    tool = ctx.tools.get(call_id) if call_id else None
    if tool is not None and tool.question is not None and tool.question.request_id is None:
        node = tool.question
    if node is None:
        for candidate in reversed(core.questions):
            if (
                candidate.session_id == ctx.session_id
                and candidate.request_id is None
                and candidate.state == "pending"
                and (call_id is None or candidate.call_id in (None, call_id))
            ):
                node = candidate
                break
    if node is None:
        if tool is None:
            for t in reversed(list(ctx.tools.values())):
                if (
                    t.name in QUESTION_TOOLS
                    and t.question is None
                    and t.state in ("pending", "running")
                ):
                    tool = t
                    break
        node = QuestionNode(id=core.new_id(), session_id=ctx.session_id, call_id=call_id)
        _attach_question(
            core, ctx, node, tool if tool is not None and tool.question is None else None
        )
    core.set(node, "request_id", request_id)
    normalized = normalize_questions(questions)
    if normalized:
        core.set(node, "questions", normalized)
    core.questions_by_request[request_id] = node


def local_question_answered(
    core: Core, *, request_id: str, answers: list[dict[str, Any]] | None
) -> None:
    node = core.questions_by_request.get(request_id)
    if node is None or node.state != "pending":
        return
    if answers is None:
        core.set(node, "state", "dismissed")
    else:
        core.set(node, "answers", normalize_answers(answers))
        core.set(node, "state", "answered")


def local_question_cancelled(core: Core, *, request_id: str) -> None:
    node = core.questions_by_request.get(request_id)
    if node is not None and node.state == "pending":
        core.set(node, "state", "cancelled")
