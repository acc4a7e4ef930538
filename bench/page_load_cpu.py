"""What a JupyterLab notebook page load costs chromium: fresh incognito pages against one profile.

    python bench/page_load_cpu.py [--loads 5]

JupyterLab on 127.0.0.1 (this checkout's extension), Debian's chromium driven by Playwright, a
one-cell notebook. Each arm loads the notebook ``--loads`` times, one page after another, and
reads from ``/proc`` the CPU time of every chromium process and of the server around each load
(from ``goto`` until the kernel is idle). Arm A opens each page in a fresh incognito context
(Playwright's ``Browser.new_page``: an empty cache every time); arm B opens every page in one
persistent profile (the browser tests' ``browser`` fixture), where from the second load on the
scripts come from the HTTP cache with V8's code cache. Prints each load's CPU, the medians of
loads 3.. and their ratio, for chromium and for the server.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, Lab, write_notebook
from tests.browser.labpage import lab_with_extension

TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: str) -> float:
    """Seconds of CPU process ``pid`` has used so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def chromium_cpu() -> float:
    """Seconds of CPU used so far by every live chromium process."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes():
                total += process_cpu(pid)
        except OSError:
            continue
    return total


def load(new_page: Any, lab: Lab) -> tuple[float, float]:
    """One page load of ``bench.ipynb`` until its kernel is idle: the CPU it cost chromium and
    the Jupyter server."""
    before, server_before = chromium_cpu(), process_cpu(str(lab.pid))
    page = new_page()
    workspace = f"b{time.monotonic_ns()}"
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/bench.ipynb?reset&token={lab.token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first
    idle.wait_for(timeout=60_000)
    used, server_used = chromium_cpu() - before, process_cpu(str(lab.pid)) - server_before
    page.close()
    time.sleep(1)  # the closed page's processes exit before the next load is measured
    return used, server_used


def main(loads: int) -> None:
    from playwright.sync_api import sync_playwright

    viewport = {"width": 1280, "height": 1400}
    with (
        tempfile.TemporaryDirectory() as tmp,
        lab_with_extension(Path(tmp)) as lab,
        sync_playwright() as p,
    ):
        write_notebook(lab.root / "bench.ipynb", ["1 + 1"])
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        fresh = [load(lambda: browser.new_page(viewport=viewport), lab) for _ in range(loads)]
        browser.close()
        profile = p.chromium.launch_persistent_context(
            Path(tmp, "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            viewport=viewport,
        )
        shared = [load(profile.new_page, lab) for _ in range(loads)]
        profile.close()
    for i, name in enumerate(("chromium", "the Jupyter server")):
        a = [cost[i] for cost in fresh]
        b = [cost[i] for cost in shared]
        print(f"CPU of {name} per notebook page load (s):")
        print("  A fresh incognito context:", " ".join(f"{c:.2f}" for c in a))
        print("  B one persistent profile: ", " ".join(f"{c:.2f}" for c in b))
        a_mid, b_mid = statistics.median(a[2:]), statistics.median(b[2:])
        print(
            f"  median of loads 3..{loads}: A {a_mid:.2f}, B {b_mid:.2f}, A/B {a_mid / b_mid:.2f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--loads", type=int, default=5)
    main(max(3, parser.parse_args().loads))
