"""A frontend link on a comm that records what it sends."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dsh_notebook.frontend.link import FrontendLink

REPLY = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": ["waiting"]}


class FakeComm:
    def __init__(self, target: str, data: Mapping[str, Any]) -> None:
        self.target, self.open_data = target, dict(data)
        self.sent: list[Any] = []
        self.msg: Callable[[Mapping[str, Any]], None] | None = None
        self.close: Callable[[Mapping[str, Any]], None] | None = None

    def send(self, data: Any = None) -> None:
        self.sent.append(data)

    def on_msg(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        self.msg = callback

    def on_close(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        self.close = callback

    def receive(self, data: Any, session: str | None = None) -> None:
        """``data`` from the page whose kernel connection is ``session`` (``None``: no header)."""
        assert self.msg is not None
        header = {} if session is None else {"header": {"session": session}}
        self.msg({"content": {"comm_id": "x", "data": data}, **header})


def make() -> tuple[FrontendLink, list[FakeComm]]:
    comms: list[FakeComm] = []

    def factory(target: str, data: Mapping[str, Any]) -> FakeComm:
        comms.append(FakeComm(target, data))
        return comms[-1]

    return FrontendLink(create_comm=factory), comms
