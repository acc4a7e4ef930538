"""Give up on a call that takes too long: how describing one notebook value is bounded in time.

Describing a value runs the person's code — a ``__repr__``, a ``_repr_llm_``, a property — and
such code can loop forever or wait on a lock or a socket. Before this module, a ``{var}`` whose
``repr`` never returned hung the ``%%dsh`` cell with no message.

How: :func:`call_with_time_limit` runs the call on a fresh daemon thread and waits for it on the
calling thread (in a kernel, the main thread) in short slices, so a signal still reaches the
waiting thread promptly. Why a thread and not the alternatives:

- ``signal.setitimer`` / ``SIGALRM`` would interrupt the call on the main thread, but only there,
  only on POSIX, and only by taking over the process's one alarm (the person's own ``SIGALRM``
  handler and timer would be clobbered);
- a subprocess cannot see the live object;
- a trace function (``sys.settrace``) slows every line the call runs and fights debuggers.

A Python thread cannot be killed, so a call that is given up on is *asked* to stop: an exception
(a private ``BaseException``) is scheduled in its thread with ``PyThreadState_SetAsyncExc``. It is
raised at the next bytecode the thread runs, so pure-Python code (``while True: pass``, a
property that polls) stops almost at once. Code blocked inside C (``time.sleep``, a C extension's
loop, a socket read) stops when that C call returns; until then the abandoned thread stays, as a
daemon thread (it never delays interpreter exit). Code that catches ``BaseException`` and carries
on cannot be stopped this way; it runs on in the background and its result is discarded.

Guarantees of :func:`call_with_time_limit`:

- it returns within about ``seconds`` (+ one 50 ms slice) of being called, with the call's result
  or :class:`TimedOut`; an exception the call raised is raised again on the calling thread;
- a ``KeyboardInterrupt`` (Jupyter's "Interrupt kernel") or any other exception raised in the
  *waiting* thread stops the wait at once, asks the call to stop as above, and propagates;
- a call given up on never reports anything later: its result, its exception and the stop
  request itself are swallowed in its thread (no "Exception in thread" output);
- ``seconds=None`` runs the call inline, on the calling thread, without any thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["TimedOut", "call_with_time_limit"]

T = TypeVar("T")

_WAIT_SLICE = 0.05
"""Seconds per wait: how soon a signal that landed on another thread is noticed."""


@dataclass(frozen=True)
class TimedOut:
    """The call did not finish within :attr:`seconds`; it was asked to stop."""

    seconds: float


class _Abandoned(BaseException):
    """Raised asynchronously in a call's thread after its caller stopped waiting for it."""


class _Attempt(Generic[T]):
    """One call on its own thread; a lock decides, once, between "finished" and "abandoned".

    The stop request is only ever sent while the thread is between ``entered`` and ``finished``
    (both set under the lock, inside ``run``'s outer ``try``), so it is always raised there: never
    before the thread reached that ``try``, never after it left ``run`` (where it would break
    :mod:`threading`'s own bookkeeping).
    """

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn = fn
        self._lock = threading.Lock()
        self.done = threading.Event()
        self._entered = False
        self.finished = False
        self._abandoned = False
        self.value: T | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """The thread's body: nothing at all if the caller gave up before it started."""
        try:
            with self._lock:
                if self._abandoned:
                    return
                self._entered = True
            value: T | None = None
            error: BaseException | None = None
            try:
                value = self._fn()
            except _Abandoned:
                raise
            except BaseException as exc:  # handed to the caller, who re-raises it
                error = exc
            with self._lock:
                if not self._abandoned:
                    self.value, self.error, self.finished = value, error, True
                self.done.set()
        except _Abandoned:
            pass  # the caller has given up on this call; nobody is listening

    def abandon(self, thread: threading.Thread) -> bool:
        """Give up unless the call has finished; ``True`` if it was given up on (and asked to
        stop), ``False`` if it had finished first (its outcome is then valid)."""
        with self._lock:
            if self.finished:
                return False
            self._abandoned = True
            if self._entered:  # under the lock: the thread is inside run()'s try, not past it
                _raise_in(thread)
            return True


def call_with_time_limit(fn: Callable[[], T], seconds: float | None) -> T | TimedOut:
    """``fn()``, or :class:`TimedOut` if it has not returned after ``seconds`` (module doc)."""
    if seconds is None:
        return fn()
    attempt: _Attempt[T] = _Attempt(fn)
    thread = threading.Thread(target=attempt.run, name="dsh-describe-value", daemon=True)
    deadline = time.monotonic() + max(0.0, seconds)
    try:
        thread.start()
        while not attempt.done.wait(max(0.0, min(_WAIT_SLICE, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                break
    except BaseException:  # KeyboardInterrupt: the person wants everything to stop
        attempt.abandon(thread)
        raise
    if attempt.abandon(thread):
        return TimedOut(seconds)
    if attempt.error is not None:
        raise attempt.error
    return attempt.value  # type: ignore[return-value]  # finished without error: fn's result


def _raise_in(thread: threading.Thread) -> None:
    """Schedule ``_Abandoned`` in ``thread`` (best effort; a no-op where ctypes cannot)."""
    ident = thread.ident
    if ident is None or not thread.is_alive():
        return
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
        set_async_exc(ctypes.c_ulong(ident), ctypes.py_object(_Abandoned))
    except (ImportError, AttributeError, OSError):  # pragma: no cover - PyPy, no ctypes
        pass
