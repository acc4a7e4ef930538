"""Turn latency and memory with the real runtime and the instant scripted model.

    python bench/turn_latency.py [--cold 5] [--turns 20] [--rss-turns 50]

Prints: cold start (spawn -> initialize result), warm turn latency on one session (prompt -> first
notification, prompt -> settled; median and p95), and the runtime's RSS after ``--rss-turns``
turns. Everything runs on 127.0.0.1 with a fresh DSH_HOME; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from dsh_notebook import DeepSeekHarness, Notification
from dsh_notebook.testing import ScriptedModelServer


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def harness(server: ScriptedModelServer, root: Path) -> DeepSeekHarness:
    (root / "ws").mkdir(parents=True, exist_ok=True)
    (root / "agents").mkdir(exist_ok=True)
    return DeepSeekHarness(
        cwd=root / "ws",
        dsh_home=root / "home",
        base_url=server.base_url,
        api_key="dummy",
        env={"DSH_TELEMETRY_MODE": "DISABLED", "DSH_AGENTS_HOME": str(root / "agents")},
    )


async def main(cold: int, turns: int, rss_turns: int) -> None:
    with ScriptedModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        starts = []
        for i in range(cold):
            h = harness(server, root / f"cold{i}")
            t0 = time.perf_counter()
            await h.start()
            starts.append(time.perf_counter() - t0)
            await h.close()
        print(
            f"cold start (spawn -> initialize), n={cold}: median {statistics.median(starts) * 1000:.0f} ms, max {max(starts) * 1000:.0f} ms"
        )

        async with harness(server, root / "warm") as h:
            session = h.start_session("bench")
            await session.run("[[scenario:plain]] warm-up")
            first: list[float] = []
            settled: list[float] = []
            for _ in range(turns):
                seen: list[float] = []

                def mark(_: Notification, seen: list[float] = seen) -> None:
                    if not seen:
                        seen.append(time.perf_counter())

                t0 = time.perf_counter()
                await session.run("[[scenario:plain]] again", on_notification=mark)
                settled.append(time.perf_counter() - t0)
                first.append(seen[0] - t0)
            print(
                f"warm turn, n={turns}: prompt -> first event median {statistics.median(first) * 1000:.1f} ms, p95 {p95(first) * 1000:.1f} ms"
            )
            print(
                f"warm turn, n={turns}: prompt -> settled     median {statistics.median(settled) * 1000:.1f} ms, p95 {p95(settled) * 1000:.1f} ms"
            )
            assert h.pid is not None
            before = rss_mib(h.pid)
            for _ in range(rss_turns):
                await session.run("[[scenario:plain]] more")
            print(
                f"runtime RSS: {before:.0f} MiB after {turns + 1} turns, {rss_mib(h.pid):.0f} MiB after {turns + 1 + rss_turns} turns"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--rss-turns", type=int, default=50)
    args = parser.parse_args()
    anyio.run(main, args.cold, args.turns, args.rss_turns)
