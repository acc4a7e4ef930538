"""Live views of runs and the one thread that updates them (the UI pump).

DESIGN.md §3: the UI is touched from one place only, and keeps updating while the kernel is idle
after a background ``%%dsh`` cell returned and while a ``--wait`` cell blocks the main thread. That
place is the :class:`UiPump` thread: the runtime host hands it notifications and local facts (never
touching IPython itself); the pump folds them into each view's pure
:class:`~dsh_notebook.transcript.Transcript` and republishes the view's display output.

Guarantees:

- Order: each view's items are applied in the order they were posted.
- Rate: a view is republished at most ``max_rate`` times per second (coalesced), plus once when it
  settles, and its first streamed output (the first ``session.assistant_stream`` notification
  that changed it: the first text a person waits for) is published at once, not at the next
  slot of the rate (which an earlier publish of the run's start had just taken); the settled
  output is the static transcript (``text/markdown``, with a one-line ``text/plain`` beside it;
  ``text`` views: the plain-text transcript).
  A ``widget`` view is published its snapshot while live (the widget diffs it and sends deltas;
  no markdown is rendered per tick) and the static transcript once settled.
- Rendering: what is published is chosen by the pure
  :func:`~dsh_notebook.kernel.showing.rendering.published_bundle` from the view's
  :meth:`LiveView.rendering`, which takes one snapshot per transcript ``seq`` and renders each
  form once: a settle (its publish, the page extension's ``run_output``, the keep for
  Restart & Run All that follows) snapshots the settled transcript once and renders its
  markdown once.
- Parent: each view carries the parent message of the cell that started the run; its ``publish``
  callback sends updates under it, so they land in that cell's output even after it returned.
- Wake-ups: posting never wakes the pump more than ``1 / DRAIN_INTERVAL`` (100) times per
  second. Producers append to a deque and set an event (no lock hand-off, no thread switch
  when the event is set already); after a drain the pump pauses :data:`DRAIN_INTERVAL` and
  then takes everything posted meanwhile in one go. A 20 000-chunk answer therefore costs
  the kernel process ~100 pump wake-ups per second instead of one per chunk, which halves
  the CPU a stream costs the kernel process (``bench/kernel_freedom.py``). An idle pump waits on the event, so
  the first item after a quiet spell is applied and published at once.
- Keeping (a view with a ``keep`` callback): while a view is live and changes, the pump calls
  ``keep(view)`` on its own thread at most once per ``keep_every`` seconds (the first change at
  once), and at once after a drain that left an approval or question card waiting (a card may
  wait for minutes: that is the state a kernel restart must not lose). A keep that took ``d``
  seconds (a long transcript renders slowly) puts the next one by that cadence at least
  ``KEEP_SHARE * d`` later, so keeping costs the pump at most ``1 / KEEP_SHARE`` of its time
  whatever the size. The last change of a burst is kept within that gap (+ one pump interval)
  even when nothing follows. Never
  once the view is settled: the settle's own ``after`` callback keeps the final state, and
  every ``keep`` call was applied before it. ``keep`` returning ``False`` means "not yet"
  (asked again at the next drain or tick), anything else counts as kept.
- Failures in rendering, publishing or keeping are logged, never raised into the kernel.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...protocol import ASSISTANT_STREAM, Notification
from ...transcript import Transcript, facts
from .rendering import Rendering, published_bundle, rendering_of

if TYPE_CHECKING:
    from ...runtime.secret import Secrets

__all__ = ["KEEP_EVERY", "KEEP_SHARE", "LiveView", "UiPump"]

log = logging.getLogger(__name__)


@dataclass
class LiveView:
    """One run's output: a transcript and the display it is shown in."""

    transcript: Transcript
    fmt: str  # "markdown" | "text" | "widget"
    publish: Callable[[LiveView, dict[str, Any]], None]
    """Shows a bundle of this view (pump thread): called with the view and the bundle."""
    parent: dict[str, Any] | None = None
    settled: bool = False
    dirty: bool = True
    last_publish: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)
    """Set once the settled output has been published."""
    view_id: int = field(default_factory=itertools.count(1).__next__)
    streamed: bool = False
    """A stream notification (text, reasoning, tool input) changed the transcript already."""
    hurry: bool = False
    """Publish at the next drain, whatever the rate (the run's first streamed output)."""
    secrets: Secrets = ()
    """Texts never shown (the API key): it and each piece of it of 8 or more characters become
    ``***`` wherever agent output repeats them (:func:`~dsh_notebook.runtime.redact`)."""
    keep: Callable[[LiveView], bool] | None = None
    """Keeps the live state somewhere that outlives the kernel (pump thread; see the module
    docstring for when it is called)."""
    keep_due: bool = False
    """Changed since it was last kept."""
    keep_after: float = float("-inf")
    """``time.monotonic()`` before which the cadence does not keep it again."""
    waiting: int = 0
    """Approval and question cards asked and not yet decided (as the local facts say)."""
    card_opened: bool = False
    """A card started waiting since the last keep."""

    _rendering: Rendering | None = field(default=None, repr=False)

    def rendering(self) -> Rendering:
        """The transcript's state now, rendered lazily (:class:`~.rendering.Rendering`): one
        snapshot per transcript ``seq``, so the settle's publish, its ``run_output`` and the
        keep that follows share one snapshot and one render of each form. Pump thread only."""
        cached = self._rendering
        if cached is None or cached.seq != self.transcript.seq:
            cached = self._rendering = rendering_of(self.transcript, self.secrets)
        return cached


_STOP = object()
KEEP_EVERY = 5.0
"""Seconds between two keeps of a live view that keeps changing (a card waiting: at once)."""
KEEP_SHARE = 50
"""The cadence waits at least this many times the last keep's duration (at most 2 %)."""
_OPENS = (facts.ApprovalRequested, facts.QuestionAsked)
_CLOSES = (facts.ApprovalDecided, facts.QuestionAnswered, facts.QuestionCancelled)
DRAIN_INTERVAL = 0.01
"""Seconds between two drains while items keep coming. Short batches (a fast stream posts a few
dozen chunks per 10 ms) keep each GIL hold of the pump well under the interpreter's 5 ms switch
interval, so the kernel's main thread never waits long for its event loop's turn; 100 wake-ups a
second instead of one per chunk is what saves the CPU. Publishing keeps its own rate."""


class UiPump:
    """A daemon thread that applies run updates to views and republishes them, rate-limited."""

    def __init__(self, *, max_rate: float = 10.0, keep_every: float = KEEP_EVERY) -> None:
        self._queue: deque[Any] = deque()  # append/popleft are atomic: no lock needed
        self._wake = threading.Event()
        self._urgent = threading.Event()  # a settle, flush or stop: do not sleep out the interval
        self._views: dict[int, LiveView] = {}
        self._interval = 1.0 / max_rate
        self._keep_every = keep_every
        self._thread = threading.Thread(target=self._loop, name="dsh-ui-pump", daemon=True)
        self._thread.start()
        self.published = 0
        self.wakeups = 0
        """Times the pump thread woke up and found work (a measure of its cost to the kernel)."""
        self.kept = 0
        """Times a live view was kept."""

    # -- producers (any thread) ----------------------------------------------------------------

    def _post(self, item: Any, *, urgent: bool = False) -> None:
        self._queue.append(item)
        if not self._wake.is_set():  # already set: the pump will see this item, no hand-off
            self._wake.set()
        if urgent:
            self._urgent.set()

    def add(self, view: LiveView) -> None:
        self._post(("add", view, None))

    def notification(self, view: LiveView, notification: Notification) -> None:
        self._post(("wire", view, notification))

    def local(self, view: LiveView, fact: facts.LocalFact) -> None:
        """Apply ``fact`` to the view's transcript (in order with everything posted before)."""
        self._post(("local", view, fact))

    def settle(
        self, view: LiveView, finish_reason: str | None, error: facts.RunError | None = None
    ) -> None:
        self._post(("settle", view, (finish_reason, error)), urgent=True)

    def after(self, view: LiveView, callback: Callable[[LiveView], None]) -> None:
        """Run ``callback(view)`` on the pump thread once everything posted before it has been
        applied (e.g. once the view is settled). A failing callback is logged, never raised."""
        self._post(("call", view, callback))

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything posted so far has been applied and published."""
        done = threading.Event()
        self._post(("flush", None, done), urgent=True)
        return done.wait(timeout)

    def stop(self) -> None:
        self._post(_STOP, urgent=True)
        self._thread.join(timeout=5)

    # -- the pump thread -----------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            self._wake.wait(timeout=self._interval)  # idle: woken by the first item posted
            self._wake.clear()
            stop = False
            flushes: list[threading.Event] = []
            woken = self.wakeups
            if self._queue:
                self.wakeups += 1
            for entry in self._drain():
                if entry is _STOP:
                    stop = True
                    break
                kind, view, payload = entry
                if kind == "flush":
                    flushes.append(payload)
                    continue
                try:
                    self._apply(kind, view, payload)
                except Exception:  # a bad item must not stop the pump
                    log.exception("dsh ui pump: applying %s failed", kind)
            drained = bool(flushes) or self.wakeups != woken
            self._publish_due(force=bool(flushes) or stop)
            if not stop:
                self._keep_due()
            for event in flushes:
                event.set()
            if stop:
                return
            if drained:
                # more is likely on its way: let it gather for a few ms rather than waking per
                # item (a settle, flush or stop ends the pause at once)
                self._urgent.wait(timeout=DRAIN_INTERVAL)
                self._urgent.clear()

    def _drain(self) -> Iterator[Any]:
        queue = self._queue
        while queue:
            item = queue.popleft()
            yield item
            if item is _STOP:
                return

    def _apply(self, kind: str, view: LiveView, payload: Any) -> None:
        if kind == "add":
            self._views[view.view_id] = view
            view.dirty = True
            return
        if kind == "wire":
            changed = view.transcript.apply(payload)
            if changed and not view.streamed and payload.method == ASSISTANT_STREAM:
                view.streamed = view.hurry = True
        elif kind == "local":
            changed = view.transcript.apply_local(payload)
            if isinstance(payload, _OPENS):
                view.waiting += 1
                view.card_opened = True
            elif isinstance(payload, _CLOSES):
                view.waiting = max(0, view.waiting - 1)
        elif kind == "call":
            payload(view)
            return
        elif kind == "settle":
            finish_reason, error = payload
            if error is not None:
                view.transcript.apply_local(error)
            view.transcript.apply_local(facts.Settled(finish_reason))
            view.settled = True
            changed = True
        else:  # pragma: no cover - internal
            return
        view.dirty = view.dirty or changed
        view.keep_due = view.keep_due or changed

    def _keep_due(self) -> None:
        """Keep the live views that are due (see the module docstring)."""
        now = time.monotonic()
        for view in list(self._views.values()):
            if view.keep is None or view.settled or not view.keep_due:
                continue
            if view.card_opened and not view.waiting:
                view.card_opened = False  # decided in the same drain (a policy, a scope)
            if not view.card_opened and now < view.keep_after:
                continue
            try:
                if view.keep(view) is False:
                    continue  # not yet: asked again at the next chance
                self.kept += 1
            except Exception:
                log.exception("dsh ui pump: keeping a view failed")
            spent = time.monotonic() - now
            view.keep_due = view.card_opened = False
            view.keep_after = now + max(self._keep_every, KEEP_SHARE * spent)
            now += spent

    def _publish_due(self, *, force: bool) -> bool:
        """Publish the views that are due; whether any was published."""
        now = time.monotonic()
        published = False
        for view_id, view in list(self._views.items()):
            due = view.dirty and (
                force or view.settled or view.hurry or now - view.last_publish >= self._interval
            )
            if not due:
                continue
            try:
                view.publish(view, published_bundle(view.rendering(), view.fmt, view.settled))
                self.published += 1
                published = True
            except Exception:
                log.exception("dsh ui pump: publishing a view failed")
            view.dirty = view.hurry = False
            view.last_publish = now
            if view.settled:
                del self._views[view_id]
                view.done.set()
        return published
