"""What undo's keeping costs for a large value: keep and give back a 100 MB DataFrame.

    python bench/kernel_undo.py [--mb 100] [--repeats 5]

Builds a DataFrame of ``--mb`` MB (10 float64 columns), then times, through
``kernel.tools.kernel_undo.KernelUndo`` as a kernel uses it: ``before`` (the analysis of
``sales['x'] = 0`` and the deep copy it keeps), ``after`` and ``undo`` (the copy bound again),
and measures the memory the kept copy holds (tracemalloc's peak during ``before``, and what the
store counts). Prints the median of each, in milliseconds and MB.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np
import pandas as pd

from dsh_notebook.kernel.tools.kernel_undo import KernelUndo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = args.mb * 1_000_000 // (8 * 10)
    frame = pd.DataFrame(np.random.default_rng(0).random((rows, 10)), columns=list("abcdefghij"))
    size = frame.memory_usage(index=True, deep=False).sum() / 1e6
    keep_ms, restore_ms, peaks, held = [], [], [], []
    for _ in range(args.repeats):
        undo = KernelUndo(memory=lambda: 512 * 2**20, value_limit=lambda: 256 * 2**20)
        ns = {"sales": frame}
        tracemalloc.start()
        start = time.perf_counter()
        call = undo.before("run1", "sales['a'] = 0", ns)
        keep_ms.append((time.perf_counter() - start) * 1000)
        peaks.append(tracemalloc.get_traced_memory()[1] / 1e6)
        tracemalloc.stop()
        held.append(undo.held() / 1e6)
        undo.after(call, ns)
        start = time.perf_counter()
        done = undo.undo("run1", ns)
        restore_ms.append((time.perf_counter() - start) * 1000)
        assert done.restored == ["sales"] and ns["sales"] is not frame
    print(f"DataFrame {size:.0f} MB ({rows:,} rows x 10 float64 columns), {args.repeats} repeats:")
    print(f"  keep (analysis + copy(deep=True)): median {statistics.median(keep_ms):.0f} ms")
    print(f"  memory kept: {statistics.median(held):.0f} MB counted by the store, "
          f"{statistics.median(peaks):.0f} MB traced peak while keeping")  # fmt: skip
    print(f"  give back (undo): median {statistics.median(restore_ms):.3f} ms")


if __name__ == "__main__":
    main()
