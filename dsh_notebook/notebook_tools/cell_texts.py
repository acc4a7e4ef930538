"""What the five cell tools tell the model: every sentence they return, in one place.

``edit_cell``, ``replace_cell``, ``insert_cell``, ``delete_cell`` and ``run_cells``
(:mod:`.cell_tools`, :mod:`.cell_edits`) build their results only from these constants and
functions, so the wording can be read, reviewed and changed here, and
``tests/test_cell_texts.py`` holds the tool modules to it (no sentence of their own).

Guarantees: every refusal says whether anything changed ("Nothing was changed." / "Nothing was
run.") and what to do next; every text names the tool first; none says the user decided unless
the person did (those texts live in :mod:`.refusals`). Pure text, no dependencies.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "ARGUMENT_TEXTS",
    "BUSY_TEXT",
    "CELL_TYPE_TEXT",
    "NO_PAGE_TO_ASK",
    "RUN_CELLS_IDS_TEXT",
    "RUN_CELLS_TIMEOUT_TEXT",
    "RUN_STATUS_TEXTS",
    "STALE_CHANGED",
    "STALE_UNCERTAIN",
    "STALE_UNREAD",
    "ambiguous_id_text",
    "cut_cell_text",
    "applied_text",
    "approved_but_busy",
    "changed_before_click",
    "deleted_text",
    "disagree_text",
    "edited_by_user_text",
    "failed_text",
    "gone_text",
    "no_page_text",
    "no_such_id_text",
    "not_confirmed_text",
    "not_read_text",
    "old_text_count_text",
    "ran_head",
    "refused_before_asking",
    "refused_text",
    "run_cells_no_answer",
    "stale_text",
    "still_running_text",
    "too_long_text",
    "too_many_changed_lines_text",
]

BUSY_TEXT = "the kernel is busy running a cell; try again when it is idle"
NO_PAGE_TO_ASK = "this kernel has no notebook page to ask"
STALE_UNCERTAIN = (
    "another run sent this very call at the same moment, and dsh cannot tell whose it is or "
    "whether that conversation read this source"
)
STALE_UNREAD = "you have not read this cell in this conversation"
STALE_CHANGED = "the cell changed since you last read it (the user typed, or another edit landed)"
ARGUMENT_TEXTS: Mapping[str, str] = {
    "edit_cell": "edit_cell needs `cell_id`, `old_text` (non-empty) and `new_text` (strings).",
    "replace_cell": "replace_cell needs `cell_id` and `source` (strings).",
    "insert_cell": "insert_cell needs `after_cell_id` and `source` (strings).",
    "delete_cell": "delete_cell needs `cell_id` (a string).",
}
"""The one line a call with missing or mistyped arguments gets, per tool."""
CELL_TYPE_TEXT = 'insert_cell: `cell_type` is "code" or "markdown".'
RUN_CELLS_IDS_TEXT = "run_cells needs `cell_ids`, a list of 1 to 20 cell ids."
RUN_CELLS_TIMEOUT_TEXT = "run_cells: `timeout_s` must be an integer from 1 to 600."
OLD_TEXT_EMPTY = "old_text is empty; give the exact text to replace (or use replace_cell)"
OLD_TEXT_MISSING = (
    "old_text does not occur in the cell (it must match exactly, whitespace included)"
)
RUN_STATUS_TEXTS: Mapping[str, str] = {
    "ok": "ok",
    "error": "error",
    "missing": "no such cell",
    "not_run": "not run (an earlier cell failed)",
}
"""How one cell's status reads in ``run_cells``' result (``running``: :func:`still_running_text`)."""
_DISAGREE_WORDS = {
    "applied": "applied it",
    "stale": "answered stale (its copy of the cell differs)",
    "missing": "answered missing (it has no such cell)",
    "failed": "failed",
}


def _nothing(verb: str) -> str:
    return f"Nothing was {verb}."


def no_page_text(tool: str) -> str:
    """The one line a tool answers where no page with its capability is connected."""
    return (
        f"{tool} needs the notebook open in JupyterLab 4 or Notebook 7 with the dsh-notebook "
        "extension; none is connected to this kernel."
    )


def not_read_text(tool: str, problem: str, verb: str = "changed") -> str:
    """The notebook page did not answer the read every call starts with."""
    return f"{tool}: the notebook could not be read ({problem}); {_nothing(verb).lower()}"


def refused_text(tool: str, why: str, verb: str = "changed") -> str:
    """A call refused for ``why`` (a clause without a final period)."""
    return f"{tool} refused: {why}. {_nothing(verb)}"


def refused_before_asking(tool: str, why: str, verb: str = "changed") -> str:
    """A call refused before any card (nobody was asked)."""
    return f"{tool} refused before asking the user: {why}. {_nothing(verb)}"


def approved_but_busy(tool: str, verb: str = "changed") -> str:
    """Approved, but a cell held the kernel past the wait: nothing was sent to the page."""
    return f"{tool}: approved, but {BUSY_TEXT}. {_nothing(verb)}"


def stale_text(tool: str, why: str, label: str, source: str) -> str:
    """The stale check refused an edit; ``source`` is the cell's current source, fenced."""
    return (
        f"{refused_before_asking(tool, why)} The current source of {label}:\n{source}\n"
        "Base your change on this source and call the tool again."
    )


def not_confirmed_text(tool: str, problem: str) -> str:
    """Approved, but the page's reply did not come (the change may or may not be there)."""
    return (
        f"{tool}: approved, but the notebook page did not confirm the change ({problem}). "
        "It may not have been applied: read the notebook (notebook_cells) before going on."
    )


def applied_text(verb: str, where: str) -> str:
    """The page confirmed an edit or an insert (``verb``: ``Edited`` / ``Inserted``)."""
    return f"Applied: {verb} {where} (approved; the page confirmed it; not run)."


def deleted_text(label: str) -> str:
    return f"Applied: deleted {label} (approved; the page confirmed it)."


def edited_by_user_text(source: str) -> str:
    """Appended when the person edited the change on its card; ``source`` fenced."""
    return (
        f"\nThe user edited your change before applying it; the cell now holds exactly:\n{source}"
    )


def changed_before_click(tool: str, source: str) -> str:
    """The page answered ``stale``; ``source`` is the current one, fenced."""
    return (
        f"{tool}: not applied: the cell changed between your call and the user's click. "
        f"{_nothing('changed')} Its current source:\n{source}"
    )


def gone_text(tool: str) -> str:
    return f"{tool}: not applied: the cell is not in the notebook any more."


def failed_text(tool: str, message: str) -> str:
    return f"{tool}: not applied: the notebook page failed ({message})."


def disagree_text(tool: str, statuses: list[str]) -> str:
    """The pages of the notebook answered one change differently (one status per page)."""
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    said = "; ".join(f"{n} {_DISAGREE_WORDS.get(s, s)}" for s, n in counts.items())
    return (
        f"{tool}: not confirmed: the notebook is open in {len(statuses)} pages that do not share "
        f"edits, and they answered differently ({said}). The cell now differs between those "
        "pages, and whichever the user saves last wins. Read the notebook (notebook_cells) "
        "before going on, and tell the user to close the other pages of this notebook or to "
        "turn on collaboration."
    )


def too_long_text(tool: str, label: str, length: int, page_max: int) -> str:
    """A cell the page sends cut cannot be edited through the tools."""
    why = (
        f"{label} is too long to edit through this tool ({length:,} characters; the notebook "
        f"page sends at most {page_max:,} characters of a cell, so its whole source cannot be "
        "checked and the change could never apply)"
    )
    return (
        f"{refused_before_asking(tool, why)} Ask the user to make this change by hand, or to "
        f"split the cell into cells under {page_max:,} characters, which you can then edit."
    )


def run_cells_no_answer(seconds: int, problem: str) -> str:
    return (
        f"run_cells: still running after {seconds} s, or the page did not answer ({problem}). "
        "The cells were not interrupted; read them later with notebook_cells."
    )


def ran_head(count: int, states: str) -> str:
    return f"Ran {count} cell(s) in the notebook ({states})."


def still_running_text(seconds: int) -> str:
    return f"still running after {seconds} s (not interrupted)"


def no_such_id_text(wanted: str) -> str:
    return (
        f"no cell of the notebook has the id {wanted!r} (use the short id notebook_cells shows, "
        "e.g. `id 1a2b3c4d`)"
    )


def ambiguous_id_text(count: int, wanted: str) -> str:
    return f"{count} cells have ids starting with {wanted!r}; give the full id"


def old_text_count_text(count: int) -> str:
    return (
        f"old_text occurs {count} times in the cell; include more surrounding text so it "
        "occurs exactly once"
    )


def cut_cell_text(label: str) -> str:
    """Why a ``run_cells`` card cannot show a code cell the page sent cut."""
    return (
        f"{label} is longer than the notebook page sends, so its card could not show what would "
        "run; ask the user to run it"
    )


def too_many_changed_lines_text(changed: int) -> str:
    """Why a ``run_cells`` card cannot show the cells' changed lines."""
    return (
        f"the cells to run hold {changed} lines that changed since they last ran (or never ran), "
        "more than one card can show; run fewer cells per call"
    )
