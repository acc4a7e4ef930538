"""A session's state: the route ``initialize`` fixed, queued inbox items, and the session itself
(event numbering, status, the persisted record). Mutated only under the runtime's lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from .records import PROVIDER, now_ms
from .wire import Json, Wire


class SessionHost(Protocol):
    """What a session needs of its runtime (:class:`~.runtime.RuntimeCore`)."""

    lock: threading.RLock
    mode: str
    wire: Wire


@dataclass(frozen=True)
class Route:
    """What ``initialize`` captured (provider, model, effort, maxTokens, cwd)."""

    model: str
    effort: str | None
    max_tokens: int | None
    cwd: str

    def header(self) -> Json:
        config = {
            "provider": PROVIDER,
            "model": self.model,
            "maxTokens": self.max_tokens or 256000,
            "reasoningEffort": self.effort or "high",
        }
        defaults = {
            key: True
            for key, given in (("reasoningEffort", self.effort), ("maxTokens", self.max_tokens))
            if given is None
        }
        return {"config": config, "adapterDefaults": defaults}


@dataclass
class Item:
    """One queued inbox message and how the turn that claims it behaves."""

    message: Json
    kind: str
    reply: str | None = None
    bad_text: bool = False


@dataclass(eq=False)
class Session:
    rt: SessionHost
    id: str
    route: Route
    origin: str
    cwd: str
    parent: Session | None = None
    seq: int = 0
    turn: int = 0
    step: int = 0
    running: bool = False
    open_turn: bool = False
    fresh: bool = True
    header_reason: str | None = "initial"
    ctx_cwd: str | None = None
    poison: str | None = None
    settled: bool = False
    last_text: str = ""
    created_at: int = field(default_factory=now_ms)
    inbox: list[Item] = field(default_factory=list)
    current: list[Item] = field(default_factory=list)
    notices: list[Json] = field(default_factory=list)
    claimed_notices: list[Json] = field(default_factory=list)
    children: list[Session] = field(default_factory=list)
    gate: threading.Event = field(default_factory=threading.Event)

    @property
    def policy(self) -> str:
        return "never" if self.parent or self.rt.mode == "danger-full-access" else "ask"

    def ev(self, etype: str, data: Json, **extra: Any) -> int:
        """Append one durable event and forward it as ``session.event``; returns its seq."""
        with self.rt.lock:
            seq, self.seq = self.seq, self.seq + 1
            event = {"type": etype, "seq": seq, "time": now_ms(), "data": data, **extra}
            self.rt.wire.notify("session.event", {"sessionId": self.id, "event": event})
            return seq

    def step_ev(self, etype: str) -> None:
        self.ev(etype, {"turn": self.turn, "step": self.step})

    def status(self, status: str) -> None:
        self.rt.wire.notify("session.status", {"sessionId": self.id, "status": status})

    def to_json(self) -> Json:
        return {
            "version": 1,
            "id": self.id,
            "nextSeq": self.seq,
            "turn": self.turn,
            "origin": self.origin,
            "cwd": self.cwd,
            "createdAt": self.created_at,
            "openTurn": self.open_turn,
            "poison": self.poison,
            "lastText": self.last_text,
            "parentSessionId": self.parent.id if self.parent else None,
        }
