"""The one registry of a kernel's runs: which run holds a session, which run a request belongs to.

A run is **queued** from the moment its cell starts it (:meth:`Runs.add`) until its turn on the
session comes — the host serializes runs on one session — then it **holds** the session
(:meth:`Runs.hold`) until it **settles** (:meth:`Runs.settle`). Every "which run is this?" of the
kernel is answered here, by the session the runtime named, never by recency:

- :meth:`Runs.run_of` — the run holding a session or, for a subagent's session, the run holding
  its nearest ancestor (the session tree comes from the runtime host). The broker asks it for a
  request's policy and scopes (:meth:`Runs.policy_for`), the waiting signal for the cell a card
  is in, the notebook tools for the run a ``run_python`` call belongs to (and so its agent cell).
  A queued run owns nothing: with two ``%%dsh`` cells queued on one session (Run All), the first
  one's requests stay the first one's.
- :meth:`Runs.last` — the newest run started (what ``%dsh wait`` and ``%dsh stop`` name).
- :meth:`Runs.in_progress` — the runs not settled yet, oldest first.

Thread-safety: every method may be called from any thread (the main thread starts runs, the host
loop holds and settles them and asks :meth:`run_of`, the MCP server and the pump read). One lock
guards the state; no callback runs under it.
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..showing.pump import LiveView
from .broker import MainThreadPrompt, RunPolicy, SessionTree
from .handle import RunHandle

__all__ = ["ActiveRun", "ApprovedCall", "Runs"]


@dataclass(eq=False)
class ActiveRun:
    """A run the kernel started: its handle, view, policy, stdin prompts and cell."""

    handle: RunHandle
    view: LiveView
    policy: RunPolicy
    prompts: queue.Queue[MainThreadPrompt]
    cell_id: str | None = None
    """The notebook cell that started it (known with the frontend extension)."""
    execution_count: int | None = None
    """The ``In [k]`` of the cell execution that started it, set once that execution ended (None
    before: a run queued behind a run of the same cell execution cannot name it)."""
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    """Names the run in its agent cells' metadata (see :mod:`.agent_cells`)."""
    agent_calls: int = 0
    """Approved ``run_python`` calls numbered for agent cells so far."""
    agent_cells: int = 0
    """Agent cells sent to the page so far."""
    accepted: bool = False
    """The runtime took its prompt (the host thread sets it once): it counts as answered."""
    settled: bool = False
    """Set once by :meth:`Runs.settle`; a settled run never holds a session again."""
    record: Callable[[LiveView], None] | None = None
    """Keeps the settled run's figures with its conversation (pump thread, once)."""

    @property
    def session(self) -> str:
        return self.handle.session


@dataclass(frozen=True)
class ApprovedCall:
    """Who owns an approved notebook tool call (the grant's ``owner``): the run whose agent made
    it, and the call as the runtime named it (its session and call id)."""

    run: ActiveRun
    session_id: str
    call_id: str


class _NoTree:
    def parent_of(self, session_id: str) -> str | None:
        return None


class Runs:
    """The runs of one kernel (see the module docstring)."""

    def __init__(self, tree: SessionTree | None = None) -> None:
        self.tree: SessionTree = tree or _NoTree()
        self._lock = threading.Lock()
        self._runs: list[ActiveRun] = []  # not settled, oldest first; plus the newest settled
        self._holders: dict[str, ActiveRun] = {}  # session -> the run whose turn it is

    def add(self, run: ActiveRun) -> None:
        """A cell started ``run``: queued until :meth:`hold`. Settled runs are forgotten here
        (their transcript lives in their output), except that the newest run stays :meth:`last`."""
        with self._lock:
            self._runs = [r for r in self._runs if not r.settled]
            self._runs.append(run)

    def hold(self, run: ActiveRun) -> None:
        """``run``'s turn on its session came (host loop): from now on it owns the session's
        requests. A settled run never holds again."""
        with self._lock:
            if not run.settled:
                self._holders[run.session] = run

    def settle(self, run: ActiveRun) -> None:
        """``run`` is over: it releases its session (if it holds it) and its scopes end. A
        request of its session that arrives afterwards belongs to no run (and is refused)."""
        run.policy.end_scopes()
        with self._lock:
            run.settled = True
            if self._holders.get(run.session) is run:
                del self._holders[run.session]

    def holder_of(self, session_id: str) -> ActiveRun | None:
        """The run that holds ``session_id`` now (its own session only), or None."""
        with self._lock:
            return self._holders.get(session_id)

    def run_of(self, session_id: str) -> ActiveRun | None:
        """The run a request of ``session_id`` belongs to: the holder of that session or of its
        nearest ancestor in the session tree; None when no run of this kernel holds any."""
        current: str | None = session_id
        seen: set[str] = set()
        while current is not None and current not in seen:
            seen.add(current)
            holder = self.holder_of(current)
            if holder is not None:
                return holder
            current = self.tree.parent_of(current)
        return None

    def policy_for(self, session_id: str) -> RunPolicy | None:
        """The policy of :meth:`run_of` (the broker's :class:`~.broker.PolicyLookup`)."""
        run = self.run_of(session_id)
        return run.policy if run is not None else None

    def live_policies(self) -> list[RunPolicy]:
        """The policies of every run not settled (to end their scopes on a fail-closed path)."""
        return [run.policy for run in self.in_progress()]

    def in_progress(self) -> list[ActiveRun]:
        """The runs not settled yet, oldest first."""
        with self._lock:
            return [r for r in self._runs if not r.settled]

    def last(self) -> ActiveRun | None:
        """The newest run started (settled or not), or None."""
        with self._lock:
            return self._runs[-1] if self._runs else None

    def __iter__(self) -> Iterator[ActiveRun]:
        with self._lock:
            return iter(list(self._runs))

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)
