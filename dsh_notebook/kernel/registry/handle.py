"""``RunHandle``: what ``_dsh`` (and ``%%dsh -o NAME``) is bound to.

A handle is cheap and thread-safe: it wraps the future of a run on the runtime host.
``await handle`` works in a notebook cell (top-level await) without blocking the kernel;
``handle.result(timeout)`` blocks. Cancelling the awaiting cell does not stop the run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Generator
from typing import Any

from ...client import RunResult

__all__ = ["RunHandle"]


class RunHandle:
    """A run in progress or settled."""

    def __init__(
        self,
        future: concurrent.futures.Future[RunResult],
        *,
        session: str,
        prompt: str,
        context: list[dict[str, Any]] | None = None,
        context_block: str | None = None,
    ) -> None:
        self._future = future
        self.session = session
        self.prompt = prompt
        """The person's text as sent (after interpolation), without the notebook context block."""
        self.context = context or []
        self.context_block = context_block
        """The notebook context block sent with the prompt (a second text block), or ``None``
        when none was sent (``%config DshMagics.context_block = False``)."""

    def done(self) -> bool:
        return self._future.done()

    def result(self, timeout: float | None = None) -> RunResult:
        """The run's result, waiting up to ``timeout`` seconds (``TimeoutError`` after)."""
        return self._future.result(timeout)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        return self._future.exception(timeout)

    def __await__(self) -> Generator[Any, None, RunResult]:
        return asyncio.shield(asyncio.wrap_future(self._future)).__await__()

    def add_done_callback(self, callback: Any) -> None:
        self._future.add_done_callback(lambda _: callback(self))

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))

    def __repr__(self) -> str:
        if not self._future.done():
            state = "running"
        elif self._future.cancelled():
            state = "cancelled"
        elif self._future.exception() is not None:
            state = f"failed: {type(self._future.exception()).__name__}"
        else:
            state = f"settled ({self._future.result().finish_reason})"
        return f"<dsh run on session {self.session!r}: {state}>"
