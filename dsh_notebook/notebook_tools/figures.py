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
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..context.figures import as_figure, describe_figure

__all__ = ["watch_displayed_figures"]


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
            seen.append(describe_figure(obj, max_chars=max_chars))
        return original(obj, *args, **kwargs)

    had_own = "format" in vars(formatter)
    try:
        formatter.format = format_and_describe
    except Exception:  # a formatter that refuses attributes: no descriptions, nothing breaks
        yield seen
        return
    try:
        yield seen
    finally:
        if had_own:
            formatter.format = original
        else:
            with contextlib.suppress(Exception):
                del formatter.format
