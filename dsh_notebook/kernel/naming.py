"""Session names: the notebook's default session, fresh sessions, and what a name may be.

The default id is derived from the notebook's path when the kernel can learn it
(``JPY_SESSION_NAME`` set by jupyter_server 2+, ``__vsc_ipynb_file__`` set by VS Code); otherwise
from a per-process random id (terminal IPython, unknown frontends), which then lasts only as long
as the process. ``%%dsh --new`` and ``%dsh new`` make the same kind of fresh id: the default id
plus ``-<6 hex>``.

A session name becomes a directory name in ``DSH_HOME`` and a file name in the ledger, so it is
validated: letters, digits, ``-``, ``_``, ``.`` and ``:``, 1-128 characters, not starting with a
dot — no path separator, no ``..``.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

__all__ = ["SessionNames", "default_session_id", "notebook_path", "validate_session_name"]

_PROCESS_ID = uuid.uuid4().hex[:12]
_VALID: Final = re.compile(r"^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$")


def notebook_path(
    user_ns: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> str | None:
    """The notebook's path as the kernel can learn it, or None."""
    env = os.environ if environ is None else environ
    vscode = user_ns.get("__vsc_ipynb_file__")
    if isinstance(vscode, str) and vscode:
        return vscode
    name = env.get("JPY_SESSION_NAME")
    if name:
        return name
    return None


def default_session_id(user_ns: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> str:
    """``nb-<stem>-<hash of the path>``, or ``nb-<process id>`` when the path is unknown."""
    path = notebook_path(user_ns, environ)
    if path is None:
        return f"nb-{_PROCESS_ID}"
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in Path(path).stem)[:40]
    digest = hashlib.sha256(str(Path(path)).encode()).hexdigest()[:10]
    return f"nb-{stem}-{digest}"


def validate_session_name(name: str) -> str:
    """``name`` when it is a valid session name, else ``ValueError`` with a one-line reason."""
    if not _VALID.match(name) or ".." in name:
        raise ValueError(
            f"invalid session name {name!r}: use 1-128 letters, digits, '-', '_', '.' or ':' "
            "(no path separators, no '..', not starting with '.')"
        )
    return name


class SessionNames:
    """The notebook's current session and how fresh ones are named (one per kernel)."""

    def __init__(self, default: str) -> None:
        self.default = default
        self.current = default

    def fresh(self) -> str:
        """Make a new session current: the default id plus ``-<6 hex>``; returns it."""
        self.current = f"{self.default}-{uuid.uuid4().hex[:6]}"
        return self.current

    def use(self, name: str) -> str:
        """Make ``name`` (validated) the current session; returns it."""
        self.current = validate_session_name(name)
        return self.current
