"""Showing a run in the cell that started it, from any thread, long after that cell returned.

A run's output is displayed once, when its cell runs, and then updated by the UI pump thread. The
updates are sent through the kernel's session directly with the *starting cell's parent* header:
ipykernel 6 has no per-thread parent, and the display publisher would file an update under
whatever cell runs now (DESIGN.md §9). Where there is no kernel session (terminal IPython, tests
with a bare shell) the ordinary ``display`` functions are used.

Guarantees: :class:`ViewPublisher` is called by the pump thread only; a widget view is replaced
by the static transcript (markdown + text) when the run settles and then closed, unless
``keep_widget``; a *deferred* view (waiting with nobody watching: nbclient, nbconvert, papermill)
shows nothing until the run settles, then the static transcript once, as one ``display_data``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from ..transcript import Transcript
from .pump import LiveView

__all__ = [
    "DisplayChoice",
    "ViewPublisher",
    "current_parent",
    "kernel_of",
    "open_view",
    "send_display",
    "send_update",
    "show_bundle",
    "stdin_available",
]

log = logging.getLogger(__name__)

Format = Literal["widget", "markdown", "text"]


def kernel_of(shell: Any) -> Any:
    """The ipykernel kernel of ``shell``, or None (terminal IPython)."""
    return getattr(shell, "kernel", None)


def stdin_available(shell: Any) -> bool:
    """Whether the current request allows stdin: a live frontend that can also click
    (nbclient and nbconvert send ``allow_stdin: false``; terminal IPython has no kernel)."""
    kernel = kernel_of(shell)
    return bool(kernel is not None and getattr(kernel, "_allow_stdin", False))


def current_parent(shell: Any) -> dict[str, Any] | None:
    """The parent message of the cell executing now, or None."""
    kernel = kernel_of(shell)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell")
    except Exception:
        return None
    return parent if isinstance(parent, dict) and parent else None


def _channel(shell: Any) -> tuple[Any, Any, Any]:
    pub = getattr(shell, "display_pub", None)
    return getattr(pub, "session", None), getattr(pub, "pub_socket", None), pub


def send_update(
    shell: Any, handle: Any, bundle: dict[str, Any], parent: dict[str, Any] | None
) -> None:
    """``update_display_data`` of ``handle``'s display, filed under ``parent``."""
    session, socket, pub = _channel(shell)
    if session is None or socket is None or parent is None:
        handle.update(bundle, raw=True)
        return
    content = {"data": bundle, "metadata": {}, "transient": {"display_id": handle.display_id}}
    message = session.msg("update_display_data", content, parent=parent)
    session.send(socket, message, ident=getattr(pub, "topic", None))


def send_display(shell: Any, bundle: dict[str, Any], parent: dict[str, Any] | None) -> None:
    """A plain ``display_data`` filed under ``parent`` (from the pump thread)."""
    session, socket, pub = _channel(shell)
    if session is None or socket is None or parent is None:
        from IPython.display import display

        display(bundle, raw=True)
        return
    message = session.msg(
        "display_data", {"data": bundle, "metadata": {}, "transient": {}}, parent=parent
    )
    session.send(socket, message, ident=getattr(pub, "topic", None))


def show_bundle(bundle: dict[str, Any]) -> None:
    """Display a static bundle in the cell executing now (the main thread)."""
    from IPython.display import display

    display(bundle, raw=True)


@dataclass(frozen=True)
class DisplayChoice:
    """How one run is shown (decided by the run plan)."""

    fmt: Format
    interactive: bool = True
    """Buttons on approval and question cards (False in wait mode: stdin or policy decide)."""
    keep_widget: bool = False
    deferred: bool = False


class ViewPublisher:
    """Publishes a view's bundles (pump thread): first display, updates, the frozen transcript."""

    def __init__(self, shell: Any, choice: DisplayChoice, widget: Any) -> None:
        self._shell = shell
        self._choice = choice
        self._widget = widget
        self._terminal = kernel_of(shell) is None
        self.view: LiveView | None = None
        self.handle: Any = None

    def __call__(self, bundle: dict[str, Any]) -> None:
        view = self.view
        if view is None:
            return
        if self._terminal:  # no display updates there: print the transcript once, when settled
            if view.settled:
                print(bundle["text/plain"])
            return
        widget = self._widget
        if widget is not None:
            if not view.settled:
                widget.update(bundle["snapshot"])
            elif self._choice.keep_widget:
                widget.update(view.transcript.snapshot(), final=True)
            else:
                if self.handle is not None:  # freeze: the static transcript replaces the widget
                    send_update(self._shell, self.handle, bundle, view.parent)
                widget.close()
            return
        if self._choice.deferred:
            if view.settled:
                send_display(self._shell, bundle, view.parent)
            return
        if self.handle is not None:
            send_update(self._shell, self.handle, bundle, view.parent)


def open_view(
    shell: Any,
    transcript: Transcript,
    choice: DisplayChoice,
    widget: Any,
    secrets: tuple[str, ...] = (),
) -> LiveView:
    """Display a run's live output in the current cell; the view the pump keeps updating.

    ``widget`` is the live run widget for ``fmt == "widget"`` (None otherwise).
    """
    from IPython.display import display

    terminal = kernel_of(shell) is None
    fmt: Format = "text" if terminal else ("widget" if widget is not None else choice.fmt)
    if fmt == "widget" and widget is None:
        fmt = "markdown"
    publisher = ViewPublisher(shell, choice, widget)
    view = LiveView(transcript, fmt, publisher, parent=current_parent(shell), secrets=secrets)
    publisher.view = view
    if not terminal and not choice.deferred:
        if widget is not None:
            publisher.handle = display(widget, display_id=True)
        else:
            publisher.handle = display(view.bundle(), raw=True, display_id=True)
    return view
