"""Harnesses on a real process: the protocol-exact fake runtime, or the real runtime on the scripted
model. Plain functions (no pytest), so scripts and subprocesses can use them too; the pytest
plugin wraps them as the ``fake_harness`` and ``real_harness`` fixtures.

Both give the harness its own workspace (``<tmp>/workspace``) and home under ``tmp``, turn the
notebook bridge off unless asked for, and never touch the user's ``~/.dsh``. Nothing is started
here: enter the returned :class:`~dsh_notebook.DeepSeekHarness` to spawn the process.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..client import DeepSeekHarness
from ..scripted_model import ScriptedModelServer

__all__ = [
    "FAKE_RUNTIME",
    "HarnessFactory",
    "fake_harness",
    "fake_runtime_argv",
    "group_alive",
    "pid_alive",
    "real_harness",
    "runtime_available",
]

HarnessFactory = Callable[..., DeepSeekHarness]
"""The type of the ``fake_harness`` / ``real_harness`` fixtures: call with harness fields."""

#: The fake runtime's package directory: ``python <FAKE_RUNTIME>`` runs it without importing
#: ``dsh_notebook`` (fast, and an independent oracle); ``python -m dsh_notebook.testing.fake_runtime``
#: is the same program.
FAKE_RUNTIME = Path(__file__).resolve().parent / "fake_runtime"


def fake_runtime_argv(
    scenario: str = "normal", args: Mapping[str, object] | None = None
) -> list[str]:
    """The command line of the fake runtime with ``scenario`` and its ``--scenario-arg`` pairs."""
    argv = [sys.executable, str(FAKE_RUNTIME), "--scenario", scenario]
    for key, value in (args or {}).items():
        argv += ["--scenario-arg", f"{key}={value}"]
    return argv


def _workspace(tmp_path: Path, workspace: Path | None = None) -> Path:
    path = workspace or tmp_path / "workspace"
    path.mkdir(parents=True, exist_ok=True)
    return path


def fake_harness(
    tmp_path: Path, scenario: str = "normal", *, home: Path | None = None, **fields: Any
) -> DeepSeekHarness:
    """A harness whose runtime is the fake runtime running ``scenario``.

    ``scenario_args`` (a mapping) become ``--scenario-arg K=V``; other ``fields`` go to the
    harness (``initialize_timeout`` defaults to 10 s).
    """
    argv = fake_runtime_argv(scenario, fields.pop("scenario_args", None))
    fields.setdefault("bridge", False)
    fields.setdefault("initialize_timeout", 10)
    return DeepSeekHarness(
        dsh_bin=argv, dsh_home=home or tmp_path / "home", cwd=_workspace(tmp_path), **fields
    )


def runtime_available() -> bool:
    """Whether the real runtime wheel (``deepseek-harness-runtime-bin``) is installed."""
    return importlib.util.find_spec("deepseek_harness_runtime") is not None


def real_harness(
    tmp_path: Path,
    server: ScriptedModelServer,
    *,
    home: Path | None = None,
    workspace: Path | None = None,
    **fields: Any,
) -> DeepSeekHarness:
    """A harness on the real runtime answering from ``server``: fresh home, workspace and agents
    home, a dummy API key, telemetry off (``env`` entries are added on top)."""
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
        cwd=_workspace(tmp_path, workspace),
        base_url=server.base_url,
        env=env,
        **fields,
    )


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (Linux ``/proc``). A process that is
    reaped while it is looked at reads as gone (its ``stat`` file then fails to open or to
    read: ``ENOENT`` or ``ESRCH``); never raises for that."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


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
