"""A small record of prompts already answered per session, so "Run All" does not re-spend tokens.

Re-running a ``%%dsh`` cell in the same kernel sends the prompt again (that is what running a cell
means). But after a kernel restart or a reopened notebook, "Run All" would silently resend every
prompt whose answer is already in the saved notebook. The ledger (``<DSH_HOME>/dsh_notebook/
ledger/<session>.json``) remembers the hash of each prompt sent per session; a prompt found there
that this kernel has not sent yet is skipped with a visible note, unless the policy is ``always``.

The index stores hashes only. Next to it, each answered prompt keeps the static transcript its
cell showed (``ledger/<session>/<hash>.json``: markdown, text, and the variables its approved
``run_python`` calls made), so a skipped cell shows that transcript again and a notebook saved
after Restart & Run All holds the same transcripts as before. While its run is in progress the
record holds the live transcript, flagged ``interrupted`` (what is left if the kernel stops
first); the settled transcript replaces it. Those files hold agent output, as
the session files in ``DSH_HOME`` already do; the API key is masked before anything is written.
Concurrent writers may lose an entry: the cost is one resend, never a skip of something new.

Both are records of :mod:`.store` (versioned, written atomically, never raising): an index or
transcript that cannot be read, is not a JSON object or comes from a newer ``dsh_notebook``
reads as absent (the prompt is sent; a skipped cell shows the note alone), and a newer one is
never overwritten. A kept transcript is shown only as ``text/markdown`` and ``text/plain``
(:data:`~.kept.KEPT_MIMES`), whatever else its file holds. Each record is read once per call.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from ..showing.rendering import Rendering
from . import store
from .kept import KEPT_MIMES, kept_record

__all__ = ["KeptTranscript", "PromptLedger"]


@dataclass(frozen=True)
class KeptTranscript:
    """What a settled run of a prompt left for a skipped cell."""

    bundle: dict[str, str]
    """Its static transcript: only ``text/markdown`` and ``text/plain`` (at least one)."""
    variables: list[str]
    """Names its approved ``run_python`` calls made."""
    agent_cells: int
    """How many agent cells its run inserted into the notebook (0 when unknown)."""
    interrupted: bool = False
    """Kept while its run was in progress, and never replaced by the settled transcript."""
    time: float | None = None
    """When it was kept (seconds since the epoch), if the record says."""


class PromptLedger:
    def __init__(self, dsh_home: Path) -> None:
        self._dir = dsh_home / "dsh_notebook" / "ledger"
        self._sent_here: set[tuple[str, str]] = set()

    @staticmethod
    def digest(prompt: str) -> str:
        return hashlib.sha256(prompt.strip().encode()).hexdigest()

    def _path(self, session_id: str) -> Path:
        return self._dir / f"{store.safe_name(session_id)}.json"

    def answered_elsewhere(self, session_id: str, prompt: str) -> bool:
        """True when this prompt was sent in this session by an earlier kernel, not by this one."""
        key = self.digest(prompt)
        if (session_id, key) in self._sent_here:
            return False
        index = store.read(self._path(session_id))
        return index is not None and not index.newer and key in index.fields

    def keep_transcript(
        self,
        session_id: str,
        prompt: str,
        bundle: dict[str, str],
        variables: list[str],
        *,
        agent_cells: int = 0,
        interrupted: bool = False,
    ) -> bool:
        """Keep the transcript of an answered prompt (best effort, never raises; whether it was
        written): the settled one, or with ``interrupted`` the live one of a run in progress.
        ``agent_cells``: how many agent cells its run inserted into the notebook so far."""
        record = {"bundle": bundle, "variables": variables, "agent_cells": agent_cells,
                  "time": time.time(), "interrupted": interrupted}  # fmt: skip
        path = self._transcript_path(session_id, prompt)
        return store.write(path, record, replacing=store.read(path))

    def keep_rendering(
        self,
        session_id: str,
        prompt: str,
        rendering: Rendering,
        *,
        agent_cells: int = 0,
        interrupted: bool = False,
    ) -> bool:
        """:meth:`keep_transcript` of a run's rendered state (:func:`~.kept.kept_record`: what
        it had rendered already, e.g. the settled markdown it published, is not rendered
        again). Pump thread (it owns the rendering)."""
        bundle, variables = kept_record(rendering, interrupted=interrupted)
        return self.keep_transcript(
            session_id,
            prompt,
            bundle,
            variables,
            agent_cells=agent_cells,
            interrupted=interrupted,
        )

    def kept(self, session_id: str, prompt: str) -> KeptTranscript | None:
        """The kept transcript of an answered prompt (its file read once), or None."""
        record = store.read(self._transcript_path(session_id, prompt))
        if record is None or record.newer:
            return None
        bundle, variables = record.fields.get("bundle"), record.fields.get("variables")
        if not isinstance(bundle, dict):
            return None
        shown = {m: bundle[m] for m in KEPT_MIMES if isinstance(bundle.get(m), str)}
        if not shown:
            return None
        names = [v for v in variables if isinstance(v, str)] if isinstance(variables, list) else []
        count = record.fields.get("agent_cells")
        return KeptTranscript(
            shown,
            names,
            count if type(count) is int and count > 0 else 0,
            interrupted=record.fields.get("interrupted") is True,
            time=store.valid_time(record.fields.get("time")),
        )

    def kept_transcript(
        self, session_id: str, prompt: str
    ) -> tuple[dict[str, str], list[str]] | None:
        """The kept transcript bundle and variables of an answered prompt, or None."""
        kept = self.kept(session_id, prompt)
        return None if kept is None else (kept.bundle, kept.variables)

    def kept_agent_cells(self, session_id: str, prompt: str) -> int:
        """How many agent cells the kept run of this prompt inserted (0 when unknown)."""
        kept = self.kept(session_id, prompt)
        return 0 if kept is None else kept.agent_cells

    def _transcript_path(self, session_id: str, prompt: str) -> Path:
        return self._path(session_id).with_suffix("") / f"{self.digest(prompt)}.json"

    def record(self, session_id: str, prompt: str) -> None:
        """Count ``prompt`` as answered in ``session_id`` (best effort, never raises); the
        index's other keys, unknown ones included, are kept."""
        key = self.digest(prompt)
        self._sent_here.add((session_id, key))
        path = self._path(session_id)
        index = store.read(path)
        fields = dict(index.fields) if index is not None else {}
        fields[key] = time.time()
        store.write(path, fields, replacing=index)
