"""The notebook's conversations: which sessions it has used, with their first prompt and date.

``%dsh sessions`` lists them. A conversation is one session; a notebook owns the sessions its
cells sent prompts to (its default one, ``%dsh new [NAME]`` / ``--new`` ones, ``-s NAME`` ones and
resumed ones). The index is one small JSON file per notebook,
``<DSH_HOME>/dsh_notebook/conversations/<notebook>.json`` where ``<notebook>`` is the notebook's
default session name (its identity with the frontend extension; the kernel's own fallback
without it, see :mod:`.naming`), mapping each session to ``{"first_prompt", "started",
"last", "prompts"}``.

Guarantees:

- Written only when the runtime accepted a prompt (the same moment the Run-All ledger counts it
  as answered), from the runtime host's thread; read on the main thread. A lock keeps the
  read-modify-write of one kernel whole; two kernels writing the same notebook at once may lose
  an update (a count, never a file: writes go through a temporary file and a rename).
- Best effort: nothing here raises into a run or a command; an unreadable index reads as empty.
- The first prompt is kept one line, at most :data:`PROMPT_CHARS` characters, with the API keys
  the caller passes masked (``***``) before anything is written.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..runtime import redact

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


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1].rstrip() + "…"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


class ConversationIndex:
    """The per-notebook index of conversations in one ``DSH_HOME`` (one per kernel)."""

    def __init__(self, dsh_home: Path) -> None:
        self._dir = dsh_home / "dsh_notebook" / "conversations"
        self._lock = threading.Lock()

    def _path(self, notebook: str) -> Path:
        return self._dir / f"{_safe(notebook)}.json"

    def _load(self, notebook: str) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self._path(notebook).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict)}

    def note(
        self, notebook: str, session_id: str, prompt: str, secrets: tuple[str, ...] = ()
    ) -> None:
        """Count an accepted ``prompt`` in ``session_id``; the first one is kept (never raises)."""
        now = time.time()
        with self._lock, contextlib.suppress(OSError, TypeError, ValueError):
            data = self._load(notebook)
            entry = data.get(session_id)
            if entry is None:
                entry = {"first_prompt": _one_line(redact(prompt, secrets)), "started": now}
                entry["prompts"] = 0
            count = entry.get("prompts")
            entry["prompts"] = (count if isinstance(count, int) else 0) + 1
            entry["last"] = now
            data[session_id] = entry
            self._dir.mkdir(parents=True, exist_ok=True)
            path = self._path(notebook)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, ensure_ascii=False))
            tmp.replace(path)

    def list(self, notebook: str) -> list[Conversation]:
        """The notebook's conversations, the most recently used first."""
        out: list[Conversation] = []
        with self._lock:
            data = self._load(notebook)
        for session_id, entry in data.items():
            prompt, started = entry.get("first_prompt"), entry.get("started")
            last, prompts = entry.get("last", started), entry.get("prompts", 1)
            if not isinstance(prompt, str) or not isinstance(started, (int, float)):
                continue
            out.append(
                Conversation(
                    session_id,
                    prompt,
                    float(started),
                    float(last) if isinstance(last, (int, float)) else float(started),
                    prompts if isinstance(prompts, int) else 1,
                )
            )
        return sorted(out, key=lambda c: c.last, reverse=True)
