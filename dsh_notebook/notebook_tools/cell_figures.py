"""The figures of the cells a ``notebook_cells`` call read by id or range, for the model.

The page sends a cell's outputs as text and the kinds of its rich outputs, never their bytes;
the kernel keeps the PNG of each figure the person's own cells displayed while it ran them
(:class:`.figures.FigureNotes`). :func:`cell_figures` picks those of the cells a call chose:

- only a call that names cells (``cell_ids``, or ``start``/``end``) gets images: the default
  listing says which cells have a figure, and reading such a cell is how to see it;
- a cell counts only with the execution count the page shows now (the kernel's note of that
  very run), never a private cell or a run of one;
- at most :data:`MAX_FIGURES` images and :data:`MAX_BYTES` bytes per call, in the order of
  the cells; the note says how many were attached and what was left out and why;
- a route that takes no images gets no bytes: the note says so, and that the kernel's text
  description of a figure (which :func:`.cells.format_cells` adds where it has one) is above.

Pure (no kernel, no I/O); the lookups are called on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .ran_cells import RanLookup
from .tool_texts import (
    figures_attached,
    figures_not_images,
    figures_not_kept,
    figures_over_cap,
)

__all__ = [
    "MAX_BYTES",
    "MAX_FIGURES",
    "CellFigures",
    "FigureImages",
    "cell_figures",
    "shows_figure",
]

MAX_FIGURES: Final = 4
"""Most figures one call attaches."""

MAX_BYTES: Final = 3_000_000
"""Most PNG bytes one call attaches."""

_NAMED: Final = 10
"""Most cells one note names (then how many more)."""

FigureImages = Callable[[str | None, int | None], "list[bytes | None]"]
"""``(cell id, execution count) -> the PNG of each figure that run displayed`` (``None``: not
kept), :meth:`.figures.FigureNotes.images`."""


@dataclass(frozen=True)
class CellFigures:
    """What :func:`cell_figures` found: the PNGs to attach, in order, and one line for the
    model (``""`` when the chosen cells showed no figure)."""

    images: list[bytes] = field(default_factory=list)
    note: str = ""


def shows_figure(cell: Mapping[str, Any]) -> bool:
    """Whether a page cell's outputs hold a figure (an ``image/png`` display)."""
    outputs = cell.get("outputs")
    return isinstance(outputs, list) and any(
        isinstance(o, Mapping) and "image/png" in (o.get("mime") or ()) for o in outputs
    )


def _label(cell: Mapping[str, Any]) -> str:
    index = cell.get("index")
    return f"cell {index + 1}" if isinstance(index, int) else f"cell {cell.get('id')}"


def cell_figures(
    cells: Sequence[Mapping[str, Any]],
    images: FigureImages | None,
    *,
    takes_images: bool,
    ran: RanLookup | None = None,
) -> CellFigures:
    """The figures of ``cells`` (the page cells a call chose, in order) for the model."""
    shown = [
        c
        for c in cells
        if c.get("cell_type", "code") == "code" and not c.get("private") and shows_figure(c)
    ]
    if not shown:
        return CellFigures()
    if not takes_images:
        return CellFigures(note=figures_not_images(_names(shown)))
    attached: list[bytes] = []
    per_cell: list[str] = []
    unavailable: list[Mapping[str, Any]] = []
    left = 0
    size = 0
    for cell in shown:
        count = cell.get("execution_count")
        count = count if isinstance(count, int) and not isinstance(count, bool) else None
        kept = _kept(cell, count, images, ran)
        if kept is None:  # a private cell's run: not even named
            continue
        if not kept:
            unavailable.append(cell)
            continue
        taken = 0
        for png in kept:
            if len(attached) >= MAX_FIGURES or size + len(png) > MAX_BYTES:
                left += 1
                continue
            attached.append(png)
            size += len(png)
            taken += 1
        if taken:
            per_cell.append(f"{_label(cell)}: {taken}")
    parts = []
    if attached:
        parts.append(figures_attached(len(attached), per_cell))
    if left:
        parts.append(figures_over_cap(left, MAX_FIGURES, MAX_BYTES // 1_000_000))
    if unavailable:
        parts.append(figures_not_kept(_names(unavailable)))
    return CellFigures(attached, "Figures: " + "; ".join(parts) + ".")


def _names(cells: Sequence[Mapping[str, Any]]) -> str:
    """``cell 3, cell 7`` for at most :data:`_NAMED` cells, then how many more."""
    named = ", ".join(_label(c) for c in cells[:_NAMED])
    return named + (f" and {len(cells) - _NAMED} more" if len(cells) > _NAMED else "")


def _kept(
    cell: Mapping[str, Any], count: int | None, images: FigureImages | None, ran: RanLookup | None
) -> list[bytes] | None:
    """The PNGs kept for the run the page shows (``[]``: none), ``None`` for a private run."""
    if ran is not None and count is not None:
        try:
            entry = ran(count)
        except Exception:
            entry = None
        if entry is not None and entry.private:
            return None
    if images is None or count is None:
        return []
    try:
        found = images(str(cell.get("id")) if cell.get("id") else None, count)
    except Exception:
        return []
    return [png for png in found if png]
