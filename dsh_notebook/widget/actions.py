"""Messages from the widget's views (clicks), checked against the snapshot before anything acts.

A view sends one of::

    {"type": "approval", "request_id": "a1", "decision": "allow" | "reject"}
    {"type": "answer",   "request_id": "q2", "answers": [{"id", "selected": [label], "custom"?}]}
    {"type": "dismiss",  "request_id": "q2"}
    {"type": "stop"}
    {"type": "resync",   "seq": 41}          (not an action: the view wants the whole snapshot)

:func:`check_action` turns a message into the action handed to ``on_action`` (normalized: exactly
the keys above, answers naming every question once with labels among the options), or into the
error text the card shows. It never trusts the view: a request must be pending in the current
snapshot, and its kind must match.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ACTION_TYPES", "CUSTOM_MAX", "GONE", "check_action", "find_card"]

ACTION_TYPES = ("approval", "answer", "dismiss", "stop")
CUSTOM_MAX = 10_000
GONE = (
    "this request is no longer pending (run stopped, kernel restarted, notebook reopened, "
    "or already answered)"
)


def find_card(snapshot: dict[str, Any], kind: str, request_id: str) -> dict[str, Any] | None:
    """The approval or question card of ``request_id`` anywhere in the snapshot (nested too)."""

    def walk(items: Any) -> dict[str, Any] | None:
        if not isinstance(items, list):
            return None
        for item in items:
            if not isinstance(item, dict):
                continue
            for card in (item, item.get("approval"), item.get("question")):
                if (
                    isinstance(card, dict)
                    and card.get("kind") == kind
                    and card.get("request_id") == request_id
                ):
                    return card
            sub = item.get("subagent") if item.get("kind") == "tool" else item
            if isinstance(sub, dict) and sub.get("kind") == "subagent":
                found = walk(sub.get("items"))
                if found is not None:
                    return found
        return None

    return walk(snapshot.get("items"))


def _pending(snapshot: dict[str, Any], kind: str, request_id: Any) -> bool:
    if not isinstance(request_id, str) or not request_id:
        return False
    return any(
        isinstance(p, dict) and p.get("kind") == kind and p.get("request_id") == request_id
        for p in snapshot.get("pending") or []
    )


def _answers(card: dict[str, Any], raw: Any) -> list[dict[str, Any]] | str:
    questions = [q for q in card.get("questions") or [] if isinstance(q, dict)]
    if not isinstance(raw, list):
        return "answers must be a list"
    given: dict[str, dict[str, Any]] = {}
    for answer in raw:
        if not isinstance(answer, dict) or not isinstance(answer.get("id"), str):
            return "each answer needs a question id"
        if answer["id"] in given:
            return f"question {answer['id']!r} answered twice"
        given[answer["id"]] = answer
    expected = [str(q.get("id", "")) for q in questions]
    if sorted(given) != sorted(expected):
        return "the answers must name every question exactly once"
    out: list[dict[str, Any]] = []
    for question in questions:
        answer = given[str(question.get("id", ""))]
        labels = {o.get("label") for o in question.get("options") or [] if isinstance(o, dict)}
        selected = answer.get("selected", [])
        if not isinstance(selected, list) or not all(isinstance(s, str) for s in selected):
            return "selected must be a list of option labels"
        if any(s not in labels for s in selected):
            return "an answer names an option that was not offered"
        if len(set(selected)) != len(selected):
            return "an option is selected twice"
        if len(selected) > 1 and not question.get("multi_select"):
            return "only one option may be chosen for this question"
        entry: dict[str, Any] = {"id": answer["id"], "selected": list(selected)}
        custom = answer.get("custom")
        if custom is not None:
            if not isinstance(custom, str):
                return "custom must be text"
            if custom.strip():
                entry["custom"] = custom[:CUSTOM_MAX]
        out.append(entry)
    return out


def check_action(snapshot: dict[str, Any], message: Any) -> dict[str, Any] | str:
    """The normalized action for ``message``, or an error text (nothing must happen then)."""
    if not isinstance(message, dict):
        return "malformed message"
    kind = message.get("type")
    if kind == "stop":
        if snapshot.get("header", {}).get("state") in ("settled", "error"):
            return "the run is over; there is nothing to stop"
        return {"type": "stop"}
    request_id = message.get("request_id")
    if kind == "approval":
        decision = message.get("decision")
        if decision not in ("allow", "reject"):
            return "decision must be allow or reject"
        if not _pending(snapshot, "approval", request_id):
            return GONE
        return {"type": "approval", "request_id": request_id, "decision": decision}
    if kind in ("answer", "dismiss"):
        if not _pending(snapshot, "question", request_id):
            return GONE
        if kind == "dismiss":
            return {"type": "dismiss", "request_id": request_id}
        card = find_card(snapshot, "question", str(request_id))
        if card is None:
            return GONE
        answers = _answers(card, message.get("answers"))
        if isinstance(answers, str):
            return answers
        return {"type": "answer", "request_id": request_id, "answers": answers}
    return f"unknown action {str(kind)[:40]!r}"
