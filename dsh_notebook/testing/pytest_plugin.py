"""The project's pytest fixtures, as a plugin: ``pytest_plugins = ["dsh_notebook.testing.pytest_plugin"]``.

Fixtures:

* ``anyio_backend`` - async tests run under asyncio and trio, except tests marked
  ``asyncio_only`` or ``real_runtime`` (suites that spawn processes: trio adds no coverage there,
  only minutes), whose trio variants are deselected (not skipped).
* ``scripted_model`` (module scope) - a started :class:`~dsh_notebook.scripted_model.ScriptedModelServer`
  with the built-in scripts plus the suite's ``scripted_model_scripts`` (override that
  module-scoped fixture in a test module to register its own scenarios).
* ``fake_harness`` / ``real_harness`` - factories bound to ``tmp_path`` (and, for the real one,
  to ``scripted_model``): ``fake_harness("approval", on_approval=…)``,
  ``real_harness(patches=[…])``; see :mod:`dsh_notebook.testing.harnesses`.
* ``dsh_kernel`` - an :class:`~dsh_notebook.testing.kernel.InProcessKernel`: the global
  ``InteractiveShell`` with the extension loaded, its runtime a ``MockRuntime`` on the host loop
  (no subprocess), displays recorded; ``DSH_HOME`` under ``tmp_path``, the working directory
  ``tmp_path/ws``. Unloaded after the test. ``dsh_headless_kernel``: the same with a
  :class:`~dsh_notebook.testing.kernel.HeadlessKernel` (a notebook nobody watches: each run is
  one recorded ``display_data``); ``dsh_live_kernel``: with a
  :class:`~dsh_notebook.testing.kernel.LiveKernel` (a live page: a ``%%dsh`` cell returns at
  once, its run goes on in the background). Set ``kernel.driver.metadata`` to send a cell's
  execute metadata (the page's notebook identity).
* ``recording_comms`` - every comm a widget creates during the test is a
  :class:`~dsh_notebook.testing.comms.RecordingComm`, listed in creation order.

Markers: ``real_runtime`` (needs the runtime wheel; such tests are skipped with a reason when it
is not installed or ``DSH_SKIP_REAL_RUNTIME=1``) and ``asyncio_only``.

This module imports pytest; nothing else in :mod:`dsh_notebook.testing` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..client import DeepSeekHarness
from ..scripted_model import Script, ScriptedModelServer, Step, StepFactory
from .harnesses import HarnessFactory, runtime_available
from .harnesses import fake_harness as _fake_harness
from .harnesses import real_harness as _real_harness

__all__ = [
    "anyio_backend",
    "dsh_headless_kernel",
    "dsh_kernel",
    "dsh_live_kernel",
    "fake_harness",
    "real_harness",
    "recording_comms",
    "scripted_model",
    "scripted_model_scripts",
]

ScriptTable = Mapping[str, "Script | Sequence[Step | StepFactory]"]
_SINGLE_BACKEND_MARKERS = ("asyncio_only", "real_runtime")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "asyncio_only: run async tests on asyncio only (suites that spawn processes)"
    )
    config.addinivalue_line(
        "markers",
        "real_runtime: needs the real dsh runtime wheel (deepseek-harness-runtime-bin); "
        "implies asyncio_only",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect trio variants of single-backend tests; skip real-runtime tests that cannot run."""
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    missing = _real_runtime_unavailable()
    for item in items:
        single = any(item.get_closest_marker(name) for name in _SINGLE_BACKEND_MARKERS)
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("anyio_backend") if callspec is not None else None
        if single and backend not in (None, "asyncio"):
            dropped.append(item)
            continue
        if missing and item.get_closest_marker("real_runtime"):
            item.add_marker(pytest.mark.skip(reason=missing))
        keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _real_runtime_unavailable() -> str:
    if os.environ.get("DSH_SKIP_REAL_RUNTIME") == "1":
        return "DSH_SKIP_REAL_RUNTIME=1"
    if not runtime_available():
        return "runtime wheel not installed (pip install deepseek-harness-runtime-bin)"
    return ""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Both anyio backends (see the module docstring for single-backend suites)."""
    return str(request.param)


@pytest.fixture(scope="module")
def scripted_model_scripts() -> ScriptTable:
    """Extra scenarios for this module's ``scripted_model``; override it in a test module."""
    return {}


@pytest.fixture(scope="module")
def scripted_model(scripted_model_scripts: ScriptTable) -> Iterator[ScriptedModelServer]:
    """One scripted model endpoint per test module, on 127.0.0.1; stopped after the module."""
    with ScriptedModelServer(scripts=scripted_model_scripts) as server:
        yield server


@pytest.fixture
def fake_harness(tmp_path: Path) -> HarnessFactory:
    """``fake_harness(scenario="normal", *, home=None, scenario_args=None, **fields)``."""

    def make(scenario: str = "normal", **fields: Any) -> DeepSeekHarness:
        return _fake_harness(tmp_path, scenario, **fields)

    return make


@pytest.fixture
def real_harness(tmp_path: Path, scripted_model: ScriptedModelServer) -> HarnessFactory:
    """``real_harness(*, home=None, workspace=None, **fields)`` on this module's scripted model."""

    def make(**fields: Any) -> DeepSeekHarness:
        return _real_harness(tmp_path, scripted_model, **fields)

    return make


def _in_process_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, driver: str = ""
) -> Iterator[Any]:
    from IPython.core.interactiveshell import InteractiveShell

    from .kernel import HeadlessKernel, InProcessKernel, LiveKernel

    drivers = {"headless": HeadlessKernel, "live": LiveKernel}

    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(workspace)
    made = drivers[driver]() if driver else None
    kernel = InProcessKernel.load(InteractiveShell.instance(), driver=made)
    try:
        yield kernel
    finally:
        kernel.unload()


@pytest.fixture
def dsh_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An in-process kernel on a ``MockRuntime``, terminal mode (see the module docstring)."""
    yield from _in_process_kernel(tmp_path, monkeypatch)


@pytest.fixture
def dsh_headless_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``dsh_kernel`` as nbclient drives a kernel: runs are displayed (and recorded), not printed."""
    yield from _in_process_kernel(tmp_path, monkeypatch, driver="headless")


@pytest.fixture
def dsh_live_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``dsh_kernel`` as a live page drives a kernel: stdin offered, runs in the background."""
    yield from _in_process_kernel(tmp_path, monkeypatch, driver="live")


@pytest.fixture
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Comms created during the test (``RecordingComm``), in creation order; needs ``comm``."""
    import comm

    from .comms import RecordingComm

    made: list[RecordingComm] = []

    def create(*args: Any, **kwargs: Any) -> RecordingComm:
        recorder = RecordingComm(*args, **kwargs)
        made.append(recorder)
        return recorder

    monkeypatch.setattr(comm, "create_comm", create)
    return made
