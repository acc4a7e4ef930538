"""The transcript of a run: a pure reducer from notifications to a state, and its renderings.

Imports only :mod:`dsh_notebook.protocol`, the standard library and pydantic (no IO, no IPython,
no widgets, no anyio). One :class:`Transcript` per run::

    t = Transcript("s1", prompt="Plot sales")
    for n in notifications:          # in transport order
        t.apply(n)                   # True when the snapshot changed (then t.seq moved by one)
    t.apply_local(Settled("completed"))  # a fact of the client (:mod:`.facts`)
    t.snapshot()                     # schema.Snapshot (JSON), the widget's source of truth
    t.to_markdown(), t.to_text()     # the static transcript (sanitized markdown / plain text)
    t.to_markdown_companion()        # the one-line text/plain saved beside the markdown

Snapshot, schema 1 (every key always present; ``rev`` = ``seq`` of the node's last change; typed
by :mod:`.schema`, which mirrors ``js/src/types.ts``)::

    schema: 1, seq: int
    header: {session_id, title: str|None, model: str|None,
             state: "starting"|"queued"|"running"|"waiting"|"settled"|"error", turns: int,
             finish_reason: str|None, tool_calls: int, subagents: int, errors: int,
             started_at, ended_at: float|None (epoch ms of the root session's first and
             latest event that changed the transcript), stopped: bool (the person stopped
             the run: state "settled", a ``stopped`` note, no error),
             usage: {input_tokens, output_tokens, total_tokens, cache_read_tokens,
                     cache_write_tokens, reasoning_tokens}   (summed over the whole tree;
             a subagent's own ``usage`` covers its subtree),
             context_use: {tokens: int|None, window: int|None, fraction: float|None}|None
             (the root session's context after its latest step against the model's window,
             as the runtime reported them; see :mod:`.context_use`)}
    prompt: str, context: list[dict]
    items: [item], items_omitted: int
    pending: [{kind: "approval"|"question", id, request_id: str|None, session_id}]
             (cards still open; empty once settled. request_id None = the runtime asked but
             no client request exists, so there is nothing to answer)
    unknown: {event type | "notification <method>" | "malformed <method>" | …: count}

    item kinds (all with kind, id, rev):
      text / reasoning: text, streaming: bool, truncated: bool,
                        collapsed: true (reasoning only)
      user:      text                                  (later human messages of the run)
      tool:      call_id, name, arguments (raw), args (parsed JSON|None), description, summary,
                 state: streaming|pending|running|done|failed|rejected, result: str|None,
                 is_error, error_code, job: {job_id, kind, status, detail}|None,
                 approval: approval|None, question: question|None, subagent: subagent|None
      approval:  session_id, approval_id, request_id, call_id, tool_name, reason,
                 state: pending|decided, outcome: allowed-once|rejected|cancelled|unavailable|None,
                 decided_by: one of schema.DecidedBy (you, you-for-run, you-edited, scope,
                 policy, timeout, connection-lost, runtime, cancelled-by-agent)|None,
                 proposed: str|None (what "Edit, then …" opens on, whole or None: a cell
                 edit's new source, a run_python call's code), target: str|None (its cell's
                 full id), note: str|None (the person's note with a rejection)
      question:  session_id, request_id, call_id, questions: [{id, question, header, detail,
                 options: [{label, description}], multi_select}], answers: [{id, selected,
                 custom}]|None, state: pending|answered|dismissed|cancelled|failed
      subagent:  child_id, label, description, mode, prompt, state: running|done|failed, status,
                 stop_reason, result, turns, usage, items: [item], items_omitted
      error:     source: turn|client, message, code, status, hint, detail
      note:      note: retry|compaction|turn-end|subagent|question-reply|block|client|stopped,
                 text, count

Approval, question and subagent cards nest inside the tool call they belong to when it is known,
else they are items of their own at the point they appeared. Bounds: :mod:`.bounds`. Escaping and
link neutralization of the markdown: :mod:`.sanitize`.
"""

from typing import TYPE_CHECKING

from ..lazy import install as install_lazy_exports

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use
    from .bounds import (
        ARGS_MAX,
        ARGS_PARSED_MAX,
        ASSISTANT_MAX,
        DECIDED_BY,
        MAX_ITEMS,
        PROMPT_MAX,
        RESULT_MAX,
        SCHEMA_VERSION,
        STATES,
    )
    from .facts import LOCAL_KINDS
    from .reducer import APPROVAL_CANCELLED, Transcript
    from .sanitize import code_span, escape_inline, fence, sanitize_markdown
    from .text import markdown_companion

_SUBMODULE = install_lazy_exports(
    globals(),
    bounds=(
        "ARGS_MAX", "ARGS_PARSED_MAX", "ASSISTANT_MAX", "DECIDED_BY", "MAX_ITEMS", "PROMPT_MAX",
        "RESULT_MAX", "SCHEMA_VERSION", "STATES"
    ),
    facts=("LOCAL_KINDS",),
    reducer=("APPROVAL_CANCELLED", "Transcript"),
    sanitize=("code_span", "escape_inline", "fence", "sanitize_markdown"),
    text=("markdown_companion",),
)  # fmt: skip


__all__ = [
    "APPROVAL_CANCELLED",
    "ARGS_MAX",
    "ARGS_PARSED_MAX",
    "ASSISTANT_MAX",
    "DECIDED_BY",
    "LOCAL_KINDS",
    "MAX_ITEMS",
    "PROMPT_MAX",
    "RESULT_MAX",
    "SCHEMA_VERSION",
    "STATES",
    "Transcript",
    "code_span",
    "escape_inline",
    "fence",
    "markdown_companion",
    "sanitize_markdown",
]
