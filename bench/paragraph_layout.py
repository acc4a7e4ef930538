"""Layout cost of one long paragraph streaming into the widget, block runs against one paragraph.

    python bench/paragraph_layout.py [--words 20000] [--per-frame 400] [--repeats 3]

The built widget (``dsh_notebook/widget/static``) is served on 127.0.0.1 and driven in Debian's
chromium with a fake model: a text item grows by ``--per-frame`` words a frame up to ``--words``
(the scripted ``long`` answer, ~129 KB), then ends (``streaming: false``). Each frame's script
time (the view's update) and forced layout time (``offsetHeight`` right after) are measured,
side by side in the same run for:

(a) the widget as built: a paragraph grown in place goes on in block-level runs of ~4 KB;
(b) the same with the runs made inline (``.dsh-md-run {display: inline}``): one paragraph, as
    before the runs;
(c) as (a), but the last ``--per-frame`` words arrive with the end (``streaming: false``) in
    the final update, as the kernel's last update often brings them; beside it, the cost of a
    final render that starts over (the whole answer rendered into a new view and laid out).

Prints, per arm, the median layout of the last 10 frames and of the final update, and the ratio
b/a. Needs playwright and /usr/bin/chromium; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import shutil
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "dsh_notebook" / "widget" / "static"
CHROMIUM = Path("/usr/bin/chromium")

PAGE = """<!doctype html><html><head><link rel="stylesheet" href="widget.css">
<style id="arm"></style></head><body style="width: 1000px"><div id="host"></div>
<script type="module">
import { RunView } from "./widget.js";
const params = new URLSearchParams(location.search);
if (params.get("arm") === "inline") {
  document.getElementById("arm").textContent = ".dsh-md-run { display: inline !important }";
}
const words = Number(params.get("words")), perFrame = Number(params.get("per"));
const empty = () => ({schema: 1, seq: 0, header: {session_id: "s", title: null, model: null,
  state: "running", turns: 0, finish_reason: null, usage: {input_tokens: 0, output_tokens: 0,
  total_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0},
  tool_calls: 0, subagents: 0, errors: 0}, prompt: "p", context: [], items: [],
  items_omitted: 0, pending: [], unknown: {}});
let snapshot = empty();
const listeners = new Map();
const model = {get: (n) => (n === "snapshot" ? snapshot : undefined),
  on: (e, cb) => listeners.set(e, cb), off() {}, send() {}};
new RunView(model, document.getElementById("host"), {frame: (fn) => fn()});
function step(text, streaming, seq) {
  snapshot = empty();
  snapshot.seq = seq;
  snapshot.items = [{kind: "text", id: "t1", rev: seq, text, streaming}];
  const t0 = performance.now();
  listeners.get("change:snapshot")();
  const t1 = performance.now();
  document.body.offsetHeight;  // the layout this update needs, now
  return [t1 - t0, performance.now() - t1];
}
let text = "";
const frames = [];
// arm "words": the last words come with the end of the stream, in the final update (as the
// kernel's last update often brings them), instead of in a live frame of their own
const withFinal = params.get("arm") === "words";
for (let i = 0; i < words; i += perFrame) {
  for (let j = i; j < Math.min(words, i + perFrame); j++) text += j < words - 1 ? `w${j} ` : `w${j}`;
  if (!(withFinal && i + perFrame >= words)) frames.push(step(text, true, i + 1));
}
const final = step(text, false, words + 1);
// what a final render that starts over costs: the whole answer into a new view, then layout
const fresh = document.createElement("div");
document.body.appendChild(fresh);
new RunView(model, fresh, {frame: (fn) => fn()});  // (the model's store is shared: the first
const full = step(text, false, words + 2);          //  view sees the same text and skips it)
window.__result = {frames, final, full, chars: text.length,
  runs: document.querySelectorAll("#host .dsh-md-run").length};
</script></body></html>
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """``root`` over HTTP on 127.0.0.1 (a free port) until the block ends."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: _Quiet(*a, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=20000)
    parser.add_argument("--per-frame", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("skipped: playwright is not installed")
        return
    if not CHROMIUM.exists():
        print(f"skipped: {CHROMIUM} is missing (apt-get install chromium)")
        return
    results: dict[str, list[dict[str, object]]] = {"runs": [], "inline": [], "words": []}
    with tempfile.TemporaryDirectory(prefix="dsh-layout-") as tmp:
        root = Path(tmp)
        for name in ("widget.js", "widget.css"):
            shutil.copy(STATIC / name, root / name)
        (root / "index.html").write_text(PAGE)
        with serve(root) as url, sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless"]
            )
            try:
                for _ in range(args.repeats):  # interleaved, so noise hits both arms alike
                    for arm in ("runs", "inline", "words"):
                        page = browser.new_page()
                        page.goto(
                            f"{url}/index.html?arm={arm}&words={args.words}&per={args.per_frame}"
                        )
                        page.wait_for_function("window.__result", timeout=120_000)
                        results[arm].append(page.evaluate("window.__result"))
                        page.close()
            finally:
                browser.close()
    summary: dict[str, tuple[float, float, float]] = {}
    for arm, label in (("runs", "(a) block runs (as built)"), ("inline", "(b) runs made inline")):
        last = [f[1] for r in results[arm] for f in r["frames"][-10:]]  # type: ignore[index]
        script = [f[0] for r in results[arm] for f in r["frames"][-10:]]  # type: ignore[index]
        final = [r["final"][0] + r["final"][1] for r in results[arm]]  # type: ignore[index]
        summary[arm] = (
            statistics.median(last),
            statistics.median(script),
            statistics.median(final),
        )
        runs = results[arm][0]["runs"]
        chars = results[arm][0]["chars"]
        print(
            f"{label:28s} last 10 frames: layout median {summary[arm][0]:5.1f} ms, max "
            f"{max(last):5.1f} ms, update {summary[arm][1]:4.1f} ms; final update + layout "
            f"{summary[arm][2]:5.1f} ms ({chars:,} chars, {runs} runs)"
        )
    a, b = summary["runs"], summary["inline"]
    print(f"layout per frame at the end, b/a: {b[0] / max(a[0], 0.05):.1f}x")
    words = statistics.median(
        r["final"][0] + r["final"][1]
        for r in results["words"]  # type: ignore[index]
    )
    full = statistics.median(
        r["full"][0] + r["full"][1]
        for r in results["words"]  # type: ignore[index]
    )
    print(
        f"(c) the last {args.per_frame} words in the final update: final update + layout"
        f" {words:5.1f} ms, against {full:5.1f} ms for a final render that starts over (the"
        f" whole answer into a new view): {full / max(words, 0.05):.1f}x"
    )
    print(json.dumps({"runs": a, "inline": b, "words_final": words, "full_render": full}))


if __name__ == "__main__":
    sys.exit(main())
