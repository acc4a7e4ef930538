"""How long one page read takes with the real page: JupyterLab 4 with this checkout's extension
in Debian's chromium (Playwright), a real ipykernel, the kernel's ``FrontendLink.read_notebook``
(what ``notebook_cells`` and the context block use) timed from a kernel thread.

    python bench/page_read_browser.py [--reads 40] [--cells 200]

Both arms in one run, side by side: the Jupyter server with dsh_notebook's server extension
(``TCP_NODELAY`` on kernel websockets, ``dsh_notebook.server_extension``) and without it. Each arm
opens a notebook of ``--cells`` cells in a fresh page, loads the package, waits for the page's
link, then times ``--reads`` consecutive reads while the kernel is idle (the reads run on a
thread of the kernel; the page answers from the model it shows). Printed: median, min and max per
read, and the ratio of the medians. ``bench/page_read.py`` measures the same with the page played
by a Python websocket client.
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

TIMER = (
    "import threading, time\n"
    "_link = get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link\n"
    "_times = []\n"
    "def _reads(n):\n"
    "    for _ in range(n):\n"
    "        t = time.perf_counter()\n"
    "        r = _link.read_notebook(5.0)\n"
    "        _times.append((time.perf_counter() - t) * 1000 if not isinstance(r, str) else -1.0)\n"
    "threading.Thread(target=_reads, args=({reads},), daemon=True).start()"
)
REPORT = "import json; print('TIMES', json.dumps(_times))"


def arm(browser: Any, root: Path, *, nodelay: bool, reads: int, cells: int) -> list[float]:
    extensions = repr({"dsh_notebook.server_extension": nodelay}).replace(" ", "")  # a literal
    name = "reads.ipynb"
    filler = [f"x{i} = {i}" for i in range(cells - 3)]
    with start_lab(root, extra_args=[f"--ServerApp.jpserver_extensions={extensions}"]) as lab:
        write_notebook(lab.root / name, ["%load_ext dsh_notebook", *filler, "pass", "pass"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            open_notebook(page, lab, name)
            kernel = f"/api/kernels/{lab.api('/api/sessions')[0]['kernel']['id']}"
            run(page, lab, kernel, "%load_ext dsh_notebook")
            deadline = time.monotonic() + 60
            while "True" not in run(page, lab, kernel, LINKED):  # the page's hello_reply came
                if time.monotonic() > deadline:
                    raise SystemExit("the page never linked")
                time.sleep(0.5)
            run(page, lab, kernel, TIMER.format(reads=reads))
            deadline = time.monotonic() + 120
            while True:
                times = json.loads(run(page, lab, kernel, REPORT).split("TIMES", 1)[1])
                if len(times) >= reads or time.monotonic() > deadline:
                    break
                time.sleep(1.0)
        finally:
            page.close()
    if any(t < 0 for t in times):
        raise SystemExit("a read was not answered by the page")
    return [float(t) for t in times]


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
    args = parser.parse_args()
    results: dict[bool, list[float]] = {}
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for nodelay in (True, False):
                root = Path(tmp) / ("on" if nodelay else "off")
                root.mkdir()
                results[nodelay] = arm(
                    browser, root, nodelay=nodelay, reads=args.reads, cells=args.cells
                )
        finally:
            browser.close()
    print(f"page reads in JupyterLab + Chromium, {args.cells} cells, {args.reads} reads each")
    for nodelay, label in ((True, "with the server extension"), (False, "without it")):
        t = results[nodelay]
        print(
            f"  {label:26} median {statistics.median(t):6.1f} ms   min {min(t):6.1f}   "
            f"max {max(t):6.1f}"
        )
    ratio = statistics.median(results[False]) / statistics.median(results[True])
    print(f"  without / with: {ratio:.1f}x")


if __name__ == "__main__":
    main()
