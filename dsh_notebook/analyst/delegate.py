"""Delegation: "in the background" / "delegate" hands the question to a subagent.

The parent calls the runtime's ``subagent`` tool with the question (the delegation words removed,
so the child does the work itself rather than delegating again), says it is running, and when the
runtime's "Background subagent ... settled" notice arrives answers with the child's own report,
quoted. The child is the analyst too (its prompt is untagged). Subagents cannot ask for approval
(the runtime gives children the approval policy *never*), so a child answers read-only questions
and scripts; for code in the kernel it says so instead of computing.
"""

from __future__ import annotations

import re
from typing import Final

from ..scripted_model import Step
from .turn import Turn

__all__ = ["child_prompt", "delegate_step"]

_SETTLED: Final = "Background subagent "
_WORDS: Final = re.compile(
    r"\s*\b(?:in the background|(?:please\s+)?delegate(?: this| it)?(?: to a subagent)?"
    r"|(?:with|using|via) a subagent)\b[\s:,.]*",
    re.I,
)


def child_prompt(question: str) -> str:
    """The question without the delegation words."""
    text = _WORDS.sub(" ", question).strip(" :,.\n")
    return text[:1].upper() + text[1:] if text else text


def delegate_step(turn: Turn, question: str) -> Step:
    """The parent's next step of a delegated question."""
    started = turn.done("subagent")
    if not started:
        task = child_prompt(question)
        return turn.call(
            "subagent",
            {"description": task[:60], "prompt": task},
            "I am handing this to a subagent; it works in the background.",
        )
    notices = list(turn.notices)
    start = next((i for i, n in enumerate(notices) if n.lstrip().startswith(_SETTLED)), None)
    if start is None:
        return Step(text="The subagent is working in the background; its report follows here.")
    after = notices[start + 1 :]
    if after and after[0].strip().lower().startswith("its closing message"):
        after = after[1:]
    report = "\n".join(after).strip() or notices[start].strip()
    quoted = "\n".join(f"> {line}" if line else ">" for line in report.splitlines())
    return Step(text=f"The subagent finished. Its report:\n\n{quoted}")
