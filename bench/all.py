"""Run the benchmark set one after another and print one table of their figures.

    python bench/all.py [--only NAME ...] [--skip NAME ...] [--quick]

Each benchmark is its own script in ``bench/`` (run one alone for its full output and options);
this runs them in sequence (never in parallel: they would measure each other), each in a fresh
interpreter, and prints every figure line they printed under the benchmark's name, with the
command that produced it and the machine's load average before and after (these machines are
shared: read the ratios, which compare arms measured side by side in one run).
``--quick`` uses fewer repeats (a smoke run, not figures to publish).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent

# name, issue 17 target, arguments (full), arguments (quick)
SET: list[tuple[str, str, list[str], list[str]]] = [
    ("dispatch", "7", ["dispatch_throughput.py", "--rounds", "3"],
     ["dispatch_throughput.py", "--rounds", "1", "--frames", "30000"]),
    ("kernel_freedom", "4", ["kernel_freedom.py", "--runs", "10", "--repeats", "3"],
     ["kernel_freedom.py", "--runs", "3", "--repeats", "1"]),
    ("prewarm", "1", ["prewarm.py", "--repeats", "3"], ["prewarm.py", "--repeats", "1"]),
    ("first_turn", "1", ["first_turn.py"], ["first_turn.py"]),
    ("long_session", "6", ["long_session.py"], ["long_session.py", "--turns", "40", "--resume", "10"]),
    ("turn_latency", "-", ["turn_latency.py"], ["turn_latency.py", "--cold", "2", "--turns", "5", "--rss-turns", "5"]),
    ("widget_flood", "5", ["widget_flood.py"], ["widget_flood.py", "--events", "2000", "--chunks", "4000"]),
    ("widget_bytes", "5", ["widget_bytes.py"], ["widget_bytes.py"]),
    ("notebook_growth", "5", ["notebook_growth.py"], ["notebook_growth.py", "--cells", "5"]),
    ("widget_browser", "2", ["widget_browser.py"], ["widget_browser.py", "--chunks", "2000"]),
    ("paragraph_layout", "2", ["paragraph_layout.py"], ["paragraph_layout.py", "--repeats", "1"]),
    ("browser_streaming", "2,3", ["browser_streaming.py", "--repeats", "3"],
     ["browser_streaming.py", "--repeats", "1", "--chunks", "2000", "--slow", "2"]),
    ("page_load_cpu", "-", ["page_load_cpu.py"], ["page_load_cpu.py", "--loads", "3"]),
    ("mcp_server_cost", "-", ["mcp_server_cost.py"], ["mcp_server_cost.py", "--repeats", "1"]),
    ("page_read", "-", ["page_read.py"], ["page_read.py", "--reads", "15"]),
    ("page_read_nagle", "-", ["page_read.py", "--no-nodelay"],
     ["page_read.py", "--no-nodelay", "--reads", "15"]),
    ("page_read_browser", "-", ["page_read_browser.py", "--reads", "80"],
     ["page_read_browser.py", "--reads", "15"]),
    ("page_read_browser_idle", "-", ["page_read_browser.py", "--reads", "40", "--gap", "0.3"],
     ["page_read_browser.py", "--reads", "10", "--gap", "0.3"]),
]  # fmt: skip


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run(args: list[str]) -> tuple[list[str], float, int]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(BENCH / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(BENCH.parent), os.environ.get("PYTHONPATH", "")])),
    )  # fmt: skip
    lines = [ln.rstrip() for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode:
        tail = [ln for ln in proc.stderr.splitlines() if ln.strip()][-3:]
        lines += [f"FAILED (exit {proc.returncode}): {ln}" for ln in tail]
    return lines, time.perf_counter() - started, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", default=[], help="names to run (default: all)")
    parser.add_argument("--skip", nargs="*", default=[], help="names to leave out")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = parser.parse_args()
    chosen = [
        entry
        for entry in SET
        if (not args.only or entry[0] in args.only) and entry[0] not in args.skip
    ]
    rows: list[tuple[str, str, str, list[str], float]] = []
    failed = 0
    for name, target, full, quick in chosen:
        argv = quick if args.quick else full
        command = "python bench/" + " ".join(argv)
        print(f"running {name}: {command} (load {load()})", file=sys.stderr, flush=True)
        lines, seconds, code = run(argv)
        failed += code != 0
        rows.append((name, target, command, lines, seconds))
    print(f"\nbenchmarks (load average now {load()}; issue 17 target number in brackets)\n")
    width = max((len(r[0]) for r in rows), default=10) + 5
    for name, target, command, lines, seconds in rows:
        print(f"{f'{name} [{target}]':{width}s} {command}   ({seconds:.0f} s)")
        for line in lines:
            print(f"{'':{width}s}   {line}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
