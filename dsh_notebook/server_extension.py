"""dsh_notebook's Jupyter server extension: the kernel websockets send each message at once.

The page and the kernel talk in small request/reply messages (a ``read_notebook`` and its
reply, an ``apply_change``, ``waiting``) carried by the Jupyter server's kernel websocket. The
server leaves Nagle's algorithm on for it (tornado's default), so a small message written while
an earlier one is not yet acknowledged waits for that acknowledgement, which the browser delays
(~40 ms on Linux): every page read had a ~45 ms floor. :func:`patch` turns Nagle's algorithm off
on each kernel websocket as it opens (``TCP_NODELAY``; tornado's ``set_nodelay``), so each
message leaves when the kernel sends it (``bench/page_read.py``).

Installed with the package (``jupyter-config/``: enabled for every Jupyter server of the
environment). Guarantees: importing it imports nothing from Jupyter; :func:`patch` is idempotent,
changes nothing but the socket option, and is a no-op (``False``) where the server's kernel
websocket handler is not the one it knows. Nothing of the package is imported.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["patch"]

log = logging.getLogger(__name__)

_MARK = "_dsh_nodelay"


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "dsh_notebook.server_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    if not patch():
        serverapp.log.info(
            "dsh_notebook: kernel websockets keep Nagle's algorithm (unknown handler)"
        )


def patch() -> bool:
    """Turn Nagle's algorithm off on every kernel websocket opened from now on; whether done."""
    try:
        from jupyter_server.services.kernels.websocket import KernelWebsocketHandler
    except Exception:
        return False
    if getattr(KernelWebsocketHandler, _MARK, False):
        return True
    original: Any = KernelWebsocketHandler.open
    if not callable(original) or not callable(getattr(KernelWebsocketHandler, "set_nodelay", None)):
        return False

    async def open(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            self.set_nodelay(True)
        except Exception as exc:  # a closed stream: the handler's own open reports it
            log.debug("dsh_notebook: set_nodelay failed: %r", exc)
        return await original(self, *args, **kwargs)

    KernelWebsocketHandler.open = open  # type: ignore[method-assign]
    setattr(KernelWebsocketHandler, _MARK, True)
    return True
