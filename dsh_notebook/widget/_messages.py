"""The widget's custom messages, both directions, as types (the JavaScript side:
``js/src/messages.ts``, the same names, fields and discriminators; a test compares the two).

Every message is a JSON object whose ``type`` is its discriminator: compare ``message["type"]``
with a literal and mypy narrows the union. Trait syncs (``snapshot``, ``seq``, ``elapsed``,
``interactive``) are ipywidgets' own messages and are not listed here.

Kernel → view (:data:`KernelMessage`):

- :class:`DeltaMessage`: turns the snapshot a view holds (``seq == base``) into the next one;
  the ops are specified in :mod:`.delta`. A view whose ``seq`` is not ``base`` asks to resync.
- :class:`AckMessage`: the answer to one view message (``ok`` false: ``error`` says why, and the
  card shows it). Sent once per approval, answer, dismiss or stop message, never for a resync.

View → kernel (:data:`ViewMessage`): the clicks :class:`ApprovalMessage`,
:class:`AnswerMessage`, :class:`DismissMessage`, :class:`StopMessage`, and
:class:`ResyncMessage` (the view wants the whole snapshot). A view's message is untrusted: it is
read only through :func:`dsh_notebook.widget.actions.check_action`, which returns a
:data:`WidgetAction` (the clicks, normalized) or the error text.

Approval decisions are the protocol's outcomes (:data:`~dsh_notebook.protocol.ApprovalOutcome`),
spelled the same on both sides; any other word is refused.
"""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

from ..protocol import ApprovalOutcome
from ..transcript.schema import Answer

__all__ = [
    "DECISIONS",
    "AckMessage",
    "AnswerMessage",
    "AppendOp",
    "ApprovalMessage",
    "DelOp",
    "DeltaMessage",
    "DismissMessage",
    "ItemsOp",
    "KernelMessage",
    "Op",
    "ResyncMessage",
    "SetOp",
    "StopMessage",
    "ViewMessage",
    "WidgetAction",
]

DECISIONS: tuple[ApprovalOutcome, ...] = get_args(ApprovalOutcome)
"""Every ``decision`` a view may send: the protocol's outcomes, as they are spelled."""


# -- delta ops (kernel -> view) ------------------------------------------------------------------


class SetOp(TypedDict):
    """Replace (or add) the value at ``path``."""

    op: Literal["set"]
    path: list[str]
    value: object


class DelOp(TypedDict):
    """Remove the key at ``path``."""

    op: Literal["del"]
    path: list[str]


class AppendOp(TypedDict):
    """Grow the string at ``path`` by ``text``."""

    op: Literal["append"]
    path: list[str]
    text: str


class ItemsOp(TypedDict):
    """Reorder the item list at ``path``: keep the listed items it has, add ``add`` (whole)."""

    op: Literal["items"]
    path: list[str]
    ids: list[str]
    add: dict[str, object]


Op = SetOp | DelOp | AppendOp | ItemsOp


# -- kernel -> view ------------------------------------------------------------------------------


class DeltaMessage(TypedDict):
    type: Literal["delta"]
    base: int
    seq: int
    elapsed: float
    ops: list[Op]


class AckMessage(TypedDict):
    """``action`` and ``request_id`` echo the view's message (``None`` when it had none)."""

    type: Literal["ack"]
    action: str | None
    request_id: str | None
    ok: bool
    error: str | None


KernelMessage = DeltaMessage | AckMessage


# -- view -> kernel ------------------------------------------------------------------------------


class _ApprovalOptions(TypedDict, total=False):
    scope: Literal["run"]
    code: str
    note: str


class ApprovalMessage(_ApprovalOptions):
    """Allow once or reject one pending approval (as an action: ``decision`` is normalized).

    With ``allowed-once`` only, at most one of: ``scope: "run"`` ("Allow for this run": the same
    tool is allowed for the rest of this run), or ``code`` ("Edit, then run": the person's
    edited code runs instead; ``run_python`` approvals only). With ``rejected`` only: ``note``,
    the person's reason (non-empty, at most ``NOTE_MAX`` characters), told to the agent as
    typed."""

    type: Literal["approval"]
    request_id: str
    decision: ApprovalOutcome


class AnswerMessage(TypedDict):
    """Answer a pending question card: one answer per question, labels among its options."""

    type: Literal["answer"]
    request_id: str
    answers: list[Answer]


class DismissMessage(TypedDict):
    """Dismiss a pending question card (the runtime receives ``{"cancelled": true}``)."""

    type: Literal["dismiss"]
    request_id: str


class StopMessage(TypedDict):
    """Stop the run (the Stop button)."""

    type: Literal["stop"]


class ResyncMessage(TypedDict):
    """The view missed a delta (it holds ``seq``) and wants the whole snapshot."""

    type: Literal["resync"]
    seq: int


WidgetAction = ApprovalMessage | AnswerMessage | DismissMessage | StopMessage
"""A click, checked against the snapshot and normalized: what ``on_action`` receives."""

ViewMessage = WidgetAction | ResyncMessage
