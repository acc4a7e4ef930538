"""Client dispatch throughput, side by side in one run on the same recorded frames.

    python bench/dispatch_throughput.py [--frames 100000] [--rounds 3]

(a) bare ``json.loads`` of each line read from the replay process's pipe;
(d) bare ``orjson.loads`` of each line the same way — the floor: the parser the client uses, and
    nothing else;
(b) our ``HarnessClient`` delivering every notification to a session subscriber;
(c) the official ``deepseek-harness-sdk==0.2.1rc2`` client doing the same through its public API
    (``subscribe_session_notifications`` + ``next``), when installed.
The four run interleaved in every round, so machine noise hits them alike. Prints frames/s
(median of ``--rounds``), the ratios b/a, b/d and b/c per round, and the smallest b/c; also
this process's CPU time per frame in each arm (all its threads; the replay process is not
counted) and the CPU ratios, which a loaded machine distorts less than wall-clock rates.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio

from dsh_notebook import HarnessClient

REPLAY = Path(__file__).resolve().parent / "replay_runtime.py"
CPU_US = [0.0]
"""CPU time of this process (all its threads) per frame in the last arm, in microseconds."""


def bare(frames: int, parser: str = "json") -> float:
    import json

    import orjson

    loads = orjson.loads if parser == "orjson" else json.loads
    proc = subprocess.Popen(
        [sys.executable, str(REPLAY), "--raw", str(frames)], stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    time.sleep(0.5)  # let the replay prepare its bytes, as the clients below get to
    started, cpu = time.perf_counter(), time.process_time()
    count = 0
    for line in proc.stdout:
        loads(line)
        count += 1
    elapsed = time.perf_counter() - started
    CPU_US[0] = (time.process_time() - cpu) / frames * 1e6
    proc.wait()
    assert count == frames, count
    return frames / elapsed


async def ours_async(frames: int) -> float:
    with tempfile.TemporaryDirectory() as home:
        async with HarnessClient(
            dsh_bin=[sys.executable, str(REPLAY)],
            dsh_home=home,
            bridge=False,
            subscription_buffer=frames + 10,
        ) as client:
            await client.initialize()
            await client.request("bench/prepare", {"count": frames})
            received = 0
            with client.subscribe(["bench"]) as sub:
                started, cpu = time.perf_counter(), time.process_time()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.request, "bench/replay", {"count": frames})
                    while received < frames:
                        await sub.receive()
                        received += 1
                elapsed = time.perf_counter() - started
                CPU_US[0] = (time.process_time() - cpu) / frames * 1e6
    return frames / elapsed


def official(frames: int) -> float | None:
    try:
        from deepseek_harness.client import HarnessClient as OfficialClient
        from deepseek_harness.client import HarnessConfig as OfficialConfig
        from pydantic import BaseModel
    except ImportError:
        return None

    class Empty(BaseModel):
        pass

    with tempfile.TemporaryDirectory() as home:
        client = OfficialClient(
            OfficialConfig(dsh_home=home), _launch_args=(sys.executable, str(REPLAY))
        )
        with client:
            client.initialize(cwd=home, provider="deepseek-official", model="deepseek-flash")
            client.request("bench/prepare", {"count": frames}, response_model=Empty)
            with client.subscribe_session_notifications("bench") as sub:
                started, cpu = time.perf_counter(), time.process_time()
                sender = threading.Thread(
                    target=client.request,
                    args=("bench/replay", {"count": frames}),
                    kwargs={"response_model": Empty},
                )
                sender.start()
                for _ in range(frames):
                    sub.next()
                elapsed = time.perf_counter() - started
                CPU_US[0] = (time.process_time() - cpu) / frames * 1e6
                sender.join()
    return frames / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds: list[dict[str, float]] = []
    for _ in range(args.rounds):  # interleaved, so machine noise hits all four alike
        figures: dict[str, float] = {}
        for key, arm in (
            ("a_bare", lambda: bare(args.frames)),
            ("d_orjson", lambda: bare(args.frames, "orjson")),
            ("b_ours", lambda: anyio.run(ours_async, args.frames)),
            ("c_official", lambda: official(args.frames)),
        ):
            rate = arm()
            if rate is not None:
                figures[key] = rate
                figures[f"{key}_cpu"] = CPU_US[0]
        rounds.append(figures)
    print(f"frames per round: {args.frames}, rounds: {args.rounds} (median shown)")
    for key, label in (
        ("a_bare", "(a) bare json.loads"),
        ("d_orjson", "(d) bare orjson.loads (floor)"),
        ("b_ours", "(b) dsh_notebook HarnessClient"),
        ("c_official", "(c) official deepseek-harness-sdk"),
    ):
        values = [r[key] for r in rounds if key in r]
        if values:
            cpu = statistics.median(r[f"{key}_cpu"] for r in rounds if key in r)
            print(
                f"{label:38s} {statistics.median(values):>12,.0f} frames/s  {cpu:6.2f} us CPU/frame"
            )
        else:
            print(f"{label:38s} {'not installed':>12s}")
    for i, r in enumerate(rounds, 1):
        line = (
            f"round {i}: b/a {r['b_ours'] / r['a_bare']:.2f}  b/d {r['b_ours'] / r['d_orjson']:.2f}"
        )
        if "c_official" in r:
            line += f"  b/c {r['b_ours'] / r['c_official']:.2f}"
        print(line)
    if all("c_official" in r for r in rounds):
        worst = min(r["b_ours"] / r["c_official"] for r in rounds)
        print(f"smallest b/c over the rounds: {worst:.2f}  (target >= 2.0 in every round)")
        by_cpu = [r["c_official_cpu"] / r["b_ours_cpu"] for r in rounds]
        print(
            "by CPU per frame (less sensitive to a loaded machine): c/b "
            + ", ".join(f"{x:.2f}" for x in by_cpu)
            + "; b over the orjson floor: "
            + ", ".join(f"{r['b_ours_cpu'] / r['d_orjson_cpu']:.2f}x" for r in rounds)
        )


if __name__ == "__main__":
    main()
