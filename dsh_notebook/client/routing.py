"""Notification routing: the session tree and bounded subscriptions.

The runtime sends ``session.event`` / ``session.status`` for **every** session in the process,
subagent children included, and names only the child's own id. The :class:`Router` learns the
tree from ``subagent.started`` and hands each notification to the subscriptions whose tree contains
its session. Parentage is the newest ``subagent.started``: a child started again under another
parent leaves the old parent's tree (with its descendants), and a late ``subagent.*`` naming the
old parent reaches only the old parent's tree.

Guarantees:

- Order: a subscription receives its notifications in transport order.
- Bounded memory: each subscription buffers at most ``maxsize`` notifications; on overflow it fails
  (its consumer gets :class:`~dsh_notebook.errors.SdkProtocolError`) and stops buffering. There is no
  global queue: a notification that matches no subscription is dropped.
- Threading: all methods run on the event loop that runs the transport; none is thread-safe.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import anyio

from ..errors import SdkProtocolError
from ..protocol.notifications import SUBAGENT_FINISHED, SUBAGENT_STARTED, Notification

__all__ = ["END", "Router", "Subscription"]


class _End:
    """A marker a run puts into its own subscription: everything before it has been delivered."""

    def __repr__(self) -> str:
        return "END"


END = _End()


class Subscription:
    """A bounded, ordered queue of the notifications of one session tree (or of everything)."""

    def __init__(
        self,
        router: Router,
        sessions: set[str] | None,
        maxsize: int,
        roots: frozenset[str] | None = None,
    ) -> None:
        self._router = router
        self.roots = roots if roots is not None else frozenset(sessions or ())
        self.sessions = sessions  # None: every notification
        self._maxsize = maxsize
        self._items: deque[Notification | _End] = deque()
        self._wakeup = anyio.Event()
        self._error: BaseException | None = None
        self._closed = False
        self._waiting = False

    def _put(self, item: Notification | _End) -> None:
        if self._closed or self._error is not None:
            return
        if item is not END and len(self._items) >= self._maxsize:
            self.fail(
                discard=True,
                error=SdkProtocolError(
                    f"subscription overflow: more than {self._maxsize} notifications buffered "
                    "because the consumer fell behind; raise subscription_buffer or consume faster"
                ),
            )
            return
        self._items.append(item)
        if self._waiting:
            self._waiting = False
            self._wakeup.set()

    def put_end(self) -> None:
        """Append :data:`END` (not counted against the bound)."""
        self._put(END)

    def fail(self, error: BaseException, *, discard: bool = False) -> None:
        """Make the consumer raise ``error``: after the buffered items, or at once with ``discard``."""
        if self._error is None:
            self._error = error
            if discard:
                self._items.clear()
            self._wakeup.set()

    def get_nowait(self) -> Notification | _End | None:
        if self._items:
            return self._items.popleft()
        if self._error is not None:
            raise self._error
        return None

    async def receive(self) -> Notification | _End:
        """The next item, in order. Raises the failure (overflow, transport loss) after the buffer."""
        if self._items:  # the per-frame case while a run streams: no further call
            return self._items.popleft()
        while True:
            item = self.get_nowait()
            if item is not None:
                return item
            if self._closed:
                raise anyio.EndOfStream
            self._wakeup = anyio.Event()
            self._waiting = True
            try:
                await self._wakeup.wait()
            finally:
                self._waiting = False

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Notification | _End:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def __len__(self) -> int:
        return len(self._items)

    def close(self) -> None:
        """Stop receiving. Idempotent; buffered items are dropped."""
        if not self._closed:
            self._closed = True
            self._items.clear()
            self._wakeup.set()
            self._router._remove(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Router:
    """Fans notifications out to subscriptions by session tree."""

    def __init__(self, default_maxsize: int = 100_000) -> None:
        self._subscriptions: list[Subscription] = []
        self._parent: dict[str, str] = {}
        self._children: dict[str, set[str]] = {}
        self._default_maxsize = default_maxsize
        self._taps: list[Callable[[Notification], None]] = []
        self.dropped = 0

    def add_tap(self, tap: Callable[[Notification], None]) -> None:
        """Call ``tap`` synchronously with every notification, before routing. Must not block."""
        self._taps.append(tap)

    def descendants(self, root: str) -> set[str]:
        """``root`` and every session known to descend from it."""
        found = {root}
        stack = [root]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return found

    def parent_of(self, session_id: str) -> str | None:
        return self._parent.get(session_id)

    def subscribe(
        self, roots: Iterable[str] | None = None, *, maxsize: int | None = None
    ) -> Subscription:
        """A subscription to the trees of ``roots`` (children learned later join), or to all."""
        sessions: set[str] | None = None
        chosen: frozenset[str] | None = None
        if roots is not None:
            chosen = frozenset(roots)
            sessions = self._tree_of(chosen)
        sub = Subscription(self, sessions, maxsize or self._default_maxsize, chosen)
        self._subscriptions.append(sub)
        return sub

    def _tree_of(self, roots: frozenset[str]) -> set[str]:
        sessions: set[str] = set()
        for root in roots:
            sessions |= self.descendants(root)
        return sessions

    def _adopt(self, parent: str, child: str) -> None:
        """Record ``parent → child``; a child seen under another parent moves (newest wins)."""
        old = self._parent.get(child)
        if old == parent:
            return
        self._parent[child] = parent
        self._children.setdefault(parent, set()).add(child)
        if old is None:
            for sub in self._subscriptions:
                if sub.sessions is not None and parent in sub.sessions:
                    sub.sessions |= self.descendants(child)
            return
        self._children.get(old, set()).discard(child)
        # Re-parented: every tree is recomputed from its roots, so the old parent's
        # subscriptions stop receiving the child (and its descendants) and the new one's start.
        for sub in self._subscriptions:
            if sub.sessions is not None:
                sub.sessions = self._tree_of(sub.roots)

    def _remove(self, sub: Subscription) -> None:
        try:
            self._subscriptions.remove(sub)
        except ValueError:
            pass

    def dispatch(self, notification: Notification) -> None:
        """Route one notification. Called on the read loop, in transport order."""
        for tap in self._taps:
            tap(notification)
        params: dict[str, Any] = notification.params
        method = notification.method
        second: str | None = None
        if method in (SUBAGENT_STARTED, SUBAGENT_FINISHED):
            parent = params.get("parentSessionId")
            child = params.get("childSessionId")
            if isinstance(parent, str) and isinstance(child, str) and method == SUBAGENT_STARTED:
                self._adopt(parent, child)
            current = self._parent.get(child) if isinstance(child, str) else None
            first = parent if isinstance(parent, str) else None
            # a late notification of a former parent goes to that parent's tree only
            if isinstance(child, str) and current in (None, parent):
                second = child
        else:
            sid = params.get("sessionId")
            first = sid if type(sid) is str else None
        delivered = False
        for sub in self._subscriptions:
            sessions = sub.sessions
            if (
                sessions is None
                or (first is not None and first in sessions)
                or (second is not None and second in sessions)
            ):
                sub._put(notification)
                delivered = True
        if not delivered:
            self.dropped += 1

    def fail_all(self, error: BaseException) -> None:
        """Fail every subscription (transport loss)."""
        for sub in tuple(self._subscriptions):
            sub.fail(error)
