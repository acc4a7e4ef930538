"""Showing a run in the cell that started it, from any thread, long after that cell returned.

A run's output is displayed once, when its cell runs, and then updated by the UI pump thread. The
updates are sent through the kernel's session directly with the *starting cell's parent* header:
ipykernel 6 has no per-thread parent, and the display publisher would file an update under
whatever cell runs now (DESIGN.md §3). Where there is no kernel session (terminal IPython, tests
with a bare shell) the ordinary ``display`` functions are used.

Guarantees: :class:`ViewPublisher` is called by the pump thread only; a widget view is replaced
by the static transcript (markdown + text) when the run settles and then closed, unless
``keep_widget``; a *deferred* view (waiting with nobody watching: nbclient, nbconvert, papermill)
shows nothing until the run settles, then the static transcript once, as one ``display_data``.

A widget view also tells the ``dsh-notebook`` page extension (``FrontendLink.send_run_output``)
its static transcript: ``live`` at most every :data:`LIVE_EVERY` seconds while it changes (what a
save keeps for a reopen without the kernel) and ``settled`` right after the update that freezes
it and before the widget is closed (a reloaded or second page does not know the output's
``display_id``, so the update alone would leave it a dead widget). The widget is displayed with
output metadata :data:`RUN_METADATA_KEY` ``{"run": true, "model_id": ...}`` by which the
extension recognizes it; the static transcript that replaces it keeps that metadata, and every
other output of a run (markdown format, deferred, a kept transcript) carries ``{"run": true}``
(the extension adds Insert below to their code blocks).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...frontend import FrontendLink
from ...frontend.identity import parent_message
from ...transcript import Transcript
from ..options.choices import Format
from .kernel_facts import kernel_of, stdin_available
from .pump import LiveView
from .rendering import published_bundle

if TYPE_CHECKING:
    from ...runtime.secret import Secrets

__all__ = [
    "DisplayChoice",
    "ViewPublisher",
    "kernel_of",
    "open_view",
    "send_display",
    "send_update",
    "show_bundle",
    "stdin_available",
]

log = logging.getLogger(__name__)

LIVE_EVERY = 2.0
"""Seconds between two ``live`` run outputs sent to the page extension (at most)."""
RUN_METADATA_KEY = "dsh_notebook"


def run_marker(model_id: str | None = None) -> dict[str, Any]:
    """Output metadata that marks a run's output (the widget, or a static transcript)."""
    marker: dict[str, Any] = {"run": True}
    if model_id is not None:
        marker["model_id"] = model_id
    return {RUN_METADATA_KEY: marker}


def _channel(shell: Any) -> tuple[Any, Any, Any]:
    pub = getattr(shell, "display_pub", None)
    return getattr(pub, "session", None), getattr(pub, "pub_socket", None), pub


def send_update(
    shell: Any,
    handle: Any,
    bundle: dict[str, Any],
    parent: dict[str, Any] | None,
    metadata: dict[str, Any] | None = None,
) -> None:
    """``update_display_data`` of ``handle``'s display, filed under ``parent``, with output
    ``metadata`` (an update replaces the output's metadata too)."""
    session, socket, pub = _channel(shell)
    if session is None or socket is None or parent is None:
        handle.update(bundle, raw=True, metadata=metadata)
        return
    content = {
        "data": bundle,
        "metadata": metadata or {},
        "transient": {"display_id": handle.display_id},
    }
    message = session.msg("update_display_data", content, parent=parent)
    session.send(socket, message, ident=getattr(pub, "topic", None))


def send_display(shell: Any, bundle: dict[str, Any], parent: dict[str, Any] | None) -> None:
    """A plain ``display_data`` filed under ``parent`` (from the pump thread)."""
    session, socket, pub = _channel(shell)
    if session is None or socket is None or parent is None:
        from IPython.display import display

        display(bundle, raw=True, metadata=run_marker())
        return
    message = session.msg(
        "display_data", {"data": bundle, "metadata": run_marker(), "transient": {}}, parent=parent
    )
    session.send(socket, message, ident=getattr(pub, "topic", None))


def show_bundle(bundle: dict[str, Any]) -> None:
    """Display a run's static transcript in the cell executing now (the main thread)."""
    from IPython.display import display

    display(bundle, raw=True, metadata=run_marker())


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

    def __init__(
        self,
        shell: Any,
        choice: DisplayChoice,
        widget: Any,
        link: FrontendLink | None = None,
        cell_id: str | None = None,
    ) -> None:
        self._shell = shell
        self._choice = choice
        self._widget = widget
        self._terminal = kernel_of(shell) is None
        self._link = link
        self._cell_id = cell_id
        self._live_at = float("-inf")
        self._live_sent: str | None = None
        self._live_timer: threading.Timer | None = None
        self.handle: Any = None

    def _model_id(self) -> str | None:
        model_id = getattr(self._widget, "model_id", None)
        return model_id if isinstance(model_id, str) and model_id else None

    def marker(self) -> dict[str, Any]:
        """The output metadata of this view's display (:func:`run_marker`, with the widget's
        model id when there is a widget)."""
        return run_marker(self._model_id())

    def _send_later(self, view: LiveView, delay: float) -> None:
        """A change came too soon after the last live send: have the pump publish the view again
        once it may be sent, so the last change of a burst (a card that then waits for minutes)
        is not left out of what a save keeps."""
        if self._live_timer is not None:
            return
        timer = threading.Timer(delay + 0.05, self._wake, args=(view,))
        timer.daemon = True
        self._live_timer = timer
        timer.start()

    def _wake(self, view: LiveView) -> None:  # the timer's thread: only flags the view
        self._live_timer = None
        if not view.settled:
            view.dirty = True

    def _send_run_output(self, view: LiveView, settled: dict[str, Any] | None = None) -> None:
        """The static transcript to the page extension: ``live`` rate-limited and only when it
        changed, or the ``settled`` bundle the view was just frozen with (always, as it is:
        not rendered again). Never raises into the pump."""
        model_id = self._model_id()
        if self._link is None or model_id is None:
            return
        if settled is None and not self._link.present:
            return  # no page extension answered (yet): do not render markdown for nobody
        now = time.monotonic()
        if settled is None and now - self._live_at < LIVE_EVERY:
            self._send_later(view, LIVE_EVERY - (now - self._live_at))
            return
        try:
            if settled is not None:
                self._link.send_run_output(model_id, self._cell_id, "settled", settled)
                return
            # a live copy is only ever shown where the run cannot go on (a save reopened
            # without it, a restarted kernel): its interrupted copy, nothing reads as waiting
            copy = view.rendering().interrupted
            self._live_at = now
            if copy["text/markdown"] == self._live_sent:
                return
            self._live_sent = copy["text/markdown"]
            bundle = {"text/markdown": copy["text/markdown"], "text/plain": copy["text/plain"]}
            self._link.send_run_output(model_id, self._cell_id, "live", bundle)
        except Exception:
            log.exception("dsh: could not send the run output to the page")

    def __call__(self, view: LiveView, bundle: dict[str, Any]) -> None:
        """Show ``bundle``, the state of ``view`` (the pump's ``LiveView.publish``)."""
        if self._terminal:  # no display updates there: print the transcript once, when settled
            if view.settled:
                print(bundle["text/plain"])
            return
        widget = self._widget
        if widget is not None:
            if not view.settled:
                widget.update(bundle["snapshot"])
                self._send_run_output(view)
            elif self._choice.keep_widget:
                widget.update(view.rendering().masked_snapshot, final=True)
            else:
                if self.handle is not None:  # freeze: the static transcript replaces the widget
                    # keeping the run marker: the page extension adds Insert below to its code
                    send_update(self._shell, self.handle, bundle, view.parent, self.marker())
                self._send_run_output(view, bundle)  # pages that lost the display_id
                widget.close()
            return
        if self._choice.deferred:
            if view.settled:
                send_display(self._shell, bundle, view.parent)
            return
        if self.handle is not None:
            send_update(self._shell, self.handle, bundle, view.parent, run_marker())


def open_view(
    shell: Any,
    transcript: Transcript,
    choice: DisplayChoice,
    widget: Any,
    secrets: Secrets = (),
    *,
    link: FrontendLink | None = None,
    cell_id: str | None = None,
) -> LiveView:
    """Display a run's live output in the current cell; the view the pump keeps updating.

    ``widget`` is the live run widget for ``fmt == "widget"`` (None otherwise); ``link`` (the
    kernel's ``FrontendLink``) and ``cell_id`` (the starting cell) let the page extension
    replace a widget it can no longer update (see the module docstring).
    """
    from IPython.display import display

    terminal = kernel_of(shell) is None
    fmt: Format = "text" if terminal else ("widget" if widget is not None else choice.fmt)
    if fmt == "widget" and widget is None:
        fmt = "markdown"
    publisher = ViewPublisher(shell, choice, widget, link, cell_id)
    parent = parent_message(kernel_of(shell))  # the cell executing now
    view = LiveView(
        transcript, fmt, publisher, parent=dict(parent) if parent else None, secrets=secrets
    )
    if not terminal and not choice.deferred:
        if widget is not None:
            publisher.handle = display(widget, display_id=True, metadata=publisher.marker())
        else:
            bundle = published_bundle(view.rendering(), fmt, settled=False)
            publisher.handle = display(bundle, raw=True, display_id=True, metadata=run_marker())
    return view
