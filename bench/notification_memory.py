"""Bytes kept per small notification in a ``RunResult``, before and after compaction, side by side.

    python bench/notification_memory.py [--count 200000]

The same ``--count`` small ``session.event`` lines (``plugin:flood``, as the fake runtime's
``flood`` scenario sends) are measured twice in one run with ``tracemalloc`` (retained bytes, after
a full GC, divided by the count):

(a) before: what the client kept until issue 13 — one parsed params dict per notification with its
    own copies of the method, session id and event type strings, plus one pydantic
    ``SessionEvent`` model per root event in ``RunResult.events``;
(b) after: what the client keeps now — the notifications as the transport delivers them (repeated
    short strings shared) and ``RunResult.events`` as a compact ``EventList`` of references.

Prints bytes per notification for (a) and (b), their ratio, and what 1M notifications would hold.
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import anyio
import orjson

from dsh_notebook.client.results import build_result
from dsh_notebook.protocol import Notification, SessionEvent
from dsh_notebook.testing.streams import duplex
from dsh_notebook.transport import JsonRpcLineTransport

SESSION = "0c6f1d2e-5b7a-4c1e-9f3a-2d8b7e6a1c90"


def make_lines(count: int) -> list[bytes]:
    return [
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session.event",
                "params": {
                    "sessionId": SESSION,
                    "event": {
                        "type": "plugin:flood",
                        "seq": i,
                        "time": 1_764_570_000_000 + i,
                        "data": {"index": i, "count": count},
                    },
                },
            }
        )
        + b"\n"
        for i in range(count)
    ]


def retained(build: Callable[[], Any], count: int) -> float:
    gc.collect()
    tracemalloc.start()
    kept = build()
    gc.collect()
    current, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return current / count


def before(lines: list[bytes]) -> Any:
    """The pre-issue-13 representation, rebuilt exactly: parsed dicts + one model per event."""
    notifications = []
    for line in lines:
        frame = orjson.loads(line)
        notifications.append(Notification(frame["method"], frame["params"]))
    events = [SessionEvent.model_validate(n.params["event"]) for n in notifications]
    return notifications, events


def after(lines: list[bytes]) -> Any:
    """Today's path: the real transport delivers the lines, build_result keeps the result."""
    collected: list[Notification] = []

    async def feed() -> None:
        client_side, (_receive, send) = duplex()
        transport = JsonRpcLineTransport(*client_side, on_notification=collected.append)
        async with anyio.create_task_group() as tg:
            tg.start_soon(transport.run)
            for start in range(0, len(lines), 256):
                await send.send(b"".join(lines[start : start + 256]))
            await send.aclose()
            await transport.wait_closed()

    anyio.run(feed)
    return build_result(SESSION, collected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200_000)
    args = parser.parse_args()
    lines = make_lines(args.count)
    a = retained(lambda: before(lines), args.count)
    b = retained(lambda: after(lines), args.count)
    result = after(lines[:10])
    assert len(result.notifications) == 10 and result.events[3].seq == 3
    print(f"small notifications: {args.count}, line size {len(lines[0])} bytes")
    print(f"{'':28}{'before (a)':>14}{'after (b)':>14}")
    print(f"{'bytes per notification':28}{a:14.0f}{b:14.0f}")
    print(f"{'1M notifications (MB)':28}{a * 1e6 / 1e6:14.0f}{b * 1e6 / 1e6:14.0f}")
    print(f"ratio a/b: {a / b:.2f}x")


if __name__ == "__main__":
    main()
