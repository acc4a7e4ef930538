"""When the agent is built and the runtime started ahead of the first prompt (DESIGN.md §3
"Prewarm"), without the loading cell paying for either.

``%load_ext`` only registers the magic and its hooks and (where a person is at the keyboard)
opens the page extension's comm. Building the agent imports the runtime client, the protocol
models, the transcript and anyio (~0.4 s cold); the prewarm does that on a daemon thread, then
starts the runtime. The thread holds the GIL while it imports (the kernel answers messages
meanwhile, a little slower) and takes Python's per-module import locks: a prompt sent while it
runs waits for the build (one lock, :class:`~.magics.DshMagics`) and then finds every module
imported, so the two threads never import the same modules against each other.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["after_loading_cell", "import_widget_in_background"]

log = logging.getLogger(__name__)


def after_loading_cell(shell: Any, then: Callable[[], None]) -> None:
    """Call ``then`` once, on the main thread, when the cell running now has finished: its
    ``post_run_cell``, never ``post_execute`` — the comm package fires pre/post_execute around
    every comm message's callback, on whatever thread handles it (a page's subshell too), so a
    widget's message during the loading cell would read as its end."""
    events = getattr(shell, "events", None)
    if events is None:
        return

    def finished(*_: Any) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # a cell run on a subshell is not the loading cell's end
        try:
            events.unregister("post_run_cell", finished)
        except ValueError:
            return  # already ran
        then()

    events.register("post_run_cell", finished)


_widget_import_started = False


def import_widget_in_background() -> None:
    """Import the run widget (anywidget, ipywidgets: ~100 ms) on a daemon thread, once per
    process, so the first background ``%%dsh`` cell does not hold the kernel's main thread for
    it (it did: ~10 lost 10 ms slots of the kernel loop at the start of that run). A failed
    import is left for ``NotebookAgent.make_widget`` to report; nothing is printed."""
    global _widget_import_started
    if _widget_import_started:
        return
    _widget_import_started = True

    def run() -> None:
        try:
            from ... import widget  # noqa: F401  (the import is the point)
        except Exception as exc:  # ImportError, OSError: make_widget falls back to markdown
            log.debug("dsh: the widget was not imported ahead (%r)", exc)

    threading.Thread(target=run, name="dsh-widget-import", daemon=True).start()
