"""What the read tools and ``run_python`` tell the model: every sentence they return, in one place.

``notebook_cells`` (:mod:`.cells`, :mod:`.cells_window`, :mod:`.cell_figures`),
``notebook_history`` (:mod:`.history`), ``notebook_variables`` and ``describe_variable``
(:mod:`.variables`, :mod:`.read_tools`) and ``run_python`` (:mod:`.run_python`, :mod:`.server`)
build their sentences only from these constants and functions; the layout they are set in (a
cell's heading, ``## In [k]``, the variables' table) stays with each tool.
``tests/test_tool_texts.py`` holds the tool modules to it (no sentence of their own). The cell
tools' texts are :mod:`.cell_texts`; what the model is told of a person's or a policy's
decision, :mod:`.refusals`.

Guarantees: a refusal or a usage error says what to send instead; nothing here says the person
decided. Pure text, no dependencies.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AGENT_CELL",
    "BRIEF_USAGE",
    "CELL_IDS_USAGE",
    "DESCRIBE_NAME_USAGE",
    "EMPTY_NOTEBOOK",
    "FALLBACK_CHOSEN",
    "FALLBACK_NOTE",
    "INTERRUPTED",
    "LAST_VALUE",
    "NO_CELLS_RUN",
    "NO_PAGE_REASON",
    "NO_VARIABLES",
    "NO_VARIABLES_LISTED",
    "PRIVATE_HISTORY_CELL",
    "PRIVATE_PAGE_CELL",
    "PRIVATE_ROWS",
    "RAN_WITHOUT_OUTPUT",
    "RUN_PYTHON_CODE_USAGE",
    "RUN_PYTHON_OFF",
    "SHUTTING_DOWN",
    "SHUT_DOWN_BEFORE_RUN",
    "THIS_PROMPT",
    "THIS_PROMPT_BRIEF",
    "WITHHELD_MESSAGE",
    "ambiguous_id",
    "busy_queue",
    "cells_heading",
    "describe_timed_out",
    "figure_as_text",
    "figures_attached",
    "figures_not_images",
    "figures_not_kept",
    "figures_over_cap",
    "history_heading",
    "id_not_sent",
    "kernel_line",
    "max_ids",
    "more_variables",
    "no_such_cell",
    "no_such_id",
    "no_such_variable",
    "not_listed",
    "position_usage",
    "range_not_sent",
    "range_reversed",
    "run_python_figures",
    "showing_chosen",
    "similar_names",
    "tool_failed",
    "unknown_arguments",
    "unknown_tool",
    "variables_heading",
    "variables_named",
    "withdrawn_busy",
]

# -- notebook_cells -------------------------------------------------------------------------------

FALLBACK_NOTE = (
    "The notebook itself could not be read ({reason}), so this is the kernel's execution "
    "history instead: only cells that ran, as they were when they ran; cells that were never "
    "run, later edits, markdown cells and the selected cell are not shown."
)
"""Heads the history ``notebook_cells`` falls back to (``reason``: why the page was not read)."""
FALLBACK_CHOSEN = " The cells and the brief form you asked for need the notebook; all are shown."
NO_PAGE_REASON = "this kernel has no notebook page to ask"
THIS_PROMPT = " · THIS PROMPT (the %%dsh cell you are answering)"
"""Marks, in a cell's heading, the ``%%dsh`` cell of the run that reads (brief: the short form)."""
THIS_PROMPT_BRIEF = " · THIS PROMPT"
AGENT_CELL = " · written by the agent"
CELL_IDS_USAGE = "cell_ids must be a list of cell ids (strings) as notebook_cells shows them."
BRIEF_USAGE = "brief must be true or false."
EMPTY_NOTEBOOK = " The notebook is empty."
PRIVATE_PAGE_CELL = " (its source and outputs are withheld by the user)"
"""After "[private cell]" in a listing of the page's cells."""


def unknown_arguments(unknown: Sequence[str]) -> str:
    return f"notebook_cells takes cell_ids, start, end and brief; not {', '.join(unknown)}."


def max_ids(limit: int) -> str:
    return f"cell_ids may name at most {limit} cells; ask for fewer."


def position_usage(key: str) -> str:
    return f"{key} must be a cell position, an integer from 1."


def range_reversed(start: int, end: int) -> str:
    return f"end ({end}) is before start ({start})."


def cells_heading(path: str, total: int, selected: int | None) -> str:
    """The first line of a read of the page: where, how many cells, which one is selected."""
    head = f"{path} as the user sees it now (read from the open notebook): {total} cell(s)"
    return head + (f", cell {selected} is selected." if selected is not None else ".")


def showing_chosen(shown: str, *, brief: bool) -> str:
    return f" Showing only the cells asked for ({shown})" + (
        "." if brief else ", whole where the cap allows."
    )


def ambiguous_id(given: str, matches: int) -> str:
    return f"Id {given!r} matches {matches} cells; give more of the id."


def no_such_id(given: str) -> str:
    return f"No cell has id {given!r} (brief: true lists every cell's id)."


def id_not_sent(given: str, sent: int, total: int) -> str:
    return (
        f"Id {given!r} is not among the {sent} of {total} cells the page sent "
        "(it may exist: ask with start/end)."
    )


def no_such_cell(position: int, total: int) -> str:
    return f"There is no cell {position}: the notebook has {total} cell(s)."


def range_not_sent(spans: Sequence[str], per_read: int) -> str:
    return (
        f"Cells {', '.join(spans)} of that range were not sent (at most "
        f"{per_read} per read): ask for them separately."
    )


def not_listed(listed: int, total: int, where: str) -> str:
    """A big notebook's window: how many cells were listed, and the positions left out."""
    return (
        f"Listed: {listed} of {total} cells; not listed: cells {where} (they exist: "
        "ask with start/end or cell_ids; brief: true with start/end gives one line per cell)."
    )


def figure_as_text(number: int | None = None) -> str:
    """The title over a figure's text description (numbered in a ``run_python`` result)."""
    return f"figure {number} (described as text):\n" if number else "figure (described as text):\n"


def figures_attached(count: int, per_cell: Sequence[str]) -> str:
    return f"{count} figure(s) attached as PNG ({', '.join(per_cell)})"


def figures_not_images(names: str) -> str:
    return (
        f"Figures in {names}: not sent as images (this model takes none); the "
        "kernel's description of each, where it has one, is in the cell's output above."
    )


def figures_over_cap(left: int, most: int, megabytes: int) -> str:
    return f"{left} more not attached (at most {most} or {megabytes} MB a call: read fewer cells)"


def figures_not_kept(names: str) -> str:
    return (
        f"no image of the figure in {names} (shown before this kernel ran "
        "that cell, or too large): its output text above is what there is"
    )


# -- notebook_history -----------------------------------------------------------------------------

NO_CELLS_RUN = "No cells have been executed in this kernel yet."
PRIVATE_HISTORY_CELL = " (withheld by the user)"
"""After "[private cell]" in the history."""


def history_heading(count: int) -> str:
    return f"The last {count} executed cell(s), oldest first:\n\n"


# -- notebook_variables, describe_variable --------------------------------------------------------

NO_VARIABLES = (
    "\n\nThe notebook has no user variables yet (functions, classes and names "
    "starting with _ are not listed)."
)
NO_VARIABLES_LISTED = "The notebook has no user variables yet."
PRIVATE_ROWS = (
    "Rows marked private are withheld by the user (DshMagics.private): do not ask for their values."
)
DESCRIBE_NAME_USAGE = "describe_variable needs `name`, a variable name (a string)."


def kernel_line(python: str, modules: str) -> str:
    """The head of ``notebook_variables``: the Python version and the modules imported
    (``modules``: ``name = module version`` labels, ``""`` when none)."""
    if not modules:
        return f"Kernel: {python}; no modules imported in the notebook."
    return f"Kernel: {python}. Imported modules (name = module version): {modules}."


def more_variables(count: int) -> str:
    return f"… {count:,} more variables not shown"


def similar_names(names: Sequence[str]) -> str:
    return "Similar names: " + ", ".join(names) + "."


def variables_named(listed: str) -> str:
    return f"Variables in the notebook: {listed}."


def variables_heading(count: int) -> str:
    return (
        f"{count} variable(s) in the notebook kernel (modules, functions, classes and "
        "_private names are not listed):"
    )


def no_such_variable(name: object, hint: str) -> str:
    return f"No variable named {name!r} in the notebook kernel. {hint}"


def describe_timed_out(tool: str, seconds: float) -> str:
    return (
        f"{tool} was stopped after {seconds:g} s: describing a value of the notebook took "
        "too long (a repr, _repr_llm_ or property that is slow or never returns). Nothing "
        "was changed. Ask the user which variable it is, or describe a different one."
    )


# -- run_python -----------------------------------------------------------------------------------

RUN_PYTHON_OFF = "run_python is turned off for this notebook."
RUN_PYTHON_CODE_USAGE = "run_python needs `code`, a non-empty string of Python."
SHUTTING_DOWN = "The notebook kernel is shutting down; nothing was run."
SHUT_DOWN_BEFORE_RUN = "The notebook kernel shut down before the code ran."
INTERRUPTED = "Interrupted: the user stopped the code (Interrupt kernel)."
LAST_VALUE = "value of the last expression:\n"
"""The title over the value of a ``run_python`` call's last expression."""
RAN_WITHOUT_OUTPUT = "The code ran without output."
WITHHELD_MESSAGE = (
    "The notebook tool's result was withheld: it could not be checked for secrets (see the "
    "kernel log). Nothing about the result can be shown; ask the user."
)


def unknown_tool(name: str, available: object) -> str:
    return f"unknown tool {name!r}; available: {available}"


def tool_failed(exc: BaseException) -> str:
    return f"the notebook tool failed: {type(exc).__name__}: {exc}"


def withdrawn_busy(seconds: float) -> str:
    return (
        "The notebook kernel stayed busy running a cell, so the approved code was "
        f"withdrawn after {seconds:g} s without running. Try again later or ask the user."
    )


def busy_queue(waiting: int) -> str:
    return (
        f"{waiting} run_python call(s) are already waiting for the notebook "
        "kernel; nothing was run. Wait for their results before sending more code."
    )


def run_python_figures(count: int, *, attached: bool, takes_images: bool) -> str:
    """What became of the figures a ``run_python`` call drew (no final period)."""
    if attached:
        return f"{count} figure(s) attached as PNG"
    if not count:
        return "no figure attached"
    if not takes_images:
        return (
            f"{count} figure(s) not sent as images: this model route takes no image input "
            "(read the text descriptions)"
        )
    return f"{count} figure(s) not sent as images: the code raised"
