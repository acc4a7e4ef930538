"""Issue 13 item 11: kept notifications are compact (the bench prints the figures)."""

from __future__ import annotations

import gc
import importlib.util
import sys
from pathlib import Path

from dsh_notebook.client.results import EventList, NotificationList, build_result
from dsh_notebook.protocol import Notification, SessionEvent

BENCH = Path(__file__).resolve().parents[1] / "bench" / "notification_memory.py"


def load_bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("notification_memory", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_kept_small_notification_costs_well_under_a_kilobyte() -> None:
    bench = load_bench()
    count = 20_000
    lines = bench.make_lines(count)
    old = bench.retained(lambda: bench.before(lines), count)
    new = bench.retained(lambda: bench.after(lines), count)
    assert new < 900, new  # about 740 bytes; it was about 1,750
    assert new < old / 2, (old, new)


def test_event_list_reads_like_a_list_of_session_events() -> None:
    sid = "s"
    notes = [
        Notification(
            "session.event",
            {"sessionId": sid, "event": {"type": "t", "seq": i, "time": 0, "data": {"i": i}}},
        )
        for i in range(5)
    ]
    notes.insert(2, Notification("session.event", {"sessionId": "other", "event": {"type": "x"}}))
    result = build_result(sid, notes)
    events = result.events
    assert isinstance(events, EventList) and len(events) == 5
    assert all(isinstance(e, SessionEvent) for e in events)
    assert [e.seq for e in events] == [0, 1, 2, 3, 4]
    assert events[-1].data == {"i": 4} and [e.seq for e in events[1:3]] == [1, 2]
    assert events == list(events) and events == build_result(sid, notes).events
    assert "5 events" in repr(events)


def _tracked_reachable(root: object) -> int:
    """GC-tracked objects reachable from ``root``, classes not followed: what a full collection
    must traverse for it."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return len(seen)


def _stream(i: int) -> Notification:
    return Notification(
        "session.assistant_stream",
        {
            "sessionId": "s",
            "frame": {"type": "chunk", "index": i, "chunk": {"type": "text-delta", "text": "w "}},
        },
    )


def test_kept_stream_frames_cost_the_garbage_collector_nothing() -> None:
    # A streamed answer is one notification per token. Kept as parsed dicts, a 20,000-token run
    # left ~60,000 tracked objects alive and triggered a full collection of the kernel's heap
    # (100-200 ms with the GIL held) about once a run.
    frames = [_stream(i) for i in range(2_000)]
    event = Notification("session.event", {"sessionId": "s", "event": {"type": "t", "seq": 1}})
    kept = NotificationList([*frames[:1000], event, *frames[1000:]])
    assert _tracked_reachable(kept) < 20
    assert _tracked_reachable([*frames, event]) > 4_000
    # and it still reads as the list it was made from
    assert len(kept) == 2_001 and kept == [*frames[:1000], event, *frames[1000:]]
    assert kept[1000] is event and list(kept.kept()) == [event]
    assert (
        kept[5] == frames[5] and kept[-1] == frames[-1] and kept[999:1001] == [frames[999], event]
    )


def test_a_stream_frame_that_orjson_cannot_write_is_kept_as_it_came() -> None:
    odd = Notification("session.assistant_stream", {"sessionId": "s", "big": 2**70})
    kept = NotificationList([odd])
    assert kept[0] is odd


def test_a_run_result_keeps_its_notifications_compactly() -> None:
    event = Notification(
        "session.event",
        {
            "sessionId": "s",
            "event": {"type": "turn/end", "seq": 2, "data": {"reason": {"kind": "completed"}}},
        },
    )
    result = build_result("s", NotificationList([_stream(0), event]))
    assert result.finish_reason == "completed" and isinstance(
        result.notifications, NotificationList
    )
    assert result.notifications == [_stream(0), event]
