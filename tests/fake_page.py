"""A protocol-exact fake of the notebook page for the cell tools: it holds a notebook (cells with
ids and sources) and answers the link's messages as the extension does (``read_notebook``,
``apply_change`` with the before-check, ``run_cells`` from canned results, ``undo_changes``),
synchronously, from inside ``comm.send`` (the link registers its waiter before it sends)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dsh_notebook.frontend.link import FrontendLink
from dsh_notebook.page_protocol import MAX_READ_SOURCE

from .page_parser import parse_kernel_message

CAPABILITIES = ("waiting", "run_output", "insert_cell", "read_notebook", "edit_cells", "run_cells")


def page_cut(text: str, limit: int) -> str:
    """``text`` cut as the page cuts a long source (``cells.ts`` ``cut``): its head, then the
    kernel's marker on a line of its own, at most ``limit`` characters in all."""
    if len(text) <= limit:
        return text

    def mark(omitted: int) -> str:
        return f"[… {omitted:,} characters omitted …]"

    room = max(0, limit - len(mark(len(text))) - 1)
    return mark(len(text) - room) if room == 0 else f"{text[:room]}\n{mark(len(text) - room)}"


def cell_id(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


class FakePage:
    """The page and its comm (``create_comm`` of a :class:`FrontendLink`)."""

    def __init__(self, sources: list[str], capabilities: tuple[str, ...] = CAPABILITIES) -> None:
        self.cells: list[dict[str, Any]] = [
            {"id": cell_id(i + 1), "source": s, "cell_type": "code", "execution_count": None}
            for i, s in enumerate(sources)
        ]
        self.capabilities = capabilities
        self.sent: list[dict[str, Any]] = []
        self.run_results: Callable[[list[str]], list[dict[str, Any]]] | None = None
        """Answers ``run_cells`` with these results; ``None``: never answers."""
        self.undo_skip: list[dict[str, str]] = []
        self._msg: Callable[[Mapping[str, Any]], None] | None = None
        self.link = FrontendLink(create_comm=lambda target, data: self)
        assert self.link.open()
        self.receive({"v": 1, "type": "hello_reply", "version": "0.1.0",
                      "capabilities": list(capabilities)})  # fmt: skip

    # -- the comm ------------------------------------------------------------------------------

    def on_msg(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        self._msg = callback

    def on_close(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        pass

    def receive(self, data: Any) -> None:
        assert self._msg is not None
        self._msg({"content": {"comm_id": "x", "data": data}})

    def send(self, data: Any = None) -> None:
        self.sent.append(data)
        kind = data.get("type")
        if kind == "read_notebook":
            self.receive(self.read_reply(data["request_id"]))
        elif kind in ("apply_change", "run_cells", "undo_changes"):
            assert parse_kernel_message(data) == data, data  # what the page accepts
            if kind == "apply_change":
                self.receive(self.apply(data))
            elif kind == "run_cells" and self.run_results is not None:
                self.receive({"v": 1, "type": "run_cells_reply", "request_id": data["request_id"],
                              "cells": self.run_results(data["cell_ids"])})  # fmt: skip
            elif kind == "undo_changes":
                self.receive({"v": 1, "type": "undo_reply", "request_id": data["request_id"],
                              "reverted": len(data["changes"]) - len(self.undo_skip),
                              "skipped": self.undo_skip})  # fmt: skip

    # -- the notebook --------------------------------------------------------------------------

    def sent_of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == kind]

    def source(self, n: int) -> str:
        return str(self.cells[n - 1]["source"])

    def read_reply(self, request_id: str) -> dict[str, Any]:
        cells = [
            {"index": i, "id": c["id"], "cell_type": c["cell_type"],
             "source": page_cut(c["source"], MAX_READ_SOURCE),
             "execution_count": c["execution_count"], "agent": False, "selected": False,
             "outputs": []}
            for i, c in enumerate(self.cells)
        ]  # fmt: skip
        return {"v": 1, "type": "read_notebook_reply", "request_id": request_id,
                "path": "a.ipynb", "total_cells": len(cells), "cells": cells}  # fmt: skip

    def _index(self, wanted: str) -> int | None:
        return next((i for i, c in enumerate(self.cells) if c["id"] == wanted), None)

    def apply(self, data: Mapping[str, Any]) -> dict[str, Any]:
        change, rid = data["change"], data["request_id"]
        reply: dict[str, Any] = {"v": 1, "type": "apply_change_reply", "request_id": rid}
        target = change.get("cell_id", change.get("after_cell_id"))
        i = self._index(target)
        if i is None:
            return {**reply, "status": "missing"}
        if change["kind"] != "insert" and self.cells[i]["source"] != change["before"]:
            return {**reply, "status": "stale", "source": self.cells[i]["source"]}
        if change["kind"] == "edit":
            self.cells[i]["source"] = change["after"]
        elif change["kind"] == "delete":
            del self.cells[i]
            return {**reply, "status": "applied", "cell_id": target, "index": i}
        else:
            new = {"id": cell_id(100 + len(self.sent)), "source": change["source"],
                   "cell_type": change["cell_type"], "execution_count": None}  # fmt: skip
            self.cells.insert(i + 1, new)
            i, target = i + 1, new["id"]
        return {**reply, "status": "applied", "cell_id": target, "index": i,
                "source": self.cells[i]["source"]}  # fmt: skip
