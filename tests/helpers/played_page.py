"""A notebook page played over a real kernel's channels: a :class:`~tests.fake_page.FakePage`
(the notebook, the extension's answers) whose replies travel as ``comm_msg`` on the shell channel
under a client session id of its own, as a browser tab's kernel connection sends them. Two of
them are two pages (tabs) of one notebook on one kernel."""

from __future__ import annotations

from typing import Any

from ..fake_page import FakePage
from ..kernels import Kernel


class PlayedPage:
    """``page`` answering what the kernel sent on ``comm_id`` since it last looked, as the page
    whose kernel connection is ``session`` (``None``: the test client's own)."""

    def __init__(self, k: Kernel, comm_id: str, page: FakePage, session: str | None = None) -> None:
        self.k, self.comm_id, self.page, self.session = k, comm_id, page, session
        self.seen = len(k.iopub)
        self.received: list[dict[str, Any]] = []
        """Every message of the link this page got, in order."""

    def send(self, data: dict[str, Any]) -> None:
        """Send ``data`` on the link as this page (signed by the client at send time)."""
        out = self.k.client.session.msg("comm_msg", {"comm_id": self.comm_id, "data": data})
        if self.session is not None:
            out["header"]["session"] = self.session
        self.k.client.shell_channel.send(out)

    def answer(self, drain: bool = True) -> list[dict[str, Any]]:
        """Answer the link's new messages (reads, changes, runs, undos); the new messages."""
        if drain:
            self.k.drain_iopub(0.2)
        new: list[dict[str, Any]] = []
        for msg in self.k.iopub[self.seen :]:
            content = msg["content"]
            if msg["msg_type"] != "comm_msg" or content.get("comm_id") != self.comm_id:
                continue
            new.append(content["data"])
            replies: list[dict[str, Any]] = []
            self.page.receive = replies.append  # type: ignore[method-assign]
            self.page.send(content["data"])
            for reply in replies:
                self.send(reply)
        self.seen = len(self.k.iopub)
        self.received += new
        return new

    def waiting_ids(self) -> list[str]:
        """The broker ids the latest ``waiting`` message lists (what ``%dsh allow`` takes)."""
        latest = [m for m in self.received if m.get("type") == "waiting"]
        if not latest:
            return []
        return [str(c["request_id"]) for c in latest[-1]["cells"] if c.get("request_id")]
