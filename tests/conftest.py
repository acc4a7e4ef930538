"""Shared fixtures. Async tests run under asyncio and trio (anyio's pytest plugin)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

CAPTURES = Path(__file__).resolve().parents[2] / "shared" / "captures"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def load_capture(name: str) -> list[dict[str, Any]]:
    path = CAPTURES / name
    if not path.exists():
        pytest.skip(f"capture {path} not available (shared/ is not beside the checkout)")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
