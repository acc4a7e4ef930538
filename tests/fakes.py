"""Helpers to drive the client against the protocol-exact fake runtime (a real subprocess)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from dsh_notebook import DeepSeekHarness
from dsh_notebook.testing import fake_runtime

FAKE_RUNTIME = Path(fake_runtime.__file__).resolve()


def fake_harness(
    tmp_path: Path, scenario: str = "normal", *, home: Path | None = None, **fields: Any
) -> DeepSeekHarness:
    """A harness whose runtime is ``fake_runtime.py --scenario <scenario>``."""
    args = fields.pop("scenario_args", {})
    argv = [sys.executable, str(FAKE_RUNTIME), "--scenario", scenario]
    for key, value in args.items():
        argv += ["--scenario-arg", f"{key}={value}"]
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    fields.setdefault("bridge", False)
    fields.setdefault("initialize_timeout", 10)
    return DeepSeekHarness(
        dsh_bin=argv,
        dsh_home=home or (tmp_path / "home"),
        cwd=workspace,
        **fields,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
