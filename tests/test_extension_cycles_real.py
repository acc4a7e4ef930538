"""``%load_ext`` / ``%unload_ext`` cycles in a real ipykernel with the real runtime (issue 24,
item 8a): each cycle leaves no thread behind and its host is collected; an interpreter exit still
leaves no runtime process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.testing.harnesses import group_alive

from .kernels import scripted_kernel

pytestmark = [pytest.mark.real_runtime]

CYCLES = 3
HOST = "get_ipython()._dsh_notebook_magics.agent.host"
THREADS = "sorted(t.name for t in threading.enumerate() if t.name.startswith('dsh-'))"


def test_load_unload_cycles_leave_no_thread_nor_host(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    with scripted_kernel(
        tmp_path, scripted_model.base_url, setup="import gc, threading, weakref"
    ) as k:
        k.execute("hosts = []")
        for n in range(CYCLES):
            assert k.execute("%load_ext dsh_notebook").error is None
            cell = k.execute(f"%%dsh --wait\n[[scenario:plain]] cycle {n}")
            assert cell.error is None, cell.error
            assert k.value("_dsh.result().finish_reason") == "'completed'"
            k.execute(f"hosts.append(weakref.ref({HOST}))")
            assert k.execute("%unload_ext dsh_notebook").error is None
            k.execute("del _dsh")  # a handle the person keeps is theirs to keep
        time.sleep(0.5)  # a launcher thread ends once its last job returned
        assert k.value(THREADS) == "[]"
        assert k.value("(gc.collect(), sum(r() is not None for r in hosts))[1]") == "0"
        # and the interpreter's exit still closes a runtime nobody unloaded
        assert k.execute("%load_ext dsh_notebook").error is None
        assert k.execute("%%dsh --wait\n[[scenario:plain]] last").error is None
        pid = int(k.value(f"{HOST}.harness.pid"))
        assert group_alive(pid)
    deadline = time.monotonic() + 15
    while group_alive(pid):
        assert time.monotonic() < deadline, "the runtime outlived its kernel"
        time.sleep(0.1)
