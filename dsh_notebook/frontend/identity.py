"""Which notebook (and which cell) the current execute request came from.

The ``dsh-notebook`` extension stores a stable id in the notebook's own metadata and sends it
with every execute request (see :mod:`dsh_notebook.page_protocol`). The id survives rename,
move, kernel restart and reopening; a copy of the file gets a fresh id (``forked_from`` names
the original). Without the extension (VS Code, nbclient, Colab, a terminal) there is no
identity and :func:`current_identity` returns ``None``: the caller keeps its own fallback.

Call :func:`current_identity` on the kernel's main thread while the cell runs (e.g. in a cell
magic): ipykernel 6 keeps one shell parent per kernel and 7 one per thread context, so from
another thread, or after the cell ended, it may describe a different request or none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..page_protocol import parse_identity


@dataclass(frozen=True)
class NotebookIdentity:
    """The notebook a request came from. ``id`` is 32 lowercase hex digits."""

    id: str
    path: str
    cell_id: str | None = None
    forked_from: str | None = None
    private: bool = False
    """The cell is tagged ``dsh-private``: its run is withheld from the model."""

    @property
    def session_name(self) -> str:
        """The default conversation name of this notebook: ``nb-`` and the id's first 12 hex
        digits (48 bits, unique enough per machine, short enough to read)."""
        return f"nb-{self.id[:12]}"


def parent_message(kernel: object) -> Mapping[str, object] | None:
    """The shell request the kernel is handling now (ipykernel 6 and 7), or ``None``."""
    get_parent = getattr(kernel, "get_parent", None)
    try:
        parent = get_parent("shell") if callable(get_parent) else None
    except Exception:
        parent = None
    if parent is None:  # ipykernel < 6 kept it as an attribute
        parent = getattr(kernel, "_parent_header", None)
    return parent if isinstance(parent, Mapping) and parent else None


def identity_from_metadata(metadata: object) -> NotebookIdentity | None:
    """The identity in an execute request's metadata, or ``None`` (absent or malformed)."""
    parsed = parse_identity(metadata)
    if parsed is None:
        return None
    return NotebookIdentity(
        id=parsed["id"],
        path=parsed["path"],
        cell_id=parsed["cell_id"],
        forked_from=parsed.get("forked_from"),
        private=parsed.get("private", False),
    )


def current_identity(kernel: object) -> NotebookIdentity | None:
    """The identity carried by the execute request being handled, or ``None`` when it carries
    none (no extension) or it is malformed. Never raises."""
    parent = parent_message(kernel)
    if parent is None or parent.get("msg_type", _header_type(parent)) != "execute_request":
        return None
    return identity_from_metadata(parent.get("metadata"))


def _header_type(parent: Mapping[str, object]) -> object:
    header = parent.get("header")
    return header.get("msg_type") if isinstance(header, Mapping) else None
