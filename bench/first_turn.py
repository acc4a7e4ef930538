"""What a fresh runtime process pays on its first requests, after ``initialize``.

    python bench/first_turn.py

The real runtime and the instant scripted model, no kernel: in one new runtime process, a
``session/resume`` of a missing session twice, then the first and the second turn on one session
and the first turn on another. The gap between the first turn and the others is what a prewarm
(which ends at ``initialize``) cannot hide without a warm-up turn of its own.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dsh_notebook import DeepSeekHarness
from dsh_notebook.errors import SessionNotFound
from dsh_notebook.testing import ScriptedModelServer


def ms(started: float) -> str:
    return f"{(time.perf_counter() - started) * 1000:.0f} ms"


async def main() -> None:
    with ScriptedModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        (root / "agents").mkdir()
        async with DeepSeekHarness(
            cwd=root / "ws",
            dsh_home=root / "home",
            base_url=server.base_url,
            api_key="dummy",
            env={"DSH_TELEMETRY_MODE": "DISABLED", "DSH_AGENTS_HOME": str(root / "agents")},
        ) as harness:
            for name in ("missing-1", "missing-2"):
                started = time.perf_counter()
                try:
                    await harness.resume_session(name)
                except SessionNotFound:
                    pass
                print(f"session/resume of a missing session ({name}): {ms(started)}")
            session = harness.start_session("first")
            for label in ("first turn of the process", "second turn, same session"):
                started = time.perf_counter()
                await session.run("[[scenario:plain]] hi")
                print(f"{label}: {ms(started)}")
            other = harness.start_session("other")
            started = time.perf_counter()
            await other.run("[[scenario:plain]] hi")
            print(f"first turn on another session: {ms(started)}")


if __name__ == "__main__":
    anyio.run(main)
