"""How full each session's context is, for this kernel: the figure a run carries over and that
``%dsh status`` and ``%dsh sessions`` print.

The figure is :class:`~dsh_notebook.transcript.context_use.ContextUse` (what the runtime
reported; its module says exactly what is counted). The runtime reports a session's window
once (its first step, or when it changes), not per run nor after a resume, so:

- :meth:`SessionContexts.observe` follows every notification of a run on the runtime host's
  thread, in order, so that when the next run of the session starts (the host serializes runs
  on a session) the figure is that of the run before, whatever the pump has shown yet;
- :meth:`SessionContexts.carried` gives a starting run that figure, or the one kept with the
  conversation (:mod:`.conversations`) when this kernel has not run the session yet (a restart,
  ``%dsh resume``); the run's transcript fills from it what it has not reported itself;
- when a run settles its figure and its tokens are kept with the conversation (the pump thread,
  :func:`record_settled`).

Thread-safety: every method may be called from any thread (one lock; no callback under it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ...protocol import Notification
from ...transcript.context_use import FRESH_HINT, ContextUse, format_tokens
from ...transcript.pricing import format_usd
from ...transcript.schema import Snapshot
from ..persistence.conversations import Conversation, ConversationIndex

__all__ = ["SessionContexts", "context_line", "record_settled", "session_columns"]


class SessionContexts:
    """The latest context use of each session this kernel ran (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._uses: dict[str, ContextUse] = {}

    def observe(self, session_id: str, notification: Notification) -> None:
        """Follow one notification of a run on ``session_id`` (host thread, in order)."""
        with self._lock:
            now = self._uses.get(session_id, ContextUse())
            after = now.observe(notification, session_id)
            if after is not now:
                self._uses[session_id] = after

    def get(self, session_id: str) -> ContextUse | None:
        """What this kernel saw of ``session_id`` (None: nothing yet)."""
        with self._lock:
            return self._uses.get(session_id)

    def carried(self, session_id: str, kept: Callable[[], ContextUse | None]) -> ContextUse | None:
        """The figure a run of ``session_id`` starts from: this kernel's, else ``kept()`` (the
        conversation's record, read once per session and kernel)."""
        with self._lock:
            known = self._uses.get(session_id)
        if known is not None:
            return known if known.known else None
        use = kept() or ContextUse()
        with self._lock:
            use = self._uses.setdefault(session_id, use)  # a run observed meanwhile wins
        return use if use.known else None


def record_settled(conversations: ConversationIndex, notebook: str, snapshot: Snapshot) -> None:
    """Keep a settled run's context use and tokens with its conversation (pump thread, the
    transcript's owner): read from ``snapshot``, the settled state the settle published (its
    :class:`~.rendering.Rendering`'s; no snapshot of its own)."""
    header = snapshot["header"]
    cost = header["cost"]
    conversations.record_run(
        notebook,
        header["session_id"],
        ContextUse.from_dict(header["context_use"]),
        header["usage"]["total_tokens"],
        cost["usd"] if cost is not None else None,
    )


def context_line(session_id: str, use: ContextUse | None) -> str:
    """``%dsh status``'s line: the session's context use and, when nearly full, what to do."""
    if use is None or use.tokens is None:
        return f"context: nothing reported yet for session {session_id}"
    line = f"context: {use.words().removeprefix('context ')} (session {session_id}, after its latest step)"
    return f"{line}\n  nearly full: {FRESH_HINT}" if use.high else line


def session_columns(conversation: Conversation, live: ContextUse | None) -> str:
    """``%dsh sessions``' figures of one conversation: its context use (this kernel's newest,
    else the kept one) and its runs' tokens, e.g. ``context 12% · 120k / 1M · last run 4.2k,
    all runs 12k tokens``; empty when nothing was reported."""
    use = live if live is not None and live.tokens is not None else conversation.context
    parts = []
    if use is not None and use.tokens is not None:
        parts.append(use.words().removesuffix(" tokens") + ("  (nearly full)" if use.high else ""))
    if conversation.last_run_tokens is not None:
        runs = f"last run {format_tokens(conversation.last_run_tokens)}"
        if conversation.tokens is not None and conversation.tokens != conversation.last_run_tokens:
            runs += f", all runs {format_tokens(conversation.tokens)}"
        parts.append(runs + " tokens")
    if conversation.last_run_cost is not None:
        cost = f"last run {format_usd(conversation.last_run_cost)}"
        if conversation.cost is not None and conversation.cost != conversation.last_run_cost:
            cost += f", all runs {format_usd(conversation.cost)}"
        parts.append(cost + " (estimated)")
    return " · ".join(parts)
