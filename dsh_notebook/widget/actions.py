"""Messages from the widget's views (clicks), checked against the snapshot before anything acts.

A view sends one of (typed in :mod:`._messages`)::

    {"type": "approval", "request_id": "a1", "decision": "allowed-once" | "rejected" | "cancelled"}
    {"type": "approval", "request_id": "a1", "decision": "allowed-once", "scope": "run"}
    {"type": "approval", "request_id": "a1", "decision": "allowed-once", "code": "edited = 1"}
    {"type": "approval", "request_id": "a1", "decision": "rejected", "note": "use the 2024 data"}
    {"type": "answer",   "request_id": "q2", "answers": [{"id", "selected": [label], "custom"?}]}
    {"type": "dismiss",  "request_id": "q2"}
    {"type": "stop"}
    {"type": "resync",   "seq": 41}          (not an action: the view wants the whole snapshot)

:func:`check_action` turns a message into the :data:`~._messages.WidgetAction` handed to
``on_action`` (normalized: exactly the keys above, ``decision`` an
:data:`~dsh_notebook.protocol.ApprovalOutcome`, answers naming every question once with labels
among the options), or into the error text the card shows. It never trusts the view: a request
must be pending in the current snapshot, and its kind must match; ``scope`` and ``code`` need
``allowed-once``, ``code`` a pending card of an editable tool
(:data:`~dsh_notebook.transcript.tool_table.EDITABLE_TOOL_NAMES`: ``run_python``, or
``edit_cell``, ``replace_cell``, ``insert_cell``: the cell's whole new source) and non-empty text
of at most :data:`~dsh_notebook.transcript.bounds.PROPOSED_MAX` characters, the bound of what a
card proposes (never cut: a cut edit would run code the person did not write); ``note`` needs
``rejected`` and text of at most :data:`NOTE_MAX` characters (refused, not cut: the agent gets
the person's words as typed) that is not empty once cleaned: the action carries it cleaned by the
one :func:`~dsh_notebook.transcript.notes.clean_note` (no control characters but ``\\n`` and
``\\t``, no lone surrogates), so nothing else reaches the card or the model.
"""

from __future__ import annotations

from typing import Any

from ..protocol import ApprovalOutcome
from ..transcript.bounds import PROPOSED_MAX
from ..transcript.notes import NOTE_MAX, clean_note
from ..transcript.schema import Answer, ApprovalItem, QuestionItem, Snapshot, cards_in
from ..transcript.tool_table import EDITABLE_TOOL_NAMES
from ._messages import DECISIONS, ApprovalMessage, WidgetAction

__all__ = [
    "ACTION_TYPES",
    "CUSTOM_MAX",
    "GONE",
    "NOTE_MAX",
    "check_action",
    "find_approval",
    "find_question",
    "outcome_of",
]

ACTION_TYPES = ("approval", "answer", "dismiss", "stop")
CUSTOM_MAX = 10_000
GONE = (
    "this request is no longer pending (run stopped, kernel restarted, notebook reopened, "
    "or already answered)"
)
"""What a card shows when its request is not pending any more (the one wording, kernel too)."""


def find_question(snapshot: Snapshot, request_id: str) -> QuestionItem | None:
    """The question card of ``request_id`` anywhere in the snapshot (nested too), else ``None``."""
    for card in cards_in(snapshot["items"]):
        if card["kind"] == "question" and card["request_id"] == request_id:
            return card
    return None


def find_approval(snapshot: Snapshot, request_id: str) -> ApprovalItem | None:
    """The approval card of ``request_id`` anywhere in the snapshot (nested too), else ``None``."""
    for card in cards_in(snapshot["items"]):
        if card["kind"] == "approval" and card["request_id"] == request_id:
            return card
    return None


def outcome_of(decision: object) -> ApprovalOutcome | None:
    """``decision`` when it is one of the protocol's outcomes, else ``None``."""
    for outcome in DECISIONS:
        if decision == outcome:
            return outcome
    return None


def _pending(snapshot: Snapshot, kind: str, request_id: object) -> str | None:
    """``request_id`` when it names a pending ``kind`` request of the snapshot, else ``None``."""
    if not isinstance(request_id, str) or not request_id:
        return None
    pending = any(p["kind"] == kind and p["request_id"] == request_id for p in snapshot["pending"])
    return request_id if pending else None


def _answers(card: QuestionItem, raw: object) -> list[Answer] | str:
    questions = card["questions"]
    if not isinstance(raw, list):
        return "answers must be a list"
    given: dict[str, dict[str, Any]] = {}
    for answer in raw:
        if not isinstance(answer, dict) or not isinstance(answer.get("id"), str):
            return "each answer needs a question id"
        if answer["id"] in given:
            return f"question {answer['id']!r} answered twice"
        given[answer["id"]] = answer
    expected = [q["id"] for q in questions]
    if sorted(given) != sorted(expected):
        return "the answers must name every question exactly once"
    out: list[Answer] = []
    for question in questions:
        answer = given[question["id"]]
        labels = {o["label"] for o in question["options"]}
        selected = answer.get("selected", [])
        if not isinstance(selected, list) or not all(isinstance(s, str) for s in selected):
            return "selected must be a list of option labels"
        if any(s not in labels for s in selected):
            return "an answer names an option that was not offered"
        if len(set(selected)) != len(selected):
            return "an option is selected twice"
        if len(selected) > 1 and not question["multi_select"]:
            return "only one option may be chosen for this question"
        entry: Answer = {"id": question["id"], "selected": list(selected)}
        custom = answer.get("custom")
        if custom is not None:
            if not isinstance(custom, str):
                return "custom must be text"
            if custom.strip():
                entry["custom"] = custom[:CUSTOM_MAX]
        out.append(entry)
    return out


def check_action(snapshot: Snapshot, message: object) -> WidgetAction | str:
    """The normalized action for ``message``, or an error text (nothing must happen then)."""
    if not isinstance(message, dict):
        return "malformed message"
    kind = message.get("type")
    if kind == "stop":
        if snapshot["header"]["state"] in ("settled", "error"):
            return "the run is over; there is nothing to stop"
        return {"type": "stop"}
    if kind == "approval":
        outcome = outcome_of(message.get("decision"))
        if outcome is None:
            return "decision must be allowed-once, rejected or cancelled"
        request_id = _pending(snapshot, "approval", message.get("request_id"))
        if request_id is None:
            return GONE
        action: ApprovalMessage = {
            "type": "approval", "request_id": request_id, "decision": outcome
        }  # fmt: skip
        scope, code, note = message.get("scope"), message.get("code"), message.get("note")
        if note is not None:
            if outcome != "rejected" or scope is not None or code is not None:
                return "only a rejection can carry a note"
            if isinstance(note, str) and len(note) > NOTE_MAX:
                return f"the note is too long (more than {NOTE_MAX:,} characters)"
            cleaned = clean_note(note)
            if cleaned is None:
                return "the note is empty: write why, or reject without a note"
            action["note"] = cleaned
            return action
        if scope is None and code is None:
            return action
        if outcome != "allowed-once":
            return "only an allow can be for this run or carry edited code"
        if scope is not None and code is not None:
            return "an edited call is allowed once, not for the whole run"
        if scope is not None:
            if scope != "run":
                return "scope must be 'run'"
            action["scope"] = "run"
            return action
        approval = find_approval(snapshot, request_id)
        if approval is None or approval["tool_name"] not in EDITABLE_TOOL_NAMES:
            return "only run_python code or a cell edit's new source can be edited first"
        if not isinstance(code, str) or not code.strip():
            return "the edited code is empty: write code, or Reject"
        if len(code) > PROPOSED_MAX:
            return f"the edited code is too long (more than {PROPOSED_MAX:,} characters)"
        action["code"] = code
        return action
    if kind in ("answer", "dismiss"):
        request_id = _pending(snapshot, "question", message.get("request_id"))
        if request_id is None:
            return GONE
        if kind == "dismiss":
            return {"type": "dismiss", "request_id": request_id}
        card = find_question(snapshot, request_id)
        if card is None:
            return GONE
        answers = _answers(card, message.get("answers"))
        if isinstance(answers, str):
            return answers
        return {"type": "answer", "request_id": request_id, "answers": answers}
    return f"unknown action {str(kind)[:40]!r}"
