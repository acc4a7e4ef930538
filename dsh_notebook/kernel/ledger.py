"""A small record of prompts already answered per session, so "Run All" does not re-spend tokens.

Re-running a ``%%dsh`` cell in the same kernel sends the prompt again (that is what running a cell
means). But after a kernel restart or a reopened notebook, "Run All" would silently resend every
prompt whose answer is already in the saved notebook. The ledger (``<DSH_HOME>/dsh_notebook/
ledger/<session>.json``) remembers the hash of each prompt sent per session; a prompt found there
that this kernel has not sent yet is skipped with a visible note, unless the policy is ``always``.

The index stores hashes only. Next to it, each answered prompt keeps the static transcript its
cell showed (``ledger/<session>/<hash>.json``: markdown, text, and the variables its approved
``run_python`` calls made), so a skipped cell shows that transcript again and a notebook saved
after Restart & Run All holds the same transcripts as before. Those files hold agent output, as
the session files in ``DSH_HOME`` already do; the API key is masked before anything is written.
Concurrent writers may lose an entry: the cost is one resend, never a skip of something new.
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

    def keep_transcript(
        self,
        session_id: str,
        prompt: str,
        bundle: dict[str, str],
        variables: list[str],
        *,
        agent_cells: int = 0,
    ) -> None:
        """Keep the settled transcript of an answered prompt (best effort, never raises);
        ``agent_cells``: how many agent cells its run inserted into the notebook."""
        record = {"bundle": bundle, "variables": variables, "agent_cells": agent_cells,
                  "time": time.time()}  # fmt: skip
        path = self._transcript_path(session_id, prompt)
        with contextlib.suppress(OSError, TypeError, ValueError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(record, ensure_ascii=False))
            tmp.replace(path)

    def kept_transcript(
        self, session_id: str, prompt: str
    ) -> tuple[dict[str, str], list[str]] | None:
        """The kept transcript bundle and variables of an answered prompt, or None."""
        try:
            record = json.loads(self._transcript_path(session_id, prompt).read_text())
        except (OSError, ValueError):
            return None
        bundle, variables = record.get("bundle"), record.get("variables")
        if not isinstance(bundle, dict) or not all(isinstance(v, str) for v in bundle.values()):
            return None
        names = [v for v in variables if isinstance(v, str)] if isinstance(variables, list) else []
        return bundle, names

    def kept_agent_cells(self, session_id: str, prompt: str) -> int:
        """How many agent cells the kept run of this prompt inserted (0 when unknown)."""
        try:
            record = json.loads(self._transcript_path(session_id, prompt).read_text())
        except (OSError, ValueError):
            return 0
        count = record.get("agent_cells") if isinstance(record, dict) else None
        return count if type(count) is int and count > 0 else 0

    def _transcript_path(self, session_id: str, prompt: str) -> Path:
        return self._path(session_id).with_suffix("") / f"{self.digest(prompt)}.json"

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
