"""The snapshot, schema 1, as types: what the reducer produces and every reader may rely on.

These ``TypedDict`` s mirror ``js/src/types.ts`` field for field (one name per interface), so
``mypy --strict`` checks the reducer that writes a snapshot, the markdown and text renderers and the
widget that read it, against the same shape the JavaScript views read. The prose form is in the
package docstring of :mod:`dsh_notebook.transcript`.

Guarantees of a snapshot from :meth:`Transcript.snapshot() <dsh_notebook.transcript.Transcript.
snapshot>`:

- Every key declared here is present, except in the ``total=False`` classes (their docstrings say
  when the key is there). ``typing.NotRequired`` would say it inline, but it is Python 3.11+.
  It is plain JSON: dicts, lists, strings, numbers, booleans and ``None``.
- An item's ``kind`` is its discriminator: compare ``item["kind"]`` with a literal and mypy narrows
  the :data:`Item` union to that kind.
- Every string is bounded (see :mod:`.bounds`) and untrusted: render it as text, never as HTML.
- ``state`` fields (and ``decided_by``) are ``Literal`` unions, the same sets as the string-literal
  unions of ``types.ts`` (a test compares them); the values a docstring calls view-only appear
  only in the views rendered from a snapshot, never in one the reducer produced. A renderer of
  a snapshot from elsewhere (an older or newer version) must still show an unknown one as text.
"""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = [
    "Answer",
    "ApprovalItem",
    "ApprovalState",
    "ChangeKind",
    "ChangeLine",
    "ContextChip",
    "ContextUse",
    "Cost",
    "DecidedBy",
    "ErrorItem",
    "Goal",
    "Header",
    "Item",
    "ItemKind",
    "Job",
    "NoteItem",
    "Pending",
    "Plan",
    "Question",
    "QuestionItem",
    "QuestionOption",
    "QuestionState",
    "RunState",
    "Snapshot",
    "SubagentItem",
    "SubagentState",
    "TextItem",
    "Todo",
    "TodoStatus",
    "ToolItem",
    "ToolState",
    "Usage",
    "UserItem",
    "cards_in",
]

ItemKind = Literal[
    "text", "reasoning", "user", "tool", "approval", "question", "subagent", "error", "note"
]


RunState = Literal["starting", "queued", "running", "waiting", "settled", "error"]
"""The run's state (``Header.state``); ``queued``: behind an earlier run of its session."""
ApprovalState = Literal["pending", "decided", "undecided"]
"""``undecided``: only in the view of a run that ended with the card pending (``closed_view``)."""
QuestionState = Literal["pending", "answered", "dismissed", "cancelled", "failed", "undecided"]
"""``undecided``: as for :data:`ApprovalState`."""
SubagentState = Literal["running", "done", "failed"]
ToolState = Literal["streaming", "pending", "running", "waiting", "done", "failed", "rejected"]
"""``waiting``: only in a rendered view, for an open call that waits for the person
(``mark_waiting_tools``); the reducer writes the others."""
DecidedBy = Literal[
    "you",
    "you-for-run",  # the person allowed it, and the same tool for the rest of the run
    "you-edited",  # the person edited the code, then allowed it once
    "scope",  # allowed by a "for this run" decision of the person, earlier in the run
    "policy",
    "timeout",
    "connection-lost",
    "runtime",
    "cancelled-by-agent",
]
"""Who decided an approval (``ApprovalItem.decided_by``, ``None`` when unknown)."""
ChangeKind = Literal[
    "unparsed",
    "rebinds",
    "mutates",
    "deletes",
    "creates",
    "files",
    "installs",
    "processes",
    "network",
    "unknown",
    "undo",
    "none",
    "cell",
]
"""A line of a card's Changes section (``ApprovalItem.changes``); ``cell`` heads one cell's
lines on a ``run_cells`` card."""
TodoStatus = Literal["pending", "in_progress", "completed"]
"""A plan step's status as the runtime's ``todo_write`` names it (another value reads as
``pending``)."""


class Usage(TypedDict):
    """Token counts, summed (over the whole tree in the header; over its subtree in a subagent)."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int


class ContextUse(TypedDict):
    """The root session's context use as the runtime reported it (see :mod:`.context_use`):
    tokens after its latest step, its window, and their ratio (``None``: not reported; no ratio
    without both)."""

    tokens: int | None
    window: int | None
    fraction: float | None


class Todo(TypedDict):
    """One step of a plan (``todo_write``)."""

    content: str
    status: TodoStatus


class Plan(TypedDict):
    """A session's plan as its latest ``todo/write`` left it (see :mod:`.plan`): the steps, how
    many were cut (:data:`~.bounds.PLAN_TODOS_MAX`), how many times the agent wrote it, and the
    states before the latest, oldest first (at most :data:`~.bounds.PLAN_EARLIER_MAX`; the ones
    before them are counted in ``earlier_omitted``)."""

    todos: list[Todo]
    todos_omitted: int
    writes: int
    earlier: list[list[Todo]]
    earlier_omitted: int


class Goal(TypedDict):
    """The root session's goal as its latest ``goal/change`` left it (``phase``: the runtime's
    word, e.g. ``active``)."""

    objective: str
    phase: str | None


class Cost(TypedDict):
    """The run's estimated cost (see :mod:`.pricing`): US dollars from the token counts and the
    price table of ``model``, whose rates were taken on ``as_of`` (an ISO date). An estimate,
    never a bill."""

    usd: float
    model: str
    as_of: str


class Header(TypedDict):
    """The run at a glance. ``tool_calls``, ``subagents`` and ``errors`` count the whole tree."""

    session_id: str
    title: str | None
    model: str | None
    state: RunState
    turns: int
    finish_reason: str | None
    usage: Usage
    tool_calls: int
    subagents: int
    errors: int
    started_at: float | None  # epoch ms of the root session's first event that changed the view
    ended_at: float | None  # epoch ms of its latest such event
    stopped: bool  # the person stopped the run (state settled, a "stopped" note, no error)
    context_use: ContextUse | None  # None until the runtime reported tokens or a window
    goal: Goal | None  # the root session's goal (goal/change), None when it has none
    read_only: bool  # the run was started read-only (%%dsh --read-only)
    cost: Cost | None  # None when no price is known for the model


class Pending(TypedDict):
    """A card still open. ``request_id`` ``None``: the runtime asked, but there is nothing to answer."""

    kind: Literal["approval", "question"]
    id: str
    request_id: str | None
    session_id: str


ContextChip = dict[str, object]
"""One context chip as the caller gave it (JSON-safe, strings capped). Usually ``token``,
``kind``, ``summary``, ``chars``, ``truncated``; any other key is kept (``types.ts`` has an index
signature here, which a ``TypedDict`` cannot express)."""


class _TextFields(TypedDict):
    kind: Literal["text", "reasoning"]
    id: str
    rev: int
    text: str
    streaming: bool
    truncated: bool


class TextItem(_TextFields, total=False):
    """Assistant text or reasoning. ``collapsed`` (always ``True``) is present on reasoning only."""

    collapsed: bool


class UserItem(TypedDict):
    """A later human message of the run (the first one is the snapshot's ``prompt``)."""

    kind: Literal["user"]
    id: str
    rev: int
    text: str


class ChangeLine(TypedDict):
    """One line of a card's Changes section: what the code will change, read from its text by
    the kernel (``context.consequences``); never sent to the model."""

    kind: ChangeKind
    text: str


class ApprovalItem(TypedDict):
    """An approval card, nested in its tool call when known."""

    kind: Literal["approval"]
    id: str
    rev: int
    session_id: str
    approval_id: str | None
    request_id: str | None
    call_id: str | None
    tool_name: str
    reason: str | None
    state: ApprovalState
    outcome: str | None  # allowed-once | rejected | cancelled | unavailable (as the runtime says)
    decided_by: DecidedBy | None
    proposed: str | None  # the editor's text: a cell edit's source, run_python's code (whole/None)
    target: str | None  # the full id of the cell a cell edit targets
    note: str | None  # the person's note with a rejection
    changes: list[ChangeLine] | None  # what the code will change (code-running cards), or None


class QuestionOption(TypedDict):
    label: str
    description: str | None


class Question(TypedDict):
    id: str
    question: str
    header: str | None
    detail: str | None
    options: list[QuestionOption]
    multi_select: bool


class _AnswerFields(TypedDict):
    id: str
    selected: list[str]


class Answer(_AnswerFields, total=False):
    """The answer to one question: chosen labels and optional free text.

    In a snapshot ``custom`` is always present (``None`` when there is none); in a widget action
    it is present only when the user typed something.
    """

    custom: str | None


class QuestionItem(TypedDict):
    """A question card (``ask_user_question``), nested in its tool call when known."""

    kind: Literal["question"]
    id: str
    rev: int
    session_id: str
    request_id: str | None
    call_id: str | None
    questions: list[Question]
    answers: list[Answer] | None
    state: QuestionState


class SubagentItem(TypedDict):
    """A child session with its own items, nested in the tool call that started it when known."""

    kind: Literal["subagent"]
    id: str
    rev: int
    child_id: str
    label: str | None
    description: str | None
    mode: str | None
    prompt: str | None
    state: SubagentState
    status: str | None
    stop_reason: str | None
    result: str | None
    turns: int
    usage: Usage
    plan: Plan | None
    items: list[Item]
    items_omitted: int


class Job(TypedDict):
    """A background job started by a tool call (``job/registered``, ``job/settled``)."""

    job_id: str | None
    kind: str | None
    status: str
    detail: str | None


class ToolItem(TypedDict):
    """A tool call and what became of it; its approval, question and subagent cards nest here."""

    kind: Literal["tool"]
    id: str
    rev: int
    call_id: str
    name: str
    arguments: str  # raw JSON text, capped
    args: object  # the parsed arguments (JSON), or None when too long or not JSON
    description: str | None
    summary: str | None
    state: ToolState
    result: str | None
    is_error: bool | None
    error_code: str | None
    job: Job | None
    approval: ApprovalItem | None
    question: QuestionItem | None
    subagent: SubagentItem | None
    figures: list[str]  # base64 PNGs the call's approved code showed (run_python)


class ErrorItem(TypedDict):
    """A failed turn (``source`` ``turn``) or a client-side failure (``source`` ``client``)."""

    kind: Literal["error"]
    id: str
    rev: int
    source: str
    message: str
    code: str | None
    status: int | None
    hint: str | None
    detail: str | None


class _NoteFields(TypedDict):
    kind: Literal["note"]
    id: str
    rev: int
    note: str
    text: str
    count: int


class NoteItem(_NoteFields, total=False):
    """A small marker: ``retry``, ``compaction``, ``turn-end``, ``subagent``, ``block``, ``client``,
    ``stopped``… ``cell`` (present on the queued note only): the notebook cell the note is about
    (the cell of the run ahead), which the widget offers to show."""

    cell: str


Item = (
    TextItem
    | UserItem
    | ApprovalItem
    | QuestionItem
    | SubagentItem
    | ToolItem
    | ErrorItem
    | NoteItem
)
"""One entry of an item list; ``kind`` tells which."""


class Snapshot(TypedDict):
    """The whole transcript state (schema 1): the widget's source of truth."""

    schema: int
    seq: int
    header: Header
    prompt: str
    context: list[ContextChip]
    plan: Plan | None  # the root session's plan (todo_write), None until it wrote one
    items: list[Item]
    items_omitted: int
    pending: list[Pending]
    unknown: dict[str, int]


def cards_in(items: list[Item]) -> list[ApprovalItem | QuestionItem]:
    """Every approval and question card in ``items``, depth first: standalone cards, the cards
    nested in tool calls, and those of every subagent (nested in a tool call or standalone)."""
    out: list[ApprovalItem | QuestionItem] = []
    for item in items:
        if item["kind"] in ("approval", "question"):
            out.append(item)
        elif item["kind"] == "tool":
            out.extend(c for c in (item["approval"], item["question"]) if c is not None)
            if item["subagent"] is not None:
                out.extend(cards_in(item["subagent"]["items"]))
        elif item["kind"] == "subagent":
            out.extend(cards_in(item["items"]))
    return out
