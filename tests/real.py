"""Helpers for the integration suite against the real runtime and the scripted model endpoint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook import DeepSeekHarness
from dsh_notebook.scripted_model import ScriptedModelServer

requires_runtime = pytest.mark.skipif(
    os.environ.get("DSH_SKIP_REAL_RUNTIME") == "1", reason="DSH_SKIP_REAL_RUNTIME=1"
)


def runtime_available() -> bool:
    try:
        import deepseek_harness_runtime  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


def real_harness(
    tmp_path: Path,
    server: ScriptedModelServer,
    *,
    home: Path | None = None,
    workspace: Path | None = None,
    **fields: Any,
) -> DeepSeekHarness:
    """A harness on the real runtime: fresh home and workspace, scripted model, no telemetry."""
    workspace = workspace or tmp_path / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    agents = tmp_path / "agents-home"
    agents.mkdir(exist_ok=True)
    env = {
        "DSH_TELEMETRY_MODE": "DISABLED",
        "DSH_AGENTS_HOME": str(agents),
        **fields.pop("env", {}),
    }
    fields.setdefault("api_key", "dummy-key")
    fields.setdefault("bridge", False)
    return DeepSeekHarness(
        dsh_home=home or tmp_path / "dsh-home",
        cwd=workspace,
        base_url=server.base_url,
        env=env,
        **fields,
    )


def group_alive(pid: int) -> bool:
    """Whether any process of the group led by ``pid`` is still there (zombies excepted)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        state, pgid = fields[0], int(fields[2])
        if pgid == pid and state != "Z":
            return True
    return False
