"""The requests :class:`~.link.FrontendLink` sends the pages and waits for: each kind (what a
page must have announced, which reply types answer it, whether every page must answer) and the
slot a waiting request's replies land in. Plain data; the link holds its lock around them."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Final

from ..page_protocol import ApplyChangeReply, ReadNotebookReply, RunCellsReply

__all__ = ["AGREE_WAIT", "APPLY", "READ", "RUN", "Kind", "PageReply", "Slot"]

PageReply = ApplyChangeReply | RunCellsReply | ReadNotebookReply
"""A reply handed to a request's waiter (``undo_reply`` goes to a callback instead)."""


AGREE_WAIT: Final = 1.0
"""Seconds the other pages have, after the first page answered an ``apply_change``, to answer
too (a page answers at once; one that does not is taken as closed and not waited for again until
it sends something)."""


@dataclass(frozen=True)
class Kind:
    """One kind of request the link sends and waits for (:meth:`.link.FrontendLink._request`)."""

    capability: str
    """What a page must have announced to be asked."""
    takes: frozenset[str]
    """The reply types handed to the waiter; another type with the request's id is dropped."""
    cannot: str
    """Why not, when the connected page did not announce :attr:`capability`."""
    unanswered: str = ""
    """Added to the sentence saying that no page answered in time."""
    agree: bool = False
    """Wait for every page announcing :attr:`capability` (:data:`AGREE_WAIT`), not the first."""


_EDITING_REPLIES: Final = frozenset({"apply_change_reply", "run_cells_reply"})
READ: Final = Kind("read_notebook", frozenset({"read_notebook_reply"}),
                  "is too old to read the notebook",
                  " (the kernel is busy running a cell, or the page is closed)")  # fmt: skip
APPLY: Final = Kind("edit_cells", _EDITING_REPLIES, "cannot edit cells", agree=True)
RUN: Final = Kind("run_cells", _EDITING_REPLIES, "cannot run cells")


@dataclass
class Slot:
    """A request waiting for pages' replies: the first reply of each page, in order (without
    :attr:`Kind.agree`, only the first reply of any page)."""

    kind: Kind
    event: threading.Event = field(default_factory=threading.Event)
    replies: dict[str, PageReply] = field(default_factory=dict)

    def take(self, page: str, reply: PageReply) -> None:
        """Keep ``reply`` of ``page`` if it is one the waiter wants, and wake it (lock held)."""
        if page in self.replies or (self.replies and not self.kind.agree):
            return
        self.replies[page] = reply
        self.event.set()
