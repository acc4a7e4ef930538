"""Runs for broker tests: a real :class:`~dsh_notebook.kernel.registry.runs.Runs` registry holding runs
that have a policy and a session and nothing else (no view, no runtime)."""

from __future__ import annotations

import concurrent.futures
import queue
from typing import Any, cast

from dsh_notebook.kernel.registry.broker import Broker, RunPolicy, SessionTree
from dsh_notebook.kernel.registry.handle import RunHandle
from dsh_notebook.kernel.registry.runs import ActiveRun, Runs
from dsh_notebook.kernel.showing.pump import LiveView


def bare_run(
    session: str, policy: RunPolicy | None = None, cell_id: str | None = None
) -> ActiveRun:
    """A run of ``session`` with ``policy``: enough for the registry and the broker."""
    handle = RunHandle(concurrent.futures.Future(), session=session, prompt="p")
    return ActiveRun(handle, cast(LiveView, None), policy or RunPolicy(), queue.Queue(), cell_id)


def broker_with_runs(tree: SessionTree | None = None) -> tuple[Broker, Runs]:
    runs = Runs(tree)
    return Broker(runs), runs


def hold(runs: Runs, session: str, policy: RunPolicy | None = None, **kw: Any) -> ActiveRun:
    """Add a run of ``session`` and let it hold the session (its turn came)."""
    run = bare_run(session, policy, **kw)
    runs.add(run)
    runs.hold(run)
    return run
