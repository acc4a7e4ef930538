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

:func:`unpin_reply_route` forgets the remembered subshell, so each message goes where its own
header says: the page's live comm subshell, or the main shell for a frontend without subshells
(ipykernel then handles it between cells, as before). Call it after each send on a comm this
package owns; it is a no-op on kernels without the routing (ipykernel 6) and on test comms.
Handlers of these comms must therefore be thread-safe: they may run on a subshell's thread while
the main thread runs a cell. Thread-safe itself: it takes the comm's own routing lock.
"""

from __future__ import annotations

__all__ = ["unpin_reply_route"]


def unpin_reply_route(comm: object) -> None:
    """Forget the subshell ``comm``'s replies would be routed to (see the module docstring)."""
    lock = getattr(comm, "_reply_subshell_lock", None)
    if lock is None or not hasattr(comm, "_reply_subshell_id"):
        return
    with lock:
        # ipykernel reads it with getattr(comm, "_reply_subshell_id", <the header's subshell>)
        if "_reply_subshell_id" in vars(comm):
            delattr(comm, "_reply_subshell_id")
        ids = getattr(comm, "_reply_subshell_ids", None)
        if isinstance(ids, dict):
            ids.clear()
