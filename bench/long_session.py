"""A long session in one kernel: per-turn latency and memory over 200 turns, and resume cost.

    python bench/long_session.py [--turns 200] [--resume 10,100,200]

A real ipykernel driven over jupyter_client as JupyterLab drives it (``allow_stdin``, so every run
gets its live widget), the real runtime and the instant scripted model. ``--turns`` consecutive
``%%dsh --wait`` cells on one session; each turn is timed from sending the execute request to
its reply (the cell waits until the run settled). Printed: median of the first and of the last
20 turns and their ratio (target <= 1.5), the kernel process's RSS growth over the turns (target
<= 50 MB) and the runtime's. Then, for sessions of each ``--resume`` length (written by the same
kernel), the kernel is restarted and ``session/resume`` of each is timed in a fresh runtime
(median of 3 resumes, each in a new runtime process, after a 1-turn session's resume in that
runtime: the first resume of a runtime also pays its first-use cost, printed beside).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dsh_notebook.testing import ScriptedModelServer
from tests.kernels import Kernel

HOST = "get_ipython()._dsh_notebook_magics.agent.host"
RESUME = """
import time as _time
{host}.close()
{host}.ensure_started()
_s = _time.perf_counter()
{host}.open_session("warm")  # the first resume of a new runtime also pays its first-use cost
_w = _time.perf_counter()
{host}.open_session({sid!r})
print(_w - _s, _time.perf_counter() - _w)
"""


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def turn(kernel: Kernel, session: str, i: int) -> float:
    started = time.perf_counter()
    ran = kernel.execute(
        f"%%dsh --wait -s {session}\n[[scenario:plain]] turn {i}", allow_stdin=True
    )
    elapsed = time.perf_counter() - started
    assert ran.error is None, ran.error
    return elapsed


def main(turns: int, resume: list[int]) -> None:
    with ScriptedModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        (root / "agents").mkdir()
        env = dict(os.environ, DSH_HOME=str(root / "home"), DEEPSEEK_BASE_URL=server.base_url,
                   DEEPSEEK_API_KEY="dummy", DSH_TELEMETRY_MODE="DISABLED",
                   DSH_AGENTS_HOME=str(root / "agents"))  # fmt: skip
        kernel = Kernel(env=env, cwd=str(root / "ws"))
        try:
            kernel.execute("%load_ext dsh_notebook\n%config DshMagics.prewarm = False")
            kernel_pid = int(kernel.value("__import__('os').getpid()"))
            turn(kernel, "long", -1)  # warm: runtime started, session created
            runtime_pid = int(kernel.value(f"{HOST}.harness.pid"))
            kernel.execute("import gc; gc.collect()")
            rss0, runtime0 = rss_mib(kernel_pid), rss_mib(runtime_pid)
            times = [turn(kernel, "long", i) for i in range(turns)]
            kernel.execute("import gc; gc.collect()")
            rss1, runtime1 = rss_mib(kernel_pid), rss_mib(runtime_pid)
            first, last = statistics.median(times[:20]), statistics.median(times[-20:])
            print(
                f"{turns} turns on one session: first 20 median {first * 1000:.0f} ms, last 20 "
                f"median {last * 1000:.0f} ms, ratio {last / first:.2f} (target <= 1.5)"
            )
            print(
                f"kernel RSS {rss0:.0f} -> {rss1:.0f} MiB (+{rss1 - rss0:.1f}, target <= 50 MB); "
                f"runtime RSS {runtime0:.0f} -> {runtime1:.0f} MiB (+{runtime1 - runtime0:.1f})"
            )
            turn(kernel, "warm", 0)
            for length in resume:  # shorter sessions to resume beside the long one
                if length != turns + 1:
                    for i in range(length):
                        turn(kernel, f"len{length}", i)
        finally:
            kernel.shutdown()

        kernel = Kernel(env=env, cwd=str(root / "ws"))  # "restart kernel": a new process
        try:
            kernel.execute("%load_ext dsh_notebook\n%config DshMagics.prewarm = False")
            for length in resume:
                sid = "long" if length == turns + 1 else f"len{length}"
                costs, firsts = [], []
                for _ in range(3):
                    out = kernel.execute(RESUME.format(host=HOST, sid=sid))
                    assert out.error is None, out.error
                    first, cost = out.stdout.strip().splitlines()[-1].split()
                    firsts.append(float(first))
                    costs.append(float(cost))
                print(
                    f"session/resume after a kernel restart, {length:4d} turns: median "
                    f"{statistics.median(costs) * 1000:.0f} ms (of 3, each in a new runtime, after "
                    f"a 1-turn session's resume there took {statistics.median(firsts) * 1000:.0f} ms)"
                )
        finally:
            kernel.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--resume", default="10,100")
    args = parser.parse_args()
    lengths = [int(x) for x in args.resume.split(",") if x] + [args.turns + 1]
    main(args.turns, lengths)
