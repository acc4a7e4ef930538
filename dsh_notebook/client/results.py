"""``RunResult`` and how it is derived from an interval's notifications (pure, no IO).

Tolerance follows the official SDKs, which read events as dicts: fields the protocol does not
require (``seq``, ``time``, ``message.role``) may be absent, and an ``assistant/message`` whose
content sits in ``data.content`` (no ``data.message``) counts, as in the official Python SDK.
Where a root frame really is malformed — an event that is not an object, a ``data`` that is not
an object, an ``assistant/message`` without content blocks, a ``turn/end`` whose reason the runtime
could not have sent (see :func:`~dsh_notebook.protocol.events.turn_end_problem`) — the result is
:class:`~dsh_notebook.errors.SdkProtocolError` naming the frame's method, the event type and a
short excerpt. No other exception type leaves :func:`build_result`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

from orjson import dumps as _dumps
from orjson import loads as _loads
from pydantic import ValidationError

from ..errors import SdkProtocolError
from ..protocol import ASSISTANT_STREAM, SESSION_EVENT, Notification, SessionEvent
from ..protocol.events import turn_end_problem

__all__ = [
    "EventList",
    "NotificationList",
    "RunResult",
    "assistant_text",
    "build_result",
    "receipt_ids",
]

_EXCERPT = 160

_T = TypeVar("_T")
_Kept = TypeVar("_Kept")


class _Rebuilt(Sequence[_T], Generic[_T, _Kept]):
    """A read-only sequence that keeps its items compactly (``_Kept``) and rebuilds each one on
    access (:meth:`_get`): every access gives a fresh object. Unhashable, like a list."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[_Kept] = []

    def _get(self, item: _Kept) -> _T:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> _T: ...
    @overload
    def __getitem__(self, index: slice) -> list[_T]: ...
    def __getitem__(self, index: int | slice) -> _T | list[_T]:
        if isinstance(index, slice):
            return [self._get(item) for item in self._items[index]]
        return self._get(self._items[index])

    def __iter__(self) -> Iterator[_T]:
        for item in self._items:
            yield self._get(item)

    __hash__ = None  # type: ignore[assignment]


class EventList(_Rebuilt[SessionEvent, dict[str, Any]]):
    """The root session's events of an interval: a read-only sequence of :class:`SessionEvent`.

    Compact: it keeps only references to the event objects inside the result's notifications
    (8 bytes each) and builds a fresh :class:`SessionEvent` on each access, instead of keeping a
    pydantic model per event (about 0.8 KB each). Every event was validated when the result was
    built, so access never fails. Keep a reference to an item you read repeatedly.
    """

    __slots__ = ()

    def __init__(self, raw: list[dict[str, Any]]) -> None:
        self._items = raw

    def _get(self, item: dict[str, Any]) -> SessionEvent:
        return SessionEvent.model_validate(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventList):
            return self._items == other._items
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"EventList({len(self._items)} events)"


class NotificationList(_Rebuilt[Notification, "Notification | bytes"]):
    """A run's notifications, in transport order: a read-only sequence of :class:`Notification`.

    Kept so that a finished run costs the kernel's garbage collector nothing per streamed token.
    A ``session.assistant_stream`` notification (one per token, tens of thousands a run) is kept
    as its params' JSON bytes, which the collector never tracks, and rebuilt on each access as an
    equal, fresh :class:`Notification`; every other notification is kept as it came (the same
    object). As plain objects a 20 000-token run left ~60 000 tracked dicts alive, enough to
    trigger a full collection of the kernel's heap (100-200 ms with the GIL held, the
    kernel's event loop frozen) about once a run (``bench/kernel_freedom.py``).

    Appending happens on the loop that runs the session (not thread-safe); reading is safe from
    any thread once the run has finished.
    """

    __slots__ = ()

    def __init__(self, items: Iterable[Notification] = ()) -> None:
        super().__init__()
        for item in items:
            self.append(item)

    def append(self, notification: Notification) -> None:
        """Keep ``notification`` (a stream frame compactly, when its params serialize)."""
        if notification.method == ASSISTANT_STREAM:
            try:
                self._items.append(_dumps(notification.params))
                return
            except TypeError:  # e.g. an integer past 64 bits: keep it as it is
                pass
        self._items.append(notification)

    def kept(self) -> Iterator[Notification]:
        """The notifications that are not stream frames, as kept (no rebuilding)."""
        for item in self._items:
            if not isinstance(item, bytes):
                yield item

    def _get(self, item: Notification | bytes) -> Notification:
        if isinstance(item, bytes):
            return Notification(ASSISTANT_STREAM, _loads(item))
        return item

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __repr__(self) -> str:
        return f"NotificationList({len(self._items)} notifications)"


@dataclass(frozen=True)
class RunResult:
    """What one ``run`` observed. Exactly the seed's five fields.

    ``final_response``: the text of the last root ``assistant/message`` of the interval (``""``
    when none). ``finish_reason``: ``reason.kind`` of the last root ``turn/end`` (``None`` when no
    turn ended), e.g. ``"completed"``, ``"error"``, ``"max-tokens"``. ``events`` is a compact
    :class:`EventList` (a sequence of :class:`SessionEvent`; a plain list is accepted too), and
    ``notifications`` a compact :class:`NotificationList` (a plain list is accepted too).
    """

    session_id: str
    final_response: str
    finish_reason: str | None
    events: Sequence[SessionEvent] = field(repr=False)
    notifications: Sequence[Notification] = field(repr=False)

    def __repr__(self) -> str:
        text = (
            self.final_response
            if len(self.final_response) <= 60
            else self.final_response[:57] + "..."
        )
        return (
            f"RunResult(session_id={self.session_id!r}, finish_reason={self.finish_reason!r}, "
            f"final_response={text!r}, events={len(self.events)}, notifications={len(self.notifications)})"
        )


def excerpt(value: Any, limit: int = _EXCERPT) -> str:
    """A short, printable excerpt of a wire value (never raises)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        text = repr(type(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _malformed(etype: Any, problem: str, raw: Any) -> SdkProtocolError:
    what = f"session.event ({etype})" if isinstance(etype, str) else "session.event"
    return SdkProtocolError(f"malformed {what} from the runtime: {problem}: {excerpt(raw)}")


def receipt_ids(notification: Notification, session_id: str) -> list[str]:
    """The message ids a root ``agent/inbox/spliced`` of ``session_id`` inserts, else ``[]``.

    The receipt must be the root session's own splice (the official SDK requires
    ``sessionId == root``): a child's splice of the same id never opens the run window.
    """
    params = notification.params
    if notification.method != SESSION_EVENT or params.get("sessionId") != session_id:
        return []
    event = params.get("event")
    if not isinstance(event, dict) or event.get("type") != "agent/inbox/spliced":
        return []
    data = event.get("data")
    inserted = data.get("inserted") if isinstance(data, dict) else None
    if not isinstance(inserted, list):
        return []
    return [i["id"] for i in inserted if isinstance(i, dict) and isinstance(i.get("id"), str)]


def assistant_text(data: Any) -> str | None:
    """The text of an ``assistant/message``'s ``data``, or ``None`` when it is malformed.

    Content is ``data.message.content``, or ``data.content`` when there is no ``message``. Only
    ``text`` blocks count; every block must be an object with a string ``type``.
    """
    if not isinstance(data, dict):
        return None
    message = data.get("message")
    if message is None:
        owner: Any = data
    elif isinstance(message, dict):
        owner = message
    else:
        return None
    content = owner.get("content")
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return None
        if block["type"] == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def parse_event(raw: Any) -> SessionEvent:
    """A root event's envelope as :class:`SessionEvent`; :class:`SdkProtocolError` when malformed."""
    if not isinstance(raw, dict):
        raise _malformed(None, "the event is not an object", raw)
    etype = raw.get("type")
    if not isinstance(etype, str):
        raise _malformed(None, "the event has no string type", raw)
    if "data" in raw and not isinstance(raw["data"], dict):
        raise _malformed(etype, "data is not an object", raw)
    try:
        return SessionEvent.model_validate(raw)
    except (ValidationError, ValueError, TypeError, RecursionError) as exc:
        problem = "the envelope does not fit"
        if isinstance(exc, ValidationError) and exc.errors():
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            problem = f"{where}: {first.get('msg', 'invalid')}"
        raise _malformed(etype, problem, raw) from None


def build_result(session_id: str, collected: Sequence[Notification]) -> RunResult:
    """Derive the :class:`RunResult` of an interval from its notifications (pure).

    Every root ``assistant/message`` and ``turn/end`` is checked, not only the last one, so a
    malformed frame fails the run whatever follows it. The result keeps ``collected`` itself.
    """
    events: list[dict[str, Any]] = []
    final_response = ""
    finish_reason: str | None = None
    # stream frames carry no session.event: a NotificationList need not rebuild them
    for n in collected.kept() if isinstance(collected, NotificationList) else collected:
        if n.method != SESSION_EVENT or n.params.get("sessionId") != session_id:
            continue
        raw = n.params.get("event")
        event = parse_event(raw)  # validated once; the result keeps the raw dict only
        assert isinstance(raw, dict)
        events.append(raw)
        if event.type == "assistant/message":
            if "data" not in raw:
                raise _malformed(event.type, "no data", raw)
            text = assistant_text(event.data)
            if text is None:
                raise _malformed(event.type, "message content is not a list of content blocks", raw)
            final_response = text
        elif event.type == "turn/end":
            reason = event.data.get("reason")
            problem = turn_end_problem(reason)
            if problem is not None:
                raise _malformed(event.type, problem, raw)
            assert isinstance(reason, dict)
            finish_reason = reason["kind"]
    return RunResult(session_id, final_response, finish_reason, EventList(events), collected)
