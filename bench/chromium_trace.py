"""What a Chromium trace says about a page's long tasks: for each main-thread task over a
threshold, its time by trace event (self time: script, style, layout, paint, GC, ...) and by
JavaScript function (the V8 CPU profiler's samples inside the task).

    python bench/chromium_trace.py TRACE.json [--from MS --to MS] [--over 50]

A helper of ``bench/browser_streaming.py --trace DIR`` (which records one trace per repeat with
:data:`CATEGORIES` and prints :func:`long_tasks` for the stream window); runnable alone on any
trace Playwright's ``browser.start_tracing`` wrote. Times are trace microseconds turned into ms;
``--from``/``--to`` are the page's epoch ms, mapped onto the trace's clock by a
``console.timeStamp('dsh-sync:<epoch ms>')`` the page made while tracing (:func:`clock_sync_us`).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CATEGORIES = [
    "toplevel",
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.invalidationTracking",
    "v8.execute",
    "blink.user_timing",
    "disabled-by-default-v8.cpu_profiler",
    "v8",
]
"""The categories the bench records: tasks, the timeline's events, and JS samples."""

TASK_NAMES = {"RunTask", "ThreadControllerImpl::RunTask"}
SCRIPT_EVENTS = {"FunctionCall", "EvaluateScript", "v8.evaluateModule"}


def is_widget_url(url: str) -> bool:
    """Whether a script URL is the run widget's: anywidget's blob module (the only anywidget of
    the bench's pages), the bundle the page extension serves, or the extension itself."""
    return url.startswith("blob:") or "dsh-widget" in url or "/extensions/dsh-notebook/" in url


@dataclass
class LongTask:
    """One main-thread task over the threshold, with where its time went."""

    start_us: float
    duration_ms: float
    cpu_ms: float
    """The main thread's own CPU time in the task (the trace's ``tdur``); the rest of
    ``duration_ms`` it was runnable but waiting for a core."""
    widget_ms: float = 0.0
    """Wall time of the widget's script calls in the task (:func:`is_widget_url`)."""
    widget_cpu_ms: float = 0.0
    by_event: Counter[str] = field(default_factory=Counter)
    by_function: Counter[str] = field(default_factory=Counter)
    by_entry: Counter[str] = field(default_factory=Counter)
    samples: int = 0

    def describe(self, origin_us: float, top: int = 6) -> str:
        events = ", ".join(f"{n} {ms:.0f}" for n, ms in self.by_event.most_common(top) if ms >= 1)
        funcs = ", ".join(f"{n} {ms:.0f}" for n, ms in self.by_function.most_common(top) if ms >= 1)
        entries = ", ".join(f"{n} {ms:.0f}" for n, ms in self.by_entry.most_common(4) if ms >= 1)
        return (
            f"task at {(self.start_us - origin_us) / 1000:.0f} ms, {self.duration_ms:.0f} ms"
            f" ({self.cpu_ms:.0f} ms on the CPU); the widget's script {self.widget_ms:.0f} ms"
            f" ({self.widget_cpu_ms:.0f} ms on the CPU)\n"
            f"      self time by event (ms): {events or '-'}\n"
            f"      JS self time by function (ms, {self.samples} samples): {funcs or '-'}\n"
            f"      JS time by outermost frame of a named bundle (ms): {entries or '-'}"
        )


def _events(trace: Any) -> list[dict[str, Any]]:
    return trace["traceEvents"] if isinstance(trace, dict) else trace


def _main_thread(events: list[dict[str, Any]]) -> tuple[int, int]:
    """(pid, tid) of the page's renderer main thread: the CrRendererMain with the most tasks."""
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
        and e.get("args", {}).get("name") == "CrRendererMain"
    }  # fmt: skip
    counts: Counter[tuple[int, int]] = Counter(
        (e["pid"], e["tid"]) for e in events if e.get("name") in TASK_NAMES
    )
    ranked = [key for key, _ in counts.most_common() if key in mains]
    if not ranked:
        raise ValueError("no CrRendererMain thread with tasks in the trace")
    return ranked[0]


def _short(url: str) -> str:
    if not url:
        return "(native)"
    tail = url.split("?")[0].rstrip("/").rsplit("/", 2)
    return "/".join(tail[-2:]) if len(tail) > 1 else url


def _profile_samples(
    events: list[dict[str, Any]], pid: int, tid: int
) -> list[tuple[float, list[str]]]:
    """(time us, stack outermost-first as 'function (file)') for every CPU profile sample."""
    nodes: dict[int, tuple[int | None, str, str]] = {}  # id -> (parent, name, url)
    samples: list[tuple[float, int]] = []
    clock: float | None = None
    for e in events:
        if e.get("pid") != pid or e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        data = e.get("args", {}).get("data", {})
        if e["name"] == "Profile":
            clock = float(data.get("startTime", e.get("ts", 0)))
            continue
        profile = data.get("cpuProfile", {})
        for node in profile.get("nodes", []):
            frame = node.get("callFrame", {})
            nodes[node["id"]] = (
                node.get("parent"),
                frame.get("functionName") or "(anonymous)",
                frame.get("url", ""),
            )
        deltas = data.get("timeDeltas", [])
        for sample, delta in zip(profile.get("samples", []), deltas, strict=False):
            clock = (clock or float(e.get("ts", 0))) + float(delta)
            samples.append((clock, sample))
    out: list[tuple[float, list[str]]] = []
    cache: dict[int, list[str]] = {}
    for ts, node_id in samples:
        if node_id not in cache:
            stack: list[str] = []
            current: int | None = node_id
            while current is not None and current in nodes:
                parent, name, url = nodes[current]
                if name not in ("(root)",):
                    stack.append(f"{name} ({_short(url)})" if url else name)
                current = parent
            cache[node_id] = stack[::-1]
        out.append((ts, cache[node_id]))
    return out


def long_tasks(
    trace: Any, over_ms: float = 50.0, window_us: tuple[float, float] | None = None
) -> tuple[list[LongTask], float]:
    """The main thread's tasks over ``over_ms`` (inside ``window_us`` if given), each with its
    self time by event name and its sampled JS time by function; and the trace's first ts."""
    events = _events(trace)
    pid, tid = _main_thread(events)
    thread = sorted(
        (e for e in events if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X"
         and "dur" in e),
        key=lambda e: (e["ts"], -e["dur"]),
    )  # fmt: skip
    origin = min(float(e["ts"]) for e in events if e.get("ts"))
    tasks = [
        e for e in thread
        if e["name"] == "RunTask" and e["dur"] / 1000 > over_ms
        and (window_us is None or window_us[0] <= e["ts"] <= window_us[1])
    ]  # fmt: skip
    samples = _profile_samples(events, pid, tid)
    result = []
    for task in tasks:
        t0, t1 = float(task["ts"]), float(task["ts"] + task["dur"])
        found = LongTask(t0, task["dur"] / 1000, task.get("tdur", task["dur"]) / 1000)
        inner = [e for e in thread if t0 <= e["ts"] and e["ts"] + e["dur"] <= t1]
        counted_until = -1.0
        for e in inner:
            url = str(e.get("args", {}).get("data", {}).get("url", ""))
            if e["name"] in SCRIPT_EVENTS and is_widget_url(url) and e["ts"] >= counted_until:
                found.widget_ms += e["dur"] / 1000
                found.widget_cpu_ms += e.get("tdur", e["dur"]) / 1000
                counted_until = e["ts"] + e["dur"]
        # self time: an event's duration minus its direct children's (events nest by time)
        stack: list[tuple[dict[str, Any], float]] = []  # (event, children time)
        for e in [*inner, {"ts": t1 + 1, "dur": 0, "name": "_end"}]:
            while stack and e["ts"] >= stack[-1][0]["ts"] + stack[-1][0]["dur"]:
                done, children = stack.pop()
                found.by_event[_event_name(done)] += (done["dur"] - children) / 1000
                if stack:
                    parent, pc = stack[-1]
                    stack[-1] = (parent, pc + done["dur"])
            if e["name"] != "_end":
                stack.append((e, 0.0))
        for ts, frames in samples:
            if t0 <= ts <= t1:
                found.samples += 1
                if frames:
                    found.by_function[frames[-1]] += 1
                    entry = next((f for f in frames if "(" in f and "native" not in f), frames[0])
                    found.by_entry[entry] += 1
        if found.samples:  # samples -> ms (their share of the task)
            scale = found.duration_ms / found.samples
            found.by_function = Counter({k: v * scale for k, v in found.by_function.items()})
            found.by_entry = Counter({k: v * scale for k, v in found.by_entry.items()})
        result.append(found)
    return result, origin


def _event_name(e: dict[str, Any]) -> str:
    name = str(e["name"])
    data = e.get("args", {}).get("data", {})
    if name in ("FunctionCall", "EvaluateScript", "v8.compile", "v8.compileModule"):
        url = data.get("url") or data.get("scriptName") or ""
        return f"{name} {_short(str(url))}" if url else name
    return name


def clock_sync_us(trace: Any) -> float | None:
    """Trace ts (us) minus the page's epoch time (us), from a ``console.timeStamp`` whose message
    is ``dsh-sync:<epoch ms>`` (``performance.timeOrigin + performance.now()``, which the bench
    stamps when tracing starts), else None."""
    for e in _events(trace):
        if e.get("name") == "TimeStamp":
            message = str(e.get("args", {}).get("data", {}).get("message", ""))
            if message.startswith("dsh-sync:"):
                return float(e["ts"]) - float(message[len("dsh-sync:") :]) * 1000
    return None


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trace", type=Path)
    parser.add_argument("--over", type=float, default=50.0)
    parser.add_argument(
        "--from", dest="start", type=float, help="epoch ms (needs a dsh-sync stamp)"
    )
    parser.add_argument("--to", dest="end", type=float, help="epoch ms")
    a = parser.parse_args()
    loaded = json.loads(a.trace.read_text())
    sync = clock_sync_us(loaded)
    window = None
    if sync is not None and a.start is not None and a.end is not None:
        window = (a.start * 1000 + sync, a.end * 1000 + sync)
    found, origin = long_tasks(loaded, a.over, window)
    for t in found:
        print("  " + t.describe(origin))
