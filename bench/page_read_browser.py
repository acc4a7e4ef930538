"""How long one page read takes with the real page: JupyterLab 4 with this checkout's extension
in Debian's chromium (Playwright), a real ipykernel, the kernel's ``FrontendLink.read_notebook``
(what ``notebook_cells`` and the context block use) timed from a kernel thread.

    python bench/page_read_browser.py [--reads 40] [--cells 200] [--gap 0]

Both arms in one run, side by side: the Jupyter server with dsh_notebook's server extension
(``TCP_NODELAY`` on kernel websockets, ``dsh_notebook.server_extension``) and without it. Each arm
opens a notebook of ``--cells`` cells in a fresh page, loads the package, waits for the page's
link and for the notebook to have rendered every cell (JupyterLab builds the cells it defers in
idle time after opening), then times ``--reads`` reads while the kernel is idle, back to back or
``--gap`` seconds apart (the reads run on a thread of the kernel, which writes the times to a
file when done: the page is not touched while they run). Printed: median, min and max per read,
the page's own share (its handler's time, from the read's websocket message to the reply's, in
the page), and the ratio of the medians. ``bench/page_read.py`` measures the same with the page
played by a Python websocket client.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, start_lab, write_notebook
from tests.browser.labpage import open_notebook

TIMES_FILE = "_dsh_read_times.json"
TIMER = (
    "import json, threading, time\n"
    "_link = get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link\n"
    "def _reads(n, gap):\n"
    "    times = []\n"
    "    for _ in range(n):\n"
    "        time.sleep(gap)\n"
    "        t = time.perf_counter()\n"
    "        r = _link.read_notebook(5.0)\n"
    "        times.append((time.perf_counter() - t) * 1000 if not isinstance(r, str) else -1.0)\n"
    f"    open({TIMES_FILE!r}, 'w').write(json.dumps(times))\n"
    "threading.Thread(target=_reads, args=({reads}, {gap}), daemon=True).start()"
)
PAGE_SHARE = r"""
(() => {
  // each read_notebook's arrival and its reply's send, in the page (performance.now())
  const arrived = {}, handled = [];
  window.__dshReadShare = handled;
  const text = d => typeof d === 'string' ? d
    : (d instanceof ArrayBuffer || ArrayBuffer.isView(d)) ? new TextDecoder().decode(d) : '';
  const idOf = s => (s.match(/"request_id":\s*"([^"]+)"/) || [])[1];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const s = text(data);
    const id = s.includes('read_notebook_reply') ? idOf(s) : undefined;
    if (id !== undefined && id in arrived) handled.push(performance.now() - arrived[id]);
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  function Counted(...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', event => {
      const s = text(event.data);
      const id = s.includes('"read_notebook"') ? idOf(s) : undefined;
      if (id !== undefined) arrived[id] = performance.now();
    });
    return ws;
  }
  Counted.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Counted[k] = Native[k];
  window.WebSocket = Counted;
})();
"""
"""Installed before JupyterLab loads: the page's share of each read (its handler's time)."""


def arm(
    browser: Any, root: Path, *, nodelay: bool, reads: int, cells: int, gap: float
) -> tuple[list[float], list[float]]:
    """One arm: the kernel's time per read and the page's share of each (milliseconds)."""
    extensions = repr({"dsh_notebook.server_extension": nodelay}).replace(" ", "")  # a literal
    name = "reads.ipynb"
    filler = [f"x{i} = {i}" for i in range(cells - 3)]
    with start_lab(root, extra_args=[f"--ServerApp.jpserver_extensions={extensions}"]) as lab:
        write_notebook(lab.root / name, ["%load_ext dsh_notebook", *filler, "pass", "pass"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(PAGE_SHARE)
        try:
            open_notebook(page, lab, name)
            kernel = f"/api/kernels/{lab.api('/api/sessions')[0]['kernel']['id']}"
            run(page, lab, kernel, "%load_ext dsh_notebook")
            deadline = time.monotonic() + 60
            while "True" not in run(page, lab, kernel, LINKED):  # the page's hello_reply came
                if time.monotonic() > deadline:
                    raise SystemExit("the page never linked")
                time.sleep(0.5)
            while page.evaluate(EDITORS) < cells:  # JupyterLab renders deferred cells when idle
                if time.monotonic() > deadline:
                    raise SystemExit("the notebook never rendered all its cells")
                time.sleep(0.5)
            time.sleep(1.0)
            run(page, lab, kernel, TIMER.format(reads=reads, gap=gap))
            done = lab.root / TIMES_FILE
            deadline = time.monotonic() + 30 + reads * (5.0 + gap)
            while not done.exists():  # the page is left alone while the reads run
                if time.monotonic() > deadline:
                    raise SystemExit("the reads did not finish")
                time.sleep(0.2)
            time.sleep(0.2)  # written whole: a second read of a short file
            times = json.loads(done.read_text())
            share = [float(t) for t in page.evaluate("window.__dshReadShare")][-reads:]
        finally:
            page.close()
    if any(t < 0 for t in times):
        raise SystemExit("a read was not answered by the page")
    return [float(t) for t in times], share


EDITORS = "document.querySelectorAll('.jp-Notebook .jp-Cell .cm-editor').length"
"""How many cells of the notebook JupyterLab has rendered (an editor each)."""


LINKED = (
    "print(get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
    ".can('read_notebook'))"
)


def run(page: Any, lab: Any, kernel: str, code: str) -> str:
    """Run ``code`` in the notebook's first cell (typed, Ctrl+Enter: the notebook renders only
    the cells in view, the first is) and return its output."""
    cell = page.locator(".jp-Notebook .jp-Cell").first
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = lab.api(kernel).get("execution_state")
        text = str(cell.locator(".jp-OutputArea").inner_text())
        if state == "idle" and (text.strip() or not re.search(r"print\(", code)):
            return text
        time.sleep(0.2)
    raise SystemExit(f"no output for {code[:40]!r}")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=40)
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument(
        "--gap", type=float, default=0.0,
        help="seconds between two reads (0: back to back; 0.3: each read meets an idle page)",
    )  # fmt: skip
    args = parser.parse_args()
    results: dict[bool, tuple[list[float], list[float]]] = {}
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for nodelay in (True, False):
                root = Path(tmp) / ("on" if nodelay else "off")
                root.mkdir()
                results[nodelay] = arm(
                    browser, root, nodelay=nodelay, reads=args.reads, cells=args.cells,
                    gap=args.gap,
                )  # fmt: skip
        finally:
            browser.close()
    spacing = f"{args.gap:g} s apart" if args.gap else "back to back"
    print(
        f"page reads in JupyterLab + Chromium, {args.cells} cells, {args.reads} reads each, "
        f"{spacing}"
    )
    for nodelay, label in ((True, "with the server extension"), (False, "without it")):
        t, share = results[nodelay]
        print(
            f"  {label:26} median {statistics.median(t):6.1f} ms   min {min(t):6.1f}   "
            f"max {max(t):6.1f}   the page's handler: median "
            f"{statistics.median(share) if share else float('nan'):.1f} ms"
        )
    ratio = statistics.median(results[False][0]) / statistics.median(results[True][0])
    print(f"  without / with: {ratio:.1f}x")


if __name__ == "__main__":
    main()
