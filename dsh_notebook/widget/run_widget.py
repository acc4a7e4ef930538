"""``RunWidget``: the live view of one run (anywidget; its JavaScript is bundled in ``static/``).

State. The ``snapshot`` trait holds :meth:`Transcript.snapshot() <dsh_notebook.transcript.
Transcript.snapshot>` (``seq`` beside it; ``elapsed`` is the run's age in seconds at the last
send). It is the truth: a view opened late, or one that missed a message, starts from it.

Messages. :meth:`update` may be called as often as anyone likes, from any thread (the UI pump
calls it at ~10 Hz). The widget sends at most one comm message per ``1 / max_rate`` seconds
(default 20 per second): the newest snapshot as a *delta* (a custom message, see
:mod:`.delta`) against the last one sent, or as a full trait sync for the first update, the final
one and after a view asked to resync, and — with ``full_sync_for`` — every update of the widget's
first seconds while its snapshot is small (:data:`FULL_SYNC_MAX_BYTES`): a page's view of a new
widget starts only once its module has loaded, and the deltas that arrive before that are lost,
so the view would have to ask for a resync, which a busy kernel without subshells (a ``--wait``
cell) answers only when the cell ends; a full sync sets the model's state, which the view
starts from whenever it is ready. Between full syncs the Python-side traits are kept current
without a message, so a frontend that (re)connects and requests the state gets the newest snapshot.
A throttled update is sent by a timer when its slot comes; nothing is lost, and the last message
always carries the newest snapshot.

Clicks. Views send ``approval`` / ``answer`` / ``dismiss`` / ``stop`` messages (see
:mod:`.actions`; all messages are typed in :mod:`._messages`); each is checked against the current
snapshot, forwarded to ``on_action`` as a :data:`~._messages.WidgetAction` at most once per request (a second click, from any view, is answered "already decided" without calling
it), and answered with an ``ack`` custom message carrying ``on_action``'s error text, if any.
Handlers are registered with ``on_msg``; the class never overrides ipywidgets' dispatcher.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..comm_routing import keep_open_against_pages, unpin_reply_route
from ..transcript.schema import Snapshot
from ..transcript.text import summary_line
from ._messages import AckMessage, DeltaMessage, WidgetAction
from .actions import GONE, check_action
from .bundle import LIGHT_ESM
from .delta import diff_snapshots

__all__ = ["FALLBACK_NOTE", "STATIC", "ActionCallback", "RunWidget"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
ActionCallback = Callable[[WidgetAction], "str | None"]
"""``on_action(action) -> error text | None``: ``action`` is checked and normalized at this edge
(:func:`~.actions.check_action`: an approval's ``decision`` is an ``ApprovalOutcome``), and is
handed on as it is, never read raw again."""
_SYNCED = ("snapshot", "seq", "elapsed")
FULL_SYNC_MAX_BYTES = 32_768
"""With ``full_sync_for``: a snapshot this large (compact JSON) is sent as deltas even early."""
FULL_SYNC_FOR = 1.0
"""The kernel's run widgets send full syncs for this many seconds after they are created."""
_OVER = ("settled", "error")
NO_KERNEL = "this view is not connected to a running kernel (read-only)"
FALLBACK_NOTE = (
    "This is the live view of a dsh run, and this page does not show widgets: the notebook is "
    'not trusted here (trust it: "Trust Notebook" in the command palette or File menu, or '
    "`jupyter trust NOTEBOOK.ipynb`), or the frontend has no ipywidgets. The run goes on in "
    "the kernel; its transcript replaces this text when the run settles."
)
"""The second line of a live run's ``text/plain`` (see :meth:`RunWidget.fallback_text`)."""


class RunWidget(anywidget.AnyWidget):
    """The live view of a run. ``on_action(action) -> error text | None`` receives the clicks."""

    _esm = STATIC / "widget.js"
    _css = STATIC / "widget.css"

    snapshot = traitlets.Dict().tag(sync=True)
    seq = traitlets.Int(0).tag(sync=True)
    elapsed = traitlets.Float(0.0).tag(sync=True)
    interactive = traitlets.Bool(True).tag(sync=True)
    """False when clicks cannot be answered here (a ``--wait`` run asks on stdin or by policy)."""

    def __init__(
        self,
        snapshot: Snapshot | None = None,
        *,
        on_action: ActionCallback | None = None,
        interactive: bool = True,
        max_rate: float = 20.0,
        clock: Callable[[], float] = time.monotonic,
        light: bool = False,
        full_sync_for: float = 0.0,
        **kwargs: Any,
    ) -> None:
        """``light``: the page serves this very bundle (see :mod:`.bundle`); send the small
        loader as ``_esm`` (and no ``_css``) instead of the whole bundle. ``full_sync_for``:
        seconds after creation during which updates are sent as full syncs (while the snapshot
        is under :data:`FULL_SYNC_MAX_BYTES`), not deltas (see the module docstring)."""
        if light:
            kwargs["_esm"] = LIGHT_ESM
            kwargs["_css"] = ""
        self._lock = threading.RLock()
        self._quiet = False
        self._clock = clock
        self._interval = 1.0 / max_rate
        self._started = clock()
        self._full_until = self._started + full_sync_for
        self._ended: float | None = None
        self._latest: Snapshot | None = snapshot  # None: no snapshot yet (an empty trait)
        self._sent: Snapshot | None = None  # what the views hold (after the last send)
        self._dirty = False
        self._need_full = False
        self._final = False
        self._last_send = -float("inf")
        self._timer: threading.Timer | None = None
        self._closed = False
        self._acted: set[str] = set()
        self.on_action = on_action
        self.messages_sent = 0
        """Comm messages sent by :meth:`update` (deltas and full syncs; not acks)."""
        super().__init__(
            snapshot=snapshot or {},
            seq=snapshot["seq"] if snapshot else 0,
            interactive=interactive,
            **kwargs,
        )
        self._sent = snapshot or None
        self.on_msg(self._on_view_message)
        unpin_reply_route(
            self.comm
        )  # its comm_open pinned the page's messages to this cell's shell
        # every page gets the comm_open; one without a widget manager for this kernel (Notebook
        # 7's file browser) answers comm_close, which would take the card's clicks from all
        keep_open_against_pages(self.comm)

    # -- updates (any thread) ------------------------------------------------------------------

    def update(self, snapshot: Snapshot, *, final: bool = False) -> None:
        """Show ``snapshot`` (a new dict each time; not mutated afterwards). ``final``: the run
        settled, send it as a full sync. Never blocks on the frontend; thread-safe."""
        with self._lock:
            if self._closed:
                return
            self._latest = snapshot
            self._dirty = True
            self._final = self._final or final
            if snapshot["header"]["state"] in _OVER and self._ended is None:
                self._ended = self._clock()
            self._send_when_due()

    def flush(self) -> None:
        """Send a pending update now, ignoring the rate limit (tests, shutdown)."""
        with self._lock:
            if self._dirty and not self._closed:
                self._send_update()

    def _send(self, msg: Any, buffers: Any = None) -> None:
        """ipywidgets' one way out to the page; afterwards the page's clicks on this widget
        are no longer routed to the subshell that was busy (see :mod:`..comm_routing`)."""
        super()._send(msg, buffers)
        unpin_reply_route(self.comm)

    @property
    def pending(self) -> bool:
        """An update is waiting for its slot."""
        return self._dirty

    def close(self) -> None:
        """Close the comm (views disappear); later updates are ignored. Idempotent."""
        with self._lock:
            self._closed = True
            self._dirty = False
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        super().close()

    def _send_when_due(self) -> None:
        wait = self._last_send + self._interval - self._clock()
        if wait <= 0:
            self._send_update()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self._on_timer)
            self._timer.daemon = True
            self._timer.start()

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            if self._dirty and not self._closed:
                self._send_when_due()

    def _elapsed(self) -> float:
        end = self._ended if self._ended is not None else self._clock()
        return round(max(end - self._started, 0.0), 3)

    def _send_update(self) -> None:
        snap = self._latest
        sent = self._sent
        self._dirty = False
        self._last_send = self._clock()
        seq = snap["seq"] if snap is not None else 0
        elapsed = self._elapsed()
        # a delta when the views hold an older snapshot of the same schema; else a full sync
        deltable = (
            snap is not None
            and sent is not None
            and not (self._need_full or self._final or self._early(snap))
            and snap["schema"] == sent["schema"]
            and seq >= sent["seq"]
        )
        delta: DeltaMessage | None = None
        if deltable and snap is not None and sent is not None:
            if seq == sent["seq"]:
                return  # nothing new for the views
            ops = diff_snapshots(sent, snap)
            delta = {
                "type": "delta",
                "base": sent["seq"],
                "seq": seq,
                "elapsed": elapsed,
                "ops": ops,
            }
        self._set_quietly(snapshot=snap or {}, seq=seq, elapsed=elapsed)
        self._sent = snap
        self._need_full = False
        self._final = False
        try:
            if delta is None:
                self.send_state(list(_SYNCED))
            else:
                self.send(delta)
            self.messages_sent += 1
        except Exception:  # a broken comm must not break the UI pump
            log.exception("dsh widget: sending an update failed")

    def _early(self, snap: Snapshot) -> bool:
        """Within the first seconds and still small: send a full sync, not a delta."""
        if self._clock() >= self._full_until:
            return False
        if len(json.dumps(snap, separators=(",", ":"), default=str)) >= FULL_SYNC_MAX_BYTES:
            self._full_until = self._started  # grown: deltas from now on, no more measuring
            return False
        return True

    def _set_quietly(self, **values: Any) -> None:
        """Set synced traits without ipywidgets sending them (a delta or full sync follows)."""
        self._quiet = True
        try:
            for name, value in values.items():
                setattr(self, name, value)
        finally:
            self._quiet = False

    def notify_change(self, change: Any) -> None:
        if self._quiet and change["name"] in _SYNCED:
            traitlets.HasTraits.notify_change(self, change)  # observers only; no comm message
            return
        super().notify_change(change)

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        """The state for a (re)connecting frontend: the newest sent snapshot, ``elapsed`` now."""
        if getattr(self, "_lock", None) is not None and not self._quiet:
            with self._lock:
                self._set_quietly(elapsed=self._elapsed())
        state: dict[str, Any] = super().get_state(key=key, drop_defaults=drop_defaults)
        return state

    # -- clicks (the comm's thread) ------------------------------------------------------------

    def _on_view_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "resync":
            with self._lock:
                if self._closed:
                    return
                self._need_full = True
                self._dirty = True
                self._send_when_due()
            return
        request_id = content.get("request_id")
        key = "stop" if kind == "stop" else f"request:{request_id}"
        action: WidgetAction | None = None
        with self._lock:
            if key in self._acted:
                error: str | None = (
                    "already requested" if kind == "stop" else "already decided in this notebook"
                )
            elif self._latest is None:
                error = GONE  # no snapshot yet: nothing is pending
            else:
                checked = check_action(self._latest, content)
                if isinstance(checked, str):
                    error = checked
                elif not self.interactive:
                    error = "this run asks in the prompt below the cell, not here"
                elif self.on_action is None:
                    error = NO_KERNEL
                else:
                    error = None
                    action = checked
                    self._acted.add(key)
        if action is not None and self.on_action is not None:
            try:
                error = self.on_action(action)
            except Exception as exc:
                log.exception("dsh widget: on_action failed")
                error = f"could not deliver: {type(exc).__name__}: {exc}"
        self._ack(kind, request_id, error)

    def _ack(self, kind: object, request_id: object, error: str | None) -> None:
        message: AckMessage = {
            "type": "ack",
            "action": kind if isinstance(kind, str) else None,
            "request_id": request_id if isinstance(request_id, str) else None,
            "ok": error is None,
            "error": error,
        }
        with self._lock:
            if self._closed:
                return
            try:
                self.send(message)
            except Exception:
                log.exception("dsh widget: sending an ack failed")

    # -- display -------------------------------------------------------------------------------

    def summary(self) -> str:
        """One line for ``text/plain`` (never a memory address)."""
        snap = self._latest
        if not snap or not snap.get("header"):
            return "dsh run (no events yet)"
        try:
            return summary_line(snap).replace("\n", " ")
        except Exception:  # a caller's hand-made snapshot may lack keys; still say something
            return f"dsh run on session {snap['header'].get('session_id')}"

    def __repr__(self) -> str:
        return f"<RunWidget {self.summary()}>"

    def fallback_text(self) -> str:
        """The output's ``text/plain``: what a frontend shows when it does not render the widget.

        JupyterLab renders a widget output only in a trusted notebook; a collaborator whose copy
        is not trusted (or a frontend without ipywidgets) sees this text instead, and it is
        fixed when the output is displayed (the widget's later updates never reach it). So it
        says what is going on and what to do, not only the state at display time; the static
        transcript replaces the whole output when the run settles."""
        return f"{self.summary()}\n{FALLBACK_NOTE}"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return {"text/plain": self.fallback_text()}
        data, metadata = bundle
        return {**data, "text/plain": self.fallback_text()}, metadata
