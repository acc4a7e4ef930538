"""The notebook's conversations: which sessions it has used, with their first prompt and date.

``%dsh sessions`` lists them. A conversation is one session; a notebook owns the sessions its
cells sent prompts to (its default one, ``%dsh new [NAME]`` / ``--new`` ones, ``-s NAME`` ones and
resumed ones). The index is one small JSON file per notebook,
``<DSH_HOME>/dsh_notebook/conversations/<notebook>.json`` where ``<notebook>`` is the notebook's
default session name (its identity with the frontend extension; the kernel's own fallback
without it, see :mod:`.naming`), a :mod:`.store` record ``{"v": 1, "sessions": {...}}`` mapping
each session to ``{"first_prompt", "started", "last", "prompts"}`` (session names are the
person's, so they never share a level with the record's own keys), and once a run of it
settled ``"context"`` (its context use as the runtime last reported it, ``{"tokens",
"window"}``, see :mod:`dsh_notebook.transcript.context_use`), ``"last_run_tokens"`` (the tokens
its latest settled run used, subagents included) and ``"tokens"`` (the sum over its settled
runs); an entry without them (an older kernel's, or no run settled) shows none. An index written before
records had a version (the sessions at the top level) reads the same and is rewritten in this
shape by the next prompt.

Guarantees:

- Written only when the runtime accepted a prompt (the same moment the Run-All ledger counts it
  as answered), from the runtime host's thread; read on the main thread. A lock keeps the
  read-modify-write of one kernel whole; two kernels writing the same notebook at once may lose
  an update (a count, never a file: writes go through a temporary file and a rename).
- Best effort: nothing here raises into a run or a command; an unreadable index reads as empty.
  A time that no date can be shown for (NaN, infinite, negative, past the year 9999) is
  replaced by the entry's other time; an entry with neither is not listed (but kept).
- A write keeps every key of the index and of its entries that it does not change, unknown
  ones included. An index from a newer ``dsh_notebook`` is read-only: not listed, not counted
  into, left as it is (see :mod:`.store`).
- The first prompt is kept one line, at most :data:`PROMPT_CHARS` characters, with the API keys
  the caller passes masked (``***``) before anything is written.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...runtime import redact
from ...transcript.context_use import ContextUse
from . import store

if TYPE_CHECKING:
    from ...runtime.secret import Secrets

__all__ = ["PROMPT_CHARS", "Conversation", "ConversationIndex"]

PROMPT_CHARS = 120


@dataclass(frozen=True)
class Conversation:
    session_id: str
    first_prompt: str
    started: float
    """When its first prompt was accepted (seconds since the epoch)."""
    last: float
    """When its newest prompt was accepted."""
    prompts: int
    context: ContextUse | None = None
    """Its context use when its latest run settled (as the runtime reported it)."""
    last_run_tokens: int | None = None
    """Tokens its latest settled run used (subagents included)."""
    tokens: int | None = None
    """Tokens its settled runs used, summed."""
    last_run_cost: float | None = None
    """Its latest settled run's estimated cost in US dollars (``None``: no price known)."""
    cost: float | None = None
    """Its settled runs' estimated costs, summed (runs without a price add nothing)."""


def _usd(value: object) -> float | None:
    """A kept cost: a finite number >= 0, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < float("inf") else None


def _tokens(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1].rstrip() + "…"


_SESSIONS = "sessions"


def _split(index: store.Record | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the index's own keys but its sessions, its entries by session) as read."""
    if index is None or index.newer:
        return {}, {}
    fields = dict(index.fields)
    if index.version >= 1:
        entries = fields.pop(_SESSIONS, None)
        return fields, dict(entries) if isinstance(entries, dict) else {}
    # before versions: every object at the top level is a session's entry
    entries = {k: fields.pop(k) for k in list(fields) if isinstance(fields[k], dict)}
    nested = entries.get(_SESSIONS)
    if nested is not None and "first_prompt" not in nested:  # a newer index an older kernel wrote
        entries = {**entries.pop(_SESSIONS), **entries}
    return fields, entries


class ConversationIndex:
    """The per-notebook index of conversations in one ``DSH_HOME`` (one per kernel)."""

    def __init__(self, dsh_home: Path) -> None:
        self._dir = dsh_home / "dsh_notebook" / "conversations"
        self._lock = threading.Lock()

    def _path(self, notebook: str) -> Path:
        return self._dir / f"{store.safe_name(notebook)}.json"

    def note(self, notebook: str, session_id: str, prompt: str, secrets: Secrets = ()) -> None:
        """Count an accepted ``prompt`` in ``session_id``; the first one is kept (never raises)."""
        now = time.time()
        path = self._path(notebook)
        with self._lock:
            index = store.read(path)
            fields, entries = _split(index)
            entry = entries.get(session_id)
            if isinstance(entry, dict):
                entry = dict(entry)
            else:
                entry = {"first_prompt": _one_line(redact(prompt, secrets)), "started": now}
            count = entry.get("prompts")
            entry["prompts"] = (count if type(count) is int and count >= 0 else 0) + 1
            entry["last"] = now
            entries[session_id] = entry
            store.write(path, {**fields, _SESSIONS: entries}, replacing=index)

    def record_run(
        self,
        notebook: str,
        session_id: str,
        context: ContextUse | None,
        run_tokens: int,
        run_cost: float | None = None,
    ) -> None:
        """A run of ``session_id`` settled: keep its context use (when reported) and count its
        tokens (never raises; an entry not written yet by :meth:`note` is left alone)."""
        path = self._path(notebook)
        with self._lock:
            index = store.read(path)
            fields, entries = _split(index)
            entry = entries.get(session_id)
            if not isinstance(entry, dict):
                return
            entry = dict(entry)
            if context is not None and context.known:
                entry["context"] = {"tokens": context.tokens, "window": context.window}
            entry["last_run_tokens"] = run_tokens
            entry["tokens"] = (_tokens(entry.get("tokens")) or 0) + run_tokens
            entry["last_run_cost"] = run_cost
            if run_cost is not None:
                entry["cost"] = (_usd(entry.get("cost")) or 0.0) + run_cost
            entries[session_id] = entry
            store.write(path, {**fields, _SESSIONS: entries}, replacing=index)

    def context_of(self, notebook: str, session_id: str) -> ContextUse | None:
        """The context use kept for ``session_id`` (None when none was kept or it is unreadable)."""
        with self._lock:
            _, entries = _split(store.read(self._path(notebook)))
        entry = entries.get(session_id)
        return ContextUse.from_dict(entry.get("context")) if isinstance(entry, dict) else None

    def list(self, notebook: str) -> list[Conversation]:
        """The notebook's conversations, the most recently used first."""
        out: list[Conversation] = []
        with self._lock:
            _, entries = _split(store.read(self._path(notebook)))
        for session_id, entry in entries.items():
            if not isinstance(entry, dict):
                continue
            prompt, prompts = entry.get("first_prompt"), entry.get("prompts", 1)
            started = store.valid_time(entry.get("started"))
            last = store.valid_time(entry.get("last"))
            if started is None:
                started = last
            elif last is None:
                last = started
            if not isinstance(prompt, str) or started is None or last is None:
                continue
            count = prompts if type(prompts) is int and prompts >= 0 else 1
            out.append(
                Conversation(
                    session_id, prompt, started, last, count,
                    context=ContextUse.from_dict(entry.get("context")),
                    last_run_tokens=_tokens(entry.get("last_run_tokens")),
                    tokens=_tokens(entry.get("tokens")),
                    last_run_cost=_usd(entry.get("last_run_cost")),
                    cost=_usd(entry.get("cost")),
                )
            )  # fmt: skip
        return sorted(out, key=lambda c: c.last, reverse=True)
