"""Client dispatch throughput, side by side in one run on the same recorded frames.

    python bench/dispatch_throughput.py [--frames 100000] [--rounds 3]

(a) bare ``json.loads`` of each line read from the replay process's pipe — the floor;
(b) our ``HarnessClient`` delivering every notification to a session subscriber;
(c) the official ``deepseek-harness-sdk==0.2.1rc2`` client doing the same through its public API
    (``subscribe_session_notifications`` + ``next``), when installed.
Prints frames/s (best of ``--rounds``) and the ratios b/a and b/c.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio

from dsh_notebook import HarnessClient

REPLAY = Path(__file__).resolve().parent / "replay_runtime.py"


def bare(frames: int) -> float:
    import json

    proc = subprocess.Popen(
        [sys.executable, str(REPLAY), "--raw", str(frames)], stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    time.sleep(0.5)  # let the replay prepare its bytes, as the clients below get to
    started = time.perf_counter()
    count = 0
    for line in proc.stdout:
        json.loads(line)
        count += 1
    elapsed = time.perf_counter() - started
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
                started = time.perf_counter()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.request, "bench/replay", {"count": frames})
                    while received < frames:
                        await sub.receive()
                        received += 1
                elapsed = time.perf_counter() - started
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
                started = time.perf_counter()
                sender = threading.Thread(
                    target=client.request,
                    args=("bench/replay", {"count": frames}),
                    kwargs={"response_model": Empty},
                )
                sender.start()
                for _ in range(frames):
                    sub.next()
                elapsed = time.perf_counter() - started
                sender.join()
    return frames / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[float]] = {"a_bare": [], "b_ours": [], "c_official": []}
    for _ in range(args.rounds):  # interleaved, so machine noise hits all three alike
        results["a_bare"].append(bare(args.frames))
        results["b_ours"].append(anyio.run(ours_async, args.frames))
        off = official(args.frames)
        if off is not None:
            results["c_official"].append(off)
    best = {k: max(v) for k, v in results.items() if v}
    print(f"frames per round: {args.frames}, rounds: {args.rounds} (best round shown)")
    for key, label in (
        ("a_bare", "(a) bare json.loads"),
        ("b_ours", "(b) dsh_notebook HarnessClient"),
        ("c_official", "(c) official deepseek-harness-sdk"),
    ):
        if key in best:
            print(f"{label:38s} {best[key]:>12,.0f} frames/s")
        else:
            print(f"{label:38s} {'not installed':>12s}")
    print(
        f"b/a = {best['b_ours'] / best['a_bare']:.2f}  (target >= 0.5: within 2x of bare parsing)"
    )
    if "c_official" in best:
        print(f"b/c = {best['b_ours'] / best['c_official']:.2f}  (target >= 2.0)")


if __name__ == "__main__":
    main()
