"""A person's note on a rejection, as it may be kept and told to the model: one cleaning.

A note enters from the widget (a Reject with a note, checked by
:func:`dsh_notebook.widget.actions.check_action`), from ``%dsh reject ID --note`` and, whatever
its way, at the broker's decision (``notebook_tools.refusals.clean_note``, the same function);
each cleans it with :func:`clean_note` before it is kept (the card, the ledger) or sent (the
model's refusal text), so the model never reads a NUL, an escape sequence or a bell, and no
kernel message carries a text UTF-8 cannot encode.
"""

from __future__ import annotations

import re

__all__ = ["NOTE_MAX", "clean_note"]

NOTE_MAX = 500
"""The longest note a person may attach to a rejection (characters). The widget and ``%dsh
reject`` refuse a longer one (the agent gets the person's words as typed, never a cut note);
:func:`clean_note` cuts to it only as the last bound."""

_LINE_BREAK = re.compile(r"\r\n?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")  # every Cc character but \t and \n
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_note(note: object) -> str | None:
    """``note`` as it may be kept and sent, or ``None`` when it is not text or nothing is left.

    Guarantees: a line break typed as ``\\r\\n`` or ``\\r`` becomes ``\\n``; every other control
    character (C0, DEL, C1: NUL, ESC, BEL …) but ``\\n`` and ``\\t`` is dropped; a surrogate
    pair (UTF-16's spelling of one character) becomes that character and every lone surrogate is
    dropped, so the result encodes as UTF-8; the result is stripped and at most
    :data:`NOTE_MAX` characters long. Everything else is kept as typed (any language, emoji,
    quotes). Pure; linear in the note's length.
    """
    if not isinstance(note, str):
        return None
    text = _CONTROL.sub("", _LINE_BREAK.sub("\n", note))
    if _SURROGATE.search(text) is not None:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")
    return text.strip()[:NOTE_MAX] or None
