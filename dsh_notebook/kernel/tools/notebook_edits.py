"""The kernel's side of the cell tools (``edit_cell`` … ``run_cells``; ``docs/cell-editing.md``).

:class:`NotebookEdits` is the :class:`~dsh_notebook.notebook_tools.cell_tools.EditsHost` of one
kernel: it matches a call to its run (the ``tool/call`` origin, as ``run_python``:
:meth:`NotebookToolsHost.match`), has the broker decide it on that run's card (scopes:
:func:`~.broker.scope_key`), sends ``apply_change`` / ``run_cells`` over the frontend link and
waits for the page's reply (bounded), and records every change the page confirmed in the undo
ledger (:mod:`.undo`). It also answers the page's "Undo this run" (``undo_request``).

The conversation (the cell tools' stale ledger key) is the session the run holds: the root of
the calling session, so a subagent's reads and edits count for its conversation. An uncertain
origin (two runs sent the same call) has no conversation: its edits count as unseen (refused,
with the current source) and only the person may decide it.

Threads: :meth:`caller` and :meth:`decide` run on the MCP server's loop; :meth:`apply` and
:meth:`run` on its worker threads (they block on the link, never on the main thread); the undo
request on the thread that handles the page's messages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...frontend import FrontendLink
from ...notebook_tools.cell_tools import APPLY_TIMEOUT, Caller, Card, CellPlace
from ...notebook_tools.edits import Grant, Refusal
from ...notebook_tools.refusals import READ_ONLY_MESSAGE
from ...page_protocol import (
    Change,
    ChangeOrigin,
    UndoChange,
    apply_change,
    checked_change,
    run_cells,
)
from ...runtime.secret import Secrets, redact
from ..registry.runs import ActiveRun, ApprovedCall
from .kernel_undo import KernelUndo
from .tool_calls import Origin
from .tools_host import Matched, NotebookToolsHost
from .undo import UndoLedger

__all__ = ["NotebookEdits", "undo_entry"]

log = logging.getLogger(__name__)


def undo_entry(change: Change, reply: Mapping[str, Any], where: CellPlace) -> UndoChange:
    """The undo ledger's entry for a change the page answered ``applied`` to (the reply's id and
    source, where it gives them, are what the page holds now)."""
    source = reply.get("source")
    if change["kind"] == "edit":
        cell_id = str(reply.get("cell_id") or change["cell_id"])
        after = source if isinstance(source, str) else change["after"]
        return {"kind": "edit", "cell_id": cell_id, "before": change["before"], "after": after}
    if change["kind"] == "insert":
        text = source if isinstance(source, str) else change["source"]
        return {"kind": "insert", "cell_id": str(reply.get("cell_id") or ""), "source": text}
    cell_id = str(reply.get("cell_id") or change["cell_id"])
    return {"kind": "delete",
            "cell": {"cell_type": where.cell_type, "source": change["before"], "id": cell_id},
            "after_cell_id": where.above, "index": where.index}  # fmt: skip


class NotebookEdits:
    """One per kernel (see the module doc); the :class:`EditsHost` of matched calls."""

    def __init__(
        self,
        tools: NotebookToolsHost,
        link: FrontendLink,
        ledger: UndoLedger,
        kernel: KernelUndo | None = None,
        secrets: Callable[[], Secrets] = tuple,
    ) -> None:
        self._tools = tools
        self._link = link
        self.ledger = ledger
        self.kernel = kernel
        self._secrets = secrets  # the kernel's masking policy, asked at every change
        link.on_undo_request = self.undo_request

    def can(self, capability: str) -> bool:
        return self._link.can(capability)

    def candidates(self, caller: Caller[Matched]) -> list[str]:
        origin, run = caller.token
        runs = [run] if origin.peers is None else origin.peers.runs()
        return [r.session for r in runs]

    def shared_read(self, caller: Caller[Matched], view: object) -> list[str]:
        origin, _ = caller.token
        if origin.peers is None:
            return []
        return [run.session for run in origin.peers.report(origin.call_id, view)]

    def answers_while_busy(self) -> bool:
        return self._link.replies_off_main

    async def caller(
        self, tool_name: str, arguments: Mapping[str, Any], timeout: float
    ) -> Caller[Matched] | str:
        matched = await self._tools.match(tool_name, arguments, timeout)
        if isinstance(matched, Refusal):
            return matched.message
        origin, run = matched
        if run.policy.read_only:  # before the cells are read: nothing to check, nobody asked
            return READ_ONLY_MESSAGE
        if not origin.certain:
            return Caller(None, matched, certain=False)
        return Caller(run.session, matched, prompt_cell=run.cell_id)

    async def decide(
        self, caller: Caller[Matched], card: Card
    ) -> Grant[ApprovedCall] | Refusal | None:
        origin, run = caller.token
        return await self._tools.decide(
            origin, run, tool_name=card.tool_name, reason=card.reason, editable=card.editable,
            proposed=card.proposed, target=card.target, runs=card.runs,
        )  # fmt: skip

    def apply(
        self, caller: Caller[Matched], change: Change, where: CellPlace, busy: bool
    ) -> Mapping[str, Any] | str:
        origin, run = caller.token
        checked = checked_change(change)
        # a source the policy would mask (a secret, a private value) is not copied into the
        # notebook's undo records: the page keeps none of it (undoing it needs the kernel)
        before = None if change["kind"] == "insert" else change["before"]
        keep = before is None or redact(before, self._secrets()) == before
        message = (
            None
            if checked is None
            else apply_change(
                self._link.request_id("c"), _origin(origin, run), checked, record=keep
            )
        )
        if message is None:
            return "the change is too large to send to the notebook page"
        reply = self._link.apply_change(message, APPLY_TIMEOUT, busy)
        if isinstance(reply, str):
            return reply
        # pages that disagree: one of them did change its cell, which "Undo this run" reverts
        landed = reply["replies"] if reply["status"] == "disagree" else [reply]
        applied = next((r for r in landed if r["status"] == "applied"), None)
        if applied is not None:
            self.ledger.record(run.run_id, run.cell_id, undo_entry(change, applied, where))
        return reply

    def run(
        self, caller: Caller[Matched], cell_ids: Sequence[str], timeout_s: int, busy: bool
    ) -> Mapping[str, Any] | str:
        origin, run = caller.token
        message = run_cells(self._link.request_id("r"), cell_ids, timeout_s, _origin(origin, run))
        if message is None:
            return "the run_cells request is not well-formed"
        kernel, ids = self.kernel, list(cell_ids)
        if kernel is not None:  # each cell's values are kept as it starts, for undo
            kernel.expect(run.run_id, run.cell_id, ids)
        try:
            return self._link.run_cells(message, timeout_s + 5, busy)
        finally:
            if kernel is not None:
                kernel.forget(ids)

    def undo_request(self, anchor: str) -> None:
        """The page's "Undo this run" on the ``%%dsh`` cell ``anchor``: the newest run of it
        with changes is undone; nothing there → the page is told so (an empty
        ``undo_changes``)."""
        kernel = self.kernel
        kept = kernel.find(anchor=anchor) if kernel is not None else None
        if kernel is not None and kept is not None:  # the values, on the main thread
            shell_ns = self._tools.namespace()

            def give_back() -> None:
                if shell_ns is not None:
                    done = kernel.undo(kept, shell_ns)
                    self.ledger.note(f"run {kept} — " + "; ".join(done.lines()))

            self._tools.on_main(give_back)
        run_id = self.ledger.find(anchor=anchor)
        if run_id is None or self.ledger.undo(run_id) <= 0:
            self.ledger.nothing_to_undo()


def _origin(origin: Origin[ActiveRun], run: ActiveRun) -> ChangeOrigin:
    made: ChangeOrigin = {"session": origin.session_id, "run": run.run_id, "call": origin.call_id}
    if run.cell_id:
        made["anchor"] = run.cell_id  # the page's "Undo this run" goes on that %%dsh cell
    return made
