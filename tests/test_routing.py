"""Routing by session tree and bounded subscriptions."""

from __future__ import annotations

import anyio
import pytest

from dsh_notebook.client.routing import END, Router
from dsh_notebook.errors import SdkProtocolError
from dsh_notebook.protocol import Notification


def ev(session: str, kind: str = "x") -> Notification:
    return Notification("session.event", {"sessionId": session, "event": {"type": kind}})


def test_tree_routing_follows_subagents_recursively() -> None:
    router = Router()
    root = router.subscribe(["root"])
    other = router.subscribe(["other"])
    everything = router.subscribe(None)
    router.dispatch(ev("child"))  # before it is known: not the root's
    router.dispatch(
        Notification("subagent.started", {"parentSessionId": "root", "childSessionId": "child"})
    )
    router.dispatch(
        Notification(
            "subagent.started", {"parentSessionId": "child", "childSessionId": "grandchild"}
        )
    )
    router.dispatch(ev("grandchild"))
    router.dispatch(ev("other"))
    router.dispatch(Notification("bridge.ready", {}))
    got = [root.get_nowait() for _ in range(len(root))]
    assert [n.method for n in got if isinstance(n, Notification)] == [
        "subagent.started",
        "subagent.started",
        "session.event",
    ]
    assert len(other) == 1 and len(everything) == 6
    assert router.descendants("root") == {"root", "child", "grandchild"}
    # a later subscription to the root includes the known descendants at once
    late = router.subscribe(["root"])
    router.dispatch(ev("grandchild"))
    assert len(late) == 1


def test_overflow_fails_the_subscription_not_the_others() -> None:
    router = Router()
    small = router.subscribe(["s"], maxsize=3)
    big = router.subscribe(["s"], maxsize=100)
    for _ in range(5):
        router.dispatch(ev("s"))
    # overflow fails fast: the consumer does not first wade through a stale buffer
    assert len(small) == 0
    with pytest.raises(SdkProtocolError, match="overflow"):
        small.get_nowait()
    assert len(big) == 5


def test_unmatched_notifications_are_dropped_not_queued() -> None:
    router = Router()
    sub = router.subscribe(["a"])
    for _ in range(1000):
        router.dispatch(ev("b"))
    assert len(sub) == 0 and router.dropped == 1000
    sub.close()
    router.dispatch(ev("a"))
    assert router.dropped == 1001


@pytest.mark.anyio
async def test_receive_waits_and_end_marker_is_ordered() -> None:
    router = Router()
    sub = router.subscribe(["a"])
    received: list[object] = []

    async def consume() -> None:
        while True:
            item = await sub.receive()
            received.append(item)
            if item is END:
                return

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await anyio.sleep(0.01)
        router.dispatch(ev("a", "one"))
        router.dispatch(ev("a", "two"))
        sub.put_end()
    assert [getattr(r, "params", {}).get("event", {}).get("type") for r in received[:2]] == [
        "one",
        "two",
    ]
    assert received[2] is END
