"""Which cells of a big notebook a ``notebook_cells`` listing shows: a window around the
prompt, and a sentence naming the cells left out.

A listing that cannot keep every cell's header within its cap (a notebook of a few hundred
cells, or one longer than a page read carries) shows the cells nearest the asking ``%%dsh``
cell (else the selected cell), as many as fit at a readable level, and says which positions are
not listed and how to ask for them. Pure functions over ``read_notebook_reply`` cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .tool_texts import not_listed

__all__ = ["WINDOW_SIZES", "anchor_of", "left_out", "positions", "spans", "window"]

WINDOW_SIZES: Final = (400, 300, 200, 150, 100, 80, 60, 50, 40, 30, 25, 20, 15, 10, 5, 1)
"""Window sizes tried, widest first, until the window fits."""
_RANGES_SHOWN: Final = 8


def positions(cells: Sequence[Mapping[str, Any]]) -> list[int]:
    """The cells' positions on the page (from 1)."""
    return [int(c.get("index", i)) + 1 for i, c in enumerate(cells)]


def anchor_of(cells: Sequence[Mapping[str, Any]], this_cell: str | None) -> int:
    """The list index to centre a window on: the asking cell, else the selected one, else the
    middle of what the page sent (which centred its own window on the asking cell)."""
    for i, cell in enumerate(cells):
        if this_cell is not None and cell.get("id") == this_cell:
            return i
    selected = next((i for i, c in enumerate(cells) if c.get("selected")), None)
    return selected if selected is not None else len(cells) // 2


def window(cells: Sequence[Mapping[str, Any]], anchor: int, size: int) -> list[Mapping[str, Any]]:
    """``size`` consecutive cells of ``cells`` around ``anchor`` (a list index), clamped to the
    list, in order; the anchor is always among them."""
    size = max(1, min(size, len(cells)))
    start = max(0, min(anchor - size // 2, len(cells) - size))
    return list(cells[start : start + size])


def spans(missing: Sequence[int]) -> list[str]:
    """Ascending positions as spans: ``[1, 2, 3, 7]`` -> ``["1-3", "7"]``."""
    runs: list[list[int]] = []
    for n in missing:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]


def left_out(listed: Sequence[int], total: int) -> str:
    """A sentence naming the positions in 1..``total`` not in ``listed`` and how to read them;
    ``""`` when none is left out."""
    shown = set(listed)
    missing = [n for n in range(1, total + 1) if n not in shown]
    if not missing:
        return ""
    found = spans(missing)
    where = ", ".join(found[:_RANGES_SHOWN]) + (", …" if len(found) > _RANGES_SHOWN else "")
    return not_listed(total - len(missing), total, where)
