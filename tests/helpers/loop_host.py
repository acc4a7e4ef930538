"""A run registry and notebook tools on a loop of their own, and the runtime notifications they read."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from dsh_notebook.kernel.registry.broker import Broker
from dsh_notebook.kernel.registry.runs import Runs
from dsh_notebook.kernel.tools.tool_calls import CallOrigins
from dsh_notebook.kernel.tools.tools_host import NotebookToolsHost
from dsh_notebook.notebook_tools.edits import Grant, Refusal
from dsh_notebook.protocol import SESSION_EVENT, Notification

RUN_PYTHON = "mcp__notebook__run_python"


def event(session: str, kind: str, data: dict[str, Any]) -> Notification:
    return Notification(
        SESSION_EVENT, {"sessionId": session, "event": {"type": kind, "data": data}}
    )


def tool_call(session: str, call_id: str, code: str, name: str = RUN_PYTHON) -> Notification:
    import json

    arguments = json.dumps({"code": code})
    return event(session, "tool/call", {"callId": call_id, "name": name, "arguments": arguments})


class LoopHost:
    """The runtime host's loop, on a thread of its own (what ``RuntimeHost.submit`` offers)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def submit(
        self, func: Callable[[], Coroutine[Any, Any, Any]]
    ) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(func(), self.loop)

    def barrier(self, timeout: float) -> concurrent.futures.Future[Any]:
        """``RuntimeHost.barrier``: here the test observes every event itself before the call,
        so a round trip through the loop is all there is to wait for."""
        return self.submit(lambda: asyncio.sleep(0))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def loop_host() -> Iterator[LoopHost]:
    """A :class:`LoopHost`, stopped after (the ``host`` fixture of ``tests/conftest.py``)."""
    h = LoopHost()
    yield h
    h.stop()


def tools(host: LoopHost, runs: Runs, origins: CallOrigins) -> tuple[NotebookToolsHost, Broker]:
    broker = Broker(runs)
    return NotebookToolsHost(
        None,
        host,
        broker,
        errors={},
        runs=runs,
        origins=origins,
        kernel_loop=None,  # type: ignore[arg-type]
    ), broker


async def approve(tools_host: NotebookToolsHost, code: str) -> Grant | Refusal | None:
    return await tools_host._approve(tool_name="run_python", reason=code, arguments={"code": code})
