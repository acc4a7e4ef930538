"""Run callables on the kernel's main thread, between cells: the executor behind ``run_python``.

:class:`MainThreadExecutor` is a concurrency primitive with no knowledge of MCP or HTTP: any thread
may :meth:`~MainThreadExecutor.submit` a callable and get a :class:`concurrent.futures.Future`;
the callable runs on whichever thread pumps the executor — in a kernel, the main thread, while no
cell executes.

Guarantees:

- **Never during a cell.** Items run when the kernel's loop is idle, after a cell
  (``post_run_cell``) or when a waiting cell pumps explicitly; never concurrently with a cell.
- **Order and bounds.** Items run one at a time, in submission order; at most ``max_pending``
  wait (more are refused at once with :class:`ExecutorFull`); a future cancelled before its item
  started is skipped.
- **Interrupt.** "Interrupt kernel" (SIGINT) raises ``KeyboardInterrupt`` in the running item:
  the executor installs Python's default SIGINT handler while an item runs (ipykernel ignores
  SIGINT while idle) and restores the previous one after. The exception lands in the item's
  future as :class:`ItemInterrupted`, never in the loop.
- **Close.** :meth:`~MainThreadExecutor.close` is idempotent, refuses new items and withdraws
  queued ones with :class:`ExecutorClosed`; a running item finishes.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ExecutorClosed", "ExecutorFull", "ItemInterrupted", "MainThreadExecutor"]

T = TypeVar("T")


class ExecutorFull(RuntimeError):
    """Too many calls are already waiting for the kernel."""


class ExecutorClosed(RuntimeError):
    """The executor was closed (kernel shutdown, extension unloaded)."""


class ItemInterrupted(Exception):
    """A queued item ended by ``KeyboardInterrupt`` (or another ``BaseException``) raised outside
    its own handling; stored instead of the raw exception, which would break an event loop that
    awaits the future."""


class _Item:
    __slots__ = ("fn", "future")

    def __init__(self, fn: Callable[[], Any], future: concurrent.futures.Future[Any]) -> None:
        self.fn = fn
        self.future = future


class MainThreadExecutor:
    """A bounded queue of callables that run on whichever thread pumps it — the kernel's main
    thread — and never while a cell executes.

    Pumping happens in three ways, all on the main thread:

    - ``loop`` given (the kernel's asyncio loop, captured at extension load): every
      :meth:`submit` schedules a drain with ``loop.call_soon_threadsafe``. The loop only runs
      callbacks while no synchronous cell runs; for cells that ``await`` (the loop keeps going),
      :meth:`cell_started` / :meth:`cell_finished` (``pre_run_cell`` / ``post_run_cell`` hooks)
      hold draining back until the cell is done, then schedule it.
    - no loop (terminal IPython, a non-asyncio kernel): :meth:`cell_finished` drains directly.
    - explicitly: :meth:`pump` (a ``%%dsh --wait`` cell pumps while it waits for its run, which is
      what keeps it from deadlocking on its own agent's ``run_python``; tests pump too).

    Thread-safety: :meth:`submit`, :meth:`close` and the hooks may be called from any thread.
    Items run one at a time, in submission order. A cancelled future (withdrawn before it
    started) is skipped. While an item runs, SIGINT raises ``KeyboardInterrupt`` in it (see the
    module docstring); the exception lands in the item's future, never in the loop.
    """

    def __init__(
        self, *, max_pending: int = 4, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        self.max_pending = max_pending
        self._loop = loop
        self._queue: collections.deque[_Item] = collections.deque()
        self._lock = threading.Lock()
        self._cell_running = False
        self._draining = False
        self._closed = False

    @property
    def cell_running(self) -> bool:
        """Whether a cell is executing now (between the ``pre_run_cell`` and ``post_run_cell``
        hooks): the main thread handles no comm message until it ends."""
        return self._cell_running

    @property
    def pending(self) -> int:
        with self._lock:
            return sum(1 for item in self._queue if not item.future.done())

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue ``fn``; a future for its result. Raises :class:`ExecutorFull` or
        :class:`ExecutorClosed` at once instead of queueing."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise ExecutorClosed("the notebook tools are shut down")
            live = sum(1 for item in self._queue if not item.future.done())
            if live >= self.max_pending:
                raise ExecutorFull(
                    f"{live} run_python call(s) are already waiting for the notebook kernel"
                )
            self._queue.append(_Item(fn, future))
        self._schedule()
        return future

    def _schedule(self) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # loop closed: cell_finished/pump still drain
            loop.call_soon_threadsafe(self._drain_from_loop)

    def _drain_from_loop(self) -> None:
        if not self._cell_running:
            self.pump()

    def cell_started(self, *_: Any) -> None:
        """``pre_run_cell`` hook: hold draining back while a cell runs."""
        self._cell_running = True

    def cell_finished(self, *_: Any) -> None:
        """``post_run_cell`` hook: drain after the cell (via the loop when there is one)."""
        self._cell_running = False
        if self._loop is not None:
            self._schedule()
        else:
            self.pump()

    def pump(self) -> int:
        """Run every queued item on the calling thread, in order; how many ran. Re-entrant calls
        (an item pumping) return 0."""
        if self._draining:
            return 0
        self._draining = True
        ran = 0
        try:
            while True:
                with self._lock:
                    item = self._queue.popleft() if self._queue else None
                if item is None:
                    return ran
                if not item.future.set_running_or_notify_cancel():
                    continue  # withdrawn before it started
                ran += 1
                self._run(item)
        finally:
            self._draining = False

    @staticmethod
    def _run(item: _Item) -> None:
        previous: Any = None
        on_main = threading.current_thread() is threading.main_thread()
        if on_main:
            with contextlib.suppress(ValueError, OSError):
                previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            result = item.fn()
        except Exception as exc:
            item.future.set_exception(exc)
        except BaseException as exc:  # KeyboardInterrupt, SystemExit: they belong to this item
            wrapped = ItemInterrupted(f"{type(exc).__name__} while running the item")
            wrapped.__cause__ = exc
            item.future.set_exception(wrapped)
        else:
            item.future.set_result(result)
        finally:
            if on_main and previous is not None:
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(signal.SIGINT, previous)

    def close(self) -> int:
        """Refuse new items and withdraw queued ones (their futures get :class:`ExecutorClosed`).
        Idempotent; returns how many were withdrawn. A running item finishes."""
        with self._lock:
            self._closed = True
            items = list(self._queue)
            self._queue.clear()
        withdrawn = 0
        for item in items:
            if item.future.set_running_or_notify_cancel():
                item.future.set_exception(ExecutorClosed("the notebook tools were shut down"))
                withdrawn += 1
        return withdrawn
