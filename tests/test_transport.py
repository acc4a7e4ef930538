"""The line transport against a scripted in-memory peer."""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from dsh_notebook.errors import (
    JsonRpcError,
    MethodNotFound,
    RequestTimeout,
    SessionAlreadyExists,
    TransportClosed,
    UnsupportedByRuntime,
)
from dsh_notebook.protocol import Notification
from dsh_notebook.testing.streams import duplex
from dsh_notebook.transport import JsonRpcLineTransport, NoResponse

pytestmark = pytest.mark.anyio


class Peer:
    """The other end: reads our frames, writes raw bytes."""

    def __init__(self, receive: Any, send: Any) -> None:
        self.receive = receive
        self.send = send
        self.buffer = b""

    async def frame(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            self.buffer += await self.receive.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)  # type: ignore[no-any-return]

    async def write(self, data: bytes | dict[str, Any]) -> None:
        if isinstance(data, dict):
            data = (json.dumps(data) + "\n").encode()
        await self.send.send(data)


async def test_request_response_and_notification_order() -> None:
    client_side, peer_side = duplex()
    seen: list[str] = []
    transport = JsonRpcLineTransport(*client_side, on_notification=lambda n: seen.append(n.method))
    peer = Peer(*peer_side)
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        result: list[Any] = []

        async def call() -> None:
            result.append(await transport.request("session/prompt", {"sessionId": "s"}))
            result.append(list(seen))  # notifications before the response were delivered

        tg.start_soon(call)
        req = await peer.frame()
        assert req["method"] == "session/prompt" and req["jsonrpc"] == "2.0"
        await peer.write(
            {"jsonrpc": "2.0", "method": "session.event", "params": {"sessionId": "s"}}
        )
        await peer.write({"jsonrpc": "2.0", "id": req["id"], "result": {"messageId": "m"}})
        await peer.write(b"\n")  # keep the loop spinning
        while len(result) < 2:
            await anyio.sleep(0.01)
        transport.close()
    assert result == [{"messageId": "m"}, ["session.event"]]


async def test_lines_split_across_chunks_crlf_blank_and_huge() -> None:
    client_side, peer_side = duplex()
    got: list[Notification] = []
    transport = JsonRpcLineTransport(*client_side, on_notification=got.append)
    peer = Peer(*peer_side)
    big = "x" * 400_000
    line = json.dumps({"jsonrpc": "2.0", "method": "big", "params": {"text": big}}).encode()
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer.write(line[:10])
        await peer.write(line[10:200_000])
        await peer.write(line[200_000:] + b"\r\n\n   \n")
        await peer.write(b'{"jsonrpc":"2.0","method":"small"}\n')
        while len(got) < 2:
            await anyio.sleep(0.01)
        transport.close()
    assert got[0].params["text"] == big
    assert got[1] == Notification("small", {})
    assert transport.malformed_lines == 0


async def test_malformed_lines_are_counted_not_fatal() -> None:
    client_side, peer_side = duplex()
    got: list[str] = []
    transport = JsonRpcLineTransport(*client_side, on_notification=lambda n: got.append(n.method))
    peer = Peer(*peer_side)
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer.write(b'not json\n[1,2]\n42\n{"jsonrpc":"2.0"}\n{"id":true,"result":1}\n')
        await peer.write({"jsonrpc": "2.0", "id": "unknown-id", "result": {}})  # dropped quietly
        await peer.write({"jsonrpc": "2.0", "method": "after"})
        while not got:
            await anyio.sleep(0.01)
        transport.close()
    assert got == ["after"]
    assert transport.malformed_lines == 5


async def test_error_responses_are_typed() -> None:
    client_side, peer_side = duplex()
    transport = JsonRpcLineTransport(*client_side)
    peer = Peer(*peer_side)
    errors: list[BaseException] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)

        async def call(method: str) -> None:
            try:
                await transport.request(method, {})
            except JsonRpcError as exc:
                errors.append(exc)

        for method in ("a", "b", "c"):
            tg.start_soon(call, method)
        messages = {
            "a": (-32603, "unknown DeepSeek Harness SDK runtime method: a"),
            "b": (-32603, 'session "x" already exists'),
            "c": (-32601, "nope"),
        }
        for _ in range(3):
            req = await peer.frame()
            code, message = messages[req["method"]]
            await peer.write(
                {
                    "jsonrpc": "2.0",
                    "id": req["id"],
                    "error": {"code": code, "message": message, "data": {"k": 1}},
                }
            )
        while len(errors) < 3:
            await anyio.sleep(0.01)
        transport.close()
    by_method = {e.method: e for e in errors if isinstance(e, JsonRpcError)}
    assert isinstance(by_method["a"], UnsupportedByRuntime)
    assert isinstance(by_method["b"], SessionAlreadyExists)
    assert type(by_method["c"]) is MethodNotFound
    assert by_method["b"].code == -32603 and by_method["b"].data == {"k": 1}
    assert "resume_session" in str(by_method["b"])


async def test_incoming_requests_dispatch_and_errors() -> None:
    client_side, peer_side = duplex()
    transport = JsonRpcLineTransport(*client_side)
    peer = Peer(*peer_side)

    async def ok(params: dict[str, Any], request_id: Any) -> Any:
        await anyio.sleep(0.05)  # a slow handler does not block the others
        return {"echo": params}

    async def boom(params: dict[str, Any], request_id: Any) -> Any:
        raise ValueError("handler exploded")

    async def silent(params: dict[str, Any], request_id: Any) -> Any:
        raise NoResponse

    transport.set_request_handler("ok", ok)
    transport.set_request_handler("boom", boom)
    transport.set_request_handler("silent", silent)
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        await peer.write({"jsonrpc": "2.0", "id": 1, "method": "ok", "params": {"a": 1}})
        await peer.write({"jsonrpc": "2.0", "id": "s", "method": "silent"})
        await peer.write({"jsonrpc": "2.0", "id": 2, "method": "boom"})
        await peer.write({"jsonrpc": "2.0", "id": 3, "method": "missing"})
        answers = [await peer.frame() for _ in range(3)]
        with anyio.move_on_after(0.2):
            answers.append(await peer.frame())  # nothing more must come (silent)
        transport.close()
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {1, 2, 3}
    assert by_id[1]["result"] == {"echo": {"a": 1}}
    assert by_id[2]["error"] == {"code": -32603, "message": "handler exploded"}
    assert by_id[3]["error"]["code"] == -32601
    assert [a["id"] for a in answers[:2]] == [2, 3]  # the slow handler answered last


async def test_timeout_and_close_fail_pending() -> None:
    client_side, peer_side = duplex()
    transport = JsonRpcLineTransport(*client_side)
    outcomes: list[BaseException] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        with pytest.raises(RequestTimeout) as info:
            await transport.request("slow", timeout=0.05)
        assert info.value.method == "slow"

        async def pending() -> None:
            try:
                await transport.request("never")
            except TransportClosed as exc:
                outcomes.append(exc)

        tg.start_soon(pending)
        await anyio.sleep(0.05)
        transport.close(TransportClosed("gone", exit_status=3, stderr_tail="boom"))
    assert len(outcomes) == 1 and outcomes[0].exit_status == 3
    assert "boom" in str(outcomes[0])
    with pytest.raises(TransportClosed):
        await transport.request("after-close")
    # the streams were not destroyed: the peer side can still send
    await peer_side[1].send(b"x")


async def test_eof_closes_with_on_eof_error() -> None:
    client_side, peer_side = duplex()
    transport = JsonRpcLineTransport(*client_side)
    failures: list[BaseException] = []

    async def on_eof() -> TransportClosed:
        return TransportClosed("peer exited", exit_status=0)

    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: transport.run(on_eof=on_eof))

        async def pending() -> None:
            try:
                await transport.request("x")
            except TransportClosed as exc:
                failures.append(exc)

        tg.start_soon(pending)
        await anyio.sleep(0.05)
        await peer_side[1].aclose()
    assert failures and failures[0].exit_status == 0


async def test_concurrent_writes_never_interleave() -> None:
    client_side, peer_side = duplex()
    transport = JsonRpcLineTransport(*client_side)
    peer = Peer(*peer_side)
    payload = "y" * 50_000
    async with anyio.create_task_group() as tg:
        tg.start_soon(transport.run)
        for i in range(20):
            tg.start_soon(transport.notify, f"n{i}", {"p": payload})
        frames = [await peer.frame() for _ in range(20)]
        transport.close()
    assert sorted(f["method"] for f in frames) == sorted(f"n{i}" for i in range(20))
    assert all(f["params"]["p"] == payload for f in frames)


async def test_a_write_to_a_gone_peer_fails_with_the_error_eof_would_give() -> None:
    """The runtime died: the write's broken pipe may come before the read side's EOF. The
    request fails with what ``on_eof`` says (exit status, stderr), not a poorer error."""
    client_side, peer_side = duplex()
    receive, send = client_side

    class Broken:
        async def send(self, data: bytes) -> None:
            raise anyio.BrokenResourceError

        async def aclose(self) -> None:
            pass

    transport = JsonRpcLineTransport(receive, Broken())  # type: ignore[arg-type]

    async def on_eof() -> TransportClosed:
        return TransportClosed("the runtime exited unexpectedly", exit_status=3)

    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: transport.run(on_eof=on_eof))
        await anyio.lowlevel.checkpoint()
        with pytest.raises(TransportClosed) as info:
            await transport.request("session/prompt", {"sessionId": "s"})
        tg.cancel_scope.cancel()
    assert info.value.exit_status == 3
    assert "exited unexpectedly" in str(info.value)
    del send, peer_side
