"""The cost of keeping a live transcript for Restart & Run All (issue 24, item 5).

    python bench/live_keep.py [--chars 120000 1000000] [--repeats 10]

While a run is in progress the UI pump thread keeps its transcript at most every
``KEEP_EVERY`` seconds (and at once when a card starts waiting): render it (markdown + plain
text, masked: :func:`~dsh_notebook.kernel.persistence.kept.keepable`, which holds the GIL) and write it as
a ledger record (:meth:`~dsh_notebook.kernel.persistence.ledger.PromptLedger.keep_transcript`: read the
record it replaces, JSON, a temporary file, fsync, rename). This builds an answer of the given
size from 20 000 stream chunks and prints the median of each step per keep, the gap the pump
leaves before the next keep by its cadence (``max(KEEP_EVERY, KEEP_SHARE * cost)``) and the
share of the pump thread that costs.

A second line per size times one settle of a widget view of that transcript through the real
pump path (:func:`~dsh_notebook.kernel.run.settle_run`: the IOPub update, the page extension's
``run_output``, the settled transcript kept in the ledger): the pump thread's CPU time from
the settle until all of it was applied, kept and published.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import queue
import statistics
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dsh_notebook.client import RunResult
from dsh_notebook.kernel.persistence.kept import keepable
from dsh_notebook.kernel.persistence.ledger import PromptLedger
from dsh_notebook.kernel.registry.broker import RunPolicy
from dsh_notebook.kernel.registry.handle import RunHandle
from dsh_notebook.kernel.registry.runs import ActiveRun, Runs
from dsh_notebook.kernel.run import settle_run
from dsh_notebook.kernel.showing.display import DisplayChoice, ViewPublisher
from dsh_notebook.kernel.showing.pump import KEEP_EVERY, KEEP_SHARE, LiveView, UiPump
from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import ApprovalRequested

CHUNKS = 20_000


def transcript(chars: int) -> Transcript:
    t = Transcript("s", prompt="write a long report")
    size = max(1, chars // CHUNKS)
    for i in range(CHUNKS):
        word = (f"w{i} " + "x" * size)[:size] if size > 4 else "w "
        t.apply(Notification("session.assistant_stream", {"sessionId": "s", "frame": {
            "type": "chunk", "attemptId": "a1", "revision": 1, "index": i, "time": 0,
            "chunk": {"type": "text-delta", "index": 0, "text": word + ("\n" if i % 20 == 19 else " ")}}}))  # fmt: skip
    t.apply_local(ApprovalRequested(request_id="a1", session_id="s", tool_name="run_python"))
    return t


class _Page:
    """The widget, its display handle and the page extension's link, as the settle sees them."""

    model_id = "m1"
    display_id = "d1"
    present = True

    def update(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass

    def send_run_output(self, *args: Any) -> bool:
        return True


def settle_seconds(t: Transcript, ledger: PromptLedger, secrets: tuple[str, ...]) -> float:
    """The pump thread's CPU time for one settle of a widget view of ``t``: from the settle to
    the settled transcript published and kept (CPU time: the machine's other load does not
    count)."""
    page = _Page()
    shell = SimpleNamespace(kernel=object())  # a kernel without a display publisher
    publisher = ViewPublisher(shell, DisplayChoice("widget"), page, page, "c1")  # type: ignore[arg-type]
    view = LiveView(t, "widget", publisher, secrets=secrets)
    publisher.handle = page
    pump, runs = UiPump(), Runs()
    future: concurrent.futures.Future[RunResult] = concurrent.futures.Future()
    run = ActiveRun(RunHandle(future, session="s", prompt="p"), view, RunPolicy(), queue.Queue())
    run.accepted = True
    runs.add(run)
    runs.hold(run)
    agent = SimpleNamespace(runs=runs, results={}, pump=pump, ending=False, ledger=ledger)
    try:
        clock: list[float] = []
        pump.add(view)
        pump.flush()  # the live view published (its live run_output rendered)
        pump.after(view, lambda _: clock.append(time.thread_time()))
        pump.flush()
        future.set_result(RunResult("s", "", "completed", [], []))
        settle_run(agent, run, future)  # type: ignore[arg-type]
        pump.flush(60)  # applied, kept, then published
        pump.after(view, lambda _: clock.append(time.thread_time()))
        pump.flush()
        return clock[1] - clock[0]
    finally:
        pump.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", type=int, nargs="+", default=[120_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    secrets = ("sk-bench-0123456789abcdef",)
    with tempfile.TemporaryDirectory() as home:
        ledger = PromptLedger(Path(home))
        for chars in args.chars:
            t = transcript(chars)
            render, write = [], []
            size = 0
            for _ in range(args.repeats):
                started = time.perf_counter()
                bundle, variables = keepable(t, secrets)
                rendered = time.perf_counter()
                ledger.keep_transcript("s", "p", bundle, variables, interrupted=True)
                render.append(rendered - started)
                write.append(time.perf_counter() - rendered)
                size = sum(len(v.encode()) for v in bundle.values())
            r, w = statistics.median(render), statistics.median(write)
            gap = max(KEEP_EVERY, KEEP_SHARE * (r + w))
            print(
                f"live keep, {size / 1e3:,.0f} kB kept (markdown + text): render {r * 1e3:.1f} ms "
                f"(GIL held), write {w * 1e3:.1f} ms (read old + JSON + fsync + rename), total "
                f"{(r + w) * 1e3:.1f} ms per keep; next keep after {gap:.1f} s: "
                f"{(r + w) / gap * 100:.2f} % of the pump thread"
            )
            settles = [settle_seconds(transcript(chars), ledger, secrets) for _ in range(5)]
            print(
                f"settle of a widget view, {chars / 1e3:,.0f} k characters: "
                f"{statistics.median(settles) * 1e3:.1f} ms of the pump thread's CPU (median of "
                "5: the update, run_output, the keep)"
            )


if __name__ == "__main__":
    main()
