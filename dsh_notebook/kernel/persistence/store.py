"""One JSON object per file under ``<DSH_HOME>/dsh_notebook/``: what a kernel leaves for the next.

The Run-All ledger and its kept transcripts (:mod:`.ledger`), the conversations index
(:mod:`.conversations`) and the session locks' owner notes (:mod:`.session_lock`) are records
read and written here, so that every one of them is versioned, written atomically and read
safely the same way.

Guarantees:

- A record is a JSON object with an integer version ``"v"`` (:data:`VERSION`). A file written
  before records had one reads as version 0; its shape is read as before.
- Reading never raises: a file that is absent, unreadable, a directory, not JSON or not a JSON
  object reads as ``None``. Each read returns every key of the object, unknown ones included,
  so a caller that writes back what it read (plus its change) keeps them.
- A record of a newer version (``v`` > :data:`VERSION`, from a newer ``dsh_notebook`` sharing this
  ``DSH_HOME``) is **read-only**: :func:`write` refuses to replace it and its owner module reads
  it as absent, so this version neither misreads a shape it does not know nor destroys it. The
  first such file is logged once per path (the cell says nothing: the cost is a resent prompt or
  an unlisted conversation, never a wrong skip or a lost record).
- Writing is atomic: a temporary file in the same folder, flushed to disk, then renamed over the
  record. A reader sees the old record or the new one, never a part. Two writers of one record
  do not corrupt it; the later rename wins (read-modify-write is the caller's to serialize).
  :func:`write` never raises either; it returns whether the record was written.
- Thread-agnostic: no shared state but the set of paths already logged (under a lock).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ...errors import DshError

__all__ = ["VERSION", "Record", "StoreError", "dumps", "read", "safe_name", "valid_time", "write"]

VERSION: Final = 1
"""The record version this ``dsh_notebook`` writes (and the newest it reads)."""

VERSION_KEY: Final = "v"

_LATEST_TIME: Final = 253402300799.0
"""9999-12-31 23:59:59 UTC: the latest time every platform's ``time.localtime`` shows."""

log = logging.getLogger(__name__)
_logged: set[Path] = set()
_logged_lock = threading.Lock()


class StoreError(DshError):
    """A file or folder under ``DSH_HOME`` is in the way; the message says which and what to do."""


@dataclass(frozen=True)
class Record:
    """One record as read: all of its keys, and the version it was written with."""

    path: Path
    fields: Mapping[str, Any]
    version: int
    """0 for a file written before records had a version."""

    @property
    def newer(self) -> bool:
        """Written by a newer ``dsh_notebook``: read-only here (see the module docstring)."""
        return self.version > VERSION


def safe_name(name: str) -> str:
    """``name`` as one file name: every character but letters, digits, ``-_.`` becomes ``_``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def valid_time(value: object) -> float | None:
    """``value`` as seconds since the epoch when it is one a date can be shown for (a finite
    number from 1970 to 9999), else ``None`` (NaN, infinities, negative or huge times, non-numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not 0 <= value <= _LATEST_TIME:  # NaN fails every comparison
        return None
    return float(value)


def read(path: Path) -> Record | None:
    """The record at ``path``, or ``None`` when there is none that can be read (never raises)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    version = data.get(VERSION_KEY, 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        version = 0
    record = Record(path, data, version)
    if record.newer:
        _log_once(path, f"{path} was written by a newer dsh_notebook (record version {version}, "
                        f"this one knows {VERSION}): left as it is, read as absent")  # fmt: skip
    return record


def dumps(fields: Mapping[str, Any]) -> bytes:
    """``fields`` as the UTF-8 JSON of a record of this version (``"v"`` set); a lone surrogate
    in a string is kept as its ``\\u`` escape."""
    data = {**fields, VERSION_KEY: VERSION}
    try:
        return json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data).encode("ascii")


def write(path: Path, fields: Mapping[str, Any], *, replacing: Record | None) -> bool:
    """Write ``fields`` as the record at ``path`` (atomically; see the module docstring).

    ``replacing`` is the record this write replaces, as read (``None`` when there was none):
    a newer one is not replaced. The caller passes every key it read that it does not change,
    so unknown keys survive. Returns False when nothing was written (never raises)."""
    if replacing is not None and replacing.newer:
        return False
    try:
        data = dumps(fields)
    except (TypeError, ValueError, RecursionError):
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        _log_once(path, f"{path} cannot be written ({exc.strerror or exc})")
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _log_once(path, f"{path} cannot be written ({exc.strerror or exc})")
        return False
    return True


def _log_once(path: Path, message: str) -> None:
    with _logged_lock:
        if path in _logged:
            return
        _logged.add(path)
    log.warning("dsh_notebook store: %s", message)
