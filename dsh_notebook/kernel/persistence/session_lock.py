"""One kernel per session: a conversation is written by one kernel at a time.

Two kernels writing one session mix their turns (the runtime refuses the second writer with
"already owned by an active write handle", or, once the first is gone, the second continues the
first's history). Before a kernel first sends to a session it takes an exclusive lock on
``<DSH_HOME>/dsh_notebook/locks/<session>.lock`` (``fcntl.flock``) and holds it for the kernel's
life; the operating system releases it when the kernel process ends, however it ends, so a
crashed kernel never leaves a stale lock. The second kernel gets a one-line error that says how
to continue. On a platform without ``fcntl`` the lock is not taken (documented limitation).

A lock file holds a :mod:`.store` record naming its holder (pid, owner), for that message only;
the lock itself is the ``flock``. In a ``DSH_HOME`` shared by several users a lock file another
user made may not be writable: it is then locked through a read-only handle (``flock`` needs no
write access) and names no holder. Anything else in the way (a lock path or the ``locks`` path
that is of the wrong kind, a folder that cannot be written) is a :class:`~.store.StoreError` of
one line that names the path and what to do; no session is written unlocked.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import IO

from ...errors import DshError
from . import store

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
        """Hold ``session_id`` for this kernel, or raise :class:`SessionInUse` (another kernel
        holds it) or :class:`~.store.StoreError` (the lock cannot be taken; says what to fix)."""
        if fcntl is None:
            return
        with self._lock:
            if session_id in self._held:
                return
            path = self._dir / f"{session_id}.lock"
            handle = self._open(session_id, path)
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
            if handle.writable():
                with contextlib.suppress(OSError, ValueError):
                    handle.seek(0)
                    handle.truncate()
                    handle.write(store.dumps({"pid": os.getpid(), "owner": self._owner}).decode())
                    handle.flush()
            self._held[session_id] = handle

    def _open(self, session_id: str, path: Path) -> IO[str]:
        """The lock file, opened to write its holder or, when it is not writable, to read."""
        cannot = f"cannot lock session {session_id!r}:"
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise store.StoreError(
                f"{cannot} {self._dir} (or a folder above it) is a file, not a folder; remove "
                "that file (the kernel keeps its session locks there) and run the cell again"
            ) from None
        except OSError as exc:
            raise store.StoreError(f"{cannot} {self._dir} cannot be created ({_reason(exc)}); "
                                   f"{_OWN_HOME}") from None  # fmt: skip
        try:
            return open(path, "a+", encoding="utf-8")  # held for the kernel's life
        except IsADirectoryError:
            raise store.StoreError(
                f"{cannot} {path} is a folder, not a lock file; remove it if no kernel uses "
                "this session, and run the cell again"
            ) from None
        except PermissionError as exc:
            denied = exc  # another user's lock file in a shared DSH_HOME: read-only locks too
        except OSError as exc:
            raise store.StoreError(f"{cannot} {path} cannot be opened ({_reason(exc)}); "
                                   f"{_OWN_HOME}") from None  # fmt: skip
        try:
            return open(path, encoding="utf-8")  # held for the kernel's life
        except OSError:
            raise store.StoreError(f"{cannot} {path} cannot be written ({_reason(denied)}); "
                                   f"{_OWN_HOME}") from None  # fmt: skip

    def release_all(self) -> None:
        """Let go of every session (extension unloaded, kernel shutting down)."""
        with self._lock:
            held, self._held = self._held, {}
        for handle in held.values():
            with contextlib.suppress(OSError):
                handle.close()


_OWN_HOME = (
    "a DSH_HOME shared with other users needs write access for you; else give this kernel a "
    "DSH_HOME of its own (%config DshMagics.dsh_home = '/path', or the kernel's environment)"
)


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _describe(path: Path) -> str:
    record = store.read(path)
    fields = record.fields if record is not None else {}
    pid, owner = fields.get("pid"), fields.get("owner")
    parts = [f"pid {pid}" if type(pid) is int else "", str(owner) if owner else ""]
    shown = ", ".join(p for p in parts if p)
    return f" ({shown})" if shown else ""
