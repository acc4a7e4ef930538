"""The transcript's bounds: every cap, the one truncation marker, and the JSON-safe copies.

Bounds (so that a snapshot stays small whatever the agent does):

=============================  ==========================================================
text                           cap
=============================  ==========================================================
tool result, subagent result   :data:`RESULT_MAX` characters (head + tail kept, marker)
tool arguments (raw JSON)      :data:`ARGS_MAX` characters; parsed ``args`` only when the
                               raw text is at most :data:`ARGS_PARSED_MAX` characters
prompt, user messages,         :data:`PROMPT_MAX` characters: the snapshot, the markdown and
subagent tasks                 the text each show at most this much of a prompt, however
                               large (the cell output holds all three)
assistant text / reasoning     :data:`ASSISTANT_MAX` characters (a safety net only; the
                               snapshot never holds the runtime's ``data.stream`` records)
reasons, messages, questions   :data:`LINE_MAX` characters (at most 20 questions of 50
                               options each); every string in the context chips too
a cell edit's diff (reason),   :data:`DIFF_MAX` characters (the kernel sends at most 400
``run_cells``' cells (reason)  lines of a diff, and refuses a longer ``run_cells`` card)
an approval's ``changes``      :data:`CHANGE_LINES_MAX` lines of :data:`CHANGE_LINE_MAX`
                               characters (lines past it are dropped, and counted in one)
an approval's ``proposed``     at most :data:`PROPOSED_MAX` characters, else none (never
(a cell edit's new source, a   cut: it fills an editor whose text becomes the cell or the
``run_python`` call's code)    code that runs; a ``run_python`` reason is cut at LINE_MAX)
names, labels, titles          :data:`LABEL_MAX` characters
items per list                 :data:`MAX_ITEMS` (the oldest are dropped and counted in
                               ``items_omitted``)
unknown event types counted    :data:`MAX_UNKNOWN` distinct keys
a plan (``todo_write``)        :data:`PLAN_TODOS_MAX` steps of :data:`LINE_MAX` characters;
                               :data:`PLAN_EARLIER_MAX` earlier states per session
=============================  ==========================================================

Truncated text carries a visible marker, never silently cut: :func:`truncation_mark` is the only
spelling of it in Python: the transcript (snapshot, markdown and text alike), the notebook tools'
results, the context's described values and cell error texts all cut with it (:func:`cap`,
:func:`clip`, ``context.describe.truncate``); the page extension's summary of the notebook
(``js/labextension/src/cells.ts``, ``truncationMark``) spells it the same (pinned by the shared
fixture ``js/labextension/test/fixtures/page-protocol.json``).
"""

from __future__ import annotations

from typing import Any, get_args

from .schema import ChangeKind, DecidedBy, RunState

__all__ = [
    "ARGS_MAX",
    "ARGS_PARSED_MAX",
    "ASSISTANT_MAX",
    "CHANGE_ITEMS",
    "CHANGE_KINDS",
    "CHANGE_LINES_MAX",
    "CHANGE_LINE_MAX",
    "DECIDED_BY",
    "DIFF_MAX",
    "FIGURES_MAX",
    "FIGURE_MAX",
    "FIGURES_SAVED_MAX",
    "LABEL_MAX",
    "LINE_MAX",
    "MAX_ITEMS",
    "MAX_UNKNOWN",
    "PLAN_EARLIER_MAX",
    "PLAN_TODOS_MAX",
    "PROMPT_MAX",
    "PROPOSED_MAX",
    "RESULT_MAX",
    "SCHEMA_VERSION",
    "STATES",
    "TRUNCATION_MARK",
    "cap",
    "clip",
    "json_copy",
    "jsonable",
    "truncation_mark",
]

SCHEMA_VERSION = 1
RESULT_MAX = 20_000
ARGS_MAX = 20_000
ARGS_PARSED_MAX = 8_000
PROMPT_MAX = 4_000
ASSISTANT_MAX = 1_000_000
LINE_MAX = 2_000
DIFF_MAX = 40_000
PROPOSED_MAX = 100_000
"""The longest proposal a card carries whole (``proposed``); also the longest ``run_python`` code
the notebook server asks about and the longest edit a view may send back (both refused beyond,
never cut)."""
LABEL_MAX = 200
CHANGE_ITEMS = 8
"""Items one line of a card's Changes section names (more are counted: "and 3 more")."""
CHANGE_LINE_MAX = 600
"""Characters of one line of a card's Changes section."""
CHANGE_LINES_MAX = 120
"""Lines of one card's Changes section (a ``run_cells`` card: up to 20 cells' lines)."""
MAX_ITEMS = 1_000
MAX_UNKNOWN = 50
PLAN_TODOS_MAX = 50
"""Steps kept of one plan state (each cut at :data:`LINE_MAX`); more are counted, not kept."""
PLAN_EARLIER_MAX = 10
"""Earlier plan states kept per session (the newest of them); older ones are counted."""
FIGURES_MAX = 4
"""Figures kept per tool call (the ``run_python`` tool returns at most as many)."""
FIGURE_MAX = 2_000_000
"""Characters of one figure's base64 PNG kept (about 1.5 MB); a larger one is dropped."""
FIGURES_SAVED_MAX = 160_000
"""Characters of figure data one saved markdown transcript carries (in run order); later figures
are named, not embedded, so the transcript stays within what the page extension saves
(``MAX_BUNDLE_TEXT``, 256 KiB) with room for its text."""
TRUNCATION_MARK = "[… {omitted} characters omitted{rest} …]"

STATES: tuple[RunState, ...] = get_args(RunState)
"""Every ``Header.state`` (:data:`.schema.RunState`)."""
CHANGE_KINDS: tuple[ChangeKind, ...] = get_args(ChangeKind)
"""Every ``ChangeLine.kind`` (:data:`.schema.ChangeKind`)."""
DECIDED_BY: tuple[DecidedBy, ...] = get_args(DecidedBy)
"""Every ``ApprovalItem.decided_by`` but ``None`` (:data:`.schema.DecidedBy`)."""


def truncation_mark(omitted: int | None, *, rest: str | None = None) -> str:
    """The marker that replaces cut text: ``[… 1,234 characters omitted …]``.

    ``omitted`` ``None``: the count is not known yet (a live stream that hit its cap). ``rest``:
    where the whole text can be read, appended as ``; <rest>`` (e.g. ``the full prompt is in
    `_dsh.prompt```).
    """
    count = f"{omitted:,}" if omitted is not None else "more"
    return TRUNCATION_MARK.format(omitted=count, rest=f"; {rest}" if rest else "")


def cap(text: str, limit: int, *, rest: str | None = None) -> str:
    """``text`` if it fits, else its head and tail (4:1) around a visible omission marker.

    The result is at most ``limit`` characters plus the marker (see :func:`truncation_mark`).
    """
    if len(text) <= limit:
        return text
    head = limit * 4 // 5
    tail = limit - head
    mark = truncation_mark(len(text) - head - tail, rest=rest)
    return (
        f"{text[:head]}\n{mark}\n{text[len(text) - tail :]}" if tail else f"{text[:head]}\n{mark}"
    )


def clip(text: str, limit: int, *, head_share: float = 0.8) -> str:
    """``text`` if it fits, else its head and tail around :func:`truncation_mark`, at most
    ``limit`` characters in all (only the marker when ``limit`` is smaller than it).

    ``head_share`` is the part of the kept characters taken from the head: ``0`` keeps the tail
    only (a traceback: the error is at the end), ``1`` the head only. Unlike :func:`cap`, the
    marker counts toward ``limit``.
    """
    if len(text) <= limit:
        return text
    widest = len(truncation_mark(len(text))) + 2  # the marker and its line breaks, at most
    keep = max(0, limit - widest)
    head = int(keep * min(1.0, max(0.0, head_share)))
    tail = keep - head
    mark = truncation_mark(len(text) - head - tail)
    parts = [text[:head]] if head else []
    parts.append(mark)
    if tail:
        parts.append(text[len(text) - tail :])
    return "\n".join(parts)


def json_copy(value: Any) -> Any:
    """A fresh copy of a JSON-like value (dicts and lists copied, leaves shared)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


def jsonable(value: Any, *, limit: int = LINE_MAX, depth: int = 0) -> Any:
    """A JSON-safe copy of ``value``: strings capped, unknown objects as ``str``, depth ≤ 8."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return cap(value, limit)
    if depth >= 8:
        return cap(str(value), limit)
    if isinstance(value, dict):
        return {str(k): jsonable(v, limit=limit, depth=depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, limit=limit, depth=depth + 1) for v in value]
    return cap(str(value), limit)
