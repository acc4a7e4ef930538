"""Session names: the notebook's default session, fresh sessions, and what a name may be.

A notebook's conversation belongs to that notebook alone. With the ``dsh-notebook`` frontend
extension (JupyterLab, Notebook 7) the default session is named after the notebook's own id,
which lives in its metadata: ``nb-<12 hex>``, stable across rename, move, kernel restart and
reopening; a copy of the file gets a fresh id, hence a fresh conversation (see
:mod:`dsh_notebook.frontend.identity`). Without the extension (VS Code, Colab, nbclient, a
terminal) nothing identifies the notebook safely — a name such as ``Untitled.ipynb`` is reused —
so each kernel gets a fresh session ``nb-<random 12 hex>`` unless ``-s NAME`` names one.
``%%dsh --new`` and ``%dsh new`` make the same kind of fresh id: the default id plus ``-<6 hex>``.

A session name becomes a directory name in ``DSH_HOME`` and a file name in the ledger, so it is
validated: letters, digits, ``-``, ``_``, ``.`` and ``:``, 1-128 characters, not starting with a
dot - no path separator, no ``..``.
"""

from __future__ import annotations

import re
import uuid
from typing import Final

from ...errors import DshError
from ..options.line_args import quoted

__all__ = ["InvalidSessionName", "SessionNames", "default_session_id", "validate_session_name"]


class InvalidSessionName(DshError, ValueError):
    """A session name that could reach outside ``DSH_HOME`` or is not a name at all."""


_PROCESS_ID = uuid.uuid4().hex[:12]
_VALID: Final = re.compile(r"^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$")


def default_session_id() -> str:
    """The fallback default session of this kernel process: ``nb-<random 12 hex>``."""
    return f"nb-{_PROCESS_ID}"


def validate_session_name(name: str) -> str:
    """``name`` when it is a valid session name, else :class:`InvalidSessionName` (one line)."""
    if not _VALID.match(name) or ".." in name:
        raise InvalidSessionName(
            f"invalid session name {quoted(name)}: use 1-128 letters, digits, '-', '_', '.' or ':' "
            "(no path separators, no '..', not starting with '.')"
        )
    return name


class SessionNames:
    """The notebook's current session and how fresh ones are named (one per kernel)."""

    def __init__(self, default: str) -> None:
        self.default = default
        self.current = default

    def adopt(self, notebook_default: str) -> None:
        """The notebook's own default (from its identity) replaces the kernel's fallback; a
        session chosen with ``%dsh new`` / ``resume`` or ``--new`` stays current."""
        if notebook_default == self.default:
            return
        if self.current == self.default:
            self.current = notebook_default
        self.default = notebook_default

    def fresh(self) -> str:
        """Make a new session current: the default id plus ``-<6 hex>``; returns it."""
        self.current = f"{self.default}-{uuid.uuid4().hex[:6]}"
        return self.current

    def use(self, name: str) -> str:
        """Make ``name`` (validated) the current session; returns it."""
        self.current = validate_session_name(name)
        return self.current
