"""The notebook context block: where a ``%%dsh`` prompt runs, told to the model with every prompt.

:func:`notebook_context_block` turns :class:`NotebookFacts` (gathered by the kernel from what it
already knows: the page extension's identity metadata, its history, its error records,
``sys.modules``) into one bounded text block, sent as a second text block of the user message,
after the person's text. It is delimited by :data:`CONTEXT_OPEN` / :data:`CONTEXT_CLOSE` so the
model (and the scripted demo model, which skips it) can tell it from what the person wrote::

    <notebook-context>
    Written by dsh_notebook, not by the user: where this prompt runs.
    Notebook: analysis/sales.ipynb
    This prompt: the %%dsh cell with id 3f9a1c2e, In [12]
    Kernel: Python 3.12.3; imported: pandas 2.2.3 (as pd), numpy 2.1.0 (as np)
    Cells run since your previous prompt (In [7]):
      In [8]: sales = pd.read_csv("sales.csv")
      In [9]: sales.groupby("regin").sum()  → error: KeyError: 'regin'
    Cells edited since they ran (their outputs are from the older source):
      cell 4 · id 9c0d1e2f · In [9]: sales.groupby("region").sum()
    Values in the prompt: `sales` (DataFrame: 1,200 rows x 4 columns)
    </notebook-context>

Guarantees: pure (no IPython, no IO); never raises for any facts; the block is at most
:data:`CONTEXT_MAX` characters (the head is kept and cut with the package's truncation marker
of :func:`~dsh_notebook.context.describe.truncate`, the closing tag always kept); every line
states only what the facts say: a fact that is not known (no page extension: no path, no cell)
is said to be unknown in one line, or left out (the prompt's position and the edited cells
when the page could not be read: :attr:`NotebookFacts.edited_note` says why when the page is
connected), never guessed. Secrets are not masked here: the caller masks the block with
:func:`dsh_notebook.runtime.redact`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from ..transcript.context_tags import CONTEXT_CLOSE, CONTEXT_OPEN
from ..transcript.sanitize import code_span
from .describe import truncate
from .sanitize import replace_lone_surrogates

__all__ = [
    "CONTEXT_CLOSE",
    "CONTEXT_MAX",
    "CONTEXT_OPEN",
    "CellRun",
    "EditedCell",
    "NotebookFacts",
    "notebook_context_block",
]

CONTEXT_MAX: Final = 2000
"""At most this many characters (~500 tokens), whole block; it also fits a transcript context
chip uncut (``transcript.bounds.LINE_MAX``)."""

_LINE_MAX = 120  # one cell's line
_CELLS_MAX = 12  # cells listed (the newest)
_VALUES_MAX = 12  # referenced values listed


@dataclass(frozen=True)
class CellRun:
    """One cell the kernel ran: its execution count, source and the error it raised, if any."""

    count: int
    source: str
    error: str | None = None
    """The error's last non-blank line (``KeyError: 'regin'``), or ``None``."""


@dataclass(frozen=True)
class EditedCell:
    """A cell the page shows with a source other than the one this kernel ran as ``In [count]``."""

    position: int
    """Its position on the page (cell N, from 1)."""
    cell_id: str
    count: int
    source: str
    """The page's (current) source."""


@dataclass(frozen=True)
class NotebookFacts:
    """What the kernel knows about one prompt's place. ``None`` means "not known"."""

    path: str | None = None
    """The notebook's path as the page extension reports it; ``None`` without the extension."""
    cell_id: str | None = None
    """The prompt cell's notebook cell id (from the page); ``None`` without the extension."""
    execution_count: int | None = None
    """The prompt cell's execution count (``In [n]``)."""
    python: str | None = None
    """The kernel's Python version, e.g. ``3.12.3``."""
    libraries: Sequence[tuple[str, str, str | None]] = ()
    """``(name, version, alias)`` of the data libraries the notebook imported; ``alias`` is
    shown as written (``as pd``, ``plt = matplotlib.pyplot``) or ``None``."""
    cells: Sequence[CellRun] = ()
    """The cells run since ``since`` (or since the kernel started), oldest first."""
    since: int | None = None
    """The execution count of this conversation's previous prompt in this kernel, or ``None``
    (the first prompt of the conversation in this kernel: ``cells`` are the latest ones)."""
    values: Sequence[tuple[str, str]] = field(default_factory=tuple)
    """``(expression, one-line summary)`` of each value the prompt referenced, in order."""
    images: int = 0
    """Images attached with ``--image``."""
    position: int | None = None
    """The prompt cell's position on the page (cell N), when the page was read."""
    cells_total: int | None = None
    """How many cells the notebook has, when the page was read."""
    edited: Sequence[EditedCell] | None = None
    """The cells edited since they ran, in page order, when the page was read; else ``None``."""
    edited_note: str | None = None
    """Why the edited cells are not known, when a page is connected but could not be read."""
    undone: str | None = None
    """What "Undo this run" / ``%dsh undo`` reverted since the previous prompt (one line)."""
    instructions: str | None = None
    """The instruction files and skills the runtime loads, with their sizes (one line,
    :func:`~dsh_notebook.context.instructions.instructions_line`)."""
    private: Sequence[str] = ()
    """The private variables that exist (``DshMagics.private``): named, never shown."""
    private_cells: Sequence[int] = ()
    """The positions of the cells the page marks private (tagged ``dsh-private``)."""
    figure_cells: Sequence[int] = ()
    """The positions of the cells whose outputs show a figure (an ``image/png``), of those the
    page sent; ``figures_partial``: the page sent only part of the notebook."""
    figures_partial: bool = False


def short_id(cell_id: str) -> str:
    """The short stable handle of a notebook cell id: its first 8 characters."""
    return cell_id[:8]


def notebook_context_block(facts: NotebookFacts, *, max_chars: int = CONTEXT_MAX) -> str:
    """The block for ``facts``: at most ``max_chars`` characters, opened by
    :data:`CONTEXT_OPEN` and closed by :data:`CONTEXT_CLOSE`. Never raises."""
    lines = ["Written by dsh_notebook, not by the user: where this prompt runs."]
    if facts.path is None:
        lines.append(
            "Notebook: not known (the dsh-notebook page extension is not connected, so the "
            "notebook's path and this prompt's cell are not known)."
        )
    else:
        size = f" ({facts.cells_total:,} cells)" if facts.cells_total is not None else ""
        lines.append(f"Notebook: {_line(facts.path)}{size}")
    prompt = [f"cell {facts.position}"] if facts.position is not None else []
    if facts.cell_id:
        prompt.append(f"the %%dsh cell with id {_line(short_id(facts.cell_id))}")
    if facts.execution_count is not None:
        prompt.append(f"In [{facts.execution_count}]")
    if prompt:
        lines.append("This prompt: " + ", ".join(prompt))
    kernel = f"Kernel: Python {facts.python}" if facts.python else "Kernel: Python"
    if facts.libraries:
        kernel += "; imported: " + ", ".join(
            _line(f"{name} {version}" + (f" ({alias})" if alias else ""), 60)
            for name, version, alias in facts.libraries[:16]
        )
    lines.append(kernel)
    lines.extend(_cells(facts))
    lines.extend(_edited(facts))
    values = [f"{code_span(e)} ({_line(s)})" for e, s in facts.values[:_VALUES_MAX]]
    if len(facts.values) > _VALUES_MAX:
        values.append(f"and {len(facts.values) - _VALUES_MAX} more")
    if facts.images:
        values.append(f"{facts.images} attached image{'s' * (facts.images != 1)}")
    if values:
        lines.append("Values in the prompt: " + ", ".join(values))
    if facts.undone:
        lines.append(_line(facts.undone, 300))
    if facts.instructions:
        lines.append(_line(facts.instructions, 1000))
    if facts.private:
        names = ", ".join(code_span(n) for n in facts.private[:_VALUES_MAX])
        more = (
            f" and {len(facts.private) - _VALUES_MAX} more"
            if len(facts.private) > _VALUES_MAX
            else ""
        )
        lines.append(
            f"Private (withheld from you by the user; do not ask for their values): {names}{more}"
        )
    if facts.figure_cells:
        where = ", ".join(str(n) for n in facts.figure_cells[:_VALUES_MAX])
        extra = len(facts.figure_cells) - _VALUES_MAX
        lines.append(
            "Figures in cells: "
            + where
            + (f" and {extra} more" if extra > 0 else "")
            + (" (of the cells read)" if facts.figures_partial else "")
            + " (notebook_cells with a cell's id returns its figure)"
        )
    if facts.private_cells:
        where = ", ".join(str(n) for n in facts.private_cells[:_VALUES_MAX])
        extra = len(facts.private_cells) - _VALUES_MAX
        lines.append(
            f"Private cells (withheld from you by the user; do not ask for them): {where}"
            + (f" and {extra} more" if extra > 0 else "")
        )
    body = replace_lone_surrogates("\n".join(lines))
    room = max_chars - len(CONTEXT_OPEN) - len(CONTEXT_CLOSE) - 2
    body = truncate(body, max(room, 0))[0]
    return f"{CONTEXT_OPEN}\n{body}\n{CONTEXT_CLOSE}"


def _cells(facts: NotebookFacts) -> list[str]:
    cells = list(facts.cells)
    shown = cells[-_CELLS_MAX:]
    if facts.since is not None:
        head = f"Cells run since your previous prompt in this conversation (In [{facts.since}])"
    else:
        head = "Cells run in this kernel before this prompt"
    if not cells:
        return [head + ": none"] if facts.since is not None else []
    if len(shown) < len(cells):
        head += f", the last {len(shown)} of {len(cells)}"
    out = [head + ":"]
    for cell in shown:
        text = f"  In [{cell.count}]: {_first_line(cell.source)}"
        if cell.error:
            text += f"  → error: {_line(cell.error, 80)}"
        out.append(text)
    return out


def _edited(facts: NotebookFacts) -> list[str]:
    if facts.edited is None:
        note = facts.edited_note
        return [f"Cells edited since they ran: not known ({_line(note)})"] if note else []
    if not facts.edited:
        return ["Cells edited since they ran: none"]
    edited = list(facts.edited)
    head = "Cells edited since they ran (their outputs are from the older source)"
    if len(edited) > _CELLS_MAX:
        head += f", the first {_CELLS_MAX} of {len(edited)}"
    return [head + ":"] + [
        f"  cell {c.position} · id {_line(short_id(c.cell_id), 20)} · In [{c.count}]: "
        + _first_line(c.source)
        for c in edited[:_CELLS_MAX]
    ]


def _first_line(source: str) -> str:
    lines = [ln for ln in source.splitlines() if ln.strip()]
    if not lines:
        return "(empty)"
    shown = 2 if lines[0].lstrip().startswith("%%") and len(lines) > 1 else 1  # a cell magic
    first = _line(" ⏎ ".join(ln.strip() for ln in lines[:shown]), _LINE_MAX)
    return first + (f"  (+{len(lines) - shown} lines)" if len(lines) > shown else "")


def _line(text: str, limit: int = _LINE_MAX) -> str:
    """One line: whitespace folded, cut with the truncation marker."""
    return truncate(" ".join(text.split()), limit)[0]
