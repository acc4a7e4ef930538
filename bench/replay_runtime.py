"""A replay "runtime" for the dispatch benchmark: real recorded frames, scaled up.

It answers ``initialize`` like the real runtime, then, for a ``bench/replay {count}`` request,
writes ``count`` recorded ``session.event`` / ``session.status`` notifications (from
``tests/captures``, session ids rewritten to ``bench``) as fast as it can, then the response.
``--raw COUNT`` writes the frames at once with no handshake (the bare-parsing floor).
Standard library only, so the same process serves every client under test.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

CAPTURES = Path(__file__).resolve().parents[1] / "tests" / "captures"
SOURCES = ("plain.jsonl", "bash.jsonl", "subagent.jsonl", "approval_allowed_once.jsonl")


def recorded_frames() -> list[str]:
    frames: list[str] = []
    for name in SOURCES:
        path = CAPTURES / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            record = json.loads(line)
            frame = record.get("frame")
            if record.get("dir") != "s2c" or not isinstance(frame, dict):
                continue
            if frame.get("method") not in ("session.event", "session.status"):
                continue
            frame["params"]["sessionId"] = "bench"
            frames.append(json.dumps(frame, separators=(",", ":")))
    if not frames:
        sys.exit(f"no capture frames found under {CAPTURES}")
    return frames


def scaled(count: int) -> bytes:
    return "".join(
        f + "\n" for f in itertools.islice(itertools.cycle(recorded_frames()), count)
    ).encode()


def main() -> None:
    out = sys.stdout.buffer
    if len(sys.argv) > 2 and sys.argv[1] == "--raw":
        out.write(scaled(int(sys.argv[2])))
        out.flush()
        return
    cache: dict[int, bytes] = {}
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        method, rid = request.get("method"), request.get("id")
        if rid is None:
            continue
        if method == "initialize":
            result: object = {
                "serverInfo": {"name": "deepseek-harness-sdk-runtime", "version": "0.0.1"}
            }
        elif method == "bench/prepare":
            count = int(request["params"]["count"])
            cache[count] = scaled(count)
            result = {}
        elif method == "bench/replay":
            count = int(request["params"]["count"])
            out.write(cache.get(count) or scaled(count))
            result = {}
        elif method == "shutdown":
            out.write((json.dumps({"jsonrpc": "2.0", "id": rid, "result": {}}) + "\n").encode())
            out.flush()
            return
        else:
            result = {}
        out.write((json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n").encode())
        out.flush()


if __name__ == "__main__":
    main()
