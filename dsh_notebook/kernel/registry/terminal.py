"""Asking the person on stdin, for ``--wait`` runs in frontends that offer it.

Runs on the waiting cell's thread (the kernel's main thread), where ``input()`` is routed to the
frontend. Anything but an explicit yes is ``rejected`` ("r"/"run": allowed, and the same tool
for the rest of the run: :data:`ALLOW_FOR_RUN`); an empty or unreadable answer dismisses a
question.

What is asked shows the card's code or diff and the model's words: each prompt is masked with the
kernel's secrets (:func:`~.command_output.shown`, the waiting magic's call's), as everything that
call prints is.
"""

from __future__ import annotations

from typing import Any

from ...protocol import ApprovalOutcome, ApprovalRequest, UserQuestionAsk
from ..showing.command_output import shown
from .broker import ALLOW_FOR_RUN, MainThreadPrompt

__all__ = ["ALLOW_FOR_RUN", "answer_on_stdin"]


def _ask_approval(request: ApprovalRequest) -> ApprovalOutcome | str:
    reason = f" — {request.reason}" if request.reason else ""
    try:
        reply = input(shown(f"dsh: allow {request.tool_name}{reason}? [y/N/r = for this run] "))
    except (EOFError, RuntimeError, KeyboardInterrupt):
        return "rejected"
    word = reply.strip().lower()
    if word in ("r", "run"):
        return ALLOW_FOR_RUN
    return "allowed-once" if word in ("y", "yes") else "rejected"


def _ask_questions(request: UserQuestionAsk) -> list[dict[str, Any]] | None:
    answers = []
    for question in request.questions:
        options = [o.label for o in question.options or []]
        lines = [f"dsh asks: {question.question}"]
        lines += [f"  {i}. {label}" for i, label in enumerate(options, 1)]
        hint = "number(s), free text, or empty to dismiss"
        try:
            reply = input(shown("\n".join(lines) + f"\n[{hint}] ")).strip()
        except (EOFError, RuntimeError, KeyboardInterrupt):
            return None
        if not reply:
            return None
        picks = [p.strip() for p in reply.replace(",", " ").split()]
        if options and all(p.isdigit() and 1 <= int(p) <= len(options) for p in picks):
            chosen = [options[int(p) - 1] for p in picks]
            if not question.multi_select:
                chosen = chosen[:1]
            answers.append({"id": question.id, "selected": chosen})
        else:
            answers.append({"id": question.id, "selected": [], "custom": reply})
    return answers


def answer_on_stdin(prompt: MainThreadPrompt) -> Any:
    if prompt.kind == "approval":
        return _ask_approval(prompt.request)
    return _ask_questions(prompt.request)
