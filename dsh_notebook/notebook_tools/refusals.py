"""What the model reads when a ``run_python`` call does not run: one text per cause, one home.

The kernel knows *who* decided an approval (the broker's ``Decision(outcome, decided_by)``:
``you``, ``policy``, ``runtime``, ``connection-lost``, …) and why a call reached no approval at
all (no run owns it, the kernel could not tell which run made it). :func:`refusal_text` maps that
to the sentence the model gets, so a headless notebook never tells the model "the user
rejected it" and a person's rejection note reaches the model as typed, cleaned by the one
:func:`clean_note` (``transcript.notes``: no control characters but ``\\n`` and ``\\t``, no lone
surrogates, at most :data:`NOTE_MAX` characters).

Guarantees: every text says nothing ran and the notebook is unchanged, and what to do instead;
only :data:`REJECTED_MESSAGE` (and its note) says the user decided. Pure text, no dependencies
but the note's cleaning (the kernel and the server both import it without the MCP extra).
"""

from __future__ import annotations

from ..transcript.notes import NOTE_MAX, clean_note

__all__ = [
    "CANCELLED_MESSAGE",
    "CONNECTION_LOST_MESSAGE",
    "NOTE_MAX",
    "NO_APPROVER_MESSAGE",
    "NO_RUN_MESSAGE",
    "READ_ONLY_MESSAGE",
    "REJECTED_MESSAGE",
    "UNCERTAIN_READ_NOTE",
    "UNMATCHED_MESSAGE",
    "clean_note",
    "code_too_long_text",
    "refusal_text",
]


REJECTED_MESSAGE = (
    "The user rejected running this code, so nothing was executed and the notebook is unchanged. "
    "Do not retry the same code; explain what you wanted to do, or ask the user how to proceed."
)
NO_APPROVER_MESSAGE = (
    "Nobody can approve code in this run (the notebook runs unattended, e.g. nbconvert or "
    "papermill, or with --on-approval reject), so nothing was executed and the notebook is "
    "unchanged. Do not call run_python again in this run; use the read-only notebook tools, or "
    "answer with the code the user can run."
)
CANCELLED_MESSAGE = (
    "The approval of this call was cancelled or expired before anyone decided (the run was "
    "stopped or the request withdrawn), so nothing was executed and the notebook is unchanged. "
    "Do not retry it unless the user asks again."
)
CONNECTION_LOST_MESSAGE = (
    "The connection to the notebook was lost (the kernel is shutting down, or its runtime "
    "stopped) before this call was approved, so nothing was executed. Do not retry it; tell the "
    "user what you wanted to run."
)
UNMATCHED_MESSAGE = (
    "dsh could not tell which run of this notebook made this call, so it was not run and the "
    "notebook is unchanged. Nobody was asked. Do not retry it; tell the user what you wanted to run."
)
READ_ONLY_MESSAGE = (
    "Refused: this run is read-only, so no tool may change the notebook, the kernel or files. "
    "Nothing ran and nobody was asked. Do not call this or any changing tool again in this run; "
    "use the read tools, and answer with the code or edits for the user to apply."
)
UNCERTAIN_READ_NOTE = (
    "Note: another run sent this very call at the same moment, so this read counts as yours "
    "for editing only if both showed the same cells; if an edit is refused as unread, read the "
    "cell again."
)


def code_too_long_text(length: int, limit: int) -> str:
    """Why a ``run_python`` call longer than a card can show whole was refused (nobody asked)."""
    return (
        f"run_python refused before asking the user: the code is {length:,} characters, more "
        f"than an approval card shows whole ({limit:,}), and the user approves only what they "
        "can read. Nothing ran. Split it into smaller steps."
    )


NO_RUN_MESSAGE = (
    "This call arrived after the run that made it had ended (or was stopped), so it was not run "
    "and the notebook is unchanged. Nobody was asked."
)


def _cell_tool_text(tool: str, outcome: str, decided_by: str, note: str | None) -> str:
    if decided_by == "policy":
        return (
            f"Nobody can approve {tool} in this run (the notebook runs unattended, e.g. nbconvert "
            "or papermill, or with --on-approval reject), so the notebook is unchanged. Do not "
            f"call {tool} again in this run; tell the user the change to make instead."
        )
    text = (
        f"The user rejected this {tool} call, so the notebook is unchanged. Do not retry the same "
        "change; explain what you wanted to do, or ask the user how to proceed."
    )
    cleaned = clean_note(note)
    return text if cleaned is None else f'{text} The user\'s note: "{cleaned}"'


def refusal_text(
    outcome: str, decided_by: str, note: str | None = None, *, tool: str = "run_python"
) -> str:
    """The model's text for an approval that did not end ``allowed-once``.

    ``outcome``/``decided_by`` are the broker's (``kernel.broker.Decision``): the person
    (``you``…) → rejected, with their note quoted verbatim when there is one; a policy (headless,
    ``--on-approval reject``, no run to ask) → nobody can approve here; a lost connection →
    connection lost; the runtime, a timeout or a ``cancelled`` outcome → cancelled or expired.
    """
    if decided_by == "connection-lost":
        return CONNECTION_LOST_MESSAGE
    if outcome == "cancelled" or decided_by in ("runtime", "timeout", "cancelled-by-agent"):
        return CANCELLED_MESSAGE
    if tool != "run_python":  # the cell tools change cells, they run no code of the agent
        return _cell_tool_text(tool, outcome, decided_by, note)
    if decided_by == "policy":
        return NO_APPROVER_MESSAGE
    text = clean_note(note)
    if text is None:
        return REJECTED_MESSAGE
    return f'{REJECTED_MESSAGE} The user\'s note: "{text}"'
