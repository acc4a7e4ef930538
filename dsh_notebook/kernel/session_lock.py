"""One kernel per session: a conversation is written by one kernel at a time.

Two kernels writing one session mix their turns (the runtime refuses the second writer with
"already owned by an active write handle", or, once the first is gone, the second continues the
first's history). Before a kernel first sends to a session it takes an exclusive lock on
``<DSH_HOME>/dsh_notebook/locks/<session>.lock`` (``fcntl.flock``) and holds it for the kernel's
life; the operating system releases it when the kernel process ends, however it ends, so a
crashed kernel never leaves a stale lock. The second kernel gets a one-line error that says how
to continue. On a platform without ``fcntl`` the lock is not taken (documented limitation).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import IO, Any

from ..errors import DshError

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["SessionInUse", "SessionLocks"]


class SessionInUse(DshError):
    """Another kernel is writing this session now."""


class SessionLocks:
    """The session locks one kernel holds. Thread-safe; :meth:`release_all` is idempotent."""

    def __init__(self, dsh_home: Path, *, owner: str = "") -> None:
        self._dir = dsh_home / "dsh_notebook" / "locks"
        self._owner = owner
        self._held: dict[str, IO[str]] = {}
        self._lock = threading.Lock()

    def claim(self, session_id: str) -> None:
        """Hold ``session_id`` for this kernel, or raise :class:`SessionInUse`."""
        if fcntl is None:
            return
        with self._lock:
            if session_id in self._held:
                return
            self._dir.mkdir(parents=True, exist_ok=True)
            path = self._dir / f"{session_id}.lock"
            handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the kernel's life
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _describe(path)
                handle.close()
                raise SessionInUse(
                    f"session {session_id!r} is in use by another kernel{holder}: use "
                    "`%%dsh --new` (or `-s NAME`) for a conversation of your own, or shut that "
                    "kernel down first"
                ) from None
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": os.getpid(), "owner": self._owner}))
            handle.flush()
            self._held[session_id] = handle

    def release_all(self) -> None:
        """Let go of every session (extension unloaded, kernel shutting down)."""
        with self._lock:
            held, self._held = self._held, {}
        for handle in held.values():
            with contextlib.suppress(OSError):
                handle.close()


def _describe(path: Path) -> str:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return ""
    pid = data.get("pid") if isinstance(data, dict) else None
    owner = data.get("owner") if isinstance(data, dict) else None
    parts = [f"pid {pid}" if isinstance(pid, int) else "", str(owner) if owner else ""]
    shown = ", ".join(p for p in parts if p)
    return f" ({shown})" if shown else ""
