"""The widget in a real browser while a long answer streams: the longest main-thread task.

    python bench/widget_browser.py [--chunks 20000]

JupyterLab on 127.0.0.1, Debian's chromium driven by Playwright (no browser download), the real
runtime and the scripted demo model. A ``PerformanceObserver`` for ``longtask`` entries (tasks
over 50 ms) records the page's main-thread tasks from before the run starts until it settles.
Prints the longest task, how many long tasks there were, and the run's wall time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, start_lab, write_notebook
from tests.browser.labpage import open_notebook, run_all

OBSERVE = """() => {
  window.__longtasks = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__longtasks.push(e.duration);
  }).observe({type: "longtask", buffered: false});
}"""


def main(chunks: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, start_lab(Path(tmp)) as lab, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        write_notebook(
            lab.root / "bench.ipynb",
            [
                "%load_ext dsh_notebook",
                "%%dsh --format widget --keep-widget\n[[scenario:plain]] warm up",
                f"%%dsh --format widget --keep-widget\n[[scenario:long]] [[chunks:{chunks}]] a long answer",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        open_notebook(page, lab, "bench.ipynb")
        page.evaluate(OBSERVE)
        started = time.monotonic()
        run_all(page)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.dsh-state')].filter(e => e.textContent.includes('settled')).length >= 2",
            timeout=300_000,
        )
        elapsed = time.monotonic() - started
        tasks = page.evaluate("window.__longtasks")
        text_len = page.evaluate(
            "() => { const t = [...document.querySelectorAll('.dsh-text')].pop(); return t ? t.textContent.length : 0; }"
        )
        browser.close()
    longest = max(tasks, default=0.0)
    print(
        f"{chunks}-chunk answer streamed into the widget: {elapsed:.1f} s from Run All to settled"
    )
    print(f"long main-thread tasks (> 50 ms): {len(tasks)}; longest {longest:.0f} ms")
    print(f"rendered answer text: {text_len} characters")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=20000)
    main(parser.parse_args().chunks)
