"""Shared fixtures. Async tests run under asyncio and trio (anyio's pytest plugin)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

#: Wire captures of the real runtime 0.2.1-rc.2, vendored so that no golden test depends on a
#: directory outside the repository (see captures/README.md).
CAPTURES = Path(__file__).resolve().parent / "captures"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def load_capture(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/captures/<name>``; a missing file fails the test (never skips)."""
    path = CAPTURES / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
