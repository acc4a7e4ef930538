"""The plain-text transcript and the one-line summary (rendered from a snapshot, schema 1).

Plain text needs no escaping (``text/plain`` is never interpreted); it is deterministic (the
elapsed time comes from the snapshot's event times, not a clock) and its first line is always
:func:`summary_line`. Code (a ``run_python`` or ``bash`` call's, a ``run_python`` approval's) is
shown as it was written, line breaks kept.
"""

from __future__ import annotations

import json
from typing import Any

from .display import (
    ToolCode,
    approval_code,
    elapsed_words,
    mark_waiting_tools,
    run_state_word,
    tool_code,
)

__all__ = [
    "OUTCOME_WORDS",
    "chip_parts",
    "closed_view",
    "decided_by_words",
    "format_tokens",
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
    "policy": "by policy",
    "timeout": "timed out",
    "connection-lost": "connection lost",
    "runtime": "by the runtime",
    "cancelled-by-agent": "cancelled by the agent",
}
_INDENT = "    "


def closed_view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot to render: once the run is over, cards still pending read "undecided"."""
    if snapshot["header"]["state"] not in ("settled", "error"):
        return snapshot
    view: dict[str, Any] = json.loads(json.dumps(snapshot))

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            cards = (item, item.get("approval"), item.get("question"))
            for card in (c for c in cards if isinstance(c, dict)):
                if card.get("kind") in ("approval", "question") and card.get("state") == "pending":
                    card["state"] = "undecided"
            sub = item.get("subagent") if item.get("kind") == "tool" else item
            if isinstance(sub, dict) and sub.get("kind") == "subagent":
                walk(sub.get("items") or [])

    walk(view["items"])
    return view


def decided_by_words(decided_by: str | None) -> str:
    return _DECIDED_BY.get(decided_by, decided_by) if decided_by else ""


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def format_tokens(n: int) -> str:
    """``18``, ``1.2k``, ``3.4M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{n / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"


def usage_words(usage: dict[str, Any]) -> str:
    """``11 input · 7 output · 18 total tokens`` (empty when nothing was used)."""
    total = usage.get("total_tokens") or 0
    if not total and not usage.get("input_tokens") and not usage.get("output_tokens"):
        return ""
    parts = [f"{usage.get('input_tokens', 0)} input", f"{usage.get('output_tokens', 0)} output"]
    if usage.get("cache_read_tokens"):
        parts.append(f"{usage['cache_read_tokens']} cached")
    parts.append(f"{total} total tokens")
    return " · ".join(parts)


def summary_line(snapshot: dict[str, Any]) -> str:
    """``dsh · session abc · settled · 2 turns · 3 tool calls · 1.2k tokens``."""
    h = snapshot["header"]
    parts = ["dsh", f"session {h['session_id']}", run_state_word(h)]
    parts.append(plural(h.get("turns", 0), "turn"))
    parts.append(plural(h.get("tool_calls", 0), "tool call"))
    if h.get("subagents"):
        parts.append(plural(h["subagents"], "subagent"))
    if h.get("errors"):
        parts.append(plural(h["errors"], "error"))
    parts.append(f"{format_tokens((h.get('usage') or {}).get('total_tokens', 0))} tokens")
    return " · ".join(" ".join(p.split()) for p in parts)


def render_text(snapshot: dict[str, Any]) -> str:
    snapshot = closed_view(snapshot)
    h = snapshot["header"]
    lines = [summary_line(snapshot)]
    if h.get("title") and not (snapshot.get("prompt") or "").startswith(h["title"]):
        lines.append(f"Title: {h['title']}")
    if h.get("model"):
        lines.append(f"Model: {h['model']}")
    if snapshot.get("prompt"):
        lines += ["", "Prompt:", _indent(snapshot["prompt"])]
    chips = [_chip(c) for c in snapshot.get("context") or []]
    if chips:
        lines.append("Context: " + ", ".join(chips))
    if snapshot.get("items_omitted"):
        lines += ["", f"({snapshot['items_omitted']} earlier items omitted)"]
    for block in _items(snapshot.get("items") or []):
        lines += ["", block]
    end = [f"State: {run_state_word(h)}"]
    elapsed = elapsed_words(h)
    if elapsed:
        end.append(elapsed)
    if h.get("finish_reason"):
        end.append(f"finish reason: {h['finish_reason']}")
    usage = usage_words(h.get("usage") or {})
    if usage:
        end.append(usage)
    lines += ["", " · ".join(end)]
    return "\n".join(lines) + "\n"


def _indent(text: str, prefix: str = _INDENT) -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def chip_parts(chip: Any) -> tuple[str, str | None]:
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


def _chip(chip: Any) -> str:
    name, detail = chip_parts(chip)
    return f"{name} ({detail})" if detail else name


def _items(items: list[dict[str, Any]]) -> list[str]:
    return [block for block in (_item(item) for item in mark_waiting_tools(items)) if block]


def _item(item: dict[str, Any]) -> str:
    kind = item.get("kind")
    if kind == "text":
        return str(item.get("text") or "").strip("\n")
    if kind == "reasoning":
        return "Reasoning:\n" + _indent(item.get("text") or "") if item.get("text") else ""
    if kind == "user":
        return "Message:\n" + _indent(item.get("text") or "")
    if kind == "tool":
        return _tool(item)
    if kind == "approval":
        return _approval(item)
    if kind == "question":
        return _question(item)
    if kind == "subagent":
        return _subagent(item)
    if kind == "error":
        out = "Error"
        if item.get("code"):
            out += (
                f" [{item['code']}"
                + (f", HTTP {item['status']}" if item.get("status") else "")
                + "]"
            )
        out += f": {item.get('message') or ''}"
        if item.get("hint"):
            out += f"\n{_INDENT}Hint: {item['hint']}"
        if item.get("detail"):
            out += "\n" + _indent(item["detail"])
        return out
    if kind == "note":
        count = f" ({item['count']} attempts)" if item.get("count", 1) > 1 else ""
        return f"-- {item.get('text') or ''}{count}"
    return ""


def _tool(item: dict[str, Any]) -> str:
    head = f"[tool] {item.get('name') or '?'} · {item.get('state')}"
    if item.get("summary"):
        head += f" — {item['summary']}"
    lines = [head]
    if item.get("question"):
        lines.append(_indent(_question(item["question"])))
    elif (code := tool_code(item)) is not None:
        lines += _code_lines(code)
    else:
        args = item.get("args")
        raw = (
            json.dumps(args, indent=2, ensure_ascii=False)
            if args is not None
            else item.get("arguments") or ""
        )
        if raw.strip() and raw.strip() != "{}":
            lines += [f"{_INDENT}arguments:", _indent(raw, _INDENT * 2)]
    if item.get("approval"):
        lines.append(_indent(_approval(item["approval"])))
    job = item.get("job")
    if job:
        detail = f" — {job['detail']}" if job.get("detail") else ""
        lines.append(f"{_INDENT}job: {job.get('status')}{detail}")
    if item.get("result") is not None and not item.get("question"):
        label = "result (error)" if item.get("is_error") else "result"
        lines += [f"{_INDENT}{label}:", _indent(item["result"].rstrip("\n"), _INDENT * 2)]
    if item.get("subagent"):
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


def _approval(item: dict[str, Any]) -> str:
    if item.get("state") in ("pending", "undecided"):
        wait = "awaiting a decision" if item["state"] == "pending" else "no decision recorded"
        out = f"approval for {item.get('tool_name')}: {wait}"
    else:
        outcome = OUTCOME_WORDS.get(item.get("outcome") or "", item.get("outcome") or "decided")
        who = decided_by_words(item.get("decided_by"))
        out = f"approval for {item.get('tool_name')}: {outcome}" + (f" ({who})" if who else "")
    code = approval_code(item)
    if code is not None:
        out += "\n" + _indent(code.rstrip("\n"))
    elif item.get("reason"):
        out += f" — {item['reason']}"
    return out


def _question(item: dict[str, Any]) -> str:
    lines = [f"question · {item.get('state')}"]
    answers = {a.get("id"): a for a in item.get("answers") or []}
    for q in item.get("questions") or []:
        options = ", ".join(o.get("label") or "" for o in q.get("options") or [])
        line = f"- {q.get('question') or ''}" + (f" (options: {options})" if options else "")
        answer = answers.get(q.get("id"))
        if answer is not None:
            chosen = list(answer.get("selected") or [])
            if answer.get("custom"):
                chosen.append(f"“{answer['custom']}”")
            line += " → " + (", ".join(chosen) if chosen else "skipped")
        lines.append(line)
    return "\n".join(lines)


def _subagent(item: dict[str, Any]) -> str:
    name = item.get("label") or item.get("description") or item.get("child_id")
    head = f"[subagent] {name} · {item.get('state')}"
    if item.get("stop_reason") and item.get("stop_reason") != "completed":
        head += f" ({item['stop_reason']})"
    lines = [head]
    for block in _items(item.get("items") or []):
        lines.append(_indent(block, "  | "))
    result = item.get("result")
    texts = [i.get("text") for i in item.get("items") or [] if i.get("kind") == "text"]
    if result and (not texts or texts[-1] != result):
        lines.append(_indent("result:\n" + result, "  | "))
    return "\n".join(lines)
