"""The five cell tools of the notebook server: ``edit_cell``, ``replace_cell``, ``insert_cell``,
``delete_cell`` and ``run_cells`` (the contract: ``docs/cell-editing.md``).

The kernel decides, the page applies. :class:`CellTools` holds the order every call follows:

1. no page with the capability (``edit_cells`` / ``run_cells``) → one line, nobody asked;
   ``run_cells`` while a cell holds the kernel → refused, nobody asked;
2. the call is matched to its run (:meth:`EditsHost.caller`; unmatched → refused);
3. the notebook is read again (the page's reply) and the target found by id; for the editing
   tools a cell the page sent cut (longer than :data:`PAGE_READ_SOURCE`) is refused **before
   any card** (the page's before-check would refuse it), then the target's source is compared
   with what this conversation last saw (:class:`~.cell_edits.SeenSources`): different or never
   seen → refused before any card, with the current source (now recorded as seen);
   ``edit_cell``'s ``old_text`` must occur exactly once;
4. approval (:meth:`EditsHost.decide`: the broker, its scopes; the card's reason is the diff);
   anything but a :class:`~.edits.Grant` changes nothing and the model reads why;
5. the page applies (:meth:`EditsHost.apply`, bounded wait), once the page's reply can be
   handled: a decision made in a cell (``%dsh allow``, a ``--wait`` cell's stdin prompt) holds
   the kernel's main thread, which handles the page's reply unless the page answers on a
   subshell, so the change waits up to :data:`IDLE_WAIT` for that cell to end; the model is
   told the change landed only when the page answered ``applied`` (then the new source is
   recorded as seen) and no other page of the notebook refused it.

Threads: the coroutines run on the server's loop; the page is read and asked on worker threads
(the link's blocking calls). This layer sees the kernel only through :class:`EditsHost`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import anyio

from ..context.describe import truncate
from ..page_protocol import Change
from ..transcript.tool_table import EDITABLE_TOOL_NAMES
from . import cell_texts as texts
from .cell_edits import (
    RanSource,
    SeenSources,
    cell_label,
    change_diff,
    fenced,
    find_cell,
    replace_once,
    run_cells_reason,
)
from .edits import Grant, Refusal
from .page_reader import NotebookReader, want_cells
from .refusals import refusal_text
from .tool_texts import figure_as_text

__all__ = [
    "APPLY_TIMEOUT",
    "Caller",
    "Card",
    "CellPlace",
    "CellTools",
    "EditsHost",
    "ORIGIN_TIMEOUT",
]

log = logging.getLogger(__name__)

APPLY_TIMEOUT = 10.0
"""Seconds the page has to confirm a change after the click."""
ORIGIN_TIMEOUT = 10.0
"""Seconds a call waits for a ``tool/call`` event not seen by its ordering barrier (only when the
runtime broke the carrier's order; such a call is decided by the person only). The one
declaration: the kernel's ``NotebookToolsHost`` imports it."""
IDLE_WAIT = 5.0
"""Seconds an approved ``run_cells``, or an approved change whose reply the page sends to the
main thread, waits for a cell that holds the kernel at the decision to end (the ``%dsh allow``
cell that decided it, a cell finishing just then) before it is refused as busy; nothing is run
or sent meanwhile."""
PAGE_READ_SOURCE = 20000
"""The page's read bound (``page_protocol.MAX_READ_SOURCE``; this layer cannot import it, a
test holds them equal): a longer cell's source reaches the kernel cut, with the page's mark."""
_CUT_TAIL = re.compile(r"\n\[… ([\d,]+) characters omitted …\]\Z")
"""The page's mark at the end of a source it cut (``cells.ts`` ``cut``)."""


Token = TypeVar("Token")
"""What the host matched a call to (the kernel's origin and run), handed back to it typed."""


@dataclass(frozen=True)
class Caller(Generic[Token]):
    """Who made a call: the conversation (stale ledger key; ``None``: not known for sure), what
    the host matched it to (``token``, read back by the host only) and the ``%%dsh`` cell of its
    run (``None``: not known)."""

    conversation: str | None
    token: Token
    prompt_cell: str | None = None
    certain: bool = True
    """False: another run sent the very same call at the same moment (see
    :mod:`dsh_notebook.kernel.tools.tool_calls`); only the person decides it, and a read credits no
    one."""


@dataclass(frozen=True)
class Card:
    """What a call's approval card asks: ``reason`` (the diff, or the cells to run), whether the
    person may edit the proposal (``proposed``: the text the editor opens on) and the ``target``
    cell's full id; ``runs``: the code cells a ``run_cells`` call runs, as ``(label, source)``
    (the card's Changes section reads what each will change)."""

    tool_name: str
    reason: str
    editable: bool
    proposed: str | None
    target: str | None
    runs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CellPlace:
    """Where a changed cell was when the change was approved: its index, its type and the id of
    the cell above it (``None``: the first cell); the undo ledger puts a deleted cell back
    there."""

    index: int
    cell_type: str
    above: str | None


class EditsHost(Protocol[Token]):
    """The kernel's side of the cell tools (:mod:`dsh_notebook.kernel.tools.notebook_edits`)."""

    def can(self, capability: str) -> bool:
        """A page with ``capability`` (``edit_cells``, ``run_cells``) is connected now."""
        ...

    async def caller(
        self, tool_name: str, arguments: Mapping[str, Any], timeout: float
    ) -> Caller[Token] | str:
        """The call's run (server loop), or the sentence saying why it is refused."""
        ...

    async def decide(self, caller: Caller[Token], card: Card) -> Grant[object] | Refusal | None:
        """The broker's decision on the call's card (server loop)."""
        ...

    def candidates(self, caller: Caller[Token]) -> list[str]:
        """The conversations an uncertain ``caller``'s call may be of (each once)."""
        ...

    def shared_read(self, caller: Caller[Token], view: object) -> list[str]:
        """An uncertain ``caller``'s read showed ``view``: the conversations to credit with it
        now (every candidate's, once all identical reads showed the same view), else ``[]``."""
        ...

    def answers_while_busy(self) -> bool:
        """The page's replies are handled while a cell holds the kernel (it sends on a subshell
        of its own); otherwise only between cells, on the main thread."""
        ...

    def apply(
        self, caller: Caller[Token], change: Change, where: CellPlace, busy: bool
    ) -> Mapping[str, Any] | str:
        """Send ``apply_change`` and wait for the reply (worker thread); ``where``: the target's
        place (the undo ledger's). The reply may be a
        ``status: "disagree"`` mapping with one ``replies`` entry per page that answered."""
        ...

    def run(
        self, caller: Caller[Token], cell_ids: Sequence[str], timeout_s: int, busy: bool
    ) -> Mapping[str, Any] | str:
        """Send ``run_cells`` and wait ``timeout_s + 5`` s at most (worker thread)."""
        ...


Reader = NotebookReader
Result = tuple[str, bool]
"""(text, is_error)."""


def _source_of(reply: Mapping[str, Any], fallback: str) -> str:
    source = reply.get("source")
    return source if isinstance(source, str) else fallback


class CellTools(Generic[Token]):
    """The handlers (server loop). ``cell_running`` says a cell holds the kernel now."""

    def __init__(
        self,
        host: EditsHost[Token],
        read: Reader | None,
        *,
        cell_running: Callable[[], bool],
        read_timeout: float,
        max_chars: int,
        figures: Callable[[str | None, int | None], list[str]] | None = None,
        ran_source: RanSource | None = None,
    ) -> None:
        self.host = host
        self.ran_source = ran_source
        """What a cell's source was at its last run (``run_cells``' card marks what changed)."""
        self.read = read
        self.cell_running = cell_running
        self.read_timeout = read_timeout
        self.max_chars = max_chars
        self.figures = figures
        self.seen = SeenSources()

    def saw(self, conversation: str | None, reply: Mapping[str, Any]) -> None:
        """A ``notebook_cells`` result of ``conversation`` showed these cells (full sources)."""
        if conversation is None:
            return
        cells = [c for c in reply.get("cells", []) if isinstance(c, Mapping)]
        self.seen.record(
            conversation, [(str(c.get("id")), str(c.get("source", ""))) for c in cells]
        )

    async def _cells(self, *cell_ids: str) -> list[Mapping[str, Any]] | str:
        """The page's cells ``cell_ids`` (and their neighbours) wherever they are, or why not."""
        read = self.read
        if read is None:
            return texts.NO_PAGE_TO_ASK
        busy = self.cell_running()
        want = want_cells(cell_ids)
        reply = await anyio.to_thread.run_sync(lambda: read(self.read_timeout, busy, want))
        if isinstance(reply, str):
            return reply
        return [c for c in reply.get("cells", []) if isinstance(c, Mapping)]

    # -- the four editing tools ----------------------------------------------------------------

    async def edit(self, tool: str, args: Mapping[str, Any]) -> Result:
        problem = _check_args(tool, args)
        if problem:
            return problem, True
        if not self.host.can("edit_cells"):
            return texts.no_page_text(tool), True
        caller = await self.host.caller(tool, args, ORIGIN_TIMEOUT)
        if isinstance(caller, str):
            return caller, True
        target_id = str(args["after_cell_id"] if tool == "insert_cell" else args["cell_id"])
        cells = await self._cells(target_id)
        if isinstance(cells, str):
            return texts.not_read_text(tool, cells), True
        found = find_cell(cells, target_id)
        if isinstance(found, str):
            return texts.refused_text(tool, found), True
        cell, full_id = found, str(found.get("id"))
        current = str(cell.get("source", ""))
        if tool != "insert_cell":
            too_long = _too_long(tool, cell)
            if too_long:
                return too_long, True
            stale = self._stale(tool, caller, cell)
            if stale:
                return stale, True
        try:
            new = _new_source(tool, args, current)
        except ValueError as exc:
            return texts.refused_text(tool, str(exc)), True
        kind = {"insert_cell": "insert", "delete_cell": "delete"}.get(tool, "edit")
        cell_type = str(args.get("cell_type", "code"))
        reason = change_diff(kind, cell, current, new, cell_type=cell_type)
        proposed = None if kind == "delete" else new
        editable = tool in EDITABLE_TOOL_NAMES  # transcript.tool_table: not delete_cell
        card = Card(tool, reason, editable=editable, proposed=proposed, target=full_id)
        verdict = await self.host.decide(caller, card)
        if isinstance(verdict, Refusal):
            return verdict.message, True
        if not isinstance(verdict, Grant):
            return _rejected(tool), True
        edited = verdict.code is not None
        if verdict.code is not None:
            new = verdict.code  # the person's text is the new whole source
        change: Change
        if kind == "edit":
            change = {"kind": "edit", "cell_id": full_id, "before": current, "after": new}
        elif kind == "insert":
            change = {"kind": "insert", "after_cell_id": full_id, "cell_type": cell_type,
                      "source": new}  # fmt: skip
        else:
            change = {"kind": "delete", "cell_id": full_id, "before": current}
        index = int(cell.get("index", 0))
        above = next((str(c.get("id")) for c in cells if c.get("index") == index - 1), None)
        where = CellPlace(index, str(cell.get("cell_type", "code")), above)
        if not self.host.answers_while_busy() and not await self._idle_within(IDLE_WAIT):
            return texts.approved_but_busy(tool), True
        busy = self.cell_running()
        reply = await anyio.to_thread.run_sync(lambda: self.host.apply(caller, change, where, busy))
        return self._applied(tool, caller, cell, change, reply, edited)

    def _stale(self, tool: str, caller: Caller[Token], cell: Mapping[str, Any]) -> str | None:
        full_id, current = str(cell.get("id")), str(cell.get("source", ""))
        if not caller.certain:  # whichever conversation it is, it must have read this source
            peers = self.host.candidates(caller)
            if peers and all(self.seen.seen(c, full_id) == current for c in peers):
                return None  # the card is the person's only (the caller is uncertain)
            why = texts.STALE_UNCERTAIN
        else:
            seen = self.seen.seen(caller.conversation, full_id) if caller.conversation else None
            if seen == current:
                return None
            if caller.conversation is not None:
                self.seen.record(caller.conversation, [(full_id, current)])
            why = texts.STALE_UNREAD if seen is None else texts.STALE_CHANGED
        source = fenced(current, self.max_chars // 2)
        return texts.stale_text(tool, why, cell_label(cell), source)

    def _applied(
        self,
        tool: str,
        caller: Caller[Token],
        cell: Mapping[str, Any],
        change: Change,
        reply: Mapping[str, Any] | str,
        edited: bool,
    ) -> Result:
        half = self.max_chars // 2
        if isinstance(reply, str):
            return texts.not_confirmed_text(tool, reply), True
        status = reply.get("status")
        if status == "disagree":
            replies = [r for r in reply.get("replies", []) if isinstance(r, Mapping)]
            return texts.disagree_text(tool, [str(r.get("status")) for r in replies]), True
        new_id = str(reply.get("cell_id") or cell.get("id"))
        if status == "applied":
            kind = change["kind"]
            after = "" if kind == "delete" else str(change.get("after", change.get("source", "")))
            source = _source_of(reply, after)
            if caller.conversation is not None and kind != "delete":
                self.seen.record(caller.conversation, [(new_id, source)])
            index = reply.get("index")
            where = f"cell {index + 1} · id {new_id[:8]}" if isinstance(index, int) else new_id[:8]
            verb = {"edit": "Edited", "insert": "Inserted", "delete": "Deleted"}[kind]
            text = texts.applied_text(verb, where)
            if kind == "delete":
                text = texts.deleted_text(cell_label(cell))
            if edited:
                text += texts.edited_by_user_text(fenced(source, half))
            return text, False
        if status == "stale":
            current = _source_of(reply, "")
            if caller.conversation is not None:
                self.seen.record(caller.conversation, [(str(cell.get("id")), current)])
            return texts.changed_before_click(tool, fenced(current, half)), True
        if status == "missing":
            return texts.gone_text(tool), True
        message = truncate(str(reply.get("message", "no reason given")), 500)[0]
        return texts.failed_text(tool, message), True

    # -- run_cells -------------------------------------------------------------------------------

    async def run(self, args: Mapping[str, Any]) -> Result:
        ids, timeout = args.get("cell_ids"), args.get("timeout_s", 60)
        if (
            not isinstance(ids, list)
            or not 1 <= len(ids) <= 20
            or not all(isinstance(i, str) and i.strip() for i in ids)
        ):
            return texts.RUN_CELLS_IDS_TEXT, True
        if type(timeout) is not int or not 1 <= timeout <= 600:
            return texts.RUN_CELLS_TIMEOUT_TEXT, True
        if not self.host.can("run_cells"):
            return texts.no_page_text("run_cells"), True
        if self.cell_running():
            return texts.refused_text("run_cells", texts.BUSY_TEXT, "run"), True
        caller = await self.host.caller("run_cells", args, ORIGIN_TIMEOUT)
        if isinstance(caller, str):
            return caller, True
        cells = await self._cells(*ids)
        if isinstance(cells, str):
            return texts.not_read_text("run_cells", cells, "run"), True
        targets: list[Mapping[str, Any]] = []
        for cell_id in ids:
            found = find_cell(cells, cell_id)
            if isinstance(found, str):
                return texts.refused_text("run_cells", found, "run"), True
            targets.append(found)
        try:  # the card shows what will run: each changed cell whole, the lines added marked
            reason = run_cells_reason(targets, timeout, self.ran_source)
        except ValueError as exc:
            return texts.refused_before_asking("run_cells", str(exc), "run"), True
        target = str(targets[0].get("id"))
        runs = tuple(
            (cell_label(c), str(c.get("source", "")))
            for c in targets
            if c.get("cell_type", "code") == "code"
        )
        card = Card("run_cells", reason, editable=False, proposed=None, target=target, runs=runs)
        verdict = await self.host.decide(caller, card)
        if isinstance(verdict, Refusal):
            return verdict.message, True
        if not isinstance(verdict, Grant):
            return _rejected("run_cells"), True
        if not await self._idle_within(IDLE_WAIT):
            return texts.approved_but_busy("run_cells", "run"), True
        full = [str(c.get("id")) for c in targets]
        reply = await anyio.to_thread.run_sync(lambda: self.host.run(caller, full, timeout, False))
        if isinstance(reply, str):
            return texts.run_cells_no_answer(timeout + 5, reply), True
        return self._ran(reply, timeout)

    async def _idle_within(self, seconds: float) -> bool:
        """Whether no cell holds the kernel now, or none does within ``seconds`` (polled on the
        server loop; the kernel is never interrupted)."""
        deadline = anyio.current_time() + seconds
        while self.cell_running():
            if anyio.current_time() >= deadline:
                return False
            await anyio.sleep(0.05)
        return True

    def _ran(self, reply: Mapping[str, Any], timeout: int) -> Result:
        results = [c for c in reply.get("cells", []) if isinstance(c, Mapping)]
        per_cell = max(300, (self.max_chars - 200) // max(1, len(results)))
        blocks, failed = [], False
        for result in results:
            blocks.append(self._cell_result(result, per_cell, timeout))
            failed = failed or result.get("status") in ("error", "missing")
        states = ", ".join(str(r.get("status")) for r in results)
        head = texts.ran_head(len(results), states)
        text = head + "\n\n" + "\n\n".join(blocks)
        return truncate(text, self.max_chars)[0], failed

    def _cell_result(self, result: Mapping[str, Any], limit: int, timeout: int) -> str:
        cell_id, status = str(result.get("cell_id")), str(result.get("status"))
        index, count = result.get("index"), result.get("execution_count")
        head = f"## cell {index + 1} · id {cell_id[:8]}" if isinstance(index, int) else (
            f"## id {cell_id[:8]}"
        )  # fmt: skip
        if isinstance(count, int):
            head += f" · In [{count}]"
        said = texts.still_running_text(timeout) if status == "running" else None
        head += f" · {said or texts.RUN_STATUS_TEXTS.get(status, status)}"
        outputs = [o for o in result.get("outputs", []) if isinstance(o, Mapping)]
        errors = [o for o in outputs if o.get("output_type") == "error"]
        parts = [head]
        for error in errors:  # the error first: it is what the model needs
            line = f"error: {error.get('ename', '')}: {error.get('evalue', '')}"
            parts.append(line)
            if error.get("traceback"):
                parts.append(truncate(str(error["traceback"]), limit // 2)[0])
        for output in outputs:
            kind = output.get("output_type")
            if kind == "error":
                continue
            text = str(output.get("text", "")).rstrip()
            mime = [m for m in output.get("mime", []) if m != "text/plain"]
            label = "stdout" if kind == "stream" else "out"
            if text:
                parts.append(f"{label}: {text}")
            if any(m.startswith("image/") for m in mime):
                parts.append(f"figure ({', '.join(mime)})")
        if self.figures is not None:
            for note in self.figures(cell_id, count if isinstance(count, int) else None):
                parts.append(figure_as_text() + note)
        return truncate("\n".join(parts), limit)[0]


def _too_long(tool: str, cell: Mapping[str, Any]) -> str | None:
    """The refusal for a cell the page sent cut (its source ends with the page's mark and is as
    long as the page sends), or ``None``: its whole source is not known here, and the page
    refuses any change whose ``before`` is not the whole source."""
    source = str(cell.get("source", ""))
    mark = _CUT_TAIL.search(source)
    if mark is None or len(source) < PAGE_READ_SOURCE - 64:
        return None
    length = mark.start() + int(mark.group(1).replace(",", ""))
    return texts.too_long_text(tool, cell_label(cell), length, PAGE_READ_SOURCE)


def _rejected(tool: str) -> str:
    return refusal_text("rejected", "you", tool=tool)


def _check_args(tool: str, args: Mapping[str, Any]) -> str | None:
    def text(key: str, *, empty: bool = True) -> bool:
        value = args.get(key)
        return isinstance(value, str) and (empty or bool(value.strip()))

    if tool == "edit_cell" and not (
        text("cell_id", empty=False) and text("old_text", empty=False) and text("new_text")
    ):
        return texts.ARGUMENT_TEXTS[tool]
    if tool == "replace_cell" and not (text("cell_id", empty=False) and text("source")):
        return texts.ARGUMENT_TEXTS[tool]
    if tool == "insert_cell":
        if not (text("after_cell_id", empty=False) and text("source")):
            return texts.ARGUMENT_TEXTS[tool]
        if args.get("cell_type", "code") not in ("code", "markdown"):
            return texts.CELL_TYPE_TEXT
    if tool == "delete_cell" and not text("cell_id", empty=False):
        return texts.ARGUMENT_TEXTS[tool]
    return None


def _new_source(tool: str, args: Mapping[str, Any], current: str) -> str:
    if tool == "edit_cell":
        return replace_once(current, str(args["old_text"]), str(args["new_text"]))
    if tool in ("replace_cell", "insert_cell"):
        return str(args["source"])
    return ""
