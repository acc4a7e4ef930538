"""What the client itself tells a transcript (not the wire): one frozen dataclass per fact.

A fact is built where it is known (the broker, the run, the pump's settle), so a misspelt or
missing field is a ``TypeError`` there, and a value outside its vocabulary (a state, who decided)
a ``ValueError`` there: never later, in the thread that applies it
(:meth:`~dsh_notebook.transcript.Transcript.apply_local`). Each class names its wire-style
``kind`` (:data:`LOCAL_KINDS`), used in logs and by :func:`local_fact`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from .bounds import CHANGE_KINDS, DECIDED_BY, STATES
from .context_use import ContextUse

_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")

__all__ = [
    "LOCAL_KINDS",
    "ApprovalDecided",
    "ApprovalRequested",
    "ContextCarried",
    "Figures",
    "LocalFact",
    "Note",
    "QuestionAnswered",
    "QuestionAsked",
    "QuestionCancelled",
    "RunError",
    "Settled",
    "Status",
    "Stopped",
    "local_fact",
]


def _check_changes(changes: tuple[tuple[str, str], ...] | None) -> None:
    for line in changes or ():
        if not (isinstance(line, tuple) and len(line) == 2 and isinstance(line[1], str)):
            raise TypeError("a Changes line is a (kind, text) tuple")
        if line[0] not in CHANGE_KINDS:
            raise ValueError(f"a Changes line's kind is one of {', '.join(CHANGE_KINDS)}, "
                             f"not {line[0]!r}")  # fmt: skip


@dataclass(frozen=True)
class ApprovalRequested:
    """A tool call waits for a decision: its card appears (pending)."""

    kind: ClassVar[str] = "approval-requested"
    request_id: str
    session_id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None
    proposed: str | None = None
    """The whole text the card's editor opens on: a ``run_python`` call's code ("Edit, then run";
    ``reason`` holds it too, capped) or the new source a cell-editing call proposes ("Edit, then
    apply"). Kept whole or not at all (:data:`~.bounds.PROPOSED_MAX`)."""
    target: str | None = None
    """The full notebook cell id a cell-editing call targets ("show in notebook")."""
    changes: tuple[tuple[str, str], ...] | None = None
    """What the code will change, ``(kind, text)`` lines (``context.changes_text``): on every
    card that runs code; ``None`` on the others."""

    def __post_init__(self) -> None:
        _check_changes(self.changes)


@dataclass(frozen=True)
class ApprovalDecided:
    """The decision on an approval, and who made it (one of ``DECIDED_BY``)."""

    kind: ClassVar[str] = "approval-decided"
    request_id: str
    outcome: str
    decided_by: str
    code: str | None = None
    """The code that ran instead of the request's (the person edited it)."""
    note: str | None = None
    """The person's note with a rejection (told to the agent verbatim; the card shows it)."""
    changes: tuple[tuple[str, str], ...] | None = None
    """What the person's edited ``code`` will change (replaces the request's lines)."""

    def __post_init__(self) -> None:
        _check_changes(self.changes)
        if self.decided_by not in DECIDED_BY:
            raise ValueError(
                f"decided_by must be one of {', '.join(DECIDED_BY)}, not {self.decided_by!r}"
            )


@dataclass(frozen=True)
class ContextCarried:
    """The session's context use as its previous run left it (as the runtime reported it then):
    fills what this run has not reported yet (see :mod:`.context_use`)."""

    kind: ClassVar[str] = "context-carried"
    tokens: int | None = None
    window: int | None = None

    def __post_init__(self) -> None:
        ContextUse(self.tokens, self.window)  # the same checks


@dataclass(frozen=True)
class Figures:
    """The figures an approved ``run_python`` call showed, as base64 PNGs (the kernel made them
    with matplotlib, so they are data, never markup): shown under the call's tool card."""

    kind: ClassVar[str] = "figures"
    session_id: str
    call_id: str
    pngs: tuple[str, ...]

    def __post_init__(self) -> None:
        for png in self.pngs:
            if not isinstance(png, str) or not _BASE64.fullmatch(png):
                raise ValueError("a figure must be a base64 PNG string")


@dataclass(frozen=True)
class QuestionAsked:
    """The agent asks the person (wire-shaped questions, as the runtime sent them)."""

    kind: ClassVar[str] = "question-asked"
    request_id: str
    session_id: str
    questions: list[dict[str, Any]]
    call_id: str | None = None


@dataclass(frozen=True)
class QuestionAnswered:
    """The answers to a question; ``None``: dismissed."""

    kind: ClassVar[str] = "question-answered"
    request_id: str
    answers: list[dict[str, Any]] | None


@dataclass(frozen=True)
class QuestionCancelled:
    """The question was withdrawn before anyone answered."""

    kind: ClassVar[str] = "question-cancelled"
    request_id: str


@dataclass(frozen=True)
class RunError:
    """A failure of the client or the runtime process (not of the model): an error item."""

    kind: ClassVar[str] = "error"
    message: str
    detail: str | None = None
    hint: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class Note:
    """A one-line note of the client (e.g. a dead runtime was replaced), not an error.

    ``cell``: the notebook cell it is about (the queued note names the cell of the run ahead),
    which the widget offers to show with the page extension."""

    kind: ClassVar[str] = "note"
    text: str
    cell: str | None = None


@dataclass(frozen=True)
class Settled:
    """The run is over (``finish_reason`` as the runtime gave it, if any)."""

    kind: ClassVar[str] = "settled"
    finish_reason: str | None = None


@dataclass(frozen=True)
class Status:
    """The run's state as the client knows it (one of ``STATES``)."""

    kind: ClassVar[str] = "status"
    state: str

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"state must be one of {', '.join(STATES)}, not {self.state!r}")


@dataclass(frozen=True)
class Stopped:
    """The run was stopped (Stop, ``%dsh stop``, or its budget): settled, said so, not an error.

    ``reason``: the note that says why (one line: which budget and what was spent); empty for
    the person's own stop ("Stopped by you.")."""

    kind: ClassVar[str] = "stopped"
    reason: str = ""


LocalFact: TypeAlias = (
    ApprovalRequested | ApprovalDecided | ContextCarried | Figures | QuestionAsked | QuestionAnswered
    | QuestionCancelled | RunError | Note | Settled | Status | Stopped
)  # fmt: skip
"""Every fact :meth:`~dsh_notebook.transcript.Transcript.apply_local` accepts."""

_CLASSES: tuple[type[LocalFact], ...] = (
    ApprovalRequested, ApprovalDecided, ContextCarried, Figures, QuestionAsked, QuestionAnswered,
    QuestionCancelled, RunError, Note, Settled, Status, Stopped,
)  # fmt: skip
_BY_KIND: dict[str, type[LocalFact]] = {cls.kind: cls for cls in _CLASSES}
LOCAL_KINDS = tuple(_BY_KIND)


def local_fact(kind: str, data: Mapping[str, Any] | None = None) -> LocalFact:
    """The fact named ``kind`` with the fields in ``data`` (for callers holding wire-style
    dicts): ``ValueError`` for an unknown kind, ``TypeError`` for an unknown or missing field."""
    cls = _BY_KIND.get(kind)
    if cls is None:
        raise ValueError(f"unknown local fact {kind!r}; expected one of {', '.join(LOCAL_KINDS)}")
    return cls(**(data or {}))
