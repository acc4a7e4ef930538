"""The pages on the frontend link, and what each may make the kernel do or keep (bounded).

Every page (a browser tab's kernel connection) gets the kernel's messages on the one comm, and
the kernel tells pages apart by their messages' ``header.session`` (the connection's client id;
a page's subshell does not change it). :class:`Pages` keeps at most :data:`MAX_PAGES` of them,
the most recently heard first, each with the capabilities of its last ``hello_reply``: which
pages may answer an ``apply_change``, so that one page's word never stands for another's
(:meth:`FrontendLink.apply_change`). A page can make the kernel re-send its state at most once
per :data:`HELLO_INTERVAL` (and all pages together :data:`HELLOS_PER_INTERVAL` times), and have
at most :data:`UNDOS_PER_SECOND` ``undo_request`` answered a second: what is over a bound is
dropped, with one log line at most every :data:`LOG_EVERY` seconds per kind, never an error.

Not thread-safe by itself: :class:`~.link.FrontendLink` calls it under its lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "HELLO_INTERVAL",
    "HELLOS_PER_INTERVAL",
    "LOG_EVERY",
    "MAX_PAGES",
    "MAX_PAGE_ID",
    "UNDOS_PER_SECOND",
    "Pages",
    "RateLimit",
    "page_of",
]

log = logging.getLogger("dsh_notebook.frontend")

MAX_PAGES: Final = 8
"""Pages kept (the most recently heard); an older one is forgotten, as if it had closed."""
MAX_PAGE_ID: Final = 200
"""Longest ``header.session`` taken as a page's id; a longer one is the anonymous page ``""``."""
HELLO_INTERVAL: Final = 2.0
"""Seconds in which one page's ``hello_reply`` makes the kernel re-send its state at most once."""
HELLOS_PER_INTERVAL: Final = 4
"""``hello_reply``\\ s answered per :data:`HELLO_INTERVAL`, all pages together (ids are the
page's to choose, so the per-page bound alone does not bound the kernel's work)."""
UNDOS_PER_SECOND: Final = 4
"""``undo_request``\\ s answered per second, all pages together (a person clicks far fewer)."""
LOG_EVERY: Final = 60.0
"""Seconds between two log lines about one kind of dropped message."""

Clock = Callable[[], float]


def page_of(msg: Mapping[str, Any]) -> str:
    """The page a comm message came from: its header's ``session`` (``""`` when absent)."""
    header = msg.get("header")
    session = header.get("session") if isinstance(header, Mapping) else None
    return session if isinstance(session, str) and len(session) <= MAX_PAGE_ID else ""


class RateLimit:
    """At most ``count`` events per ``per`` seconds (a bucket that refills continuously).
    :meth:`allow` says whether one more may happen now; refused ones are counted and logged
    (``what``, ``why``) at most once per :data:`LOG_EVERY` seconds, one line."""

    def __init__(
        self, what: str, count: int, per: float, why: str, clock: Clock = time.monotonic
    ) -> None:
        self.what, self.count, self.per, self.why, self._clock = what, count, per, why, clock
        self._tokens = float(count)
        self._at = clock()
        self._dropped = 0
        self._logged_at: float | None = None
        self.dropped_total = 0
        """How many were refused in this limit's life."""

    def allow(self) -> bool:
        now = self._clock()
        self._tokens = min(
            float(self.count), self._tokens + (now - self._at) * self.count / self.per
        )
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        self.refused(now)
        return False

    def refused(self, now: float | None = None) -> None:
        """Count one refused event (also for refusals decided elsewhere) and log now and then."""
        now = self._clock() if now is None else now
        self._dropped += 1
        self.dropped_total += 1
        if self._logged_at is None or now - self._logged_at >= LOG_EVERY:
            log.warning(
                "dsh_notebook: ignored %d %s from the notebook page (%s)",
                self._dropped, self.what, self.why,
            )  # fmt: skip
            self._dropped, self._logged_at = 0, now


@dataclass
class _Page:
    capabilities: frozenset[str]
    answered_at: float | None = None
    """When the kernel last re-sent its state for this page's ``hello_reply``."""
    silent: bool = False
    """It did not answer a request every page was asked; not waited for until it sends again."""
    repeated: bool = False
    """It repeated an answered ``hello_reply`` once (a JupyterLab 4.4+ page says hello again on
    its comm subshell once that started): that one repeat is expected, not counted as refused."""


class Pages:
    """The pages heard on one comm (see the module doc)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._pages: dict[str, _Page] = {}  # least recently heard first
        self.hellos = RateLimit(
            "hello_reply message(s)", HELLOS_PER_INTERVAL, HELLO_INTERVAL,
            f"the kernel re-sends its state to a page at most once in {HELLO_INTERVAL:g} s and "
            f"{HELLOS_PER_INTERVAL} times in all", clock,
        )  # fmt: skip
        self.undos = RateLimit(
            "undo_request message(s)", UNDOS_PER_SECOND, 1.0,
            f"at most {UNDOS_PER_SECOND} are answered a second", clock,
        )  # fmt: skip
        self.malformed = RateLimit(
            "hello_reply message(s)", 0, 1.0,
            "malformed, or over the bounds: at most 64 capabilities of at most 200 characters",
            clock,
        )  # fmt: skip
        """Only counts and logs (:meth:`RateLimit.refused`): such a message is never taken."""

    def __len__(self) -> int:
        return len(self._pages)

    def hello(self, page: str, capabilities: frozenset[str]) -> bool:
        """``page`` said ``hello_reply``: keep it (forgetting the page heard longest ago beyond
        :data:`MAX_PAGES`). Whether to answer it (re-send the kernel's state): not when this
        page, announcing the same capabilities, was answered less than :data:`HELLO_INTERVAL`
        ago, nor beyond the bound of all pages together."""
        now = self._clock()
        known = self._pages.pop(page, None)
        same = known is not None and known.capabilities == capabilities
        entry = _Page(capabilities, known.answered_at if known and same else None)
        entry.repeated = bool(known and same and known.repeated)
        self._pages[page] = entry
        while len(self._pages) > MAX_PAGES:
            del self._pages[next(iter(self._pages))]
        if entry.answered_at is not None and now - entry.answered_at < HELLO_INTERVAL:
            if not entry.repeated:  # the page's subshell hello: expected once
                entry.repeated = True
                return False
            self.hellos.refused(now)
            return False
        if not self.hellos.allow():
            return False
        entry.answered_at = now
        return True

    def heard(self, page: str) -> None:
        """``page`` sent something: it is alive (waited for again) and the most recent."""
        entry = self._pages.pop(page, None)
        if entry is not None:
            entry.silent = False
            self._pages[page] = entry

    def expected(self, capability: str) -> frozenset[str]:
        """The pages that would answer a request of ``capability`` (not found silent)."""
        return frozenset(
            p for p, e in self._pages.items() if capability in e.capabilities and not e.silent
        )

    def went_silent(self, pages: Iterable[str]) -> None:
        """These pages did not answer in time: not waited for until they send again."""
        for page in pages:
            entry = self._pages.get(page)
            if entry is not None:
                entry.silent = True

    def clear(self) -> None:
        """The comm closed: every page answers the next one's ``hello`` afresh."""
        self._pages.clear()
