"""Tasks a client owns for its whole life, started outside every caller's cancel scope.

Why not a task group entered in ``start()`` and exited in ``aclose()``: anyio requires a task
group to be exited by the task that entered it, so an ``aclose()`` from any other task raised
``RuntimeError: Attempted to exit cancel scope in a different task``; and while it stayed open,
the starting task's own code ran *inside* the client's cancel scope, so cancelling the client
cancelled unrelated work of the caller.

:class:`Background` instead runs each task as a top-level task of the event loop
(``asyncio`` ``create_task``; ``trio.lowlevel.spawn_system_task``), each inside its own cancel
scope. Guarantees:

- Ownership: the :class:`Background` owns its tasks; :meth:`Background.aclose` cancels them all and
  waits until each has finished (bounded). Nothing else cancels them, and they cancel nothing of
  the caller.
- Failure: a task that raises is logged at error level and ends; it never propagates into another
  task and never crashes the event loop.
- Threads: every method runs on the event loop that started the tasks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

__all__ = ["Background"]

log = logging.getLogger(__name__)


class Background:
    """A set of detached tasks with one owner. ``start`` them; ``aclose`` cancels and joins."""

    def __init__(self) -> None:
        self._scopes: list[anyio.CancelScope] = []
        self._done: list[anyio.Event] = []
        self._handles: set[Any] = set()  # keeps asyncio tasks referenced until they finish
        self._closed = False

    def start(self, fn: Callable[[], Awaitable[object]], name: str) -> None:
        """Run ``fn()`` as a detached task of the current event loop."""
        if self._closed:
            raise RuntimeError("background tasks already closed")
        scope = anyio.CancelScope()
        done = anyio.Event()
        self._scopes.append(scope)
        self._done.append(done)

        async def runner() -> None:
            try:
                with scope:
                    await fn()
            except Exception:
                log.exception("background task %s failed", name)
            finally:
                done.set()

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio: anyio's other backend is trio
            import trio

            trio.lowlevel.spawn_system_task(runner, name=name)
            return
        task = loop.create_task(runner(), name=name)
        self._handles.add(task)
        task.add_done_callback(self._handles.discard)

    def cancel(self) -> None:
        """Cancel every task (returns at once; see :meth:`aclose` to wait)."""
        for scope in self._scopes:
            scope.cancel()

    async def aclose(self, timeout: float = 5.0) -> None:
        """Cancel every task and wait (shielded, at most ``timeout`` s) until all have ended."""
        self._closed = True
        self.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(timeout):
            for done in self._done:
                await done.wait()
