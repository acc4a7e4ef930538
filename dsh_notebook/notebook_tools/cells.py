"""``notebook_cells``: the notebook as the person sees it, as bounded text for the model.

:func:`format_cells` renders the cells the frontend extension read from the notebook model (a
``read_notebook_reply``, see :mod:`dsh_notebook.page_protocol`; taken here as a plain mapping,
this layer does not import the frontend one): each cell's number, its short stable id (the first
8 characters of the notebook's cell id: positions shift, ids do not), type, execution count (or
"not run"), whether it is the ``%%dsh`` cell of the run that asked (``THIS PROMPT``), whether
the agent wrote it (``dsh-agent`` tag) and whether it is selected, its source and a
summary of its outputs (stream and result text, the kinds of rich outputs, an error's exception
line). :func:`fallback_cells` is what the model gets where no extension answers: the kernel's
execution history, with a first line that says so and why.

What the model may ask (:class:`CellsQuery`, parsed from the tool's arguments by
:func:`cells_query`): by default every cell; ``cell_ids`` and/or a ``start``-``end`` range of
positions: only those cells, whole (as far as the cap allows); ``brief``: one line per cell
(position, id, type, In [k] / not run / running, first line, output status). Outside a whole
read, an earlier ``%%dsh`` cell (not THIS PROMPT) shows its prompt's first line and the length
of its transcript, not the transcript (the model has its answers in its history). A cell whose
page source differs from what this kernel ran as ``In [k]`` is marked ``edited since In [k]``
(:func:`.ran_cells.edited_since`).

Guarantees: pure functions over plain data, no IPython, no threads; the text is at most
``max_chars`` characters. When the cells do not fit, every cell's source and outputs are cut
evenly first, in steps (each cell keeps its header line; the selected cell keeps more of its
source), so the model still sees every cell and which one is selected; only then is the end
cut. Agent-written text is returned as text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..context.describe import truncate
from ..context.notebook_context import short_id
from ..context.private import PRIVATE_CELL
from ..transcript.bounds import truncation_mark
from . import tool_texts as texts
from .cells_window import WINDOW_SIZES, anchor_of, left_out, positions, spans, window
from .history import notebook_history
from .ran_cells import RanLookup, edited_since

__all__ = [
    "MAX_CHOSEN",
    "CellsQuery",
    "FigureLookup",
    "cells_query",
    "fallback_cells",
    "format_cells",
    "shown_cells",
]

FigureLookup = Callable[[str | None, int | None], list[str]]
"""``(cell id, execution count) -> descriptions`` of the figures that cell displayed, as the
kernel recorded them (:class:`.figures.FigureNotes`); ``[]`` when unknown."""

_SOURCE_CHARS = 4000
_LEVELS = (
    (4000, 800),
    (2000, 400),
    (1000, 200),
    (500, 120),
    (250, 80),
    (120, 60),
    (60, 30),
    (0, 0),
)
"""(source, output text) characters per cell, tried in order until the notebook fits."""
_WHOLE: Final = (20000, 2000)  # a cell read whole: as much as the page sends
_BRIEF_LINE: Final = (100, 60, 30)  # the first line's characters in brief mode, tried in order
MAX_CHOSEN: Final = 50
"""Most ``cell_ids`` one call may name."""


@dataclass(frozen=True)
class CellsQuery:
    """Which cells ``notebook_cells`` shows and how (see the module doc)."""

    cell_ids: tuple[str, ...] = ()
    """Short (8 characters) or full cell ids, or any unique prefix of 4 characters or more."""
    start: int | None = None
    """First position (1-based) of a range; ``end`` alone starts at 1."""
    end: int | None = None
    """Last position of a range, included; ``start`` alone ends at the last cell."""
    brief: bool = False

    @property
    def chosen(self) -> bool:
        return bool(self.cell_ids) or self.start is not None or self.end is not None


def cells_query(args: Mapping[str, Any]) -> CellsQuery | str:
    """The query in the tool's arguments, or a sentence for the model saying what is wrong."""
    unknown = sorted(set(args) - {"cell_ids", "start", "end", "brief"})
    if unknown:
        return texts.unknown_arguments(unknown)
    ids = args.get("cell_ids", [])
    if isinstance(ids, str):
        ids = [ids]
    if not isinstance(ids, list) or not all(isinstance(i, str) and i.strip() for i in ids):
        return texts.CELL_IDS_USAGE
    if len(ids) > MAX_CHOSEN:
        return texts.max_ids(MAX_CHOSEN)
    bounds: list[int | None] = []
    for key in ("start", "end"):
        value = args.get(key)
        if value is not None and (type(value) is not int or value < 1):
            return texts.position_usage(key)
        bounds.append(value)
    start, end = bounds
    if start is not None and end is not None and end < start:
        return texts.range_reversed(start, end)
    brief = args.get("brief", False)
    if not isinstance(brief, bool):
        return texts.BRIEF_USAGE
    return CellsQuery(tuple(i.strip() for i in ids), start, end, brief)


def _cut_to(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, the marker included (see :func:`truncate`);
    a text no longer than the marker that would replace it is kept whole."""
    if len(text) <= len(truncation_mark(len(text))):
        return text
    return truncate(text, limit)[0]


def _output_lines(outputs: Sequence[Mapping[str, Any]], limit: int) -> list[str]:
    lines: list[str] = []
    for output in outputs:
        kind = str(output.get("output_type", "?"))
        text = str(output.get("text", "")).rstrip()
        if kind == "error":
            ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
            lines.append(
                f"error: {ename}: {_cut_to(evalue, limit)}" if evalue else f"error: {ename}"
            )
            continue
        mime = [m for m in output.get("mime", []) if m != "text/plain"]
        label = "stream" if kind == "stream" else "out"
        if mime:
            label += " [" + ", ".join(mime) + "]"
        if text:
            lines.append(f"{label}: {_cut_to(text, limit)}")
        elif mime:
            lines.append(label)
    return lines


def _head(
    cell: Mapping[str, Any], this_cell: str | None, ran: RanLookup | None, *, brief: bool = False
) -> str:
    """``cell N · id … · type · In [k] (or edited since In [k], running, not run) · marks``."""
    kind = str(cell.get("cell_type", "code"))
    cell_id = cell.get("id")
    head = f"cell {int(cell.get('index', 0)) + 1}"
    if isinstance(cell_id, str) and cell_id:
        head += f" · id {short_id(cell_id)}"
    head += f" · {kind}"
    if kind == "code":
        count = cell.get("execution_count")
        if cell.get("running"):
            head += " · running"  # or queued: the page has sent it to the kernel
        elif edited_since(cell, ran) is not None:
            head += f" · edited since In [{count}]"
        else:
            head += f" · In [{count}]" if isinstance(count, int) else " · not run"
    if this_cell is not None and cell_id == this_cell:
        head += texts.THIS_PROMPT_BRIEF if brief else texts.THIS_PROMPT
    if cell.get("agent"):
        head += texts.AGENT_CELL
    if cell.get("selected"):
        head += " · SELECTED"
    return head


def _is_transcript(cell: Mapping[str, Any], this_cell: str | None) -> bool:
    """An earlier ``%%dsh`` cell (not the one being answered): its outputs are a transcript."""
    source = str(cell.get("source", ""))
    return (
        cell.get("cell_type", "code") == "code"
        and source.lstrip().startswith("%%dsh")
        and not (this_cell is not None and cell.get("id") == this_cell)
    )


def _transcript_lines(outputs: Sequence[Mapping[str, Any]]) -> int:
    return sum(
        len(str(o.get("text", "")).rstrip().splitlines())
        for o in outputs
        if o.get("output_type") != "error"
    )


def _prompt_lines(source: str, limit: int) -> str:
    """A ``%%dsh`` cell's magic line and its prompt's first line, and how many lines follow."""
    lines = source.strip().splitlines()
    rest = [ln for ln in lines[1:] if ln.strip()]
    shown = [_cut_to(lines[0], limit)] + ([_cut_to(rest[0], limit)] if rest else [])
    if len(rest) > 1:
        shown[-1] += f"  (+{len(rest) - 1} more prompt lines)"
    return "\n".join(shown)


def _cell_block(
    cell: Mapping[str, Any],
    source_chars: int,
    output_chars: int,
    figures: FigureLookup | None = None,
    this_cell: str | None = None,
    ran: RanLookup | None = None,
    whole: bool = False,
) -> str:
    kind = str(cell.get("cell_type", "code"))
    cell_id = cell.get("id")
    head = "## " + _head(cell, this_cell, ran)
    if cell.get("private"):
        return f"{head}\n{PRIVATE_CELL}{texts.PRIVATE_PAGE_CELL}"
    source = str(cell.get("source", "")).rstrip()
    outputs = cell.get("outputs")
    outputs = outputs if isinstance(outputs, list) else []
    if not whole and _is_transcript(cell, this_cell):
        parts = [head, _prompt_lines(source, max(source_chars, 60))]
        errors = [o for o in outputs if o.get("output_type") == "error"]
        parts.extend("→ " + line for line in _output_lines(errors, output_chars))
        if len(errors) < len(outputs):
            lines = _transcript_lines(outputs)
            parts.append(f"→ (dsh transcript: {lines} lines, not repeated)")
        return "\n".join(parts)
    parts = [head, _cut_to(source, source_chars) if source else "(empty)"]
    if outputs:
        parts.extend("→ " + line for line in _output_lines(outputs, output_chars))
    if figures is not None and kind == "code" and output_chars > 0:
        for text in figures(
            cell_id if isinstance(cell_id, str) else None, cell.get("execution_count")
        ):
            parts.append(f"→ {texts.figure_as_text()}" + _cut_to(text, output_chars * 2))
    return "\n".join(parts)


def _status(cell: Mapping[str, Any], this_cell: str | None) -> str:
    """A brief line's output status: the error, the transcript's length, or the output kinds."""
    outputs = cell.get("outputs")
    outputs = outputs if isinstance(outputs, list) else []
    if cell.get("cell_type", "code") != "code":
        return ""
    error = next((o for o in outputs if o.get("output_type") == "error"), None)
    if error is not None:
        return f" → error: {_cut_to(str(error.get('ename', '')), 60)}"
    if not outputs:
        ran = isinstance(cell.get("execution_count"), int)
        return " → no output" if ran else ""
    if _is_transcript(cell, this_cell):
        return f" → dsh transcript ({_transcript_lines(outputs)} lines)"
    kinds: list[str] = []
    for output in outputs:
        mime = [m for m in output.get("mime", []) if m != "text/plain"]
        label = "stream" if output.get("output_type") == "stream" else "out"
        label += " [" + ", ".join(mime) + "]" if mime else ""
        if label not in kinds:
            kinds.append(label)
    return " → " + ", ".join(kinds)


def _brief_line(cell: Mapping[str, Any], chars: int, this_cell: str | None,
                ran: RanLookup | None) -> str:  # fmt: skip
    if cell.get("private"):
        return f"{_head(cell, this_cell, ran, brief=True)}: {PRIVATE_CELL}"
    lines = [ln.strip() for ln in str(cell.get("source", "")).splitlines() if ln.strip()]
    first = _cut_to(lines[0], chars) if lines else "(empty)"
    if len(lines) > 1:
        first += f" (+{len(lines) - 1} lines)"
    return f"{_head(cell, this_cell, ran, brief=True)}: {first}{_status(cell, this_cell)}"


def _choose(
    cells: list[Mapping[str, Any]], total: int, query: CellsQuery, complete: bool = True
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The cells ``query`` names, in notebook order, and a sentence per id or range that names
    none (or, for a short id, several). Unless ``complete`` (the page sent every cell, or the
    cells asked for), an id not found is not denied: the page may not have sent it."""
    chosen: set[int] = set()
    notes: list[str] = []
    for given in query.cell_ids:
        found = [
            i for i, c in enumerate(cells)
            if isinstance(c.get("id"), str)
            and (c["id"] == given or (len(given) >= 4 and str(c["id"]).startswith(given)))
        ]  # fmt: skip
        if len(found) == 1:
            chosen.add(found[0])
        elif found:
            notes.append(texts.ambiguous_id(given, len(found)))
        elif complete:
            notes.append(texts.no_such_id(given))
        else:
            notes.append(texts.id_not_sent(given, len(cells), total))
    if query.start is not None or query.end is not None:
        first, last = query.start or 1, min(query.end or total, total)
        if first > total:
            notes.append(texts.no_such_cell(first, total))
        for i, c in enumerate(cells):
            if first <= int(c.get("index", i)) + 1 <= last:
                chosen.add(i)
        sent = set(positions(cells))
        unsent = spans([n for n in range(first, last + 1) if n not in sent])
        if unsent:
            notes.append(texts.range_not_sent(unsent[:8], len(cells)))
    return [cells[i] for i in sorted(chosen)], notes


def shown_cells(reply: Mapping[str, Any], query: CellsQuery) -> list[Mapping[str, Any]]:
    """The cells of ``reply`` that a result for ``query`` lists: every cell, or the chosen
    ones (what the model is shown, whole or cut; see :func:`format_cells`)."""
    cells = [c for c in reply.get("cells", []) if isinstance(c, Mapping)]
    if not query.chosen:
        return cells
    total = reply.get("total_cells")
    return _choose(cells, total if isinstance(total, int) else len(cells), query)[0]


def format_cells(
    reply: Mapping[str, Any],
    *,
    max_chars: int = 8000,
    figures: FigureLookup | None = None,
    this_cell: str | None = None,
    query: CellsQuery | None = None,
    ran: RanLookup | None = None,
    listed: list[Mapping[str, Any]] | None = None,
) -> str:
    """The notebook's cells as text (see the module doc), at most ``max_chars`` characters.
    ``figures`` adds the kernel's text description of the figures a cell displayed;
    ``this_cell`` (a notebook cell id) is marked ``THIS PROMPT``; ``query`` chooses the cells
    and the brief mode; ``ran`` (:class:`.ran_cells.RanCells` lookup) marks edited cells;
    ``listed`` (when given) receives the cells the text lists (a big notebook's window)."""
    found: list[Mapping[str, Any]] = [] if listed is None else listed
    query = query or CellsQuery()
    cells = [c for c in reply.get("cells", []) if isinstance(c, Mapping)]
    total = reply.get("total_cells")
    total = total if isinstance(total, int) else len(cells)
    path = str(reply.get("path", "")) or "the notebook"
    selected = next((int(c.get("index", 0)) + 1 for c in cells if c.get("selected")), None)
    head = texts.cells_heading(path, total, selected)
    if not cells and not total:
        return truncate(head + texts.EMPTY_NOTEBOOK, max_chars)[0]
    if query.chosen:
        complete = len(cells) >= total or reply.get("chosen") is True
        cells, notes = _choose(cells, total, query, complete)
        shown = ", ".join(str(int(c.get("index", 0)) + 1) for c in cells) or "none"
        head += texts.showing_chosen(shown, brief=query.brief)
        head = " ".join([head, *notes])
        found.extend(cells)
        if not cells:
            return truncate(head, max_chars)[0]
    keep = min(_SOURCE_CHARS, max_chars // 5)  # the selected cell's source, at any level

    def body(shown: list[Mapping[str, Any]], level: tuple[int, int]) -> str:
        if query.brief:
            return "\n" + "\n".join(_brief_line(c, level[0], this_cell, ran) for c in shown)
        source_chars, output_chars = level
        return "\n\n" + "\n\n".join(
            _cell_block(c, max(source_chars, keep) if c.get("selected") else source_chars,
                        output_chars, figures, this_cell, ran, whole=query.chosen)
            for c in shown
        )  # fmt: skip

    levels: tuple[tuple[int, int], ...]
    if query.brief:
        levels = tuple((chars, 0) for chars in _BRIEF_LINE)
    else:
        levels = (_WHOLE, *_LEVELS) if query.chosen else _LEVELS
    tries = [(cells, levels)]
    if not query.chosen:  # a listing too long for every header: a window around the prompt
        anchor, readable = anchor_of(cells, this_cell), levels if query.brief else levels[:5]
        sizes = [n for n in WINDOW_SIZES if n < len(cells)]
        tries += [(window(cells, anchor, n), levels if n == 1 else readable) for n in sizes]
    for part, tried in tries:
        if not query.chosen:
            found[:] = part
        note = "" if query.chosen else left_out(positions(part), total)
        for level in tried:
            text = (f"{head} {note}" if note else head) + body(part, level)
            if len(text) <= max_chars:
                return text
        if part is cells and text.rfind("\n## " if not query.brief else "\n") + 200 < max_chars:
            break  # every header survives a cut of the end (the selected cell's longer source)
    return truncate(text, max_chars)[0]


def fallback_cells(
    shell: Any,
    reason: str,
    *,
    errors: Mapping[int, str] | None = None,
    max_chars: int = 8000,
    query: CellsQuery | None = None,
    private: Callable[[int], bool] | None = None,
) -> str:
    """The kernel's last executed cells, introduced by :data:`.tool_texts.FALLBACK_NOTE` with
    ``reason``
    (and, when ``query`` chose cells or the brief mode, a sentence saying it could not); the
    counts ``private`` names (runs of private cells) read "[private cell]" alone."""
    note = texts.FALLBACK_NOTE.format(reason=reason)
    if query is not None and (query.chosen or query.brief):
        note += texts.FALLBACK_CHOSEN
    body = notebook_history(
        shell, 20, errors=errors, max_chars=max(200, max_chars - len(note) - 2), private=private
    )
    return truncate(note + "\n\n" + body, max_chars)[0]
