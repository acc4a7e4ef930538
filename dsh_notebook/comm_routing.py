"""Keep a comm's incoming messages on the main shell, whatever subshell was busy when it sent.

ipykernel 7 remembers, on every send on a comm, the subshell of the request the kernel was
handling at that moment (JupyterLab sends widget clicks on a subshell of its own) and routes the
frontend's later messages on that comm to that subshell. A page that reloads or closes deletes
its subshell; from then on every message routed there is dropped ("Unknown subshell_id"), from
any page: a reloaded page's ``hello_reply`` never arrived and it kept the "interrupted"
stand-in, and a click on a card of a run widget could be lost the same way.

:func:`unpin_reply_route` forgets that subshell, so the next message goes where its own header
says (the main shell for JupyterLab's comm messages). Call it after each send on a comm this
package owns; it is a no-op on kernels without the routing (ipykernel 6) and on test comms.
Thread-safe: it takes the comm's own routing lock.
"""

from __future__ import annotations

__all__ = ["unpin_reply_route"]


def unpin_reply_route(comm: object) -> None:
    """Forget the subshell ``comm``'s replies would be routed to (see the module docstring)."""
    lock = getattr(comm, "_reply_subshell_lock", None)
    if lock is None or not hasattr(comm, "_reply_subshell_id"):
        return
    with lock:
        setattr(comm, "_reply_subshell_id", None)  # noqa: B010 - a private attribute of ipykernel
        ids = getattr(comm, "_reply_subshell_ids", None)
        if isinstance(ids, dict):
            ids.clear()
