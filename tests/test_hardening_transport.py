"""Issue 13 item 11, transport side: no peer line kills or hangs the reader."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from dsh_notebook.errors import TransportClosed
from dsh_notebook.protocol import Notification
from dsh_notebook.testing.streams import duplex
from dsh_notebook.transport import JsonRpcLineTransport

pytestmark = pytest.mark.anyio

CHUNK = 64 * 1024


async def next_frame(receive: Any, buffer: bytearray) -> dict[str, Any]:
    while b"\n" not in buffer:
        buffer += await receive.receive()
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return json.loads(line)  # type: ignore[no-any-return]


def line(frame: dict[str, Any]) -> bytes:
    return (json.dumps(frame) + "\n").encode()


async def test_deeply_nested_line_is_a_malformed_line_not_a_crash() -> None:
    client_side, (peer_receive, peer_send) = duplex()
    transport = JsonRpcLineTransport(*client_side)
    deep = b'{"jsonrpc":"2.0","method":"x","params":{"a":' + b"[" * 1100 + b"]" * 1100 + b"}}\n"
    buffer = bytearray()
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        with anyio.fail_after(10):
            results: list[Any] = []

            async def call() -> None:
                results.append(await transport.request("ping"))

            tg.start_soon(call)
            request = await next_frame(peer_receive, buffer)
            await peer_send.send(deep)
            await peer_send.send(deep[:-1] + b"\r\n")
            await peer_send.send(line({"jsonrpc": "2.0", "id": request["id"], "result": "pong"}))
            while not results:
                await anyio.sleep(0.01)
        assert results == ["pong"]
        assert transport.malformed_lines == 2 and transport.closed is None
        transport.close()


async def test_a_raising_notification_handler_does_not_stop_reading() -> None:
    client_side, (_peer_receive, peer_send) = duplex()
    seen: list[str] = []

    def handler(notification: Notification) -> None:
        seen.append(notification.method)
        if notification.method == "boom":
            raise RecursionError("maximum recursion depth exceeded")

    transport = JsonRpcLineTransport(*client_side, on_notification=handler)
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer_send.send(line({"jsonrpc": "2.0", "method": "boom"}))
        await peer_send.send(line({"jsonrpc": "2.0", "method": "after"}))
        with anyio.fail_after(5):
            while len(seen) < 2:
                await anyio.sleep(0.01)
        assert seen == ["boom", "after"] and transport.handler_errors == 1
        assert transport.closed is None
        transport.close()


async def _send_long_line(send: Any, size: int, *, tail: bytes = b"") -> None:
    """A notification whose one string param is ``size`` bytes, sent in 64 KiB chunks."""
    await send.send(b'{"jsonrpc":"2.0","method":"big","params":{"s":"')
    block = b"x" * CHUNK
    for _ in range(size // CHUNK):
        await send.send(block)
        await anyio.lowlevel.checkpoint()
    await send.send(b'"}}\n' + tail)


async def test_a_100_mb_line_fails_fast_with_a_clear_error() -> None:
    client_side, (peer_receive, peer_send) = duplex()
    transport = JsonRpcLineTransport(*client_side)
    buffer = bytearray()
    failures: list[BaseException] = []
    started = time.monotonic()
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)

        async def call() -> None:
            try:
                await transport.request("ping")
            except TransportClosed as exc:
                failures.append(exc)

        tg.start_soon(call)
        await next_frame(peer_receive, buffer)
        with anyio.fail_after(30):
            with anyio.move_on_after(25):
                await _send_long_line(peer_send, 100 * 1024 * 1024)
            await transport.wait_closed()
            while not failures:
                await anyio.sleep(0.01)
    elapsed = time.monotonic() - started
    assert "max_line_bytes" in str(failures[0]) and "newline" in str(failures[0])
    assert elapsed < 20, elapsed


async def test_a_long_line_under_the_bound_is_read_in_linear_time() -> None:
    client_side, (_peer_receive, peer_send) = duplex()
    got: list[Notification] = []
    transport = JsonRpcLineTransport(*client_side, on_notification=got.append, max_line_bytes=2**30)
    size = 48 * 1024 * 1024
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        started = time.monotonic()
        with anyio.fail_after(30):
            await _send_long_line(peer_send, size, tail=line({"jsonrpc": "2.0", "method": "n"}))
            while len(got) < 2:
                await anyio.sleep(0.01)
        elapsed = time.monotonic() - started
        transport.close()
    assert len(got[0].params["s"]) == size and got[1].method == "n"
    assert elapsed < 10, elapsed


async def test_a_small_bound_is_honoured_for_a_complete_line_too() -> None:
    client_side, (_peer_receive, peer_send) = duplex()
    transport = JsonRpcLineTransport(*client_side, max_line_bytes=1000)
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer_send.send(line({"jsonrpc": "2.0", "method": "big", "params": {"s": "y" * 2000}}))
        with anyio.fail_after(5):
            await transport.wait_closed()
    assert transport.closed is not None and "1000 bytes" in str(transport.closed)


class ExplodingStream:
    """A receive stream that fails with an unexpected error after its first frame."""

    def __init__(self, first: bytes) -> None:
        self.first: bytes | None = first

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self.first is not None:
            data, self.first = self.first, None
            return data
        await anyio.sleep(0.05)
        raise RuntimeError("the pipe went strange")

    async def aclose(self) -> None:
        pass


async def test_a_failing_stream_fails_pending_requests_instead_of_hanging() -> None:
    from dsh_notebook import HarnessClient

    _client_side, (_peer_receive, peer_send) = duplex()
    ready = line({"jsonrpc": "2.0", "method": "hello"})
    client = HarnessClient(streams=(ExplodingStream(ready), peer_send))  # type: ignore[arg-type]
    await client.start()
    with anyio.fail_after(5), pytest.raises(TransportClosed, match="pipe went strange"):
        await client.request("ping", timeout=None)
    await client.aclose()


async def test_write_failure_and_oversized_line_carry_the_stderr_tail() -> None:
    client_side, (peer_receive, _peer_send) = duplex()
    transport = JsonRpcLineTransport(*client_side, diagnostics=lambda: "runtime: out of memory")
    await peer_receive.aclose()  # the runtime's stdin is gone
    with pytest.raises(TransportClosed) as info:
        await transport.request("ping")
    assert info.value.stderr_tail == "runtime: out of memory"

    client_side, (_peer_receive, peer_send) = duplex()
    transport = JsonRpcLineTransport(
        *client_side, max_line_bytes=1024, diagnostics=lambda: "runtime: dumping state"
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer_send.send(b"x" * 5000)
        with anyio.fail_after(5):
            await transport.wait_closed()
    assert transport.closed is not None and "dumping state" in str(transport.closed)
