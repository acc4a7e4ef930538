"""Which session made a notebook tool call: read from the runtime's own ``tool/call`` events.

The runtime's MCP client calls the kernel's MCP server with the tool's name and arguments only:
nothing in the HTTP request says which session (agent) made the call. But before the runtime runs
any tool it appends a ``tool/call`` event to the calling session — its session id, the call's id,
the tool's public name (``mcp__notebook__run_python``) and the model's arguments — and the kernel
sees every event on the host loop (a router tap, :meth:`CallOrigins.observe`). So the kernel keeps
the MCP tool calls in flight (seen, not answered by a ``tool/result`` yet, their turn not ended)
and matches each call its server receives to one of them (:meth:`CallOrigins.claim`): same
public name, and every argument the model gave has the same value in the call. The match is
claimed: each ``tool/call`` answers at most one server call, oldest first.

The outcome is an :class:`Origin` — the session, the runtime's call id and the run that owns the
session (asked once per session, at the claim: the caller never looks it up again) — that says
whether it is **certain**: every unclaimed matching call belongs to one run. When two runs' calls match (two
sessions sent the very same code at the same moment) the kernel cannot tell which server call is
whose; the origin is marked ``certain=False`` and its caller must let only the person decide it
(never a run's ``allow`` or scope). No match within ``timeout`` (the event has not arrived, or the
call came from outside any session the kernel watches): ``None``, and the caller refuses the call.

Thread-safety: :meth:`observe` runs on the host loop; :meth:`claim` on any thread: with a
``timeout`` it waits on a condition (so never on a loop), with ``timeout=0`` it only takes the
lock (a loop may call it so). One lock guards the calls in flight.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..protocol import SESSION_EVENT, Notification

__all__ = ["MCP_TOOL_PREFIX", "CallOrigins", "Origin"]

MCP_TOOL_PREFIX = "mcp__"
"""Every MCP tool's public name starts so (the runtime's naming contract)."""

MAX_IN_FLIGHT = 256
"""Calls kept at the most (the oldest unclaimed ones go first): a bound, never reached in use."""

R = TypeVar("R")


@dataclass(frozen=True)
class Origin(Generic[R]):
    """Who made a tool call: the runtime's session and call id, and the run owning the session."""

    session_id: str
    call_id: str
    certain: bool = True
    """False when calls of more than one run matched: the person must decide it."""
    run: R | None = None
    """The run the session belongs to at the claim (``run_of``), or None: no run owns it."""


@dataclass
class _InFlight:
    session_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any] | None
    claimed: bool = False


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
    if call.claimed or call.name != name or call.arguments is None:
        return False
    return all(k in arguments and arguments[k] == v for k, v in call.arguments.items())


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
        """The origin of a server call of the MCP tool ``name`` with ``arguments``, waiting up to
        ``timeout`` seconds for its ``tool/call`` event; ``None`` when none arrives.

        ``run_of`` maps a session to the run it belongs to (compared by identity), asked once per
        session of the matches; the chosen call's run is the origin's :attr:`Origin.run`. When the
        unclaimed matches belong to more than one run (or to none), the origin is not certain.
        Called off the host loop: the wait blocks the calling thread only."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                matches = [c for c in self._calls if _matches(c, name, arguments)]
                if matches:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._arrived.wait(left)
            chosen = matches[0]
            chosen.claimed = True
        runs = {session: run_of(session) for session in {c.session_id for c in matches}}
        run = runs[chosen.session_id]
        certain = len({id(r) for r in runs.values()}) == 1 and run is not None
        return Origin(chosen.session_id, chosen.call_id, certain=certain, run=run)
