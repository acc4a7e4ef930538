"""Let a comm's incoming messages go where their own header says, whatever was busy when it sent.

ipykernel 7 remembers, on every send on a comm, the subshell of the request the kernel was
handling at that moment (``None``, the main shell, for a cell) and routes the frontend's later
messages on that comm there, overriding the ``subshell_id`` their header carries. Two things
went wrong with that for our comms:

- JupyterLab 4.4+ and Notebook 7 send comm messages on a subshell of their own (setting
  ``commsOverSubshells``, default one subshell per comm target), so the kernel answers them while
  a cell runs. Pinned to the main shell by the ``comm_open`` a cell sent, a run widget's resync
  and clicks waited for a ``%%dsh --wait`` cell to end: its first text painted only then.
- A page that reloads or closes deletes its subshell; a comm pinned to it dropped every later
  message ("Unknown subshell_id"), from any page: a reloaded page's ``hello_reply`` never arrived.

:func:`unpin_reply_route` makes each message go where its own header says: the page's live comm
subshell, or the main shell for a frontend without subshells (ipykernel then handles it between
cells, as before). Where the kernel asks the comm for the route (``_reply_subshell_for``,
ipykernel 7.4+), the comm answers "the header's" at every moment: forgetting the remembered
subshell after a send left a window, between the send and the forgetting, in which a page that
answered at once (a ``read_notebook_reply`` within milliseconds) was routed to the main shell,
busy with the very cell that asked, and the cell gave up waiting. It also forgets what was
remembered, for kernels that read it directly. Call it right after opening a comm this package
owns and after each send on it; it is a no-op on kernels without the routing (ipykernel 6) and on
test comms. Handlers of these comms must therefore be thread-safe: they may run on a subshell's
thread while the main thread runs a cell. Thread-safe itself: it takes the comm's own routing
lock.

A ``comm_open`` from the kernel goes to every page connected to it. A page that has no handler
for the comm's target answers ``comm_close``, and ipykernel then closes the comm for every page:
Notebook 7's file-browser tab, which keeps a kernel connection of its own after New → Python 3
opened the notebook in another tab, closed the run widget's comm (the card's click then went
nowhere: "sent…" for ever) and the ``dsh_notebook.frontend`` link (no waiting signal).
:func:`keep_open_against_pages` makes a comm this package owns deaf to a page's ``comm_close``:
the kernel alone closes it (:meth:`close`), so no second page can take it from the notebook.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["keep_open_against_pages", "unpin_reply_route"]

_log = logging.getLogger(__name__)
_kept: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_install_lock = threading.Lock()
_GUARD_MARK = "_dsh_notebook_close_guard"


def _route_by_header(data: object, header_subshell: str | None) -> str | None:
    """ipykernel's ``comm._reply_subshell_for(data, default)``, answering the header's subshell."""
    return header_subshell


def unpin_reply_route(comm: object) -> None:
    """Route ``comm``'s incoming messages by their own header from now on, and forget the
    subshell they would have been routed to (see the module docstring)."""
    lock = getattr(comm, "_reply_subshell_lock", None)
    if lock is None:
        return
    if callable(getattr(comm, "_reply_subshell_for", None)):
        with contextlib.suppress(AttributeError, TypeError):  # a comm class with __slots__
            if vars(comm).get("_reply_subshell_for") is not _route_by_header:
                comm._reply_subshell_for = _route_by_header  # type: ignore[attr-defined]
    if not hasattr(comm, "_reply_subshell_id"):
        return
    with lock:
        # ipykernel reads it with getattr(comm, "_reply_subshell_id", <the header's subshell>)
        if "_reply_subshell_id" in vars(comm):
            delattr(comm, "_reply_subshell_id")
        ids = getattr(comm, "_reply_subshell_ids", None)
        if isinstance(ids, dict):
            ids.clear()


def keep_open_against_pages(comm: object) -> None:
    """Ignore every ``comm_close`` a page sends for ``comm``; it stays open until the kernel
    closes it itself (``comm.close()`` does not pass through the guarded handler).

    Guarantees: the guard drops the message before ipykernel unregisters the comm, so no message
    of the page that owns the comm is lost in between; it only ever touches comms given here
    (held weakly; other comms, ipywidgets' included, close as before); it is installed once per
    kernel, on the kernel's ``shell_handlers`` (main shell and subshells dispatch through it).
    A no-op for comms without a kernel (tests' fakes) or without a ``comm_id``. Thread-safe."""
    comm_id = getattr(comm, "comm_id", None)
    kernel = getattr(comm, "kernel", None)
    handlers = getattr(kernel, "shell_handlers", None)
    if not isinstance(comm_id, str) or not isinstance(handlers, dict):
        return
    _kept[comm_id] = comm
    with _install_lock:
        current = handlers.get("comm_close")
        if current is None or getattr(current, _GUARD_MARK, False):
            return
        handlers["comm_close"] = _guard(current)


def _guard(close: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(stream: Any, ident: Any, msg: Any) -> Any:
        content = msg.get("content") if isinstance(msg, dict) else None
        comm_id = content.get("comm_id") if isinstance(content, dict) else None
        if isinstance(comm_id, str) and _kept.get(comm_id) is not None:
            _log.debug("dsh_notebook: ignored a page's comm_close for %s", comm_id)
            return None
        return close(stream, ident, msg)

    setattr(guarded, _GUARD_MARK, True)
    return guarded
