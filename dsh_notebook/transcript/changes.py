"""A card's **Changes** section in the transcript: its bound and its two renderings.

The kernel reads what a card's code will change from its text (``context.consequences``) and
hands the lines over on the card's facts (``ApprovalRequested.changes``; after "Edit, then run",
``ApprovalDecided.changes``). Here they are kept within bounds (:func:`bounded_changes`) and laid
out as markdown (:func:`changes_markdown`, next to the decision in the saved transcript) and
plain text (:func:`changes_plain`: the text transcript, ``%dsh pending``). The widget's card
(``js/src/cards/changes.ts``) lays out the same lines. None of it is sent to the model.

Guarantees: at most :data:`~.bounds.CHANGE_LINES_MAX` lines (one more says how many were left
out) of at most :data:`~.bounds.CHANGE_LINE_MAX` characters; the markdown escapes every line (the
names and paths come from the agent's code).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .bounds import CHANGE_KINDS, CHANGE_LINE_MAX, CHANGE_LINES_MAX, cap
from .sanitize import escape_inline
from .schema import ChangeLine

__all__ = ["CHANGES_TITLE", "bounded_changes", "changes_markdown", "changes_plain"]

CHANGES_TITLE = "Changes"
"""The section's title on every rendering (and the widget's)."""


def bounded_changes(lines: Iterable[tuple[str, str]]) -> list[ChangeLine]:
    """``lines`` as the snapshot keeps them: known kinds only, each line capped, at most
    :data:`CHANGE_LINES_MAX` lines (the last one then counts what was left out)."""
    kept: list[ChangeLine] = []
    extra = 0
    for kind, text in lines:
        if kind not in CHANGE_KINDS:
            continue
        if len(kept) >= CHANGE_LINES_MAX:
            extra += 1
            continue
        kept.append(
            {
                "kind": kind,
                "text": cap(" ".join(str(text).split()), CHANGE_LINE_MAX),
            }
        )
    if extra:
        kept.append({"kind": "unknown", "text": f"Cannot tell: {extra} more lines left out"})
    return kept


def changes_plain(lines: Sequence[ChangeLine] | None, indent: str = "") -> list[str]:
    """The section as plain lines (``[]`` when there is none): its title, then one line per
    entry; a ``run_cells`` card's cell headings start their own group."""
    if not lines:
        return []
    out = [f"{indent}{CHANGES_TITLE}:"]
    for line in lines:
        if line["kind"] == "cell":
            out.append(f"{indent}  {line['text']}:")
        else:
            out.append(f"{indent}  - {line['text']}")
    return out


def changes_markdown(lines: Sequence[ChangeLine] | None) -> str | None:
    """The section as markdown (a bold title and a list; a cell heading in bold), or None."""
    if not lines:
        return None
    out = [f"**{CHANGES_TITLE}**", ""]
    for line in lines:
        if line["kind"] == "cell":
            out.append(f"- **{escape_inline(line['text'])}**")
        else:
            out.append(f"- {escape_inline(line['text'])}")
    return "\n".join(out)
