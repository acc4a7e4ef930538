"""Streaming into the widget in real JupyterLab + Chromium: long tasks, receipt-to-paint lag, and
first token to screen (issue 17, targets 2 and 3).

    python bench/browser_streaming.py [--repeats 3] [--chunks 20000] [--slow 3]
    python bench/browser_streaming.py --background   # the slow answer in a background cell

``--background``: one slow answer per repeat in a background cell (no ``--wait``, the kernel is
idle while it streams), to tell what ``--wait`` (main thread blocked) adds to first token.

Each repeat opens a fresh notebook (its own kernel) in JupyterLab on 127.0.0.1 (the checkout's
labextension, ``tests/browser/conftest.start_lab``) in Debian's chromium driven by Playwright, the
real runtime and the scripted model. Cells, run with Run All, each ``%%dsh`` with ``--wait`` so
they run one after another: instrumentation + ``%load_ext``; a warm-up answer; ``time.sleep(5)``
(the **baseline window**: same page, no stream); the ``[[scenario:long]] [[chunks:N]]`` answer
(``w0 w1 ... w<N-1>``); ``--slow`` times ``[[scenario:slow]] [[chunks:5]] [[chunk-delay:0.3]]``
(``slow0 slow1 ...``). Everything stops by itself (``start_lab`` terminates the server).

Timestamps (the method):

- **Kernel receipt.** The first cell wraps ``UiPump.notification`` (the call the host thread
  makes for every notification the client receives from the runtime, before the pump folds it
  into the transcript) to note ``time.time()`` and the text delta's sequence number (``w<i>`` /
  ``slow<i>``, found in the notification's params) into a buffered file, flushed at settle. This is
  the kernel's receipt of the chunk; the lag below includes the pump's coalescing (≤ 10 publishes
  per second), iopub, the websocket, the widget's diff and render.
- **Paint.** A ``MutationObserver`` on the page marks each changed ``.dsh-text`` element; once
  per frame (``requestAnimationFrame``) the tail of its text gives the highest sequence number
  shown, and the time is taken in a message posted from that frame callback (it runs after the
  frame's style/layout/paint), as ``performance.timeOrigin + performance.now()``. A chunk counts
  as painted at the first frame that shows it or a later chunk.
- **Clocks.** Kernel and browser run on one machine; the offset between the kernel's
  ``time.time()`` and the page's clock is measured with Playwright round trips (best of 5,
  midpoint; error ≤ half the round trip, printed) before and after each repeat.
- **Long tasks.** ``PerformanceObserver({type: 'longtask', buffered: true})`` for the whole page
  life; tasks are counted in the stream window (first receipt to last paint of the long answer)
  and in the baseline window (the ``sleep`` cell). Attribution: ``long-animation-frame`` entries
  (Chromium ≥ 123) name the scripts that ran in each long frame; the script URLs are summed per
  frame over 50 ms and the top ones printed, so a long task can be put on the widget's bundle
  (``dsh_notebook`` / anywidget's blob module) or on JupyterLab's own code.

Target 2: no long task > 50 ms caused by the widget, lag p95 ≤ 250 ms. Target 3: first-token
(receipt of ``slow0`` to its paint) median ≤ 150 ms. Figures are medians over ``--repeats``.
The machine is shared: read them with the load average printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import chromium_trace
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, start_lab, write_notebook
from tests.browser.labpage import open_notebook, run_all

INSTRUMENT = """\
import re as _re, time as _time
from dsh_notebook.kernel.showing import pump as _pump
_SEQ = _re.compile(r"^(w|slow)(\\d+) ?$")
_log = open({path!r}, "w", buffering=1 << 20)
def _seqs(value):
    if isinstance(value, str):
        m = _SEQ.match(value)
        if m:
            yield m.group(1), int(m.group(2))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _seqs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _seqs(v)
_orig_notification = _pump.UiPump.notification
def _notification(self, view, notification):
    t = _time.time()
    for prefix, n in _seqs(notification.params):
        _log.write(f"{{t!r}} {{id(view)}} {{prefix}} {{n}}\\n")
    _orig_notification(self, view, notification)
_orig_settle = _pump.UiPump.settle
def _settle(self, *a, **k):
    _log.write(f"{{_time.time()!r}} 0 mark:settle 0\\n")
    _log.flush()
    _orig_settle(self, *a, **k)
_orig_add = _pump.UiPump.add
def _add(self, view):
    _log.write(f"{{_time.time()!r}} {{id(view)}} add 0\\n")
    _publish, _first = view.publish, []
    def _published(view, bundle):
        if len(_first) < 2:  # the first two: the empty view, then the first with content
            _first.append(1)
            _log.write(f"{{_time.time()!r}} {{id(view)}} publish{{len(_first)}} 0\\n")
        _publish(view, bundle)
    view.publish = _published
    _orig_add(self, view)
_pump.UiPump.add = _add
_pump.UiPump.notification = _notification
_pump.UiPump.settle = _settle
def _mark(name):
    _log.write(f"{{_time.time()!r}} 0 mark:{{name}} 0\\n"); _log.flush()
%load_ext dsh_notebook"""

FRAMES = False
"""Print each long frame of the stream with its scripts (``--frames``)."""
TRACE: Path | None = None
"""Record a Chromium trace of each repeat here and break its long tasks down (``--trace DIR``)."""

OBSERVE = """() => {
  window.__long = [];
  new PerformanceObserver(l => { for (const e of l.getEntries())
    window.__long.push([performance.timeOrigin + e.startTime, e.duration]); })
    .observe({type: 'longtask', buffered: true});
  window.__loaf = [];
  try {
    new PerformanceObserver(l => { for (const e of l.getEntries()) {
      if (e.duration <= 50) continue;
      window.__loaf.push({start: performance.timeOrigin + e.startTime, duration: e.duration,
        layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
        scripts: (e.scripts || []).map(s => [s.sourceURL || s.invoker || '?', s.duration,
          `${s.invoker || '?'} -> ${s.sourceFunctionName || '?'}`])});
    } }).observe({type: 'long-animation-frame', buffered: true});
  } catch (err) { window.__loafError = String(err); }
  window.__paint = [];  // [epoch ms, cell index, prefix, highest seq shown]
  const dirty = new Set();
  let scheduled = false;
  const seen = new Map();
  const mounted = new Set();
  const channel = new MessageChannel();
  let pending = [];
  channel.port1.onmessage = () => {
    const t = performance.timeOrigin + performance.now();
    for (const p of pending) window.__paint.push([t, ...p]);
    pending = [];
  };
  window.__dbg = {mut: 0, frames: 0, err: ''};
  const frame = () => { try {
    window.__dbg.frames++;
    scheduled = false;
    const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
    const texts = new Set();
    for (const root of dirty) {
      const cell = cells.indexOf(root.closest('.jp-Cell'));
      if (!mounted.has(cell) && root.querySelector('.dsh-root')) { mounted.add(cell); pending.push([cell, 'mount', 0]); }
      for (const el of root.querySelectorAll('.dsh-text')) texts.add(el);
    }
    for (const el of texts) {
      const m = /(w|slow)(\\d+)\\s*$/.exec(el.textContent.slice(-64));
      if (!m) continue;
      const cell = cells.indexOf(el.closest('.jp-Cell'));
      const key = cell + ':' + m[1];
      const n = Number(m[2]);
      if ((seen.get(key) ?? -1) < n) { seen.set(key, n); pending.push([cell, m[1], n]); }
    }
    dirty.clear();
    if (pending.length) channel.port2.postMessage(0);
  } catch (e) { window.__dbg.err = String(e); } };
  new MutationObserver(records => {
    window.__dbg.mut++;
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const root = node && node.closest('.jp-OutputArea');
      if (root) dirty.add(root);
    }
    if (dirty.size && !scheduled) { scheduled = true; requestAnimationFrame(frame); }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def clock_offset(page: Any) -> tuple[float, float]:
    """(browser epoch ms - kernel/Python epoch ms, round trip ms), best of 5 round trips."""
    best: tuple[float, float] | None = None
    for _ in range(5):
        t0 = time.time() * 1000
        b = page.evaluate("performance.timeOrigin + performance.now()")
        t1 = time.time() * 1000
        if best is None or t1 - t0 < best[1]:
            best = (b - (t0 + t1) / 2, t1 - t0)
    assert best is not None
    return best


def one_repeat(
    browser: Any, lab: Any, index: int, chunks: int, slow: int, background: bool = False
) -> dict[str, Any]:
    log = lab.root / f"receipts-{index}.txt"
    name = f"stream-{index}.ipynb"
    flags = "%%dsh --format widget --keep-widget --wait"
    cells = [
        INSTRUMENT.format(path=str(log)),
        f"{flags}\n[[scenario:plain]] warm up",
        "_mark('baseline-start'); _time.sleep(5); _mark('baseline-end')",
        f"{flags}\n[[scenario:long]] [[chunks:{chunks}]] a long answer",
        *(["%%dsh --format widget --keep-widget\n[[scenario:slow]] [[chunks:5]] [[chunk-delay:0.3]] slow"]
          if background else
          [f"{flags}\n[[scenario:slow]] [[chunks:5]] [[chunk-delay:0.3]] slow {i}" for i in range(slow)]),
        *([] if background else ["_mark('done')"]),
    ]  # fmt: skip
    write_notebook(lab.root / name, cells)
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    open_notebook(page, lab, name)
    page.evaluate(OBSERVE)
    before = clock_offset(page)
    if TRACE is not None:
        browser.start_tracing(page=page, categories=chromium_trace.CATEGORIES)
        page.evaluate(
            "console.timeStamp('dsh-sync:' + (performance.timeOrigin + performance.now()))"
        )
    run_all(page)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        text = log.read_text() if log.exists() else ""
        if " mark:done " in text or (background and text.count(" mark:settle ") >= 3):
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(
            "the notebook did not finish within 300 s (see lab.log; a cell may have failed)"
        )
    page.wait_for_timeout(1500)  # last frames and observers
    trace = browser.stop_tracing() if TRACE is not None else None
    after = clock_offset(page)
    paint = page.evaluate("window.__paint")
    longtasks = page.evaluate("window.__long")
    loaf = page.evaluate("window.__loaf")
    loaf_error = page.evaluate("window.__loafError || ''")
    dbg = page.evaluate("window.__dbg")
    texts = page.evaluate(
        "() => [...document.querySelectorAll('.dsh-text')].map(e => e.textContent.slice(-80))"
    )
    page.close()
    if not any(k.endswith(":w") for k in {f"{c}:{p}" for _, c, p, _ in paint}):
        raise RuntimeError(f"no paint of the long answer seen: {paint[:5]} texts {texts} {dbg}")
    offset = (before[0] + after[0]) / 2
    # kernel receipts: per view (in order of first appearance = cell order, runs are sequential)
    receipts: dict[str, dict[int, float]] = {}
    marks: dict[str, float] = {}
    adds: dict[str, float] = {}
    publishes: dict[str, float] = {}  # a view's first publish (its first display/comm message)
    views: list[tuple[str, str]] = []
    for line in log.read_text().splitlines():
        t_s, view, prefix, n_s = line.split()
        t = float(t_s) * 1000 + offset  # on the page's clock
        if prefix.startswith("mark:"):
            marks[prefix[5:]] = t
            continue
        if prefix in ("add", "publish1", "publish2"):
            (adds if prefix == "add" else publishes)[view + prefix[-1]] = t
            continue
        key = f"{view}:{prefix}"
        if key not in receipts:
            receipts[key] = {}
            views.append((key, prefix))
        receipts[key].setdefault(int(n_s), t)
    # paints per cell, in cell order
    paints: dict[str, list[tuple[float, int]]] = {}
    for t, cell, prefix, n in paint:
        paints.setdefault(f"{cell}:{prefix}", []).append((t, n))
    paint_keys = {
        p: sorted((k for k in paints if k.endswith(":" + p)), key=lambda k: int(k.split(":")[0]))
        for p in ("w", "slow")
    }
    kernel_keys = {p: [k for k, q in views if q == p] for p in ("w", "slow")}

    def lags(rkey: str, pkey: str) -> list[float]:
        frames = sorted(paints[pkey])
        out: list[float] = []
        j = 0
        for n in sorted(receipts[rkey]):
            while j < len(frames) and frames[j][1] < n:
                j += 1
            if j == len(frames):
                break
            out.append(frames[j][0] - receipts[rkey][n])
        return out

    long_lags = lags(kernel_keys["w"][-1], paint_keys["w"][-1])
    long_rkey = kernel_keys["w"][-1]
    window = (min(receipts[long_rkey].values()), max(t for t, _ in paints[paint_keys["w"][-1]]))
    base = (marks["baseline-start"], marks["baseline-end"])

    def in_window(w: tuple[float, float]) -> list[float]:
        return [d for s, d in longtasks if w[0] <= s <= w[1]]

    scripts: Counter[str] = Counter()
    for f in loaf:
        if window[0] <= f["start"] <= window[1]:
            scripts["(style, layout and paint)"] += f.get("layout", 0.0)
            if FRAMES:
                what = "; ".join(
                    f"{name} {dur:.0f} ms" for _, dur, name in f["scripts"] if dur >= 2
                )
                print(
                    f"    long frame at {f['start'] - window[0]:.0f} ms: {f['duration']:.0f} ms, "
                    f"style/layout/paint {f.get('layout', 0.0):.0f} ms; scripts: {what or '-'}"
                )
            for url, dur, *_ in f["scripts"]:
                short = url.split("?")[0].rsplit("/", 2)
                scripts["/".join(short[-2:]) if len(short) > 1 else url] += dur
    first_tokens = []
    split = []  # ms: view added -> slow0 received, -> second publish (the first after the empty view), -> widget mounted; mounted -> slow0 painted
    for rkey, pkey in zip(kernel_keys["slow"], paint_keys["slow"], strict=False):
        first = [(t, n) for t, n in paints[pkey] if n >= 0]
        if 0 in receipts[rkey] and first:
            first_tokens.append(min(first)[0] - receipts[rkey][0])
            added = adds.get(rkey.split(":")[0] + "d")
            mount = paints.get(pkey.split(":")[0] + ":mount")
            if added is not None and mount:
                published = publishes.get(rkey.split(":")[0] + "2", float("nan"))
                split.append(
                    (receipts[rkey][0] - added, published - added, mount[0][0] - added,
                     min(first)[0] - mount[0][0])
                )  # fmt: skip
    long_at = [round(s - window[0]) for s, d in longtasks if window[0] <= s <= window[1]]
    traced: list[chromium_trace.LongTask] | None = None
    if trace is not None and TRACE is not None:
        TRACE.mkdir(parents=True, exist_ok=True)
        (TRACE / f"repeat-{index}.json").write_bytes(trace)
        loaded = json.loads(trace)
        sync = chromium_trace.clock_sync_us(loaded)
        if sync is not None:
            tasks, _ = chromium_trace.long_tasks(
                loaded, 50.0, (window[0] * 1000 + sync - 50_000, window[1] * 1000 + sync)
            )
            print(
                f"    trace {TRACE / f'repeat-{index}.json'}: {len(tasks)} long tasks in the stream"
            )
            for task in tasks:
                print("    " + task.describe(window[0] * 1000 + sync))
            traced = tasks
    return {
        "offset": offset, "rtt": max(before[1], after[1]), "drift": after[0] - before[0],
        "lags": long_lags, "received": len(receipts[long_rkey]),
        "stream_s": (window[1] - window[0]) / 1000, "stream_tasks": in_window(window),
        "base_tasks": in_window(base), "base_s": (base[1] - base[0]) / 1000,
        "scripts": scripts, "loaf_error": loaf_error, "first_tokens": first_tokens,
        "split": split, "long_at": long_at, "traced": traced,
    }  # fmt: skip


def main(repeats: int, chunks: int, slow: int, background: bool = False) -> None:
    from playwright.sync_api import sync_playwright

    results = []
    with tempfile.TemporaryDirectory() as tmp, start_lab(Path(tmp)) as lab, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for i in range(repeats):
                results.append(one_repeat(browser, lab, i, chunks, slow, background))
                r = results[-1]
                print(
                    f"  repeat {i + 1}: lag p50 {pct(r['lags'], 0.5):.0f} p95 {pct(r['lags'], 0.95):.0f}"
                    f" max {max(r['lags']):.0f} ms; long tasks {len(r['stream_tasks'])} in stream"
                    f" ({r['stream_s']:.1f} s), {len(r['base_tasks'])} in baseline; first token"
                    f" {[round(x) for x in r['first_tokens']]} ms; clock rtt {r['rtt']:.1f} ms,"
                    f" drift {r['drift']:.1f} ms; long tasks at {r['long_at']} ms into the stream;"
                    f" first token split (added->received, added->second publish, added->mounted, mounted->painted)"
                    f" {[tuple(round(x) for x in t) for t in r['split']]}; lag by tenth of the answer"
                    f" {[round(pct(r['lags'][k * len(r['lags']) // 10 : (k + 1) * len(r['lags']) // 10], 0.5)) for k in range(10)]}",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            browser.close()

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    p50 = med([pct(r["lags"], 0.5) for r in results])
    p95 = med([pct(r["lags"], 0.95) for r in results])
    lmax = med([max(r["lags"]) for r in results])
    count = med([len(r["stream_tasks"]) for r in results])
    total = med([sum(r["stream_tasks"]) for r in results])
    longest = med([max(r["stream_tasks"], default=0.0) for r in results])
    over = med([sum(d > 50 for d in r["stream_tasks"]) for r in results])
    every = [d for r in results for d in r["stream_tasks"]]
    base_count = med([len(r["base_tasks"]) for r in results])
    base_longest = med([max(r["base_tasks"], default=0.0) for r in results])
    stream_s = med([r["stream_s"] for r in results])
    first = med([med(r["first_tokens"]) for r in results])
    firsts = [round(x) for r in results for x in r["first_tokens"]]
    received = min(r["received"] for r in results)
    scripts: Counter[str] = Counter()
    for r in results:
        scripts.update(r["scripts"])
    print(
        f"{chunks}-chunk answer in JupyterLab+Chromium, median of {repeats} repeats"
        f" (stream {stream_s:.1f} s, {received} deltas received by the kernel)"
    )
    print(
        f"receipt-to-paint lag: p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {lmax:.0f} ms"
        f"   target 2: p95 <= 250 ms -> {'met' if p95 <= 250 else 'MISSED'}"
    )
    print(
        f"long tasks in stream: {count:.0f} (> 50 ms: {over:.0f}), total {total:.0f} ms,"
        f" longest {longest:.0f} ms; baseline window (5 s, no stream): {base_count:.0f},"
        f" longest {base_longest:.0f} ms   target 2: none > 50 ms from the widget ->"
        f" {'met' if over == 0 else 'MISSED (see attribution)'}"
    )
    print(
        f"long tasks in all {repeats} streams: {len(every)}"
        f" {sorted(round(d) for d in every)} ms (median over repeats above)"
    )
    top = ", ".join(f"{u} {d / repeats:.0f} ms" for u, d in scripts.most_common(5))
    err = results[0]["loaf_error"]
    print(
        f"long-frame time per repeat (long-animation-frame attribution: scripts by source, and the frames' style, layout and paint): {top or err or 'none'}"
    )
    if TRACE is not None:
        traced = [t for r in results for t in (r["traced"] or [])]
        print(
            f"traced long tasks of the streams (all {repeats}): {len(traced)} over 50 ms of wall"
            f" time {sorted(round(t.duration_ms) for t in traced)}; on the CPU"
            f" {sorted(round(t.cpu_ms) for t in traced)} ms (over 50: {sum(t.cpu_ms > 50 for t in traced)});"
            f" the widget's script in them {sorted(round(t.widget_ms) for t in traced)} ms"
            f" (over 50: {sum(t.widget_ms > 50 for t in traced)})"
        )
    print(
        f"first token to screen (slow model): median {first:.0f} ms (all {firsts})"
        f"   target 3: median <= 150 ms -> {'met' if first <= 150 else 'MISSED'}"
    )
    print(f"clock offset browser-kernel {results[0]['offset']:.1f} ms, round trip <="
          f" {max(r['rtt'] for r in results):.1f} ms")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--slow", type=int, default=3, help="slow answers per repeat")
    parser.add_argument(
        "--background",
        action="store_true",
        help="one slow answer per repeat, as a background cell (no --wait: the kernel is idle)",
    )
    parser.add_argument(
        "--frames", action="store_true", help="print every long frame of the stream (attribution)"
    )
    parser.add_argument(
        "--trace", type=Path, metavar="DIR",
        help="record a Chromium trace per repeat into DIR and break down each long task",
    )  # fmt: skip
    a = parser.parse_args()
    FRAMES = a.frames
    TRACE = a.trace
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("skipped: playwright is not installed")
        sys.exit(0)
    if not CHROMIUM.exists():
        print(f"skipped: {CHROMIUM} is missing (apt-get install chromium)")
        sys.exit(0)
    main(a.repeats, a.chunks, a.slow, a.background)
