"""Issue 13 item 11: kept notifications are compact (the bench prints the figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from dsh_notebook.client.results import EventList, build_result
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
