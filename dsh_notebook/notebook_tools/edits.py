"""``run_python`` code the person edited before approving it ("Edit, then run").

An approver (see :class:`~dsh_notebook.notebook_tools.server.Approver`) answers ``True`` to run
the code as the agent wrote it, or an :class:`EditedCode` to run the person's version instead.
The agent is then told, in the tool result, that the person edited it and exactly what ran
(:func:`edited_note`), so its next steps build on the code that really changed the kernel.

No dependencies: the kernel builds these without importing the MCP server.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EDITED_CODE_MAX", "EditedCode", "edited_note"]

EDITED_CODE_MAX = 100_000
"""The longest edited code accepted (characters); longer edits are refused, never cut."""


@dataclass(frozen=True)
class EditedCode:
    """Approved, with this code instead of the agent's (for this one call only)."""

    code: str


def edited_note(code: str, max_chars: int) -> str:
    """The first part of the tool result of an edited call: what ran, within ``max_chars``."""
    shown = code if len(code) <= max_chars else code[:max_chars] + "\n# … (cut for length)"
    fence = "```"
    while fence in shown:
        fence += "`"
    return (
        "The user edited your code before approving it. This edited code is what ran (not "
        f"the code you sent):\n{fence}python\n{shown}\n{fence}\nIts result:\n"
    )
