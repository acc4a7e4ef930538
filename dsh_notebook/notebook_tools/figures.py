"""Which matplotlib figures a ``run_python`` call showed, described as text while they exist.

With the inline backend, ``plt.show()`` (and ``display(fig)``) hands the figure to IPython's
display formatter and then closes it; by the time the call returns only the PNG is left. While
:func:`watch_displayed_figures` is active, every matplotlib figure passing through the shell's
``display_formatter.format`` is described first (:func:`dsh_notebook.context.figures.describe_figure`)
and the description appended to the list it yields, in display order; the display itself is
unchanged.

Threads: call it on the thread that runs the code (the kernel's main thread); it sets and then
removes an instance attribute on the shell's formatter, restored even when the code raises.
Without a formatter (not an IPython shell) it yields a list that stays empty.

:class:`FigureNotes` does the same for the person's own cells, for the kernel's life, so
``notebook_cells`` can describe the figures a cell shows, and keeps the PNG the display sent,
so a cell read by id can hand its figures to a model that takes images.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..context.figure_of import as_figure

__all__ = ["FigureNotes", "watch_displayed_figures"]

MAX_PNG_BYTES: Final = 1_000_000
"""A figure whose PNG is larger is described, never kept as an image."""

KEPT_PNG_BYTES: Final = 16_000_000
"""The PNGs kept for all cells together; over it the oldest cells' go first (their text stays)."""


def _describe(figure: Any, max_chars: int) -> str:
    """The figure as text. The describer is imported here, with the first figure shown (matplotlib
    is loaded by then): watching the shell's displays from ``%load_ext`` on costs nothing more."""
    from ..context.figures import describe_figure

    return describe_figure(figure, max_chars=max_chars)


@contextlib.contextmanager
def watch_displayed_figures(shell: Any, *, max_chars: int = 2000) -> Iterator[list[str]]:
    """Yield a list that collects a description of each figure displayed meanwhile."""
    seen: list[str] = []
    formatter = getattr(shell, "display_formatter", None)
    original = getattr(formatter, "format", None)
    if formatter is None or original is None:
        yield seen
        return

    def format_and_describe(obj: Any, *args: Any, **kwargs: Any) -> Any:
        if as_figure(obj) is not None:
            seen.append(_describe(obj, max_chars))
        return original(obj, *args, **kwargs)

    had_own = "format" in vars(formatter)
    try:
        formatter.format = format_and_describe
    except Exception:  # a formatter that refuses attributes: no descriptions, nothing breaks
        yield seen
        return
    _watching.depth = getattr(_watching, "depth", 0) + 1
    try:
        yield seen
    finally:
        _watching.depth -= 1
        if had_own:
            formatter.format = original
        else:
            with contextlib.suppress(Exception):
                del formatter.format


_watching = threading.local()  # depth of watch_displayed_figures on this thread


class FigureNotes:
    """Descriptions of the figures the person's own cells displayed, for ``notebook_cells``.

    :meth:`install` wraps the shell's ``display_formatter.format`` for the kernel's life; between
    :meth:`cell_started` (``pre_run_cell``) and :meth:`cell_finished` (``post_run_cell``, which
    comes after the inline backend's ``post_execute`` flush) every matplotlib figure displayed is
    described, then filed under the cell's id and execution count. A ``run_python`` call (inside
    :func:`watch_displayed_figures`) is not recorded: those figures are the agent's.

    The PNG the formatter made for that display is kept beside its description
    (:meth:`images`). Bounds: the newest :data:`KEPT_CELLS` cells, :data:`PER_CELL` figures each,
    ``max_chars`` per description, a PNG up to :data:`MAX_PNG_BYTES` and :data:`KEPT_PNG_BYTES`
    of them in all (the oldest cells lose theirs first). Threads: the hooks and the formatter run
    on the kernel's main thread; :meth:`lookup` and :meth:`images` may be called from any thread
    (they read under a lock). Never raises into the display machinery: a figure that cannot be
    described is skipped.
    """

    KEPT_CELLS = 64
    PER_CELL = 4

    def __init__(self, *, max_chars: int = 1500) -> None:
        self.max_chars = max_chars
        self._lock = threading.Lock()
        self._current: list[_Noted] | None = None
        self._notes: dict[str, tuple[int, list[_Noted]]] = {}  # cell key -> (count, figures)
        self._formatter: Any = None
        self._wrapper: Any = None

    def install(self, shell: Any) -> None:
        """Start watching the shell's display formatter (idempotent; no formatter: nothing)."""
        formatter = getattr(shell, "display_formatter", None)
        original = getattr(formatter, "format", None)
        if formatter is None or original is None or self._formatter is not None:
            return

        def format_and_note(obj: Any, *args: Any, **kwargs: Any) -> Any:
            current = self._current
            noted: _Noted | None = None
            if current is not None and not getattr(_watching, "depth", 0):
                with contextlib.suppress(Exception):
                    if len(current) < self.PER_CELL and as_figure(obj) is not None:
                        noted = _Noted(_describe(obj, self.max_chars))
                        current.append(noted)
            formatted = original(obj, *args, **kwargs)
            if noted is not None:
                noted.png = _png_of(formatted)
            return formatted

        try:
            formatter.format = format_and_note
        except Exception:
            return
        self._formatter, self._wrapper = formatter, format_and_note

    def uninstall(self) -> None:
        """Stop watching; leaves a formatter someone else wrapped since alone. Idempotent."""
        formatter, self._formatter = self._formatter, None
        if formatter is not None and vars(formatter).get("format") is self._wrapper:
            with contextlib.suppress(Exception):
                del formatter.format

    def cell_started(self) -> None:
        self._current = []

    def cell_finished(self, result: Any) -> None:
        """File what the cell displayed under its id (``result.info.cell_id``) and count."""
        current, self._current = self._current, None
        count = getattr(result, "execution_count", None)
        if not current or not isinstance(count, int):
            return
        cell_id = getattr(getattr(result, "info", None), "cell_id", None)
        key = cell_id if isinstance(cell_id, str) and cell_id else f"#{count}"
        with self._lock:
            self._notes.pop(key, None)
            self._notes[key] = (count, current)
            while len(self._notes) > self.KEPT_CELLS:
                del self._notes[next(iter(self._notes))]
            kept = sum(len(n.png or b"") for _, noted in self._notes.values() for n in noted)
            for _, noted in self._notes.values():  # oldest first
                for note in noted:
                    if kept <= KEPT_PNG_BYTES:
                        return
                    kept -= len(note.png or b"")
                    note.png = None

    def lookup(self, cell_id: str | None, execution_count: int | None) -> list[str]:
        """The descriptions for the cell the page shows with this id and count (both must
        match when the kernel knew the id), else ``[]``."""
        return [n.description for n in self._find(cell_id, execution_count)]

    def images(self, cell_id: str | None, execution_count: int | None) -> list[bytes | None]:
        """The PNG of each figure :meth:`lookup` describes, in the same order (``None``: not
        kept, too large or dropped for room)."""
        return [n.png for n in self._find(cell_id, execution_count)]

    def _find(self, cell_id: str | None, execution_count: int | None) -> list[_Noted]:
        if not isinstance(execution_count, int):
            return []
        with self._lock:
            for key in (cell_id, f"#{execution_count}"):
                if key and key in self._notes and self._notes[key][0] == execution_count:
                    return list(self._notes[key][1])
        return []


@dataclass
class _Noted:
    """One figure a person's cell displayed: its description and the PNG its display sent."""

    description: str
    png: bytes | None = None


def _png_of(formatted: Any) -> bytes | None:
    """The PNG in what ``display_formatter.format`` returned (``(data, metadata)``; bytes, or
    base64 text once a kernel encoded it), up to :data:`MAX_PNG_BYTES`; else ``None``."""
    data = formatted[0] if isinstance(formatted, tuple) and formatted else None
    raw = data.get("image/png") if isinstance(data, Mapping) else None
    if isinstance(raw, str):
        try:
            raw = base64.b64decode(raw, validate=False)
        except (binascii.Error, ValueError):
            return None
    if not isinstance(raw, bytes) or not raw.startswith(b"\x89PNG") or len(raw) > MAX_PNG_BYTES:
        return None
    return raw
