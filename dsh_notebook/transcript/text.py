"""The plain-text transcript and the one-line summary (rendered from a snapshot, schema 1).

Plain text needs no escaping (``text/plain`` is never interpreted); it is deterministic (the
elapsed time comes from the snapshot's event times, not a clock) and its first line is always
:func:`summary_line`. Code (a ``run_python`` or ``bash`` call's, a ``run_python`` approval's) is
shown as it was written, line breaks kept. Tools are named in words (``run_python (notebook)``,
:func:`~.display.tool_label`), as in the markdown; the wire name stays in the snapshot and the
JSON export.
"""

from __future__ import annotations

import json
from typing import NamedTuple, cast

from . import context_use
from .cell_lines import (
    INTERRUPTED_DECISION,
    UNDO_WORDS,
    agent_cell_of,
    cell_line,
    result_for_reader,
    run_summary,
)
from .changes import changes_plain
from .context_use import footer_use
from .display import (
    ToolCode,
    approval_code,
    approval_diff,
    elapsed_words,
    mark_interrupted,
    mark_waiting_tools,
    run_state_word,
    tool_code,
    tool_label,
)
from .names import with_names
from .plan_render import cost_words, goal_words, plan_text
from .schema import (
    ApprovalItem,
    ErrorItem,
    Item,
    NoteItem,
    QuestionItem,
    Snapshot,
    SubagentItem,
    ToolItem,
    ToolState,
    Usage,
    cards_in,
)

__all__ = [
    "OUTCOME_WORDS",
    "ApprovalWords",
    "approval_words",
    "chip_parts",
    "closed_view",
    "decided_by_words",
    "format_tokens",
    "last_text",
    "markdown_companion",
    "plural",
    "render_text",
    "summary_line",
    "usage_words",
]

OUTCOME_WORDS = {
    "allowed-once": "allowed once",
    "rejected": "rejected",
    "cancelled": "cancelled",
    "unavailable": "unavailable (no approval channel)",
}
_DECIDED_BY = {
    "you": "by you",
    "you-for-run": "by you, for the rest of this run",
    "you-edited": "by you, after editing the code",
    "scope": "for this run",
    "policy": "by policy",
    "timeout": "timed out",
    "connection-lost": "connection lost",
    "runtime": "by the runtime",
    "cancelled-by-agent": "cancelled by the agent",
}
_INDENT = "    "


def closed_view(snapshot: Snapshot, *, interrupted: bool = False) -> Snapshot:
    """The snapshot to render: once the run is over, cards still pending read "undecided"
    (:data:`~.cell_lines.INTERRUPTED_DECISION`: nobody can decide them any more).

    ``interrupted``: a copy of a run in progress made to be shown where the run cannot go on
    (kept for the next kernel, saved with the notebook, issue 48): its pending cards read the
    same, its open tool calls ``interrupted`` and its state ``interrupted``
    (:func:`~.display.mark_interrupted`), never "waiting for you".

    ``snapshot`` itself is never modified (a copy is returned when anything must change).
    """
    over = snapshot["header"]["state"] in ("settled", "error")
    if not over and not interrupted:
        return snapshot
    view: Snapshot = json.loads(json.dumps(snapshot))
    for card in cards_in(view["items"]):
        if card["state"] == "pending":
            card["state"] = "undecided"
    if interrupted and not over:
        mark_interrupted(view["header"])
        for tool in _open_tools(view["items"]):
            tool["state"] = cast(ToolState, "interrupted")  # a rendering's word, not a state
    return view


def _open_tools(items: list[Item]) -> list[ToolItem]:
    found: list[ToolItem] = []
    for item in items:
        if item["kind"] == "tool":
            if item["state"] in ("streaming", "pending", "running", "waiting"):
                found.append(item)
            if item["subagent"]:
                found += _open_tools(item["subagent"]["items"])
        elif item["kind"] == "subagent":
            found += _open_tools(item["items"])
    return found


def decided_by_words(decided_by: str | None) -> str:
    return _DECIDED_BY.get(decided_by, decided_by) if decided_by else ""


class ApprovalWords(NamedTuple):
    """An approval card's state in words, as the markdown and the plain text both say it."""

    state: str
    """``awaiting a decision`` / ``not decided — the run was interrupted``, or the outcome
    once decided."""
    decided: bool
    who: str
    """Who decided (``by you``, ``for this run`` …); ``""`` while undecided or when unknown."""


def approval_words(item: ApprovalItem) -> ApprovalWords:
    """The words of ``item``'s state: a scope's ``allowed-once`` reads ``allowed (for this
    run)``, since nobody clicked."""
    if item["state"] in ("pending", "undecided"):
        wait = "awaiting a decision" if item["state"] == "pending" else INTERRUPTED_DECISION
        return ApprovalWords(wait, False, "")
    outcome = OUTCOME_WORDS.get(item["outcome"] or "", item["outcome"] or "decided")
    if item["decided_by"] == "scope" and item["outcome"] == "allowed-once":
        outcome = "allowed"
    return ApprovalWords(outcome, True, decided_by_words(item["decided_by"]))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def format_tokens(n: int) -> str:
    """``18``, ``1.2k``, ``3.4M``: as the widget's header (``formatTokens`` in ``js/src/dom.ts``),
    millions from ``1_000_000`` on."""
    return context_use.format_tokens(n, millions_from=1_000_000)


def usage_words(usage: Usage) -> str:
    """``11 input · 7 output · 18 total tokens`` (empty when nothing was used)."""
    total = usage.get("total_tokens") or 0
    if not total and not usage.get("input_tokens") and not usage.get("output_tokens"):
        return ""
    parts = [f"{usage.get('input_tokens', 0)} input", f"{usage.get('output_tokens', 0)} output"]
    if usage.get("cache_read_tokens"):
        parts.append(f"{usage['cache_read_tokens']} cached")
    parts.append(f"{total} total tokens")
    return " · ".join(parts)


def summary_line(snapshot: Snapshot, *, interrupted: bool = False) -> str:
    """``dsh · session abc · settled · 2 turns · 3 tool calls · 1.2k tokens`` (``interrupted``
    for a copy of a run in progress, :func:`closed_view`)."""
    h = snapshot["header"]
    state = run_state_word(h)
    if interrupted and state not in ("settled", "error", "stopped"):
        state = "interrupted"
    parts = ["dsh", f"session {h['session_id']}", state]
    parts.append(plural(h.get("turns", 0), "turn"))
    parts.append(plural(h.get("tool_calls", 0), "tool call"))
    if h.get("subagents"):
        parts.append(plural(h["subagents"], "subagent"))
    if h.get("errors"):
        parts.append(plural(h["errors"], "error"))
    parts.append(f"{format_tokens(h['usage']['total_tokens'])} tokens")
    return " · ".join(" ".join(p.split()) for p in parts)


MARKDOWN_COMPANION_NOTE = (
    "The transcript is this output's text/markdown; `%%dsh --format text` shows it as plain text."
)


def markdown_companion(summary: str) -> str:
    """The ``text/plain`` beside a ``text/markdown`` transcript: ``summary`` (its
    :func:`summary_line`) and where the transcript is.

    A settled cell's output keeps the transcript once, as markdown: every notebook reader a
    saved notebook meets (JupyterLab, Notebook 7, VS Code, Colab, GitHub, nbviewer, nbconvert's
    html, markdown and pdf) renders ``text/markdown``, and markdown reads as text where it is not
    rendered. ``text/plain`` is then what a text-only frontend shows (``jupyter console``): one
    line that says what ran and how it ended, and how to get the plain-text transcript.
    """
    return f"{summary}\n{MARKDOWN_COMPANION_NOTE}"


def render_text(snapshot: Snapshot, *, interrupted: bool = False) -> str:
    """The plain-text transcript; its first line is :func:`summary_line`. ``interrupted``: as
    for :func:`closed_view`."""
    snapshot = with_names(closed_view(snapshot, interrupted=interrupted))
    h = snapshot["header"]
    lines = [summary_line(snapshot)]
    title, prompt = h["title"], snapshot["prompt"]
    if title and not prompt.startswith(title):
        lines.append(f"Title: {title}")
    if h["model"]:
        lines.append(f"Model: {h['model']}")
    if prompt:
        lines += ["", "Prompt:", _indent(prompt)]
    chips = [_chip(c) for c in snapshot["context"]]
    if chips:
        lines.append("Context: " + ", ".join(chips))
    if h["read_only"]:
        lines.append("Mode: read-only")
    goal = goal_words(h)
    if goal:
        lines.append(f"Goal: {goal}")
    if snapshot["plan"]:
        lines += ["", plan_text(snapshot["plan"])]
    if snapshot["items_omitted"]:
        lines += ["", f"({snapshot['items_omitted']} earlier items omitted)"]
    for block in _items(snapshot["items"]):
        lines += ["", block]
    changes = run_summary(snapshot["items"])
    words = changes.words()
    if words is not None:
        undo = " — {} (on the prompt cell) or {}".format(*UNDO_WORDS) if changes.undoable else ""
        lines += ["", words + undo]
    end = [f"State: {run_state_word(h)}"]
    elapsed = elapsed_words(h)
    if elapsed:
        end.append(elapsed)
    if h["finish_reason"]:
        end.append(f"finish reason: {h['finish_reason']}")
    usage = usage_words(h["usage"])
    if usage:
        end.append(usage)
    cost = cost_words(h)
    if cost:
        end.append(cost)
    use = footer_use(h)
    if use is not None:
        fresh = " — nearly full: %%dsh --new starts a fresh conversation"
        end.append(use.words() + (fresh if use.high else ""))
    lines += ["", " · ".join(end)]
    return "\n".join(lines) + "\n"


def _indent(text: str, prefix: str = _INDENT) -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def chip_parts(chip: object) -> tuple[str, str | None]:
    """A context chip as (name, detail): ``name``/``label``/``token``…, and ``summary`` or ``kind``."""
    if not isinstance(chip, dict):
        return str(chip), None
    name = next(
        (
            chip[k]
            for k in ("label", "name", "token", "title", "path")
            if isinstance(chip.get(k), str)
        ),
        None,
    )
    if name is None:
        return json.dumps(chip, ensure_ascii=False, sort_keys=True)[:200], None
    details = [chip[k] for k in ("summary", "kind", "type") if isinstance(chip.get(k), str)]
    detail = next((d for d in details if d and d != name), None)
    if detail is not None and chip.get("truncated") is True:
        detail += ", truncated"
    return name, detail


def _chip(chip: object) -> str:
    name, detail = chip_parts(chip)
    return f"{name} ({detail})" if detail else name


def _items(items: list[Item]) -> list[str]:
    return [block for block in (_item(item) for item in mark_waiting_tools(items)) if block]


def _item(item: Item) -> str:
    if item["kind"] == "text":
        return item["text"].strip("\n")
    if item["kind"] == "reasoning":
        return "Reasoning:\n" + _indent(item["text"]) if item["text"] else ""
    if item["kind"] == "user":
        return "Message:\n" + _indent(item["text"])
    if item["kind"] == "tool":
        return _tool(item)
    if item["kind"] == "approval":
        return _approval(item)
    if item["kind"] == "question":
        return _question(item)
    if item["kind"] == "subagent":
        return _subagent(item)
    if item["kind"] == "error":
        return _error(item)
    if item["kind"] == "note":
        return _note(item)
    return ""


def _error(item: ErrorItem) -> str:
    out = "Error"
    if item["code"]:
        out += f" [{item['code']}" + (f", HTTP {item['status']}" if item["status"] else "") + "]"
    out += f": {item['message']}"
    if item["hint"]:
        out += f"\n{_INDENT}Hint: {item['hint']}"
    if item["detail"]:
        out += "\n" + _indent(item["detail"])
    return out


def _note(item: NoteItem) -> str:
    count = f" ({item['count']} attempts)" if item["count"] > 1 else ""
    return f"-- {item['text']}{count}"


def _cell_tool(item: ToolItem) -> str | None:
    """A cell tool call as one line in words, the diff (or what ran) indented under it."""
    line = cell_line(item)
    if line is None:
        return None
    head = line.action
    if line.snippet:
        head += f" ({line.snippet})"
    if line.output:
        head += f": {line.output}"
    if line.outcome:
        head += f" — {line.outcome}"
    lines = [head]
    if item["approval"]:  # a run_cells card's Changes (what its cells change)
        lines += changes_plain(item["approval"].get("changes"), _INDENT)
    for fold in line.folds:
        lines += [f"{_INDENT}{fold.label}:", _indent(fold.body.rstrip("\n"), _INDENT * 2)]
    return "\n".join(lines)


def _tool(item: ToolItem) -> str:
    described = _cell_tool(item) if not item["question"] else None
    if described is not None:
        return described
    head = f"[tool] {tool_label(item['name'] or '?')} · {item['state']}"
    if item["summary"]:
        head += f" — {item['summary']}"
    kept = agent_cell_of(item)
    if kept is not None:
        head += f" — kept as agent cell {kept}, below the prompt"
    lines = [head]
    question = item["question"]
    if question:
        lines.append(_indent(_question(question)))
    elif (code := tool_code(item)) is not None:
        lines += _code_lines(code)
    else:
        args = item["args"]
        raw = (
            json.dumps(args, indent=2, ensure_ascii=False)
            if args is not None
            else item["arguments"]
        )
        if raw.strip() and raw.strip() != "{}":
            lines += [f"{_INDENT}arguments:", _indent(raw, _INDENT * 2)]
    if item["approval"]:
        lines.append(_indent(_approval(item["approval"])))
    job = item["job"]
    if job:
        detail = f" — {job['detail']}" if job["detail"] else ""
        lines.append(f"{_INDENT}job: {job['status']}{detail}")
    result = result_for_reader(item)
    if result is not None and not question and (result.strip() or result == item["result"]):
        label = "result (error)" if item["is_error"] else "result"
        lines += [f"{_INDENT}{label}:", _indent(result.rstrip("\n"), _INDENT * 2)]
    figures = len(item["figures"])
    if figures:
        lines.append(
            f"{_INDENT}{plural(figures, 'figure')} (PNG; shown in the notebook's transcript)"
        )
    if item["subagent"]:
        lines.append(_indent(_subagent(item["subagent"])))
    return "\n".join(lines)


def _code_lines(code: ToolCode) -> list[str]:
    lines = [
        f"{_INDENT}{code.argument} ({code.language}):",
        _indent(code.code.rstrip("\n"), _INDENT * 2),
    ]
    if code.other_args:
        raw = json.dumps(code.other_args, indent=2, ensure_ascii=False)
        lines += [f"{_INDENT}other arguments:", _indent(raw, _INDENT * 2)]
    return lines


def _approval(item: ApprovalItem) -> str:
    words = approval_words(item)
    out = f"approval for {tool_label(item['tool_name'] or '?')}: {words.state}"
    if words.who:
        out += f" ({words.who})"
    if item.get("note"):
        out += f" — note: {item.get('note')}"
    changes = changes_plain(item.get("changes"), _INDENT)
    if changes:
        out += "\n" + "\n".join(changes)
    code = approval_code(item) or approval_diff(item)
    if code is not None:
        out += "\n" + _indent(code.rstrip("\n"))
    elif item["reason"]:
        out += f" — {item['reason']}"
    return out


def _question(item: QuestionItem) -> str:
    state = INTERRUPTED_DECISION if item["state"] == "undecided" else item["state"]
    lines = [f"question · {state}"]
    answers = {a["id"]: a for a in item["answers"] or []}
    for q in item["questions"]:
        options = ", ".join(o["label"] for o in q["options"])
        line = f"- {q['question']}" + (f" (options: {options})" if options else "")
        answer = answers.get(q["id"])
        if answer is not None:
            chosen = list(answer["selected"])
            if answer.get("custom"):
                chosen.append(f"“{answer.get('custom')}”")
            line += " → " + (", ".join(chosen) if chosen else "skipped")
        lines.append(line)
    return "\n".join(lines)


def _subagent(item: SubagentItem) -> str:
    name = item["label"] or item["description"] or item["child_id"]
    head = f"[subagent] {name} · {item['state']}"
    if item["stop_reason"] and item["stop_reason"] != "completed":
        head += f" ({item['stop_reason']})"
    lines = [head]
    if item["plan"]:
        lines.append(_indent(plan_text(item["plan"], label="Its plan"), "  | "))
    for block in _items(item["items"]):
        lines.append(_indent(block, "  | "))
    result = item["result"]
    if result and last_text(item["items"]) != result:
        lines.append(_indent("result:\n" + result, "  | "))
    return "\n".join(lines)


def last_text(items: list[Item]) -> str | None:
    """The text of the last ``text`` item (a subagent's result usually repeats it), if any."""
    texts = [i["text"] for i in items if i["kind"] == "text"]
    return texts[-1] if texts else None
