"""The static markdown transcript (what replaces the widget in a saved notebook).

Rendered from a snapshot (schema 1). Guarantees:

- Every piece of agent, tool, user or runtime text goes through :mod:`.sanitize`: markdown text
  via :func:`sanitize_markdown`, one-line labels via :func:`escape_inline`, tool arguments and
  results inside :func:`fence` blocks that their content cannot close. No raw HTML, no
  ``javascript:``/``vbscript:``/``data:`` link target can come out, so the result is safe as
  *trusted* ``text/markdown`` (JupyterLab, VS Code, nbconvert, GitHub). The one exception is
  ours: a figure an approved ``run_python`` call showed is an image where its call is, whose
  target is a ``data:image/png;base64,`` definition at the end of the transcript (base64 only,
  checked here). JupyterLab, Notebook 7, VS Code and nbconvert HTML show it; GitHub shows its
  alt text.
- Deterministic: no clock; the elapsed time comes from the snapshot's event times, so the same
  snapshot gives the same text.
- Code stays code: a ``run_python`` or ``bash`` call's code (and a ``run_python`` approval's)
  is a fenced block in its language, line breaks kept. A cell edit's approval (``edit_cell``,
  ``replace_cell``, ``insert_cell``, ``delete_cell``) is its diff in a ``diff`` block, folded
  after :data:`.display.DIFF_LINES` lines, with who decided (and the person's note). Long tool results show their first
  :data:`.display.RESULT_LINES` lines; the rest is folded behind ``<details>`` / ``<summary>``
  ("880 more lines"), which JupyterLab, VS Code, nbconvert HTML and GitHub all render as a
  fold (the fold's content is a fenced block, so it stays inert text).
- Ids the snapshot can name (background jobs, subagents) read as names in tool results
  (:mod:`.names`).
- CommonMark + tables; the only HTML is the renderer's own fixed ``<details>``/``<summary>``
  tags around a fold and its one fixed ``<style>`` line at the end (:data:`STYLE`) — never a
  tag carrying agent text. Readable as source too.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar

from .bounds import FIGURES_SAVED_MAX
from .cell_lines import (
    UNDO_WORDS,
    CellLine,
    agent_cell_of,
    cell_line,
    result_for_reader,
    run_summary,
)
from .changes import changes_markdown
from .context_use import footer_use
from .display import (
    RESULT_LINES,
    approval_code,
    elapsed_words,
    fold_text,
    folds_whole,
    mark_waiting_tools,
    run_state_word,
    tool_code,
)
from .markdown_cards import approval_markdown, details, question_markdown, tool_name
from .names import with_names
from .plan_render import cost_words, goal_words, plan_markdown
from .prompt_fold import prompt_blocks
from .sanitize import code_span, escape_inline, fence, quote, sanitize_markdown
from .schema import (
    ErrorItem,
    Header,
    Item,
    Snapshot,
    SubagentItem,
    ToolItem,
)
from .text import (
    chip_parts,
    closed_view,
    last_text,
    plural,
    usage_words,
)
from .tool_cards import ToolView, describe_tool

__all__ = ["STYLE", "render_markdown"]

STYLE = (
    "<style>"
    ".jp-OutputArea-output.jp-RenderedMarkdown pre,.output_markdown pre{font-family:var(--jp-code-font-family,"
    "monospace);line-height:var(--jp-code-line-height,1.4)}"
    ".jp-OutputArea-output.jp-RenderedMarkdown .highlight,.output_markdown .highlight{margin:0 0 1em}"
    "</style>"
)
"""The transcript's one fixed style (ours, no agent text; after the footer, before the figures'
data). nbconvert's lab
template lets ``.jp-OutputArea-output pre {font-family: inherit}`` win over the code font, so
fenced code, tool results and the prompt came out in the proportional page font, and a ``pre``
ran into the next paragraph. Renderers that drop ``<style>`` (GitHub, VS Code, JupyterLab's
sanitizer for untrusted output) lose nothing they had; the rules only restore what a markdown
output's ``pre`` means."""

_MAX_DEPTH = 4
_TOOL_STATES = {
    "streaming": "writing the call",
    "pending": "pending",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "rejected": "rejected",
    "waiting": "waiting for you",
    "interrupted": "interrupted",
}
_HINT_CODE = re.compile(r"`([^`\n]+)`")
_INSERTED = re.compile(r"\n+---\n(?=[^\n]*\(inserted by dsh_notebook\):\n)")
"""Where the values ``{var}`` inserted begin (``context.interpolate.VALUES_HEADING``)."""
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def render_markdown(snapshot: Snapshot, *, interrupted: bool = False) -> str:
    """The markdown transcript of ``snapshot`` (sanitized; safe as trusted ``text/markdown``).
    ``interrupted``: a copy of a run in progress shown where it cannot go on (kept for the
    next kernel, saved with the notebook): nothing in it reads as waiting
    (:func:`~.text.closed_view`)."""
    snapshot = with_names(closed_view(snapshot, interrupted=interrupted))
    token = _BUDGET.set(_figure_budget(snapshot["items"]))
    try:
        return _render(snapshot)
    finally:
        _BUDGET.reset(token)


def _render(snapshot: Snapshot) -> str:
    h = snapshot["header"]
    blocks: list[str] = [_headline(snapshot)]
    if snapshot["prompt"]:
        blocks.append(_prompt(snapshot["prompt"]))
    chips = [_chip(c) for c in snapshot["context"] if not _has_text(c)]
    if chips:
        blocks.append("Context: " + " · ".join(chips))
    for chip in snapshot["context"]:  # a chip with a text (the notebook context block): folded,
        # and only there (its name once)
        text = chip.get("text")
        if isinstance(text, str) and text:
            name, detail = chip_parts(chip)
            label = name + (f" ({detail})" if detail else "")
            blocks.append(details(label, fence(text, "text")))
    goal = goal_words(h)
    if goal:
        blocks.append("**Goal** " + escape_inline(goal))
    if snapshot["plan"]:
        blocks.append(plan_markdown(snapshot["plan"], details))
    if snapshot["items_omitted"]:
        blocks.append(f"_{snapshot['items_omitted']} earlier items omitted._")
    blocks.extend(_items(snapshot["items"], 0))
    blocks.append(_changes(snapshot["items"]))
    blocks.append("---")
    blocks.append(_footer(h, snapshot["unknown"]))
    blocks.append(STYLE)
    blocks.append(_figure_definitions(snapshot["items"]))
    return "\n\n".join(b for b in blocks if b) + "\n"


def _prompt(prompt: str) -> str:
    """The prompt as typed, its long fenced blocks (a traceback) folded (:mod:`.prompt_fold`);
    what dsh_notebook appended (the values a ``{var}`` referenced, each
    described at length) folded below it, as the widget keeps it behind a click."""
    match = _INSERTED.search(prompt)
    if match is None:
        return "\n\n".join(["**Prompt**", *prompt_blocks(prompt)])
    typed, inserted = prompt[: match.start()], prompt[match.end() :]
    heading = inserted.split("\n", 1)[0].removesuffix(":").split(" (inserted", 1)[0]
    lines = plural(inserted.rstrip("\n").count("\n") + 1, "line")
    return "\n\n".join(
        [
            "**Prompt**",
            *prompt_blocks(typed),
            details(f"{heading} ({lines})", fence(inserted, "text")),
        ]
    )


def _headline(snapshot: Snapshot) -> str:
    h = snapshot["header"]
    parts = ["**dsh**"]
    title = h["title"]
    if title and not snapshot["prompt"].startswith(title):
        parts.append(escape_inline(title))
    parts.append("session " + code_span(h["session_id"]))
    if h["model"]:
        parts.append("model " + code_span(h["model"]))
    if h["read_only"]:
        parts.append("**read-only**")
    return " · ".join(parts)


def _has_text(chip: object) -> bool:
    return isinstance(chip, dict) and isinstance(chip.get("text"), str) and bool(chip["text"])


def _changes(items: list[Item]) -> str:
    """The run's one-line summary of what it changed in the notebook (``""`` when nothing)."""
    changes = run_summary(items)
    words = changes.words()
    if words is None:
        return ""
    if not changes.undoable:
        return f"_{escape_inline(words)}._"
    button, command = UNDO_WORDS
    return f"_{escape_inline(words)}_ — **{button}** (on the prompt cell) or {code_span(command)}"


def _chip(chip: object) -> str:
    name, detail = chip_parts(chip)
    return code_span(name) + (f" ({escape_inline(detail)})" if detail else "")


def _footer(h: Header, unknown: dict[str, int]) -> str:
    parts = [f"**{run_state_word(h)}**"]
    elapsed = elapsed_words(h)
    if elapsed:
        parts.append(elapsed)
    if h["finish_reason"]:
        parts.append("finish reason " + code_span(h["finish_reason"]))
    parts.append(plural(h["turns"], "turn"))
    parts.append(plural(h["tool_calls"], "tool call"))
    if h["subagents"]:
        parts.append(plural(h["subagents"], "subagent"))
    usage = usage_words(h["usage"])
    if usage:
        parts.append(usage)
    cost = cost_words(h)
    if cost:
        parts.append(escape_inline(cost))
    use = footer_use(h)
    if use is not None:
        fresh = f" — nearly full: {code_span('%%dsh --new')} starts a fresh conversation"
        parts.append(escape_inline(use.words()) + (fresh if use.high else ""))
    ignored = sum(unknown.values())
    if ignored:
        parts.append(plural(ignored, "unrecognized event"))
    return " · ".join(parts)


def _items(items: list[Item], depth: int) -> list[str]:
    out: list[str] = []
    shown: set[str] = set()  # code of the calls above: an approval card of its own omits it
    for item in mark_waiting_tools(items):
        if item["kind"] == "approval":
            code = approval_code(item)
            block = approval_markdown(item, shown=code if code in shown else None)
        else:
            block = _item(item, depth)
            if item["kind"] == "tool" and (code_of := tool_code(item)) is not None:
                shown.add(code_of.code)
        if block:
            out.append(block)
    return out


def _item(item: Item, depth: int) -> str:
    if item["kind"] == "text":
        return sanitize_markdown(item["text"])
    if item["kind"] == "reasoning":
        text = item["text"]
        return quote("_Reasoning_\n\n" + sanitize_markdown(text)) if text.strip() else ""
    if item["kind"] == "user":
        label = "**You**" if depth == 0 else "**Message to the subagent**"
        return quote(label + "\n\n" + sanitize_markdown(item["text"]))
    if item["kind"] == "tool":
        return _tool(item, depth)
    if item["kind"] == "approval":
        return approval_markdown(item)
    if item["kind"] == "question":
        return question_markdown(item)
    if item["kind"] == "subagent":
        return _subagent(item, depth, standalone=True)
    if item["kind"] == "error":
        return _error(item)
    if item["kind"] == "note":
        text = item["text"]
        if item["count"] > 1:
            text += f" ({item['count']} attempts)"
        return f"_{_hint(text)}_"  # a `command` in a note reads as code, not \`escaped\`
    return ""


def _cell_tool(line: CellLine) -> str:
    """A cell tool call as one line in words, the diff (or what ran) folded under it."""
    head = f"**{escape_inline(line.action)}**"
    if line.snippet:
        head += f" ({code_span(line.snippet)})"
    if line.output:
        head += f": {code_span(line.output)}"
    if line.outcome:
        head += " — " + escape_inline(line.outcome)
    folds = [details(f.label, fence(f.body, f.language)) for f in line.folds]
    return "\n\n".join([head, *folds])


def _tool(item: ToolItem, depth: int) -> str:
    words = cell_line(item) if not item["question"] else None
    if words is not None:  # a run_cells card's Changes follow its line (what its cells change)
        changes = changes_markdown(item["approval"].get("changes")) if item["approval"] else None
        return _cell_tool(words) + (f"\n\n{changes}" if changes else "")
    view = describe_tool(item) if not item["question"] else None
    if view is not None:
        return _described_tool(item, view)
    state = _TOOL_STATES.get(item["state"], item["state"])
    head = f"**Tool** {tool_name(item['name'] or '?')} · {state}"
    if item["summary"]:
        head += " — " + escape_inline(item["summary"])
    kept = agent_cell_of(item)
    if kept is not None:
        head += f" — kept as agent cell {kept}, below the prompt"
    blocks = [head]
    question = item["question"]
    if question:
        blocks.append(question_markdown(question))
    else:
        args = _arguments(item)
        if args:
            blocks.append(args)
    if item["approval"]:
        own = tool_code(item)
        blocks.append(approval_markdown(item["approval"], shown=own.code if own else None))
    job = item["job"]
    if job:
        line = f"Job: {escape_inline(job['status'] or '')}"
        if job["detail"]:
            line += " — " + escape_inline(job["detail"])
        blocks.append(line)
    result = result_for_reader(item)
    if result is not None and not question and (result.strip() or item["result"] == result):
        label = "Result"
        if item["is_error"]:
            code = f" {code_span(item['error_code'])}" if item["error_code"] else ""
            label += f" (error{code})"
        if folds_whole(item) and not item["is_error"]:
            lines = plural(result.rstrip("\n").count("\n") + 1, "line")
            blocks.append(details(f"{label} ({lines})", fence(result, "text")))
        else:
            blocks.append(f"{label}:\n\n{_folded_result(result)}")
    if item["figures"]:
        blocks.append(_figures(item))
    if item["subagent"]:
        blocks.append(_subagent(item["subagent"], depth, standalone=False))
    return "\n\n".join(blocks)


def _described_tool(item: ToolItem, view: ToolView) -> str:
    """A runtime file tool in words (:mod:`.tool_cards`): what it did, the file as code or the
    edit as a diff (long ones folded), the outcome, and the result's useful part folded."""
    state = _TOOL_STATES.get(item["state"], item["state"])
    blocks = [f"**Tool** {tool_name(item['name'])} · {state} — {escape_inline(view.heading)}"]
    if view.code is not None:
        fold = fold_text(view.code)
        blocks.append(fence(fold.shown, view.language))
        if fold.rest:
            blocks.append(details(fold.summary, fence(fold.rest, view.language)))
    if item["approval"]:
        blocks.append(approval_markdown(item["approval"]))
    if item["result"] is not None:
        if view.outcome:
            blocks.append(f"Result: {escape_inline(view.outcome)}")
        detail = (view.detail or "").strip("\n")
        if detail.strip():
            lines = plural(detail.count("\n") + 1, "line")
            blocks.append(details(f"{'The output' if view.outcome else 'Result'} ({lines})",
                                fence(detail, "text")))  # fmt: skip
    return "\n\n".join(blocks)


def _figure_label(item: ToolItem, number: int) -> str:
    return f"dsh-figure-{_LABEL_UNSAFE.sub('', item['call_id'])[:40]}-{number}"


def _figures(item: ToolItem) -> str:
    """The call's figures where they belong, as reference-style images: the PNG data sits in a
    definition at the end of the transcript (:func:`_figure_definitions`), so the text a reader
    (or a model reading the notebook) meets first stays short. A figure past the transcript's
    budget (:data:`FIGURES_SAVED_MAX`) is named, not embedded."""
    saved = _saved_figures(item)
    return "\n\n".join(
        f"![Figure {n} shown by the code][{_figure_label(item, n)}]"
        if n <= saved
        else f"_Figure {n} shown by the code: not kept in the saved transcript (too large)._"
        for n in range(1, len(item["figures"]) + 1)
    )


_BUDGET: ContextVar[dict[str, int] | None] = ContextVar("figures_kept", default=None)
"""While :func:`render_markdown` runs: how many figures of each call (by id) are embedded."""


def _saved_figures(item: ToolItem) -> int:
    kept = _BUDGET.get()
    return len(item["figures"]) if kept is None else kept.get(item["call_id"], 0)


def _figure_budget(items: list[Item]) -> dict[str, int]:
    """How many figures of each call fit in :data:`FIGURES_SAVED_MAX`, in run order."""
    left, kept = FIGURES_SAVED_MAX, {}
    for item in _tools(items):
        count = 0
        for png in item["figures"]:
            if len(png) > left or not _BASE64.fullmatch(png):
                left = 0
                break
            left -= len(png)
            count += 1
        kept[item["call_id"]] = count
    return kept


def _figure_definitions(items: list[Item]) -> str:
    """One ``[label]: data:image/png;base64,…`` line per embedded figure of every tool call,
    subagents included. The data is base64 the kernel produced (checked by
    :class:`~dsh_notebook.transcript.facts.Figures` and again here), so it cannot carry markup."""
    lines: list[str] = []
    for item in _tools(items):
        for n, png in enumerate(item["figures"][: _saved_figures(item)], start=1):
            lines.append(f"[{_figure_label(item, n)}]: data:image/png;base64,{png}")
    return "\n".join(lines)


def _tools(items: list[Item]) -> list[ToolItem]:
    found: list[ToolItem] = []
    for item in items:
        if item["kind"] == "tool":
            found.append(item)
            if item["subagent"]:
                found += _tools(item["subagent"]["items"])
        elif item["kind"] == "subagent":
            found += _tools(item["items"])
    return found


def _folded_result(result: str) -> str:
    fold = fold_text(result)
    block = fence(fold.shown, "text")
    if not fold.rest:
        return block
    return f"{block}\n\n{details(fold.summary, fence(fold.rest, 'text'))}"


def _arguments(item: ToolItem) -> str:
    code = tool_code(item)
    if code is not None:
        blocks = [fence(code.code, code.language)]
        if code.other_args:
            blocks.append(fence(json.dumps(code.other_args, indent=2, ensure_ascii=False), "json"))
        return "\n\n".join(blocks)
    args = item["args"]
    if isinstance(args, dict) and not args:
        return ""
    if args is not None:
        return fence(json.dumps(args, indent=2, ensure_ascii=False), "json")
    raw = item["arguments"]
    return fence(raw, "") if raw.strip() else ""


def _subagent(item: SubagentItem, depth: int, *, standalone: bool) -> str:
    name = item["label"] or item["description"] or item["child_id"] or "subagent"
    head = f"**Subagent** {escape_inline(name)} · {escape_inline(item['state'] or 'running')}"
    if item["stop_reason"] and item["stop_reason"] != "completed":
        head += f" ({escape_inline(item['stop_reason'])})"
    inner: list[str] = []
    if standalone and item["prompt"]:
        inner.append("_Task_\n\n" + sanitize_markdown(item["prompt"]))
    if item["plan"]:
        inner.append(plan_markdown(item["plan"], details, label="Its plan"))
    folded = False
    if depth + 1 > _MAX_DEPTH:
        inner.append("_(nested output omitted)_")
    else:
        steps: list[str] = []
        if item["items_omitted"]:
            steps.append(f"_{item['items_omitted']} earlier items omitted._")
        steps.extend(_items(item["items"], depth + 1))
        body = "\n\n".join(steps)
        if body.count("\n") + 1 > RESULT_LINES:  # a long transcript folds, as in the widget
            folded = True
            count = plural(len(item["items"]) + item["items_omitted"], "item")
            inner.append(details(f"Its transcript ({count})", body))
        elif body:
            inner.append(body)
    result = item["result"]
    if result and (folded or last_text(item["items"]) != result):
        inner.append("**Result**\n\n" + sanitize_markdown(result))
    usage = usage_words(item["usage"])
    if usage:
        inner.append(f"_{plural(item['turns'], 'turn')} · {usage}_")
    if not inner:
        return head
    return head + "\n\n" + quote("\n\n".join(inner))


def _error(item: ErrorItem) -> str:
    line = "**Error**"
    if item["code"]:
        line += " " + code_span(item["code"])
    if item["status"]:
        line += f" (HTTP {int(item['status'])})"
    line += ": " + escape_inline(item["message"])
    blocks = [line]
    if item["hint"]:
        blocks.append("_Hint:_ " + _hint(item["hint"]))
    if item["detail"]:
        blocks.append(fence(item["detail"], "text"))
    return "\n\n".join(blocks)


def _hint(hint: str) -> str:
    """A hint is our own text: its `code` spans show as code, the rest is escaped as usual."""
    out: list[str] = []
    last = 0
    for match in _HINT_CODE.finditer(hint):
        out.append(_escape_keeping_edges(hint[last : match.start()]))
        out.append(code_span(match.group(1)))
        last = match.end()
    out.append(_escape_keeping_edges(hint[last:]))
    return "".join(out)


def _escape_keeping_edges(text: str) -> str:
    """:func:`escape_inline`, keeping one space where ``text`` began or ended with whitespace."""
    if not text.strip():
        return " " if text else ""
    lead = " " if text[0].isspace() else ""
    trail = " " if text[-1].isspace() else ""
    return lead + escape_inline(text) + trail
