"""Agent cells: a run that owns them and a frontend link that records what it sends."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dsh_notebook.frontend.link import FrontendLink
from dsh_notebook.kernel.registry.runs import ActiveRun

from ..run_registry import bare_run


class FakeComm:
    def __init__(self, target: str, data: Mapping[str, Any]) -> None:
        self.sent: list[Any] = []
        self.msg: Callable[[Mapping[str, Any]], None] | None = None

    def send(self, data: Any = None) -> None:
        self.sent.append(data)

    def on_msg(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        self.msg = callback

    def on_close(self, callback: Callable[[Mapping[str, Any]], None]) -> None:
        pass


def linked(capabilities: list[str]) -> tuple[FrontendLink, FakeComm]:
    comms: list[FakeComm] = []

    def factory(target: str, data: Mapping[str, Any]) -> FakeComm:
        comms.append(FakeComm(target, data))
        return comms[-1]

    link = FrontendLink(create_comm=factory)
    link.open()
    reply = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": capabilities}
    assert comms[0].msg is not None
    comms[0].msg({"content": {"data": reply}})
    return link, comms[0]


def Run(cell_id: str | None = "dsh-cell") -> ActiveRun:
    run = bare_run("nb-session", cell_id=cell_id)
    run.run_id = "r1"
    return run
