"""In-memory byte stream pairs: the transport seam for tests.

``memory_pipe()`` returns the two ends of one direction; ``duplex()`` returns a client side and a
peer side, each a ``(receive, send)`` pair, wired to each other — hand the client side to
``HarnessClient(streams=…)`` and script the peer side. Unbounded buffers; closing a send end makes
the other end see EOF.
"""

from __future__ import annotations

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["MemoryByteReceiveStream", "MemoryByteSendStream", "duplex", "memory_pipe"]


class MemoryByteSendStream(ByteSendStream):
    def __init__(self, inner: MemoryObjectSendStream[bytes]) -> None:
        self._inner = inner

    async def send(self, item: bytes) -> None:
        await self._inner.send(bytes(item))

    async def send_eof(self) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._inner.aclose()


class MemoryByteReceiveStream(ByteReceiveStream):
    def __init__(self, inner: MemoryObjectReceiveStream[bytes]) -> None:
        self._inner = inner

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return await self._inner.receive()

    async def aclose(self) -> None:
        await self._inner.aclose()


def memory_pipe() -> tuple[MemoryByteSendStream, MemoryByteReceiveStream]:
    """One direction: what is sent on the first end is received on the second."""
    send, receive = anyio.create_memory_object_stream[bytes](max_buffer_size=float("inf"))
    return MemoryByteSendStream(send), MemoryByteReceiveStream(receive)


def duplex() -> tuple[
    tuple[MemoryByteReceiveStream, MemoryByteSendStream],
    tuple[MemoryByteReceiveStream, MemoryByteSendStream],
]:
    """``(client_side, peer_side)``, each ``(receive, send)``, connected crosswise."""
    to_peer_send, to_peer_receive = memory_pipe()
    to_client_send, to_client_receive = memory_pipe()
    return (to_client_receive, to_peer_send), (to_peer_receive, to_client_send)
