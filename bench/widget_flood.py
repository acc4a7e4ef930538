"""What the run widget sends to the frontend under load (Python side, counting fake comm).

    python bench/widget_flood.py [--events 10000] [--chunks 20000] [--rate 5000]

Two workloads, each through two paths:

- ``flood``: ``--events`` session events (``plugin:flood``, as the fake runtime's ``flood``
  scenario sends them) as fast as they come;
- ``stream``: an answer streamed as ``--chunks`` text deltas, then committed and settled.

Events are produced at ``--rate`` per second (0: as fast as the loop goes), so that the run lasts
long enough for a per-second figure to mean something. Paths: **pump** — the kernel's path: notifications posted to the UI pump (which coalesces to
~10 Hz) publishing a widget view (``widget.update(snapshot)``); **direct** — ``update`` called
once per event in a tight loop (only the widget's own limit, 20 messages per second, applies).

Prints comm messages, messages per second of wall time, bytes of comm messages (the one-time
``comm_open`` carrying the bundled JavaScript is counted apart), the largest message, and checks
that the state a view rebuilds from the messages equals ``Transcript.snapshot()``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import comm

from dsh_notebook.kernel.showing.pump import LiveView, UiPump
from dsh_notebook.protocol import Notification
from dsh_notebook.testing.comms import RecordingComm
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import Settled
from dsh_notebook.widget import RunWidget, apply_ops

SESSION = "bench"


def replay(c: RecordingComm, initial: dict[str, Any]) -> dict[str, Any]:
    snap = initial
    for data in c.updates():
        if data.get("method") == "update" and "snapshot" in data.get("state", {}):
            snap = data["state"]["snapshot"]
        elif data.get("method") == "custom" and data["content"].get("type") == "delta":
            snap = apply_ops(snap, data["content"]["ops"])
    return snap


def status() -> Notification:
    return Notification("session.status", {"sessionId": SESSION, "status": "running"})


def flood_events(n: int) -> list[Notification]:
    return [status()] + [
        Notification(
            "session.event",
            {
                "sessionId": SESSION,
                "event": {"type": "plugin:flood", "seq": i, "time": 0, "data": {"n": i}},
            },
        )
        for i in range(n)
    ]


def stream_chunks(n: int) -> list[Notification]:
    def frame(body: dict[str, Any]) -> Notification:
        return Notification(
            "session.assistant_stream", {"sessionId": SESSION, "frame": {"attemptId": "a1", **body}}
        )

    words = [f"word{i} " if i % 40 else f"\n\nParagraph {i}.\n\n" for i in range(n)]
    out = [status(), frame({"type": "start", "revision": 1, "turn": 1, "step": 1})]
    out += [
        frame({"type": "chunk", "revision": 1, "index": i, "time": 0,
               "chunk": {"type": "text-delta", "index": 0, "text": w}})
        for i, w in enumerate(words)
    ]  # fmt: skip
    message = {"role": "assistant", "content": [{"type": "text", "text": "".join(words)}]}
    out.append(
        Notification(
            "session.event",
            {
                "sessionId": SESSION,
                "event": {"type": "assistant/message", "seq": 1, "time": 0,
                          "data": {"turn": 1, "step": 1, "message": message}},
            },
        )
    )  # fmt: skip
    out.append(frame({"type": "end", "revision": 1, "outcome": {"kind": "committed"}}))
    return out


class WidgetView(LiveView):
    """A live view published to a widget (what the kernel integration does)."""

    def bundle(self) -> dict[str, Any]:
        return {"snapshot": self.transcript.snapshot()}


def paced(notes: list[Notification], rate: float) -> Any:
    """Yield ``notes`` at ``rate`` per second (in batches of 50)."""
    start = time.perf_counter()
    for i, note in enumerate(notes):
        if rate and i % 50 == 0:
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        yield note


def run_pump(notes: list[Notification], rate: float) -> tuple[RecordingComm, dict[str, Any], float]:
    t = Transcript(SESSION, prompt="bench")
    widget = RunWidget(t.snapshot())
    c = widget.comm
    assert isinstance(c, RecordingComm)
    initial = t.snapshot()
    pump = UiPump()
    holder: dict[str, WidgetView] = {}

    def publish(bundle: dict[str, Any]) -> None:
        widget.update(bundle["snapshot"], final=holder["view"].settled)

    view = WidgetView(t, "widget", publish)
    holder["view"] = view
    start = time.perf_counter()
    pump.add(view)
    for note in paced(notes, rate):
        pump.notification(view, note)
    pump.settle(view, "completed")
    pump.flush(timeout=120)
    while widget.pending:
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    pump.stop()
    final = t.snapshot()
    assert replay(c, initial) == final, "a view would not end with the reducer's state"
    return c, final, elapsed


def run_direct(
    notes: list[Notification], rate: float
) -> tuple[RecordingComm, dict[str, Any], float]:
    t = Transcript(SESSION, prompt="bench")
    widget = RunWidget(t.snapshot())
    c = widget.comm
    assert isinstance(c, RecordingComm)
    initial = t.snapshot()
    start = time.perf_counter()
    for note in paced(notes, rate):
        if t.apply(note):
            widget.update(t.snapshot())
    t.apply_local(Settled(finish_reason="completed"))
    widget.update(t.snapshot(), final=True)
    while widget.pending:
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    final = t.snapshot()
    assert replay(c, initial) == final, "a view would not end with the reducer's state"
    return c, final, elapsed


def report(name: str, path: str, c: RecordingComm, final: dict[str, Any], elapsed: float) -> None:
    n = len(c.sizes)
    total = sum(c.sizes)
    snapshot_bytes = len(json.dumps(final, separators=(",", ":")))
    print(
        f"{name:<7} {path:<7} {elapsed:7.2f} s  {n:5d} msgs  {n / elapsed:5.1f} msg/s  "
        f"{total / 1024:8.1f} KiB  ({total / elapsed / 1024:7.1f} KiB/s)  "
        f"largest {max(c.sizes) / 1024:6.1f} KiB  final snapshot {snapshot_bytes / 1024:6.1f} KiB  "
        f"comm_open {c.open_bytes / 1024:.0f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=5000.0, help="events per second (0: unpaced)")
    args = parser.parse_args()
    comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)
    workloads = {"flood": flood_events(args.events), "stream": stream_chunks(args.chunks)}
    pace = f"{args.rate:g} events/s" if args.rate else "unpaced"
    print(f"widget path: {args.events} flood events, a {args.chunks}-chunk answer ({pace})")
    for name, notes in workloads.items():
        for path, run in (("pump", run_pump), ("direct", run_direct)):
            c, final, elapsed = run(notes, args.rate)
            report(name, path, c, final, elapsed)


if __name__ == "__main__":
    main()
