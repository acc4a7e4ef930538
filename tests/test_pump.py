"""The UI pump's cost to the kernel: it wakes at most every few ms, not once per posted item."""

from __future__ import annotations

import itertools
import time
from typing import Any

from dsh_notebook.kernel.showing.pump import DRAIN_INTERVAL, KEEP_SHARE, LiveView, UiPump
from dsh_notebook.kernel.showing.rendering import published_bundle
from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import ApprovalDecided, ApprovalRequested, Settled


def chunk(i: int) -> Notification:
    return Notification("session.assistant_stream", {"sessionId": "s", "frame": {
        "type": "chunk", "attemptId": "a1", "revision": 1, "index": i, "time": 0,
        "chunk": {"type": "text-delta", "index": 0, "text": f"w{i} "}}})  # fmt: skip


def view(published: list[tuple[float, dict[str, Any]]]) -> LiveView:
    return LiveView(
        Transcript("s"), "widget", lambda view, bundle: published.append((time.monotonic(), bundle))
    )


def test_a_stream_of_chunks_wakes_the_pump_per_drain_interval_not_per_chunk() -> None:
    pump = UiPump(max_rate=10.0)
    published: list[tuple[float, dict[str, Any]]] = []
    try:
        live = view(published)
        pump.add(live)
        started = time.monotonic()
        for i in range(3000):  # ~0.6 s of streaming, one chunk at a time
            pump.notification(live, chunk(i))
            if i % 10 == 0:
                time.sleep(0.002)
        pump.settle(live, "stop")
        assert live.done.wait(5)
        elapsed = time.monotonic() - started
    finally:
        pump.stop()
    # at most one wake-up per drain interval (100 per second), not one per chunk (3000)
    assert pump.wakeups <= elapsed / DRAIN_INTERVAL + 4, (pump.wakeups, elapsed)
    assert pump.published <= elapsed * 10 + 3  # publishing keeps its own rate
    final = published[-1][1]["text/markdown"]
    assert "w2999" in final  # nothing lost, in order, settled last
    assert final.index("w0 ") < final.index("w1 ")


def test_the_first_item_after_a_quiet_spell_is_published_at_once() -> None:
    pump = UiPump(max_rate=2.0)  # a 0.5 s slot: a late first publish would show
    published: list[tuple[float, dict[str, Any]]] = []
    try:
        live = view(published)
        pump.add(live)
        assert pump.flush()
        time.sleep(0.6)
        published.clear()
        posted = time.monotonic()
        pump.notification(live, chunk(0))
        deadline = time.monotonic() + 2
        while not published and time.monotonic() < deadline:
            time.sleep(0.005)
        assert published, "never published"
        assert published[0][0] - posted < 0.2
    finally:
        pump.stop()


def test_settle_and_flush_do_not_wait_out_the_rate_limit() -> None:
    pump = UiPump(max_rate=0.5)  # a 2 s slot
    published: list[tuple[float, dict[str, Any]]] = []
    try:
        live = view(published)
        pump.add(live)
        pump.notification(live, chunk(0))
        time.sleep(0.1)  # published at once; the pump now sleeps out its slot
        pump.notification(live, chunk(1))
        started = time.monotonic()
        pump.settle(live, "stop")
        assert live.done.wait(5)
        assert time.monotonic() - started < 1.0
        assert "w1" in published[-1][1]["text/markdown"]
    finally:
        pump.stop()


def test_the_first_streamed_text_does_not_wait_for_the_slot_the_start_took() -> None:
    """The run's start is published when the view is added; its first text, a moment later, is
    published at once (not at the next slot of the rate); later text keeps the rate."""
    pump = UiPump(max_rate=2.0)  # a 0.5 s slot: waiting for it would show
    published: list[tuple[float, dict[str, Any]]] = []
    try:
        live = view(published)
        pump.add(live)
        assert pump.flush()  # the empty view, published just now
        posted = time.monotonic()
        pump.notification(live, chunk(0))
        deadline = posted + 2
        while len(published) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert len(published) == 2, "the first text was never published"
        assert published[1][0] - posted < 0.2, "the first text waited for the rate's slot"
        second = time.monotonic()
        pump.notification(live, chunk(1))
        while len(published) < 3 and time.monotonic() < second + 2:
            time.sleep(0.005)
        assert len(published) == 3
        assert published[2][0] - published[1][0] >= 0.4, "later text must keep the rate"
    finally:
        pump.stop()


def answered() -> Transcript:
    transcript = Transcript("s", prompt="sum the sales")
    for i in range(3):
        transcript.apply(chunk(i))
    transcript.apply_local(Settled(finish_reason="completed"))
    return transcript


def test_a_settled_cell_keeps_its_transcript_once_as_markdown_beside_a_one_line_summary() -> None:
    published: list[dict[str, Any]] = []
    live = LiveView(answered(), "markdown", lambda view, bundle: published.append(bundle))
    live.settled = True
    bundle = published_bundle(live.rendering(), live.fmt, live.settled)
    assert "w0 w1 w2" in bundle["text/markdown"] and "sum the sales" in bundle["text/markdown"]
    summary, pointer = bundle["text/plain"].split("\n")
    assert summary == live.transcript.summary_line() and "settled" in summary
    assert "text/markdown" in pointer and "--format text" in pointer
    assert "w0" not in bundle["text/plain"] and "sum the sales" not in bundle["text/plain"]


def test_a_text_view_still_gets_the_whole_plain_text_transcript() -> None:
    text = LiveView(answered(), "text", lambda view, bundle: None)
    text.settled = True
    bundle = published_bundle(text.rendering(), text.fmt, text.settled)
    assert set(bundle) == {"text/plain"}
    assert bundle["text/plain"] == text.transcript.to_text()
    assert "w0 w1 w2" in bundle["text/plain"] and "sum the sales" in bundle["text/plain"]


def test_a_lone_surrogate_in_the_runtime_text_still_settles_into_a_sendable_transcript() -> None:
    """The runtime's JSON may carry a ``"\\ud800"`` escape: every bundle the pump publishes packs
    as a kernel message does (UTF-8), with U+FFFD, and the settled transcript is published."""
    from jupyter_client.session import json_packer

    pump = UiPump(max_rate=10.0)
    try:
        for fmt in ("widget", "markdown", "text"):
            published: list[dict[str, Any]] = []

            def publish(
                view: LiveView, bundle: dict[str, Any], out: list[dict[str, Any]] = published
            ) -> None:
                json_packer(bundle)  # what ipykernel's session does: raises on a lone surrogate
                out.append(bundle)

            live = LiveView(Transcript("s"), fmt, publish)
            pump.add(live)
            lone = chunk(0)
            lone.params["frame"]["chunk"]["text"] = "half \ud800 a pair"
            pump.notification(live, lone)
            assert pump.flush()
            pump.settle(live, "stop")
            assert live.done.wait(5), fmt
            final = published[-1]
            shown = final.get("text/markdown", final.get("text/plain", ""))
            assert "half \ufffd a pair" in shown, fmt
            assert "snapshot" not in final  # the static transcript replaced the live state
            if fmt == "widget":
                assert any("snapshot" in b for b in published[:-1])  # the live state was sent too
    finally:
        pump.stop()


# -- keeping a live view (Restart & Run All after a kernel restart mid-run) --------------------


def keeping(
    keep_every: float, *, ready: bool = True
) -> tuple[UiPump, LiveView, list[tuple[float, str]]]:
    """A pump and a view whose keeps are recorded as (time, markdown kept)."""
    pump = UiPump(max_rate=10.0, keep_every=keep_every)
    kept: list[tuple[float, str]] = []

    def keep(view: LiveView) -> bool:
        if not ready:
            return False
        kept.append((time.monotonic(), view.transcript.to_markdown()))
        return True

    live = LiveView(Transcript("s", prompt="sum the sales"), "markdown", lambda view, bundle: None)
    live.keep = keep
    pump.add(live)
    return pump, live, kept


def card(request_id: str) -> dict[str, Any]:
    return {"request_id": request_id, "session_id": "s", "tool_name": "run_python"}


def test_a_live_view_is_kept_at_once_then_at_most_every_keep_every_and_its_last_change_too() -> (
    None
):
    pump, live, kept = keeping(0.5)
    try:
        started = time.monotonic()
        for i in range(40):  # 0.8 s of streaming
            pump.notification(live, chunk(i))
            time.sleep(0.02)
        time.sleep(0.8)  # nothing follows the last chunk: it is kept all the same
    finally:
        pump.stop()
    times = [t for t, _ in kept]
    assert times and times[0] - started < 0.2  # the first change at once
    assert all(b - a >= 0.45 for a, b in itertools.pairwise(times)), times  # render jitter
    assert len(times) <= 3, times
    assert "w39" in kept[-1][1]  # the last change of the burst


def test_a_card_that_starts_waiting_is_kept_at_once_and_a_settled_view_never_by_keep() -> None:
    pump, live, kept = keeping(60.0)
    try:
        pump.notification(live, chunk(0))
        assert pump.flush()
        time.sleep(0.3)
        assert len(kept) == 1  # the first change; the next slot is a minute away
        # asked and decided in one go (a policy, a scope): nothing waits, nothing extra
        pump.local(live, ApprovalRequested(**card("a1")))
        pump.local(live, ApprovalDecided("a1", outcome="allowed-once", decided_by="policy"))
        assert pump.flush()
        time.sleep(0.3)
        assert len(kept) == 1
        pump.local(live, ApprovalRequested(**card("a2")))  # this one waits for the person
        deadline = time.monotonic() + 2
        while len(kept) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(kept) == 2 and "awaiting a decision" in kept[-1][1]
        pump.local(live, ApprovalDecided("a2", outcome="rejected", decided_by="you"))
        pump.settle(live, "stop")
        assert live.done.wait(5)
        time.sleep(0.3)
    finally:
        pump.stop()
    assert len(kept) == 2  # the settled state is the settle's own to keep (pump.after)


def test_a_keep_that_is_not_ready_is_asked_again_and_nothing_is_counted() -> None:
    pump, live, kept = keeping(60.0, ready=False)
    try:
        pump.notification(live, chunk(0))
        time.sleep(0.4)
        assert pump.kept == 0 and live.keep_due
        live.keep = lambda view: True  # the prompt was accepted meanwhile
        deadline = time.monotonic() + 2
        while pump.kept == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert pump.kept == 1 and not live.keep_due
    finally:
        pump.stop()
    del kept


def test_a_slow_keep_spaces_the_next_one_so_keeping_costs_a_bounded_share() -> None:
    pump = UiPump(max_rate=10.0, keep_every=0.1)
    kept: list[float] = []

    def slow_keep(view: LiveView) -> bool:  # a long transcript: 40 ms to render and write
        time.sleep(0.04)
        kept.append(time.monotonic())
        return True

    live = LiveView(Transcript("s"), "markdown", lambda view, bundle: None)
    live.keep = slow_keep
    pump.add(live)
    try:
        for i in range(50):  # 1 s of changes
            pump.notification(live, chunk(i))
            time.sleep(0.02)
        assert len(kept) == 1  # the next keep waits KEEP_SHARE x 40 ms = 2 s, not 0.1 s
        deadline = time.monotonic() + 3
        while len(kept) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        pump.stop()
    assert len(kept) == 2 and kept[1] - kept[0] >= KEEP_SHARE * 0.04 - 0.05, kept
