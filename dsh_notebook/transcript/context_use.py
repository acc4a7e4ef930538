"""How full a session's context is, from what the runtime reported: never an estimate.

What every reader shows (the widget's header gauge, ``%dsh status``, ``%dsh sessions``) is one
:class:`ContextUse` of the **root session**:

- ``tokens``: the context after the session's latest model step, that is the step's whole
  request plus its answer (the answer is history in the next request), as the step's
  ``assistant/message`` ``usage`` reports it: ``totalTokens`` when present, else
  ``inputTokens + cacheReadTokens + cacheWriteTokens + outputTokens``. ``inputTokens`` alone is
  not the request: the runtime counts only its uncached part there, and the cached part still
  fills the window. A usage with no count at all leaves the figure as it was.
- ``window``: the ``contextWindow`` of the session's latest ``request/context`` event. The
  runtime sends that event on a session's first step and again only when it changes (not after
  a resume), so the figure is carried from one run of a session to the next
  (:class:`~dsh_notebook.transcript.facts.ContextCarried`) and kept with the conversation.
- ``fraction``: ``tokens / window`` when both are known, else ``None``: without a reported
  window the tokens are shown without a percentage; a window is never guessed.
- A subagent's steps do not count: it has a context of its own.
- :data:`HIGH`: from this fraction on, readers suggest a fresh conversation (``--new``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from dsh_notebook.protocol import SESSION_EVENT, Notification

from . import schema

__all__ = [
    "FRESH_HINT",
    "HIGH",
    "ContextUse",
    "context_tokens",
    "context_window",
    "footer_use",
    "format_tokens",
]

HIGH: Final = 0.8
"""The fraction of the window from which the context counts as nearly full."""

FRESH_HINT: Final = "start a fresh conversation: %%dsh --new (or %dsh new)"
"""What a nearly full context suggests (the cell option and the command that start one)."""

_PARTS = ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens")
_MAX = 2**53 - 1  # JSON numbers every reader keeps exact


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX:
        return None
    return value


def context_tokens(usage: object) -> int | None:
    """The context after a step, from its ``usage`` (wire names); ``None`` when it has no count."""
    if not isinstance(usage, dict):
        return None
    total = _count(usage.get("totalTokens"))
    if total is not None:
        return total
    parts = [_count(usage.get(k)) for k in _PARTS]
    if all(p is None for p in parts):
        return None
    return min(sum(p or 0 for p in parts), _MAX)


def context_window(data: object) -> int | None:
    """The window a ``request/context`` event's data reports (a positive count), else ``None``."""
    if not isinstance(data, dict):
        return None
    window = _count(data.get("contextWindow"))
    return window if window else None


def format_tokens(n: int, *, millions_from: int = 999_950) -> str:
    """``18``, ``1.2k``, ``120k``, ``1M``: counts from ``millions_from`` on read in millions (by
    default those that would round to ``1000k``)."""
    if n < 1000:
        return str(n)
    if n < millions_from:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{n / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"


@dataclass(frozen=True)
class ContextUse:
    """A session's context use: ``tokens`` in it after its latest step, its ``window`` (either
    ``None`` when not reported yet)."""

    tokens: int | None = None
    window: int | None = None

    def __post_init__(self) -> None:
        for name in ("tokens", "window"):
            value = getattr(self, name)
            if value is not None and _count(value) is None:
                raise ValueError(f"ContextUse.{name} must be a count or None, not {value!r}")

    @property
    def known(self) -> bool:
        """Anything was reported."""
        return self.tokens is not None or self.window is not None

    @property
    def fraction(self) -> float | None:
        """``tokens / window`` when both are known (may exceed 1), else ``None``."""
        if self.tokens is None or not self.window:
            return None
        return self.tokens / self.window

    @property
    def high(self) -> bool:
        """At least :data:`HIGH` of the window is used."""
        fraction = self.fraction
        return fraction is not None and fraction >= HIGH

    def to_dict(self) -> schema.ContextUse | None:
        """The snapshot's ``header.context_use``; ``None`` when nothing was reported."""
        if not self.known:
            return None
        fraction = self.fraction
        return {
            "tokens": self.tokens,
            "window": self.window,
            "fraction": round(fraction, 6) if fraction is not None else None,
        }

    @classmethod
    def from_dict(cls, value: Any) -> ContextUse | None:
        """Read back :meth:`to_dict` (or a stored record of it): ``None`` for anything else."""
        if not isinstance(value, dict):
            return None
        tokens, window = value.get("tokens"), value.get("window")
        tokens = _count(tokens) if tokens is not None else None
        window = _count(window) or None if window is not None else None
        use = cls(tokens, window)
        return use if use.known else None

    def observe(self, notification: Notification, session_id: str) -> ContextUse:
        """This use after ``notification``, when it is an event of ``session_id`` itself that
        reports tokens (``assistant/message``) or a window (``request/context``); else ``self``.
        The reducer and a reader of the raw stream (the kernel's host thread) agree by using
        the same two readers (:func:`context_tokens`, :func:`context_window`)."""
        params = notification.params
        if notification.method != SESSION_EVENT or not isinstance(params, dict):
            return self
        event = params.get("event")
        if params.get("sessionId") != session_id or not isinstance(event, dict):
            return self
        data = event.get("data")
        if event.get("type") == "assistant/message" and isinstance(data, dict):
            tokens = context_tokens(data.get("usage"))
            if tokens is not None:
                return ContextUse(tokens, self.window)
        elif event.get("type") == "request/context":
            window = context_window(data)
            if window is not None:
                return ContextUse(self.tokens, window)
        return self

    def percent(self) -> str | None:
        """``12%``; ``<1%`` for a small use of a large window; ``None`` without a window."""
        fraction = self.fraction
        if fraction is None:
            return None
        if 0 < fraction < 0.01:
            return "<1%"
        return f"{fraction * 100:.0f}%"

    def words(self) -> str:
        """``context 12% · 120k / 1M tokens``; without a window ``context 120k tokens (window
        not reported)``; with only a window ``context window 1M tokens``; empty when unknown."""
        if self.tokens is None:
            return f"context window {format_tokens(self.window)} tokens" if self.window else ""
        if self.window is None:
            return f"context {format_tokens(self.tokens)} tokens (window not reported)"
        return (
            f"context {self.percent()} · {format_tokens(self.tokens)} / "
            f"{format_tokens(self.window)} tokens"
        )


def footer_use(header: schema.Header) -> ContextUse | None:
    """The context use a settled transcript's footer shows: ``None`` before any tokens were
    reported (or in a snapshot from before the field existed)."""
    use = ContextUse.from_dict(header.get("context_use"))
    return use if use is not None and use.tokens is not None else None
