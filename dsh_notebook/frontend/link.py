"""The kernel's end of the ``dsh_notebook.frontend`` comm (see :mod:`.protocol`).

:class:`FrontendLink` opens the comm lazily, says ``hello`` and learns from ``hello_reply``
whether the ``dsh-notebook`` extension is present and what it can do. Until a reply arrives
(and for good, where no extension runs: VS Code, nbclient, a terminal) every method is a cheap
no-op that reports ``False``; nothing raises into the caller.

Threads: :meth:`open` touches the kernel's comm manager and must run on the kernel's main
thread (from a cell or magic). :meth:`send_waiting`, :meth:`send_run_output` and
:meth:`send_insert_cell` may be called from any thread: the state
is kept under a lock and sent over the kernel's IOPub socket, which ipykernel makes thread-safe.
The reply is handled on the main thread between requests (or on a subshell's thread, see
:mod:`dsh_notebook.comm_routing`), so a link opened in a cell learns of the extension when that cell has finished, and a ``waiting`` state sent before that is kept and
sent as soon as the reply arrives (latest state wins). When a page reloads, the extension finds
the open comm (``comm_info_request``) and answers ``hello_reply`` again; the state is re-sent.
A page's ``comm_close`` is ignored (:func:`~dsh_notebook.comm_routing.keep_open_against_pages`):
every connected page gets the ``comm_open``, and one without the extension (Notebook 7's
file-browser tab) answers with a close that would otherwise end the link for all of them.

:meth:`read_notebook`, :meth:`apply_change` and :meth:`run_cells` are the blocking calls,
and they share one request path (same rules for all three): each sends its request and waits,
bounded, for the page's reply with the request's id. Because replies are handled on the main
thread, they must be called from another thread (the notebook tools' worker) and only get an
answer while the main thread is free to handle comm messages (the kernel idle between cells);
from the main thread they return at once without asking. Every open page gets each request; for
a read or a run the first reply with the request's id wins, later ones, replies of a type the
request does not take and replies nobody waits for are dropped (unparsed). An ``apply_change``
counts only where every page that answers agrees (:meth:`apply_change`). :meth:`undo_changes`
does not block: its ``undo_reply`` goes to a callback (``%dsh undo`` runs on the main thread).
The page's ``undo_request`` calls :attr:`on_undo_request`.

A page's message is handed by its ``type`` to exactly one handler (one parser); a message of
another type (``subshell_ready``, unknown ones) is ignored.

What a page can make the kernel do or keep is bounded (:mod:`.pages`): the pages kept, the
capabilities of each, how often a ``hello_reply`` re-sends the state and how many
``undo_request`` are answered a second; what is over a bound is dropped with a log line.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Final, Literal, Protocol, TypedDict

from ..comm_routing import keep_open_against_pages, unpin_reply_route
from ..page_protocol import (
    COMM_TARGET,
    ApplyChange,
    ApplyChangeReply,
    InsertCell,
    ReadNotebookReply,
    ReadWant,
    RunCells,
    RunCellsReply,
    RunOutput,
    RunOutputState,
    UndoChanges,
    UndoReply,
    WaitingCell,
    hello,
    parse_apply_change_reply,
    parse_frontend_message,
    parse_read_notebook_reply,
    parse_run_cells_reply,
    parse_undo_reply,
    parse_undo_request,
    read_notebook,
    run_output,
    waiting,
)
from .pages import Pages, page_of
from .requests import AGREE_WAIT, APPLY, READ, RUN, Kind, PageReply, Slot


class PagesDisagree(TypedDict):
    """Pages of the notebook answered one ``apply_change`` differently: at least one applied it
    and at least one did not (kernel-side only, never on the wire). ``replies``: one per page,
    in the order they came."""

    type: Literal["pages_disagree"]
    request_id: str
    status: Literal["disagree"]
    replies: list[ApplyChangeReply]


NO_PAGE = (
    "the dsh-notebook JupyterLab extension is not connected to this kernel "
    "(VS Code, Colab, classic Notebook, nbclient or a terminal)"
)

KEPT_RUN_OUTPUTS = 32
"""How many runs' latest ``run_output`` the link keeps to re-send to a page that (re)connects."""


class CommLike(Protocol):
    """The part of a ``comm`` package comm this module uses."""

    def send(self, data: Any = None) -> None: ...
    def on_msg(self, callback: Callable[[Mapping[str, Any]], None]) -> None: ...
    def on_close(self, callback: Callable[[Mapping[str, Any]], None]) -> None: ...


CommFactory = Callable[[str, Mapping[str, Any]], CommLike]


def _default_factory(target_name: str, data: Mapping[str, Any]) -> CommLike:
    from comm import create_comm  # lazy: only in a kernel

    created: CommLike = create_comm(target_name=target_name, data=dict(data))
    return created


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("dsh-notebook")
    except Exception:
        return "0"


def _send(comm: CommLike, message: Mapping[str, Any]) -> bool:
    """Send ``message`` on ``comm``; whether it went. After each send the comm's reply route is
    unpinned: the page's reply must not go to the subshell of a page that is gone."""
    try:
        comm.send(dict(message))
        unpin_reply_route(comm)
    except Exception:
        return False
    return True


class FrontendLink:
    """One link per kernel. ``present`` tells whether the extension answered."""

    def __init__(self, create_comm: CommFactory | None = None) -> None:
        self._create_comm = create_comm or _default_factory
        self._lock = threading.Lock()
        self._comm: CommLike | None = None
        self._capabilities: frozenset[str] | None = None
        self._frontend_version: str | None = None
        self._waiting: list[WaitingCell] = []
        self._outputs: dict[str, RunOutput] = {}  # model id -> latest, oldest first
        self._replies_off_main = False
        self._answered = threading.Event()  # set by each hello_reply, cleared when the comm closes
        self._waited_for: CommLike | None = None  # the comm wait_for_page waited on, once
        self._ids = itertools.count(1)
        self._requests: dict[str, Slot] = {}  # request id -> its waiter
        self._pages = Pages()
        self._undo_callbacks: dict[str, Callable[[UndoReply], None]] = {}
        self.on_undo_request: Callable[[str], None] | None = None
        """Called with the ``%%dsh`` cell id of the page's "Undo this run" (``undo_request``), on
        the thread that handles the page's messages, outside the lock; must return quickly. A
        failing callback is ignored."""
        self.on_hello: Callable[[], None] | None = None
        """Called (on the thread that handles the reply: the kernel's main thread) after each
        ``hello_reply``, outside the lock; it must return quickly. A failing callback is
        ignored (the link stays usable)."""
        self._handlers: Final[Mapping[str, Callable[[Mapping[str, Any], str], None]]] = {
            "hello_reply": self._on_hello_reply,
            "undo_request": self._on_undo_request,
            "undo_reply": self._on_undo_reply,
            "read_notebook_reply": partial(self._on_reply, parse_read_notebook_reply),
            "apply_change_reply": partial(self._on_reply, parse_apply_change_reply),
            "run_cells_reply": partial(self._on_reply, parse_run_cells_reply),
        }
        """A page's message type -> its one handler (built here, never changed)."""

    @property
    def present(self) -> bool:
        """``True`` once the extension has answered ``hello`` on the open comm."""
        return self._capabilities is not None

    def wait_for_page(self, timeout: float) -> bool:
        """Whether the extension has answered ``hello``, waiting at most ``timeout`` seconds
        for it, once per comm: for a prompt whose execute request came from the extension's
        page (its identity metadata) while the comm is open and unanswered. In a fresh
        kernel's Run All the page's first ``hello_reply`` is queued behind every cell; the
        page sends it again on its own subshell once that started, which is handled while a
        cell runs (a page without subshells answers only after the queue: the one wait is
        spent and later prompts do not wait). Any thread; never raises."""
        with self._lock:
            comm = self._comm
            if self._capabilities is not None or comm is None or self._waited_for is comm:
                return self._capabilities is not None
            self._waited_for = comm
        self._answered.wait(max(0.0, timeout))
        return self.present

    @property
    def capabilities(self) -> frozenset[str]:
        """What the extension announced (empty until it answered)."""
        return self._capabilities or frozenset()

    @property
    def frontend_version(self) -> str | None:
        return self._frontend_version

    def open(self) -> bool:
        """Open the comm and send ``hello`` unless it is open already (main thread only).
        Returns whether a comm is open; ``False`` when none can be made (not in a kernel)."""
        with self._lock:
            if self._comm is not None:
                return True
        try:
            comm = self._create_comm(COMM_TARGET, hello(_package_version()))
            unpin_reply_route(comm)
            keep_open_against_pages(comm)  # a page without our target must not close it
            comm.on_msg(self._on_msg)
            comm.on_close(self._on_close)
        except Exception:
            return False
        with self._lock:
            self._comm = comm
        return True

    def send_waiting(self, cells: Sequence[WaitingCell]) -> bool:
        """Publish what waits for the user now (``[]`` clears it); any thread. Returns whether
        it was sent now; otherwise it is kept and sent when the extension answers."""
        with self._lock:
            self._waiting = list(cells)
            return self._flush_locked()

    def send_run_output(
        self,
        model_id: str,
        cell_id: str | None,
        state: RunOutputState,
        bundle: Mapping[str, str],
    ) -> bool:
        """Publish the static transcript of the run shown by widget ``model_id`` (any thread).
        Returns whether it was sent now. The latest per run is kept (the last
        :data:`KEPT_RUN_OUTPUTS` runs) and sent again whenever a page answers ``hello``: a
        reloaded page, or a second one, replaces a settled run's widget it still shows."""
        message = run_output(
            model_id, cell_id, state, bundle.get("text/markdown", ""), bundle.get("text/plain", "")
        )
        with self._lock:
            self._outputs.pop(model_id, None)
            self._outputs[model_id] = message
            while len(self._outputs) > KEPT_RUN_OUTPUTS:
                del self._outputs[next(iter(self._outputs))]
            return self._send_locked("run_output", message)

    def can_insert_cells(self) -> bool:
        """Whether a page that inserts cells (capability ``insert_cell``) is connected now."""
        return self.can("insert_cell")

    def send_insert_cell(self, message: InsertCell) -> bool:
        """Ask the page to insert an agent cell (any thread). Sent once, not kept: a page that
        is not connected now never gets it (a reloaded page would insert it a second time into
        a notebook that may have been saved with it). Returns whether it was sent."""
        with self._lock:
            return self._send_locked("insert_cell", message)

    def read_notebook(
        self, timeout: float, main_thread_busy: bool = False, want: ReadWant | None = None
    ) -> ReadNotebookReply | str:
        """The notebook's cells from the extension, or why not (a sentence for the model):
        those ``want`` chooses (a window around a cell, cells by id or position; ``None``: the
        first :data:`~dsh_notebook.page_protocol.MAX_READ_CELLS`).

        Waits at most ``timeout`` seconds; never call it on the main thread (see the module
        doc). ``main_thread_busy`` (a cell runs, ``%%dsh --wait`` included) or ``timeout <= 0``
        sends nothing and only says why no answer can come — unless the page sends on a
        subshell of its own (:attr:`replies_off_main`), whose thread handles the reply while
        the cell runs. Never raises."""
        replies = self._request(
            READ, lambda: read_notebook(self.request_id("n"), want), timeout, main_thread_busy
        )
        if isinstance(replies, str):
            return replies
        reply = replies[0]
        if reply["type"] == "read_notebook_reply":
            return reply
        return "the notebook page answered with another message"  # not taken: never comes

    def can(self, capability: str) -> bool:
        """Whether a page announcing ``capability`` (``edit_cells``, ``run_cells``) is connected."""
        with self._lock:
            return self._comm is not None and capability in (self._capabilities or ())

    def request_id(self, prefix: str) -> str:
        """A fresh request id (``c1``, ``r2``, ``u3``): unique in this link's life."""
        return f"{prefix}{next(self._ids)}"

    def apply_change(
        self, message: ApplyChange, timeout: float, main_thread_busy: bool = False
    ) -> ApplyChangeReply | PagesDisagree | str:
        """Send ``apply_change`` to every open page and wait, at most ``timeout`` s, for the
        first reply with its request id; else a sentence saying why there is none (nothing is
        claimed). The thread rules of :meth:`read_notebook`. Never raises.

        Two pages of one notebook without collaboration each hold their own copy, and each
        answers (``docs/cell-editing.md``, "Several pages"). After the first reply the other
        pages that announced ``edit_cells`` have :data:`AGREE_WAIT` s to answer (one that does
        not is taken as closed). All that answered ``applied`` → the first reply; some applied
        and some did not → :class:`PagesDisagree`; none applied → the first reply."""
        replies = self._request(APPLY, lambda: message, timeout, main_thread_busy)
        if isinstance(replies, str):
            return replies
        answers: list[ApplyChangeReply] = []
        for reply in replies:
            if reply["type"] == "apply_change_reply":
                answers.append(reply)
        if not answers:
            return "the notebook page answered with another message"
        applied = [r for r in answers if r["status"] == "applied"]
        if applied and len(applied) < len(answers):
            return {"type": "pages_disagree", "request_id": answers[0]["request_id"],
                    "status": "disagree", "replies": answers}  # fmt: skip
        return answers[0]

    def run_cells(
        self, message: RunCells, timeout: float, main_thread_busy: bool = False
    ) -> RunCellsReply | str:
        """Send ``run_cells`` and wait at most ``timeout`` s for its reply (see
        :meth:`apply_change`). Never raises, never interrupts anything."""
        replies = self._request(RUN, lambda: message, timeout, main_thread_busy)
        if isinstance(replies, str):
            return replies
        if replies[0]["type"] == "run_cells_reply":
            return replies[0]
        return "the notebook page answered with another message"

    def undo_changes(self, message: UndoChanges, on_reply: Callable[[UndoReply], None]) -> bool:
        """Send ``undo_changes`` (any thread, also the main one); ``on_reply`` gets the page's
        ``undo_reply`` once, on the thread that handles it (the first reply wins). Returns
        whether it was sent (a page with ``edit_cells`` is connected)."""
        with self._lock:
            comm = self._comm
            if comm is None or "edit_cells" not in (self._capabilities or ()):
                return False
            self._undo_callbacks[message["request_id"]] = on_reply
            while len(self._undo_callbacks) > 64:  # replies that never came
                del self._undo_callbacks[next(iter(self._undo_callbacks))]
        if _send(comm, message):
            return True
        with self._lock:
            self._undo_callbacks.pop(message["request_id"], None)
        return False

    def _request(
        self,
        kind: Kind,
        build: Callable[[], Mapping[str, Any]],
        timeout: float,
        main_thread_busy: bool,
    ) -> list[PageReply] | str:
        """The one request path to the pages: send the message ``build`` makes (called under
        the lock once the request may go, so a refused one spends no request id) and wait at
        most ``timeout`` s for the replies of a type ``kind`` takes with its ``request_id``:
        the first one's first; with :attr:`Kind.agree`, also those of the other pages
        announcing the capability that came within :data:`AGREE_WAIT` s after it. Otherwise
        why there is none. Never on the main thread (see the module doc); never raises."""
        if threading.current_thread() is threading.main_thread():
            return "the request came from the kernel's main thread, which handles the reply"
        with self._lock:
            comm, capabilities = self._comm, self._capabilities
            if comm is None or capabilities is None:
                return NO_PAGE
            if kind.capability not in capabilities:
                return f"the connected dsh-notebook extension {kind.cannot}"
            if timeout <= 0 or (main_thread_busy and not self._replies_off_main):
                return "the kernel is busy running a cell, so the notebook page cannot answer"
            message = dict(build())
            request_id = str(message.get("request_id"))
            slot = Slot(kind)
            self._requests[request_id] = slot
            expected = self._pages.expected(kind.capability) if kind.agree else frozenset()
        try:
            if not _send(comm, message):
                return "the request to the notebook page could not be sent"
            if not slot.event.wait(timeout):
                return f"the notebook page did not answer within {timeout:g} s{kind.unanswered}"
            deadline = time.monotonic() + AGREE_WAIT
            while True:
                with self._lock:
                    slot.event.clear()
                    missing = expected - slot.replies.keys()
                    left = deadline - time.monotonic()
                    if missing and left <= 0:
                        self._pages.went_silent(missing)
                    if not missing or left <= 0:
                        return list(slot.replies.values())
                slot.event.wait(left)
        finally:
            with self._lock:
                self._requests.pop(request_id, None)

    def _on_reply(
        self, parse: Callable[[object], PageReply | None], data: Mapping[str, Any], page: str
    ) -> None:
        """A reply to one of :meth:`_request`'s requests: parsed only when its request waits
        for a reply of this type, then handed to the waiter (:meth:`.requests.Slot.take`)."""
        request_id = data.get("request_id")
        if not isinstance(request_id, str):
            return
        with self._lock:
            slot = self._requests.get(request_id)
            if slot is None or data.get("type") not in slot.kind.takes:
                return  # nobody waits for it (late, a second page's read, forged): not parsed
        reply = parse(data)
        if reply is None:
            return  # malformed or over the bounds: ignored
        with self._lock:
            slot = self._requests.get(reply["request_id"])
            if slot is not None:
                slot.take(page, reply)

    def _on_undo_reply(self, data: Mapping[str, Any], page: str) -> None:
        """An ``undo_reply``: its :meth:`undo_changes` callback, once, outside the lock."""
        request_id = data.get("request_id")
        with self._lock:
            if not isinstance(request_id, str) or request_id not in self._undo_callbacks:
                return  # nobody waits for it: not parsed
        undo = parse_undo_reply(data)
        if undo is None:
            return
        with self._lock:
            callback = self._undo_callbacks.pop(undo["request_id"], None)
        if callback is not None:
            try:
                callback(undo)
            except Exception:
                pass  # a report, never a reason to break the link

    def _on_undo_request(self, data: Mapping[str, Any], page: str) -> None:
        """The page's "Undo this run": :attr:`on_undo_request`, at most
        :data:`~.pages.UNDOS_PER_SECOND` a second."""
        undo_request = parse_undo_request(data)
        if undo_request is None:
            return
        with self._lock:
            allowed = self._pages.undos.allow()
        handler = self.on_undo_request
        if handler is not None and allowed:
            try:
                handler(undo_request["anchor"])
            except Exception:
                pass  # the page's button must never break the link

    def _send_locked(self, capability: str, message: Mapping[str, Any]) -> bool:
        """Send ``message`` when a page that announced ``capability`` is connected (lock held)."""
        comm = self._comm
        if comm is None or capability not in (self._capabilities or ()):
            return False
        return _send(comm, message)

    def _flush_locked(self) -> bool:
        return self._send_locked("waiting", waiting(self._waiting))

    @property
    def replies_off_main(self) -> bool:
        """A page sent on the link from a subshell of its own (JupyterLab 4.4+ / Notebook 7 with
        ipykernel 7, ``commsOverSubshells``), so its replies are handled while a cell runs. Kept
        until the comm closes (a page that later turns subshells off makes a busy kernel wait
        out the read's timeout, then fall back)."""
        return self._replies_off_main

    def _on_msg(self, msg: Mapping[str, Any]) -> None:
        header = msg.get("header")
        if isinstance(header, Mapping) and header.get("subshell_id"):
            # sticky until the comm closes: a hello_reply sent before the page's subshell existed
            # may be handled (on the main shell, after a running cell) later than this message
            self._replies_off_main = True
        page = page_of(msg)
        content = msg.get("content")
        data = content.get("data") if isinstance(content, Mapping) else None
        if not isinstance(data, Mapping):
            return
        with self._lock:
            self._pages.heard(page)
        kind = data.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(data, page)  # any other type: unknown, ignored

    def _on_hello_reply(self, data: Mapping[str, Any], page: str) -> None:
        """The page's ``hello_reply``: its capabilities, then the state re-sent (bounded,
        :meth:`~.pages.Pages.hello`) and :attr:`on_hello` called."""
        reply = parse_frontend_message(data)
        if reply is None:
            with self._lock:
                self._pages.malformed.refused()
            return  # malformed: ignored
        with self._lock:
            capabilities = frozenset(reply["capabilities"])
            self._capabilities = capabilities
            self._frontend_version = reply["version"]
            self._answered.set()
            if not self._pages.hello(page, capabilities):
                return  # this page (or pages) asked for the state too often: not re-sent
            if self._waiting:
                self._flush_locked()
            for message in self._outputs.values():
                replayed: RunOutput = {**message, "replay": True}
                self._send_locked("run_output", replayed)
        callback = self.on_hello
        if callback is not None:
            try:
                callback()
            except Exception:  # e.g. a prewarm that cannot even be scheduled: never raise here
                pass

    def _on_close(self, msg: Mapping[str, Any]) -> None:
        with self._lock:
            self._replies_off_main = False
            self._answered.clear()
            self._pages.clear()
            self._comm = None
            self._capabilities = None
            self._frontend_version = None
