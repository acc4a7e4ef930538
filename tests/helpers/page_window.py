"""The page's choice of cells for a ``read_notebook`` (``js/labextension/src/cells.ts``,
``chosenPositions``), written again for tests that play the page: the kernel's request
(:class:`dsh_notebook.page_protocol.ReadWant` fields) -> the positions the page sends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dsh_notebook.page_protocol import MAX_READ_CELLS


def chosen_positions(
    ids: Sequence[str], privates: Sequence[int], want: Mapping[str, Any], selected: int = -1
) -> list[int]:
    """The positions the page sends for ``want`` (at most ``MAX_READ_CELLS``), in order."""
    total = len(ids)
    chosen: dict[int, None] = {}

    def add(i: int) -> bool:
        if len(chosen) >= MAX_READ_CELLS:
            return False
        chosen[i] = None
        return True

    for given in want.get("cell_ids", []):
        for i, cell_id in enumerate(ids):
            if cell_id == given or (len(given) >= 4 and cell_id.startswith(given)):
                add(i)
    for i in privates:
        add(i)
    if "first" in want or "last" in want:
        i = want.get("first", 0)
        while i <= min(want.get("last", total - 1), total - 1) and add(i):
            i += 1
    keys = ("around", "window", "cell_ids", "first", "last")
    asked = any(k in want for k in keys)
    default = MAX_READ_CELLS if "around" in want or not asked else 0
    wide = min(want.get("window", default), total)
    around = want.get("around")
    found = ids.index(around) if around in ids else -1
    if around is not None and found < 0:
        found = next((i for i, c in enumerate(ids) if c.startswith(around)), -1)
    centre = 0 if not asked else found if found >= 0 else max(selected, 0)
    start = max(0, min(centre - wide // 2, total - wide))
    for i in sorted(range(start, start + wide), key=lambda i: abs(i - centre)):
        add(i)
    return sorted(chosen)


def page_reply(request: Mapping[str, Any], cells: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``read_notebook_reply`` for ``request`` from ``cells`` (``read_notebook_reply``
    cells in notebook order, ``index`` set), as the page sends it."""
    ids = [str(c["id"]) for c in cells]
    privates = [i for i, c in enumerate(cells) if c.get("private")]
    want = {k: v for k, v in request.items() if k not in ("v", "type", "request_id")}
    positions = chosen_positions(ids, privates, want)
    reply = {"v": 1, "type": "read_notebook_reply", "request_id": request["request_id"],
             "path": "a.ipynb", "total_cells": len(cells), "cells": [cells[i] for i in positions]}  # fmt: skip
    if want:
        reply["chosen"] = True
    return reply
