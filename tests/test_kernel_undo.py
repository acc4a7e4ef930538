"""The kernel's half of undo without a kernel: what is kept (``context.keeping``) and how a run
is given back (``kernel.tools.kernel_undo``), on a plain namespace."""

from __future__ import annotations

import io
import sqlite3
import threading
from typing import Any

import numpy as np
import pandas as pd

from dsh_notebook.context.consequences import analyse
from dsh_notebook.context.keeping import Kept, NotKept, cannot_keep, keep_value
from dsh_notebook.kernel.tools.kernel_undo import KernelUndo, not_undoable

MB = 2**20


def undo(memory: int = 512 * MB, value: int = 256 * MB) -> KernelUndo:
    return KernelUndo(memory=lambda: memory, value_limit=lambda: value)


def run(store: KernelUndo, run_id: str, code: str, ns: dict[str, Any]) -> None:
    """What the kernel does around one approved call: keep, run, note what it left."""
    call = store.before(run_id, code, ns)
    exec(code, ns)  # the test's own code
    store.after(call, ns)


def test_pandas_and_numpy_are_copied_deeply_and_modules_kept_by_reference() -> None:
    frame = pd.DataFrame({"a": [1, 2]})
    kept = keep_value(frame, MB)
    assert isinstance(kept, Kept) and kept.copied and kept.value is not frame
    frame.loc[0, "a"] = 99
    assert kept.value.loc[0, "a"] == 1
    array = np.zeros(3)
    kept_array = keep_value(array, MB)
    assert isinstance(kept_array, Kept) and kept_array.value is not array
    assert keep_value(np, MB) == Kept(np, 0, copied=False)
    nested = {"k": [1, [2]]}
    kept_nested = keep_value(nested, MB)
    assert isinstance(kept_nested, Kept) and kept_nested.value == nested
    assert kept_nested.value["k"][1] is not nested["k"][1]


def test_what_cannot_be_kept_is_said_without_copying() -> None:
    assert cannot_keep(sqlite3.connect(":memory:"), MB) == "cannot be copied"
    assert cannot_keep(io.StringIO(), MB) == "cannot be copied"
    assert cannot_keep((x for x in []), MB) == "cannot be copied"
    assert cannot_keep(threading.Lock(), MB) == "cannot be copied"
    assert cannot_keep(np.zeros(300_000), MB) == "too large to keep: 2 MB, over 1 MB"
    assert isinstance(keep_value(np.zeros(300_000), MB), NotKept)
    ns = {"conn": sqlite3.connect(":memory:"), "items": [1]}
    found = analyse("conn.row_factory = None\nitems.append(2)", ns)
    assert not_undoable(found, ns, MB) == ["conn (sqlite3.Connection)"]


def test_a_run_is_given_back_newest_first_and_only_once() -> None:
    store = undo()
    ns: dict[str, Any] = {"x": 1, "items": [1], "gone": "g"}
    run(store, "r1", "x = 2\nitems.append(2)\nnew = 1", ns)
    run(store, "r1", "x = 3\nitems.append(3)\ndel gone", ns)
    done = store.undo("r1", ns)
    assert {k: ns[k] for k in ("x", "items", "gone")} == {"x": 1, "items": [1], "gone": "g"}
    assert "new" not in ns
    assert done.restored == ["x", "items", "gone"] and done.removed == ["new"]
    assert not done.skipped and done.known
    again = store.undo("r1", ns)
    assert not again.known and "a kernel restart forgets them" in again.lines()[0]


def test_a_name_rebound_since_is_skipped_and_effects_are_named() -> None:
    store = undo()
    ns: dict[str, Any] = {"frame": pd.DataFrame({"a": [1]})}
    run(store, "r1", "frame = frame.assign(b=1)\nmade = 1\nimport os\nos.getcwd()", ns)
    ns["frame"], ns["made"] = "mine", "mine too"
    done = store.undo("r1", ns)
    assert ns["frame"] == "mine" and ns["made"] == "mine too"
    assert done.skipped == ["made (you changed it since)", "frame (you changed it since)"]
    store2 = undo()
    run(store2, "r2", "open('/dev/null', 'w').write('x')", {})
    assert store2.undo("r2", {}).lines()[-1] == "not undone: wrote /dev/null"


def test_memory_is_bounded_oldest_first() -> None:
    store = undo(memory=MB)
    ns: dict[str, Any] = {"a": np.zeros(75_000), "b": np.zeros(75_000)}  # 0.6 MB each
    run(store, "r1", "a += 1", ns)
    run(store, "r2", "b += 1", ns)
    assert store.held() == 600_000
    assert store.log == ["run r1: dropped a to stay within undo's memory bound"]
    first = store.undo("r1", ns)
    assert first.dropped and first.not_kept == ["a (dropped: undo_memory_mb)"]
    assert ns["a"][0] == 1.0
    assert store.undo("r2", ns).restored == ["b"] and ns["b"][0] == 0.0
