"""Which session made a notebook tool call: known by cause, from the runtime's own events.

The runtime's MCP client calls the kernel's MCP server with the tool's name and arguments only:
nothing in the HTTP request says which session (agent) made the call. But before the runtime runs
any tool it appends a ``tool/call`` event to the calling session — its session id, the call's id,
the tool's public name (``mcp__notebook__run_python``) and the model's arguments — and writes it
to its stdout at once (the session's observers run inside the append; the SDK server's observer
writes the notification). The kernel sees every event on the host loop (a router tap,
:meth:`CallOrigins.observe`) and keeps the MCP tool calls in flight (seen, not answered by a
``tool/result`` yet, their turn not ended).

**The carrier: an ordering barrier.** When a server call arrives, its own ``tool/call`` was
written to stdout before the runtime sent the call. The caller then makes one round trip to the
runtime on the same stdio channel (:meth:`~dsh_notebook.client.low_level.HarnessClient.barrier`);
its answer is written after everything the runtime wrote before reading it, and the transport
dispatches lines in order. So once the barrier is answered, the call's own event has been
observed, and :meth:`CallOrigins.claim` chooses among the events **seen by then**, never waits
for an event that may belong to another call. A claim that had to wait after the barrier (the
carrier did not hold: a call from outside, or a runtime that calls before it writes) is never
certain.

The match: same public name and **equal** arguments (the whole object, never a subset). Each
``tool/call`` answers at most one server call, oldest first. The outcome is an :class:`Origin` —
the session, the runtime's call id and the run that owns the session (asked once per session, at
the claim: the caller never looks it up again) — that says whether it is **certain**: every
matching unclaimed call belongs to one run, and none of them was ever a candidate of an
uncertain claim. When calls of two runs match (two sessions sent the very same call at the same
moment) the kernel cannot tell which server call is whose: the claim is uncertain, and every
call that matched it is marked **ambiguous**, so the claims of the others are uncertain too (the
first guess is never forgotten by the second). The caller lets only the person decide an
uncertain call (never a run's ``allow`` or scope). An uncertain read credits no conversation by
itself; when every read of its group showed the same view, each candidate run saw that view
whichever read was its own, and all of them are credited (:class:`Ambiguity`).

Thread-safety: :meth:`observe` runs on the host loop; :meth:`claim` on any thread: with a
``timeout`` it waits on a condition (so never on a loop), with ``timeout=0`` it only takes the
lock (a loop may call it so). One lock guards the calls in flight; a claim decides its
certainty and marks the ambiguous calls under it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ...protocol import SESSION_EVENT, Notification

__all__ = ["MCP_TOOL_PREFIX", "Ambiguity", "CallOrigins", "Origin"]

MCP_TOOL_PREFIX = "mcp__"
"""Every MCP tool's public name starts so (the runtime's naming contract)."""

MAX_IN_FLIGHT = 256
"""Calls kept at the most (the oldest unclaimed ones go first): a bound, never reached in use."""

R = TypeVar("R")


class Ambiguity(Generic[R]):
    """The calls that matched one uncertain claim (and the claims after it among them): the runs
    they may belong to, and what each of their reads showed.

    A read of one of them credits no conversation by itself. When every call of the group has
    reported its view and all views are equal, each candidate run saw that view whichever call
    was its own: :meth:`report` then names the runs to credit (once). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, R | None] = {}
        self._views: dict[str, object] = {}
        self._credited = False

    def add(self, call_id: str, run: R | None) -> None:
        with self._lock:
            self._runs.setdefault(call_id, run)

    def runs(self) -> list[R]:
        """Every run a call of the group may belong to (each once)."""
        with self._lock:
            return _distinct(self._runs.values())

    def report(self, call_id: str, view: object) -> list[R]:
        """The read claimed as ``call_id`` showed ``view`` (anything comparable with ``==``):
        the runs to credit with it now, or ``[]``."""
        with self._lock:
            self._views[call_id] = view
            if self._credited or set(self._views) != set(self._runs):
                return []
            first = next(iter(self._views.values()))
            if any(v != first for v in self._views.values()):
                return []
            self._credited = True
            return _distinct(self._runs.values())


def _distinct(runs: Iterable[R | None]) -> list[R]:
    out: list[R] = []
    for run in runs:
        if run is not None and all(run is not r for r in out):
            out.append(run)
    return out


@dataclass(frozen=True)
class Origin(Generic[R]):
    """Who made a tool call: the runtime's session and call id, and the run owning the session."""

    session_id: str
    call_id: str
    certain: bool = True
    """False when calls of more than one run matched: the person must decide it."""
    run: R | None = None
    """The run the session belongs to at the claim (``run_of``), or None: no run owns it."""
    peers: Ambiguity[R] | None = None
    """An uncertain origin's group (its read credits through it); None when certain."""


@dataclass
class _InFlight:
    session_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any] | None
    claimed: bool = False
    ambiguous: bool = False
    """A candidate of an uncertain claim: whoever claims it cannot be sure whose it is."""
    peers: Ambiguity[Any] | None = None
    """Its :class:`Ambiguity` group, once ``ambiguous``."""


def _parsed(raw: Any) -> Mapping[str, Any] | None:
    if isinstance(raw, Mapping):
        return raw
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _matches(call: _InFlight, name: str, arguments: Mapping[str, Any]) -> bool:
    """Same tool, equal arguments (the whole object: a subset is another call)."""
    if call.claimed or call.name != name or call.arguments is None:
        return False
    return dict(call.arguments) == dict(arguments)


class CallOrigins:
    """The MCP tool calls in flight in this kernel's runtime (see the module docstring)."""

    def __init__(self) -> None:
        self._calls: list[_InFlight] = []
        self._arrived = threading.Condition()

    # -- host loop --------------------------------------------------------------------------------

    def observe(self, notification: Notification) -> None:
        """A router tap (host loop): note ``tool/call`` events of MCP tools, forget them at their
        ``tool/result`` or at the end of their session's turn. Never raises."""
        if notification.method != SESSION_EVENT:
            return
        params = notification.params
        session_id, event = params.get("sessionId"), params.get("event")
        if not isinstance(session_id, str) or not isinstance(event, dict):
            return
        kind, data = event.get("type"), event.get("data")
        if not isinstance(data, dict):
            return
        if kind == "tool/call":
            name, call_id = data.get("name"), data.get("callId")
            if (
                isinstance(name, str)
                and name.startswith(MCP_TOOL_PREFIX)
                and isinstance(call_id, str)
            ):
                self._add(_InFlight(session_id, call_id, name, _parsed(data.get("arguments"))))
        elif kind == "tool/result":
            message = data.get("message")
            call_id = message.get("toolCallId") if isinstance(message, dict) else None
            if isinstance(call_id, str):
                self._drop(lambda c: c.call_id == call_id and c.session_id == session_id)
        elif kind == "turn/end":
            self._drop(lambda c: c.session_id == session_id)

    def forget_all(self) -> None:
        """The runtime is gone (or replaced): none of its calls can arrive any more."""
        self._drop(lambda c: True)

    def _add(self, call: _InFlight) -> None:
        with self._arrived:
            self._calls.append(call)
            if len(self._calls) > MAX_IN_FLIGHT:
                del self._calls[0]
            self._arrived.notify_all()

    def _drop(self, which: Callable[[_InFlight], bool]) -> None:
        with self._arrived:
            self._calls = [c for c in self._calls if not which(c)]

    # -- any thread -------------------------------------------------------------------------------

    def claim(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        run_of: Callable[[str], R | None],
        timeout: float,
    ) -> Origin[R] | None:
        """The origin of a server call of the MCP tool ``name`` with ``arguments``; ``None`` when
        no unclaimed ``tool/call`` with equal arguments is seen within ``timeout`` seconds.

        Call it after the ordering barrier with ``timeout=0`` (see the module docstring): the
        call's own event is among those seen. A positive ``timeout`` waits for an event that
        was not there: such an origin is never certain (nothing proves the event is this
        call's). ``run_of`` maps a session to the run it belongs to (compared by identity),
        asked once per session of the matches. When the matches belong to more than one run
        (or to none), or one of them was a candidate of an earlier uncertain claim, the origin
        is not certain and every match is marked ambiguous. Called off the host loop: the wait
        blocks the calling thread only."""
        deadline = time.monotonic() + timeout
        waited = False
        with self._arrived:
            while True:
                matches = [c for c in self._calls if _matches(c, name, arguments)]
                if matches:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                waited = True
                self._arrived.wait(left)
            chosen = matches[0]
            chosen.claimed = True
            # decided under the lock, so a concurrent claim sees the marks (run_of takes only
            # the registry's own lock and never calls back here)
            runs = {session: run_of(session) for session in {c.session_id for c in matches}}
            run = runs[chosen.session_id]
            one_run = len({id(r) for r in runs.values()}) == 1 and run is not None
            certain = one_run and not waited and not any(c.ambiguous for c in matches)
            peers: Ambiguity[R] | None = None
            if not one_run:
                peers = next((c.peers for c in matches if c.peers is not None), None)
                peers = peers or Ambiguity()
                for call in matches:
                    call.ambiguous, call.peers = True, peers
                    peers.add(call.call_id, runs[call.session_id])
            elif not certain:
                peers = chosen.peers
        return Origin(chosen.session_id, chosen.call_id, certain=certain, run=run, peers=peers)
