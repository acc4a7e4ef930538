"""The runtime's stdout is read a few frames per wake-up while frames stream in, and never
otherwise held back; nothing is lost, reordered, or left paused."""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream

from dsh_notebook.runtime.gather import GatheringReceiveStream, pausable_pipe
from dsh_notebook.runtime.process import LaunchSpec, RuntimeProcess

LINE = b'{"jsonrpc":"2.0","method":"session.assistant_stream","params":{"n":%d}}\n'

FAST_WRITER = r"""
import os, sys, time
n = int(sys.argv[1])
for i in range(n):
    os.write(1, b'{"jsonrpc":"2.0","method":"session.assistant_stream","params":{"n":%d}}\n' % i)
    if i % 4 == 0:
        time.sleep(0.0002)
"""

SLOW_WRITER = r"""
import os, sys, time
for i in range(int(sys.argv[1])):
    time.sleep(0.03)
    os.write(1, b'{"jsonrpc":"2.0","method":"session.assistant_stream","params":{"n":%d}}\n' % i)
"""


async def _read_all(writer: str, lines: int, *, gather: bool) -> tuple[bytes, int, int]:
    proc = await anyio.open_process([sys.executable, "-c", writer, str(lines)])
    assert proc.stdout is not None
    stream = GatheringReceiveStream(proc.stdout, pausable_pipe(proc) if gather else None)
    received = bytearray()
    reads = 0
    try:
        while True:
            received += await stream.receive()
            reads += 1
    except anyio.EndOfStream:
        pass
    await proc.wait()
    return bytes(received), reads, stream.pauses


def test_a_stream_of_small_frames_is_read_in_batches_and_arrives_whole_in_order() -> None:
    lines = 4000
    data, reads, pauses = anyio.run(partial(_read_all, FAST_WRITER, lines, gather=True))
    assert data == b"".join(LINE % i for i in range(lines))
    assert pauses > 0
    _, plain_reads, plain_pauses = anyio.run(partial(_read_all, FAST_WRITER, lines, gather=False))
    assert plain_pauses == 0
    # without gathering the reader wakes for (nearly) every line; with it, for a batch of them
    assert reads * 3 < plain_reads, (reads, plain_reads)


def test_frames_that_come_one_at_a_time_are_never_held_back() -> None:
    data, _reads, pauses = anyio.run(partial(_read_all, SLOW_WRITER, 12, gather=True))
    assert data == b"".join(LINE % i for i in range(12))
    assert pauses == 0  # 30 ms apart: each read waited, no burst, no pause


class _Chunks(ByteReceiveStream):
    """Hands out the given chunks at once, then waits forever."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self.chunks:
            return self.chunks.pop(0)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        pass


class _Pipe:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")


def test_a_cancelled_read_leaves_the_pipe_watched() -> None:
    pipe = _Pipe()

    async def main() -> None:
        stream = GatheringReceiveStream(_Chunks([b"a\n"]), pipe, delay=5.0)
        assert await stream.receive() == b"a\n"  # found at once, short: the next read pauses
        with anyio.move_on_after(0.2):
            await stream.receive()  # cancelled in the pause

    started = time.monotonic()
    anyio.run(main)
    assert time.monotonic() - started < 3
    assert pipe.calls == ["pause", "resume"]


def test_without_a_pausable_pipe_reading_is_unchanged() -> None:
    assert pausable_pipe(object()) is None

    async def main() -> list[bytes]:
        stream = GatheringReceiveStream(_Chunks([b"a\n", b"b\n"]), None)
        return [await stream.receive(), await stream.receive()]

    assert anyio.run(main) == [b"a\n", b"b\n"]


def test_the_runtime_process_reads_its_stdout_through_the_gathering_stream() -> None:
    async def main() -> tuple[bool, bytes]:
        here = Path.cwd()
        spec = LaunchSpec(argv=(sys.executable, "-c", "print('x')"), cwd=here, dsh_home=here)
        process = await RuntimeProcess.spawn(spec)
        stdout = process.stdout
        pausable = isinstance(stdout, GatheringReceiveStream) and stdout._pipe is not None
        data = await stdout.receive()
        await process.wait(5)
        return pausable, data

    assert anyio.run(main) == (True, b"x\n")
