"""What an approver answers for one ``run_python`` call: a :class:`Grant`, or a :class:`Refusal`.

An approver (see :class:`~dsh_notebook.notebook_tools.server.Approver`) answers a :class:`Grant`
only for an explicit allow: with ``code=None`` the code runs as the agent wrote it; with the
person's edited code ("Edit, then run") that runs instead, and the agent is told, in the tool
result, that the person edited it and exactly what ran (:func:`edited_note`), so its next steps
build on the code that really changed the kernel. The grant's ``owner`` (the kernel's run the call
belongs to) is handed to the recorder as it is. Anything else refuses the call: a
:class:`Refusal` with the one-line reason the model reads, or ``None`` (the person rejected it).

The longest edited code accepted is the bound of what a card proposes,
:data:`~dsh_notebook.transcript.bounds.PROPOSED_MAX` (the widget refuses a longer edit, never cuts
it). Only the transcript's bounds as a dependency: the kernel builds these without importing the
MCP server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from ..transcript.bounds import truncation_mark

__all__ = ["Grant", "Owner", "Refusal", "edited_note"]

Owner = TypeVar("Owner", covariant=True)
"""Who makes calls, as the approver names it (the kernel's ``ApprovedCall``); the server hands
it on unread, typed end to end."""


@dataclass(frozen=True)
class Grant(Generic[Owner]):
    """An explicit allow of one call."""

    code: str | None = None
    """The person's edited code, run instead of the agent's (this call only); None: as sent."""
    owner: Owner | None = None
    """Who made the call (the kernel's approved call), handed to the recorder as it is; None:
    an approver that knows no owner (nothing is kept of the call)."""


@dataclass(frozen=True)
class Refusal:
    """The call is refused for a reason other than the person's rejection (the model reads it)."""

    message: str


def edited_note(code: str, max_chars: int) -> str:
    """The first part of the tool result of an edited call: what ran, within ``max_chars``
    (longer code is cut with the one marker,
    :func:`~dsh_notebook.transcript.bounds.truncation_mark`, as a Python comment)."""
    omitted = len(code) - max_chars
    shown = code if omitted <= 0 else f"{code[:max_chars]}\n# {truncation_mark(omitted)}"
    fence = "```"
    while fence in shown:
        fence += "`"
    return (
        "The user edited your code before approving it. This edited code is what ran (not "
        f"the code you sent):\n{fence}python\n{shown}\n{fence}\nIts result:\n"
    )
