"""The cards a person decides on, as markdown: approvals (a ``run_python`` approval's code, a
cell edit's diff) and questions. Part of the static transcript (:mod:`.markdown`), with its
guarantees: every piece of agent text goes through :mod:`.sanitize` (code and diffs in fenced
blocks their content cannot close, one-line labels escaped), and the only HTML is a fold's
fixed ``<details>``/``<summary>`` tags (:func:`details`).

A ``run_python`` approval shows its code as a ``python`` block unless the call's own code is
shown right above (``shown``); a cell edit's approval (``edit_cell``, ``replace_cell``,
``insert_cell``, ``delete_cell``) shows its diff as a ``diff`` block folded after
:data:`.display.DIFF_LINES` lines, and the source the person applied instead when they edited
it. Both say who decided, and the person's note with a rejection.

Two pieces the whole transcript shares live here too: a tool's name (:func:`tool_name`) and a
fold (:func:`details`).
"""

from __future__ import annotations

from .cell_lines import INTERRUPTED_DECISION
from .changes import changes_markdown
from .display import DIFF_CHARS, DIFF_LINES, approval_code, approval_diff, fold_text, tool_label
from .sanitize import code_span, escape_inline, fence
from .schema import ApprovalItem, QuestionItem
from .text import approval_words

__all__ = ["approval_markdown", "details", "question_markdown", "tool_name"]


def tool_name(name: str) -> str:
    """``run_python`` (notebook) for ``mcp__notebook__run_python``: the tool as code, its MCP
    server in words (:func:`~.display.tool_label`); the wire name is in the exports."""
    label = tool_label(name)
    if label == name:
        return code_span(name)
    tool, _, server = label.partition(" (")
    return f"{code_span(tool)} ({escape_inline(server.removesuffix(')'))})"


def details(summary: str, body: str) -> str:
    """``body`` (rendered markdown) behind a ``<details>`` fold labelled ``summary`` (our text).

    An HTML block ends at a blank line, so ``body`` between the two tag lines is markdown again
    and the closing tag is a block of its own. ``body`` cannot end the fold early: it is our
    own rendering, whose fences are always closed and which holds no raw HTML.
    """
    return f"<details><summary>{escape_inline(summary)}</summary>\n\n{body}\n\n</details>"


def approval_markdown(item: ApprovalItem, *, shown: str | None = None) -> str:
    """The approval's line, and its code unless it is ``shown`` already (the call's own code,
    right above: the code the person decided on appears once; an edit differs, so it shows)."""
    tool = tool_name(item["tool_name"] or "?")
    words = approval_words(item)
    if not words.decided:
        line = f"**Approval** for {tool}: {words.state}"
    else:
        line = f"**Approval** for {tool}: **{escape_inline(words.state)}**"
        if words.who:
            line += f" ({escape_inline(words.who)})"
    note = item.get("note")
    if note:
        line += f" — note: {escape_inline(note)}"
    changes = changes_markdown(item.get("changes"))
    if changes is not None:  # next to the decision: what the code will change (or changed)
        line += "\n\n" + changes
    code = approval_code(item)
    if code is not None and code == shown:
        return line
    if code is not None:
        return line + "\n\n" + fence(code, "python")
    diff = approval_diff(item)
    if diff is not None:
        return "\n\n".join([line, *_diff_blocks(item, diff)])
    if item["reason"]:
        line += " — " + escape_inline(item["reason"])
    return line


def _diff_blocks(item: ApprovalItem, diff: str) -> list[str]:
    """A cell edit's diff as a ``diff`` block (folded when long), and the source the person
    applied instead when they edited it."""
    fold = fold_text(diff, DIFF_LINES, DIFF_CHARS)
    blocks = [fence(fold.shown, "diff")]
    if fold.rest:
        blocks.append(details(fold.summary, fence(fold.rest, "diff")))
    proposed = item.get("proposed")
    if item["decided_by"] == "you-edited" and proposed is not None:
        blocks.append(details("The source you applied instead", fence(proposed, "python")))
    return blocks


_QUESTION_STATES = {
    "pending": "awaiting an answer",
    "answered": "answered",
    "dismissed": "dismissed",
    "cancelled": "withdrawn without an answer",
    "failed": "failed",
    "undecided": INTERRUPTED_DECISION,
}


def question_markdown(item: QuestionItem) -> str:
    state = item["state"] or "pending"
    lines = [f"**Question** · {escape_inline(_QUESTION_STATES.get(state, state))}", ""]
    answers = {a["id"]: a for a in item["answers"] or []}
    for q in item["questions"]:
        line = "- "
        if q["header"]:
            line += f"**{escape_inline(q['header'])}**: "
        line += escape_inline(q["question"])
        labels = [escape_inline(o["label"]) for o in q["options"]]
        if labels:
            line += f" _(options: {', '.join(labels)})_"
        answer = answers.get(q["id"])
        if answer is not None:
            chosen = list(answer["selected"])
            custom = answer.get("custom")
            if custom:
                chosen.append(f"“{custom}”")
            line += " → " + (f"**{escape_inline(', '.join(chosen))}**" if chosen else "_skipped_")
        lines.append(line)
        if q["detail"]:  # e.g. the plan that exit_plan_mode asks to approve, as the agent wrote it
            lines.extend(["", fence(q["detail"], "markdown"), ""])
    return "\n".join(lines).rstrip()
