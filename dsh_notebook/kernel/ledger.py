"""A small record of prompts already answered per session, so "Run All" does not re-spend tokens.

Re-running a ``%%dsh`` cell in the same kernel sends the prompt again (that is what running a cell
means). But after a kernel restart or a reopened notebook, "Run All" would silently resend every
prompt whose answer is already in the saved notebook. The ledger (``<DSH_HOME>/dsh_notebook/
ledger/<session>.json``) remembers the hash of each prompt sent per session; a prompt found there
that this kernel has not sent yet is skipped with a visible note, unless the policy is ``always``.

The ledger stores hashes only, never prompt text. Concurrent writers may lose an entry: the cost is
one resend, never a skip of something new.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path

__all__ = ["PromptLedger"]


class PromptLedger:
    def __init__(self, dsh_home: Path) -> None:
        self._dir = dsh_home / "dsh_notebook" / "ledger"
        self._sent_here: set[tuple[str, str]] = set()

    @staticmethod
    def digest(prompt: str) -> str:
        return hashlib.sha256(prompt.strip().encode()).hexdigest()

    def _path(self, session_id: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)
        return self._dir / f"{safe}.json"

    def _load(self, session_id: str) -> dict[str, float]:
        try:
            data = json.loads(self._path(session_id).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def answered_elsewhere(self, session_id: str, prompt: str) -> bool:
        """True when this prompt was sent in this session by an earlier kernel, not by this one."""
        key = self.digest(prompt)
        if (session_id, key) in self._sent_here:
            return False
        return key in self._load(session_id)

    def record(self, session_id: str, prompt: str) -> None:
        key = self.digest(prompt)
        self._sent_here.add((session_id, key))
        data = self._load(session_id)
        data[key] = time.time()
        with contextlib.suppress(OSError):
            self._dir.mkdir(parents=True, exist_ok=True)
            tmp = self._path(session_id).with_suffix(".tmp")
            tmp.write_text(json.dumps(data))
            tmp.replace(self._path(session_id))
