"""The run widget, Python side: clicks through ipywidgets' dispatcher, the message budget, the delta
protocol (replayed here, and exported as the fixture the JavaScript tests replay), the text repr.

Messages reach the widget exactly as a browser's do: the comm receives a ``comm_msg`` whose
``data`` is ``{"method": "custom", "content": ...}`` and hands it to ipywidgets'
``Widget._handle_msg``, which dispatches it to the callbacks registered with ``on_msg``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("anywidget")


from dsh_notebook.protocol import Notification
from dsh_notebook.testing.comms import RecordingComm
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import ApprovalDecided, ApprovalRequested, QuestionAsked, Settled
from dsh_notebook.widget import GONE, RunWidget, apply_ops, diff_snapshots

from .helpers.transcripts import (
    chunk_frame,
    event,
    notifications,
    prompted_sessions,
    tool_call,
    with_live_frames,
)

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures" / "deltas.json"


def recorder() -> tuple[list[dict[str, Any]], Callable[[dict[str, Any]], str | None]]:
    """``on_action`` that records each call and reports success."""
    calls: list[dict[str, Any]] = []

    def on_action(action: dict[str, Any]) -> str | None:
        calls.append(action)
        return None

    return calls, on_action


def widget_of(w: RunWidget) -> RecordingComm:
    c = w.comm
    assert isinstance(c, RecordingComm)
    return c


def acks(c: RecordingComm) -> list[dict[str, Any]]:
    return [
        d["content"]
        for d in c.updates()
        if d.get("method") == "custom" and d["content"].get("type") == "ack"
    ]


class ViewReplica:
    """What a view holds, rebuilt from the messages the widget sent (the JS store, in Python)."""

    def __init__(self, c: RecordingComm) -> None:
        self.comm = c
        self.snapshot: dict[str, Any] = {}
        self.seen = 0
        self.deltas: list[dict[str, Any]] = []
        for kind, data in c.published:
            if kind == "comm_open":
                self.snapshot = data["state"].get("snapshot") or {}

    def catch_up(self) -> dict[str, Any]:
        for data in self.comm.updates()[self.seen :]:
            if data.get("method") == "update" and "snapshot" in data.get("state", {}):
                self.snapshot = data["state"]["snapshot"]
                assert data["state"]["seq"] == self.snapshot["seq"]
            elif data.get("method") == "custom" and data["content"].get("type") == "delta":
                delta = data["content"]
                assert delta["base"] == self.snapshot.get("seq", 0), "a delta that does not fit"
                self.snapshot = apply_ops(self.snapshot, delta["ops"])
                assert self.snapshot["seq"] == delta["seq"]
                self.deltas.append(delta)
        self.seen = len(self.comm.updates())
        return self.snapshot


def waiting_transcript() -> Transcript:
    """A run with one pending approval (a1) and one pending question (q2, two questions)."""
    t = Transcript("s", prompt="do it")
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    t.apply(tool_call("s", "call-1", "bash", {"command": "touch /tmp/x"}))
    t.apply_local(
        ApprovalRequested(
            request_id="a1", session_id="s", tool_name="bash", call_id="call-1", reason="escalate"
        )
    )
    t.apply_local(
        QuestionAsked(
            request_id="q2",
            session_id="s",
            questions=[
                {
                    "id": "color",
                    "question": "Which color?",
                    "options": [{"label": "red"}, {"label": "blue"}],
                },
                {
                    "id": "extras",
                    "question": "Extras?",
                    "multiSelect": True,
                    "options": [{"label": "grid"}, {"label": "legend"}],
                },
            ],
        )
    )
    return t


# -- clicks --------------------------------------------------------------------------------------


def test_the_dispatcher_is_not_overridden() -> None:
    for cls in RunWidget.__mro__:
        if cls.__module__.startswith("dsh_notebook"):
            assert "_handle_custom_msg" not in vars(cls)


def test_an_approval_click_is_forwarded_exactly_once(recording_comms: list[RecordingComm]) -> None:
    calls, on_action = recorder()
    w = RunWidget(waiting_transcript().snapshot(), on_action=on_action)
    c = widget_of(w)
    click = {"type": "approval", "request_id": "a1", "decision": "allowed-once"}
    c.receive(click)
    c.receive(click)  # a double click
    c.receive({**click, "decision": "rejected"})  # another view, later
    assert calls == [{"type": "approval", "request_id": "a1", "decision": "allowed-once"}]
    first, second, third = acks(c)
    assert first == {
        "type": "ack",
        "action": "approval",
        "request_id": "a1",
        "ok": True,
        "error": None,
    }
    assert not second["ok"] and "already decided" in second["error"]
    assert not third["ok"]


def test_reject_answer_dismiss_and_stop(recording_comms: list[RecordingComm]) -> None:
    calls, on_action = recorder()
    w = RunWidget(waiting_transcript().snapshot(), on_action=on_action)
    c = widget_of(w)
    c.receive({"type": "approval", "request_id": "a1", "decision": "rejected"})
    c.receive(
        {
            "type": "answer",
            "request_id": "q2",
            "answers": [
                {"id": "extras", "selected": ["grid", "legend"], "custom": "  "},
                {"id": "color", "selected": ["blue"], "custom": "navy, really", "extra": 1},
            ],
        }
    )
    c.receive({"type": "dismiss", "request_id": "q2"})  # the question was answered already
    c.receive({"type": "stop"})
    c.receive({"type": "stop"})
    assert calls == [
        {"type": "approval", "request_id": "a1", "decision": "rejected"},
        {
            "type": "answer",
            "request_id": "q2",
            "answers": [
                {"id": "color", "selected": ["blue"], "custom": "navy, really"},
                {"id": "extras", "selected": ["grid", "legend"]},
            ],
        },
        {"type": "stop"},
    ]
    assert [a["ok"] for a in acks(c)] == [True, True, False, True, False]


@pytest.mark.parametrize(
    ("decision", "outcome"),
    [
        ("allowed-once", "allowed-once"),
        ("rejected", "rejected"),
        ("cancelled", "cancelled"),
    ],
)
def test_the_callback_receives_the_protocol_outcome(
    recording_comms: list[RecordingComm], decision: str, outcome: str
) -> None:
    calls, on_action = recorder()
    c = widget_of(RunWidget(waiting_transcript().snapshot(), on_action=on_action))
    c.receive({"type": "approval", "request_id": "a1", "decision": decision})
    assert calls == [{"type": "approval", "request_id": "a1", "decision": outcome}]
    assert acks(c)[0]["ok"] is True


@pytest.mark.parametrize(
    "decision", ["unavailable", "always", True, None, "Allowed-once", "allow", "reject"]
)
def test_a_decision_outside_the_outcomes_is_refused(
    recording_comms: list[RecordingComm], decision: object
) -> None:
    calls, on_action = recorder()
    c = widget_of(RunWidget(waiting_transcript().snapshot(), on_action=on_action))
    c.receive({"type": "approval", "request_id": "a1", "decision": decision})
    assert calls == []
    assert "decision must be" in acks(c)[0]["error"]


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"type": "approval", "request_id": "a9", "decision": "allowed-once"}, GONE),
        ({"type": "approval", "request_id": "q2", "decision": "allowed-once"}, GONE),
        ({"type": "approval", "request_id": "a1", "decision": "always"}, "decision must be"),
        (
            {
                "type": "answer",
                "request_id": "q2",
                "answers": [{"id": "color", "selected": ["red"]}],
            },
            "every question exactly once",
        ),
        (
            {
                "type": "answer",
                "request_id": "q2",
                "answers": [
                    {"id": "color", "selected": ["green"]},
                    {"id": "extras", "selected": []},
                ],
            },
            "not offered",
        ),
        (
            {
                "type": "answer",
                "request_id": "q2",
                "answers": [
                    {"id": "color", "selected": ["red", "blue"]},
                    {"id": "extras", "selected": []},
                ],
            },
            "only one option",
        ),
        ({"type": "dismiss", "request_id": "a1"}, GONE),
        ({"type": "explode"}, "unknown action"),
        ({"type": "approval"}, "decision must be"),
        ({"type": "approval", "request_id": None, "decision": "allowed-once"}, GONE),
    ],
)
def test_bad_or_stale_clicks_do_nothing_and_say_so(
    recording_comms: list[RecordingComm], message: dict[str, Any], error: str
) -> None:
    calls, on_action = recorder()
    w = RunWidget(waiting_transcript().snapshot(), on_action=on_action)
    c = widget_of(w)
    c.receive(message)
    assert calls == []
    (ack,) = acks(c)
    assert not ack["ok"] and error in ack["error"]


def test_a_decided_or_settled_request_is_gone(recording_comms: list[RecordingComm]) -> None:
    t = waiting_transcript()
    calls, on_action = recorder()
    w = RunWidget(t.snapshot(), on_action=on_action)
    t.apply_local(ApprovalDecided(request_id="a1", outcome="rejected", decided_by="timeout"))
    w.update(t.snapshot())
    t.apply_local(Settled(finish_reason="completed"))
    w.update(t.snapshot())
    c = widget_of(w)
    c.receive({"type": "approval", "request_id": "a1", "decision": "allowed-once"})
    c.receive({"type": "dismiss", "request_id": "q2"})
    c.receive({"type": "stop"})
    assert calls == []
    assert [a["ok"] for a in acks(c)] == [False, False, False]
    assert acks(c)[0]["error"] == GONE


def test_on_action_errors_reach_the_card(recording_comms: list[RecordingComm]) -> None:
    answers = iter(["this request is no longer pending (kernel restarted)"])
    w = RunWidget(waiting_transcript().snapshot(), on_action=lambda a: next(answers))
    c = widget_of(w)
    c.receive({"type": "approval", "request_id": "a1", "decision": "allowed-once"})
    c.receive({"type": "dismiss", "request_id": "q2"})  # on_action raises StopIteration
    first, second = acks(c)
    assert first["error"] == "this request is no longer pending (kernel restarted)"
    assert not second["ok"] and second["error"].startswith("could not deliver: StopIteration")


def test_without_a_kernel_or_in_wait_mode_clicks_are_refused(
    recording_comms: list[RecordingComm],
) -> None:
    c = widget_of(RunWidget(waiting_transcript().snapshot()))
    c.receive({"type": "approval", "request_id": "a1", "decision": "allowed-once"})
    assert "not connected" in acks(c)[0]["error"]
    calls, on_action = recorder()
    w = RunWidget(
        waiting_transcript().snapshot(),
        on_action=on_action,
        interactive=False,
    )
    widget_of(w).receive({"type": "approval", "request_id": "a1", "decision": "allowed-once"})
    assert calls == [] and "prompt below the cell" in acks(widget_of(w))[0]["error"]


def test_malformed_messages_are_ignored(recording_comms: list[RecordingComm]) -> None:
    calls, on_action = recorder()
    w = RunWidget(waiting_transcript().snapshot(), on_action=on_action)
    c = widget_of(w)
    c.handle_msg({"content": {"data": {"method": "custom", "content": "allow"}}, "buffers": []})
    c.handle_msg({"content": {"data": {"method": "custom", "content": ["x"]}}, "buffers": []})
    assert calls == [] and acks(c) == []


# -- updates, the budget, the protocol -------------------------------------------------------


def flood(n: int) -> list[Notification]:
    """``n`` notifications: streamed text in several blocks, reasoning, tool calls, unknown events."""
    out: list[Notification] = [
        Notification("session.status", {"sessionId": "s", "status": "running"})
    ]
    for i in range(n - 1):
        block = i // 2500
        if i % 500 == 499:
            out.append(tool_call("s", f"call-{i}", "bash", {"command": f"echo {i}"}))
        elif i % 97 == 0:
            out.append(event("s", "plugin:flood", {"n": i}))
        elif i % 7 == 0:
            out.append(
                chunk_frame(
                    "s", f"a{block}", 0, {"type": "reasoning-delta", "index": 0, "text": f"r{i} "}
                )
            )
        else:
            text = f"word{i} " if i % 50 else f"\n\n## part {i}\n\n```python\nprint({i})\n```\n\n"
            out.append(
                chunk_frame("s", f"a{block}", 1, {"type": "text-delta", "index": 1, "text": text})
            )
    return out


def test_ten_thousand_updates_stay_within_the_message_budget(
    recording_comms: list[RecordingComm],
) -> None:
    t = Transcript("s", prompt="flood")
    w = RunWidget(t.snapshot(), on_action=lambda a: None)
    c = widget_of(w)
    view = ViewReplica(c)
    before = len(c.updates())
    start = time.monotonic()
    for note in flood(10_000):
        t.apply(note)
        w.update(t.snapshot())
    t.apply_local(Settled(finish_reason="completed"))
    w.update(t.snapshot(), final=True)
    deadline = time.monotonic() + 2
    while w.pending and time.monotonic() < deadline:
        time.sleep(0.01)
    elapsed = time.monotonic() - start
    sent = len(c.updates()) - before
    assert not w.pending
    assert sent <= 20 * elapsed + 2, f"{sent} messages in {elapsed:.2f} s"
    assert sent >= 2
    assert w.messages_sent == sent
    final = t.snapshot()
    assert w.snapshot == final and w.seq == final["seq"]
    assert view.catch_up() == final
    assert c.updates()[-1]["method"] == "update"  # the final state is a full trait sync


def test_a_throttled_update_is_sent_by_the_timer(recording_comms: list[RecordingComm]) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=10)
    c = widget_of(w)
    view = ViewReplica(c)
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    w.update(t.snapshot())  # sent at once (first update: a full sync)
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "hello"}))
    w.update(t.snapshot())  # throttled
    assert w.pending
    deadline = time.monotonic() + 2
    while w.pending and time.monotonic() < deadline:
        time.sleep(0.01)
    assert view.catch_up() == t.snapshot()
    assert "items" in [d["op"] for d in view.deltas[-1]["ops"]]


def test_streamed_text_travels_as_appends(recording_comms: list[RecordingComm]) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=1e9)
    c = widget_of(w)
    view = ViewReplica(c)
    for i in range(200):
        t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": f"w{i} "}))
        w.update(t.snapshot())
    assert view.catch_up() == t.snapshot()
    appends = [op for d in view.deltas for op in d["ops"] if op["op"] == "append"]
    assert len(appends) == 199 and all(len(op["text"]) <= 5 for op in appends)
    # bytes follow the text, not the transcript size times the updates
    assert c.nbytes < 200 * 400


def test_resync_sends_the_whole_snapshot(recording_comms: list[RecordingComm]) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=1e9)
    c = widget_of(w)
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "x"}))
    w.update(t.snapshot())
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "y"}))
    w.update(t.snapshot())
    assert c.updates()[-1]["content"]["type"] == "delta"
    c.receive({"type": "resync", "seq": 0})
    last = c.updates()[-1]
    assert last["method"] == "update" and last["state"]["snapshot"] == t.snapshot()
    assert last["state"]["seq"] == t.seq
    # and deltas go on from there
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "z"}))
    w.update(t.snapshot())
    assert c.updates()[-1]["content"]["base"] == last["state"]["seq"]


def test_a_new_widget_sends_full_syncs_at_first_so_a_late_view_needs_no_resync(
    recording_comms: list[RecordingComm],
) -> None:
    """A page's view starts once its module loaded; the deltas before that are lost, and the
    resync it would ask waits for a busy kernel. In its first second the widget sends the whole
    (small) snapshot instead, so a view that starts late holds the newest state; then deltas."""
    now = [0.0]
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=1e9, clock=lambda: now[0], full_sync_for=1.0)
    c = widget_of(w)
    for i in range(5):
        now[0] = 0.1 * i
        t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": f"w{i} "}))
        w.update(t.snapshot())
    early = c.updates()
    assert [u["method"] for u in early] == ["update"] * 5
    # a view that started only now, having missed all of it, reads the newest state
    assert early[-1]["state"]["snapshot"] == t.snapshot()
    now[0] = 1.5
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "late "}))
    w.update(t.snapshot())
    assert c.updates()[-1]["content"]["type"] == "delta"
    assert c.updates()[-1]["content"]["base"] == early[-1]["state"]["seq"]


def test_early_full_syncs_stop_once_the_snapshot_is_large(
    recording_comms: list[RecordingComm],
) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=1e9, clock=lambda: 0.0, full_sync_for=1.0)
    c = widget_of(w)
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "x" * 40_000}))
    w.update(t.snapshot())
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "y"}))
    w.update(t.snapshot())
    assert c.updates()[-1]["content"]["type"] == "delta"  # not 40 KB again for one character


def test_a_reconnecting_frontend_gets_the_newest_state(
    recording_comms: list[RecordingComm],
) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot(), max_rate=1e9)
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "hello"}))
    w.update(t.snapshot())
    time.sleep(0.05)
    state = w.get_state()
    assert state["snapshot"] == t.snapshot() and state["seq"] == t.seq
    assert state["elapsed"] >= 0.05


def test_updates_from_another_thread(recording_comms: list[RecordingComm]) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot())
    c = widget_of(w)
    view = ViewReplica(c)

    def pump() -> None:
        for i in range(300):
            t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": f"{i} "}))
            w.update(t.snapshot())
        w.update(t.snapshot(), final=True)

    thread = threading.Thread(target=pump)
    thread.start()
    for _ in range(50):  # clicks on the main thread meanwhile
        c.receive({"type": "stop"})
    thread.join()
    deadline = time.monotonic() + 2
    while w.pending and time.monotonic() < deadline:
        time.sleep(0.01)
    assert view.catch_up() == t.snapshot()


def test_close_stops_everything(recording_comms: list[RecordingComm]) -> None:
    t = Transcript("s")
    w = RunWidget(t.snapshot())
    c = widget_of(w)
    w.update(t.snapshot())
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    w.update(t.snapshot())
    w.close()
    count = len(c.published)
    w.update(t.snapshot())
    time.sleep(0.1)
    assert len(c.published) == count
    assert c.published[-1][0] == "comm_close"
    assert "0x" not in repr(w)


def test_text_plain_is_the_summary_and_says_why_the_widget_is_not_shown(
    recording_comms: list[RecordingComm],
) -> None:
    t = waiting_transcript()
    w = RunWidget(t.snapshot())
    data, _ = w._repr_mimebundle_()
    plain = data["text/plain"]
    assert "0x" not in plain
    summary, note = plain.split("\n")
    assert summary == t.summary_line()
    # the fallback an untrusted copy shows: what is happening and what to do
    assert "not trusted" in note and "Trust Notebook" in note and "jupyter trust" in note
    assert "transcript replaces this" in note
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "0x" not in repr(RunWidget()) and "\n" not in repr(RunWidget())


def test_diff_skips_unchanged_nodes_and_handles_every_shape() -> None:
    old: dict[str, Any] = {
        "seq": 1,
        "items": [{"kind": "text", "id": "i1", "rev": 1, "text": "a"}],
        "x": 1,
    }
    new: dict[str, Any] = {
        "seq": 3,
        "items": [
            {"kind": "tool", "id": "i2", "rev": 3, "result": None},
            {"kind": "text", "id": "i1", "rev": 3, "text": "ab", "truncated": True},
        ],
    }
    ops = diff_snapshots(old, new)
    assert apply_ops(old, ops) == new
    assert {op["op"] for op in ops} == {"set", "items", "append", "del"}
    # an unchanged rev means an unchanged node: nothing is sent for it
    assert diff_snapshots(new, {**new, "seq": 4}) == [{"op": "set", "path": ["seq"], "value": 4}]
    # a node that changed kind under the same id is replaced whole
    swapped = {**new, "items": [{"kind": "note", "id": "i2", "rev": 5}, new["items"][1]]}
    assert apply_ops(new, diff_snapshots(new, swapped)) == swapped


# -- the fixture the JavaScript tests replay ---------------------------------------------------


def _fixture() -> dict[str, Any]:
    """Deltas of real captures replayed live (every notification published), then settled."""
    runs = []
    for name in ("approval_allowed_once", "subagent"):
        session_id = prompted_sessions(name)[0]
        t = Transcript(session_id, prompt="fixture")
        sent: list[dict[str, Any]] = []
        initial = t.snapshot()
        before = initial
        for note in with_live_frames(notifications(name)):
            if t.apply(note):
                snap = t.snapshot()
                sent.append(
                    {"base": before["seq"], "seq": snap["seq"], "ops": diff_snapshots(before, snap)}
                )
                before = snap
        t.apply_local(Settled(finish_reason="completed"))
        snap = t.snapshot()
        sent.append(
            {"base": before["seq"], "seq": snap["seq"], "ops": diff_snapshots(before, snap)}
        )
        runs.append({"name": name, "initial": initial, "deltas": sent, "final": snap})
    return {"runs": runs}


def test_js_delta_fixture_is_current() -> None:
    fixture = _fixture()
    for run in fixture["runs"]:
        snap = run["initial"]
        for delta in run["deltas"]:
            assert delta["base"] == snap["seq"]
            snap = apply_ops(snap, delta["ops"])
        assert snap == run["final"]
    kinds = {op["op"] for run in fixture["runs"] for d in run["deltas"] for op in d["ops"]}
    assert {"set", "append", "items"} <= kinds
    text = json.dumps(fixture, separators=(",", ":"), ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(text)
    assert FIXTURE.exists() and FIXTURE.read_text() == text, (
        "js/test/fixtures/deltas.json is stale: rerun with UPDATE_GOLDEN=1"
    )


def test_sent_messages_have_exactly_the_keys_of_their_types(
    recording_comms: list[RecordingComm],
) -> None:
    """``widget/_messages.py`` describes what is sent: same keys, ``type`` as the discriminator."""
    from typing import get_type_hints

    from dsh_notebook.widget import _messages

    t = Transcript("s")
    w = RunWidget(t.snapshot(), on_action=lambda action: None, max_rate=1e9)
    c = widget_of(w)
    w.update(t.snapshot())
    t.apply(chunk_frame("s", "a", 0, {"type": "text-delta", "index": 0, "text": "hi"}))
    w.update(t.snapshot())
    c.receive({"type": "stop"})
    sent = [d["content"] for d in c.updates() if d.get("method") == "custom"]
    kinds = {"delta": _messages.DeltaMessage, "ack": _messages.AckMessage}
    assert sorted({m["type"] for m in sent}) == ["ack", "delta"]
    for message in sent:
        assert set(message) == set(get_type_hints(kinds[message["type"]])), message
    ops = [op for m in sent if m["type"] == "delta" for op in m["ops"]]
    op_types = {
        "set": _messages.SetOp,
        "del": _messages.DelOp,
        "append": _messages.AppendOp,
        "items": _messages.ItemsOp,
    }
    assert ops
    for op in ops:
        assert set(op) == set(get_type_hints(op_types[op["op"]])), op
