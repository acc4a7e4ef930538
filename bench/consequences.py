"""How long reading a card's Changes takes: the static analysis of code against a namespace.

    python bench/consequences.py [--lines 200] [--repeats 200]

Builds ``--lines`` lines of typical notebook code (assignments, pandas calls with ``inplace``,
file writes, ``!`` and ``%pip`` lines, subprocess and requests calls, own-function calls) against
a namespace holding a DataFrame, an ndarray, lists and dicts, then times
``context.consequences.analyse`` (the analysis, issue 45's bound: ≤ 5 ms for 200 lines) and
``context.changes_text.changes_of`` (analysis + the lines with each named value described, what
a card carries). Prints the median and the 95th percentile wall time of each and the median CPU time of the
thread, in milliseconds, with the machine's load average (shared machines: the CPU time is the
code's cost).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from dsh_notebook.context.changes_text import changes_of
from dsh_notebook.context.consequences import analyse

_BLOCK = [
    "sales = sales[sales.amount > 0]",
    "sales['margin'] = sales.amount - sales.cost",
    "sales.dropna(inplace=True)",
    "items.append(len(sales))",
    "totals.update({'n': len(items)})",
    "arr += 1",
    "summary = sales.groupby('region').amount.sum()",
    "summary.to_csv('summary.csv')",
    "with open('log.txt', 'a') as fh:",
    "    fh.write(str(summary))",
    "!ls -la",
    "%pip install polars",
    "import subprocess",
    "subprocess.run(['echo', 'hi'])",
    "import requests",
    "r = requests.get('https://example.org')",
    "clean(sales)",
    "for i in range(3):",
    "    items.append(i)",
    "del scratch",
]


def _code(lines: int) -> str:
    out: list[str] = []
    while len(out) < lines:
        out.extend(_BLOCK)
    return "\n".join(out[:lines])


def _namespace() -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    def clean(frame: Any) -> Any:
        return frame

    clean.__module__ = "__main__"
    return {
        "sales": pd.DataFrame({"amount": range(1200), "cost": 1.0, "region": "n", "x": 0}),
        "arr": np.zeros(1000),
        "items": [1, 2, 3],
        "totals": {},
        "scratch": [0] * 10,
        "clean": clean,
        "pd": pd,
        "np": np,
    }


def _time(fn: Any, repeats: int) -> tuple[float, float, float]:
    """Median and 95th percentile wall time, and median CPU time (ms): on a shared machine
    the CPU time is what the code costs, the wall time what it waited for a core too."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.thread_time()
        fn()
        cpus.append((time.thread_time() - cpu) * 1000)
        walls.append((time.perf_counter() - start) * 1000)
    walls.sort()
    return statistics.median(walls), walls[int(len(walls) * 0.95) - 1], statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    code, ns = _code(args.lines), _namespace()
    found = analyse(code, ns)
    assert found.unparsed is None and found.mutates and found.files and found.outside, found
    for label, fn in (
        ("analyse", lambda: analyse(code, ns)),
        ("changes_of (analyse + describe)", lambda: changes_of(code, ns)),
    ):
        fn()  # warm
        median, p95, cpu = _time(fn, args.repeats)
        print(f"{label}, {args.lines} lines: median {median:.2f} ms, p95 {p95:.2f} ms wall; "
              f"median {cpu:.2f} ms CPU ({args.repeats} repeats, load {os.getloadavg()[0]:.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
