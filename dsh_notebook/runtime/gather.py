"""The runtime's stdout, read a few frames per wake-up instead of one.

The runtime writes each frame with its own ``write``; a streamed answer is thousands of small
frames a second (a 20 000-chunk answer: ~8 000 lines a second). Read as they come, each line is
one wake-up of the reading event loop: epoll, ``read``, the stream buffer, the waiter; live, that
cost ~70 µs a frame in the kernel's runtime host thread against ~12 µs for the same frames read
in bulk (``bench/dispatch_throughput.py``), and that thread competes with the kernel's own loop
for the GIL and the cores (``bench/kernel_freedom.py``).

:class:`GatheringReceiveStream` wraps the stdout stream: while frames stream in (a read found
data within ``burst_gap``) and it came back short (the reader has caught up with the runtime),
it stops watching the pipe for ``delay`` seconds before the next read, so what the runtime writes
meanwhile waits in the pipe and is read in one go.

Guarantees:

- Nothing is lost or reordered: bytes are returned exactly as the inner stream returns them.
- Latency: what a read returns is handed over at once; a frame that arrives while the pipe is
  left alone waits at most ``delay`` (4 ms by default, against the UI's 100 ms publish rate).
  Only bursts pause: a lone frame (a response, a real model's tokens tens of ms apart) and a
  long read (bulk data, a full pipe) never do.
- Where the pipe cannot be paused (another anyio backend, a future anyio), the pause is skipped
  and reading is exactly as before.
- Cancellation: a cancelled :meth:`receive` resumes watching the pipe before it propagates.
- Threads: like the inner stream, use it from the event loop that reads it only.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import anyio
from anyio.abc import ByteReceiveStream

__all__ = [
    "BURST_GAP",
    "GATHER_BELOW",
    "GATHER_SECONDS",
    "GatheringReceiveStream",
    "pausable_pipe",
]

GATHER_SECONDS = 0.004
"""How long the pipe is left alone, in a burst, after a short read."""
GATHER_BELOW = 8192
"""A read shorter than this many bytes means the reader has caught up with the writer."""
BURST_GAP = 0.002
"""A read that found data within this many seconds means frames are streaming in: only then is
the pipe left alone. A lone response, or tokens of a real model (tens of ms apart), are never
held back."""


class PausablePipe(Protocol):
    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def pausable_pipe(process: Any, fd: int = 1) -> PausablePipe | None:
    """The asyncio read-pipe transport behind an anyio process's ``fd``, or ``None``.

    anyio's asyncio ``Process`` keeps its ``asyncio.SubprocessTransport`` as ``_transport``;
    :meth:`asyncio.SubprocessTransport.get_pipe_transport` is public. Anything else (trio, a
    changed anyio) gives ``None``: no pausing."""
    transport = getattr(process, "_transport", None)
    get_pipe = getattr(transport, "get_pipe_transport", None)
    if get_pipe is None:
        return None
    try:
        pipe = get_pipe(fd)
    except Exception:
        return None
    if callable(getattr(pipe, "pause_reading", None)) and callable(
        getattr(pipe, "resume_reading", None)
    ):
        return pipe  # type: ignore[no-any-return]
    return None


class GatheringReceiveStream(ByteReceiveStream):
    """``inner``, leaving ``pipe`` alone for ``delay`` seconds before the read that follows a
    read shorter than ``below`` bytes."""

    def __init__(
        self,
        inner: ByteReceiveStream,
        pipe: PausablePipe | None,
        *,
        delay: float = GATHER_SECONDS,
        below: int = GATHER_BELOW,
        burst_gap: float = BURST_GAP,
    ) -> None:
        self._inner = inner
        self._pipe = pipe
        self._delay = delay
        self._below = below
        self._burst_gap = burst_gap
        self._caught_up = False
        self.pauses = 0
        """Times the pipe was left alone (tests and benchmarks read it)."""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        pipe = self._pipe
        if self._caught_up and pipe is not None:
            # the last read was short and its frames are handled by now: leave the pipe alone
            # for a moment, so what the runtime writes meanwhile is read in one go below
            self._caught_up = False
            try:
                pipe.pause_reading()
            except Exception:  # a closing transport: read on without pausing
                self._pipe = None
            else:
                self.pauses += 1
                try:
                    await anyio.sleep(self._delay)
                finally:
                    try:
                        pipe.resume_reading()
                    except Exception:
                        self._pipe = None
        started = time.monotonic()
        data = await self._inner.receive(max_bytes)
        waited = time.monotonic() - started
        self._caught_up = len(data) < self._below and waited < self._burst_gap
        return data

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def extra_attributes(self) -> Any:
        return self._inner.extra_attributes
