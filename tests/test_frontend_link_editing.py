"""FrontendLink's editing requests with a fake comm: send, bounded wait, first reply wins, an
honest sentence instead of a reply, never raising; the page's undo button reaches its callback."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from dsh_notebook.frontend.link import NO_PAGE, FrontendLink
from dsh_notebook.frontend.pages import UNDOS_PER_SECOND
from dsh_notebook.page_protocol import apply_change, run_cells, undo_changes

from .helpers.frontend_link import FakeComm, make

ORIGIN = {"session": "s", "run": "r", "call": "call_1"}
EDIT = {"kind": "edit", "cell_id": "a", "before": "x", "after": "y"}


def connected(capabilities: list[str]) -> tuple[FrontendLink, FakeComm]:
    link, comms = make()
    assert link.open()
    comms[0].receive({"v": 1, "type": "hello_reply", "version": "1", "capabilities": capabilities})
    return link, comms[0]


def off_main(work: Any) -> Any:
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(work()))
    thread.start()
    thread.join(10)
    return box[0]


def reply(request_id: str, **fields: Any) -> dict[str, Any]:
    return {"v": 1, "type": "apply_change_reply", "request_id": request_id, **fields}


def test_the_first_reply_wins_and_later_ones_are_dropped() -> None:
    link, comm = connected(["edit_cells"])
    message = apply_change(link.request_id("c"), ORIGIN, EDIT)  # type: ignore[arg-type]
    assert message is not None
    rid = message["request_id"]

    def answer(data: Any = None) -> None:
        comm.sent.append(data)
        comm.receive(reply(rid, status="applied", cell_id="a", index=0, source="y"))
        comm.receive(reply(rid, status="stale", source="z"))  # a second page: too late
        comm.receive(reply(rid, status="applied"))  # malformed (no cell_id): ignored

    comm.send = answer  # type: ignore[method-assign]
    got = off_main(lambda: link.apply_change(message, 5))
    assert got["status"] == "applied" and got["source"] == "y"
    assert comm.sent == [message]


def test_no_reply_no_page_or_a_busy_kernel_is_a_sentence_never_an_exception() -> None:
    link, comm = connected(["edit_cells"])
    message = apply_change("c9", ORIGIN, EDIT)  # type: ignore[arg-type]
    assert message is not None
    assert off_main(lambda: link.apply_change(message, 0.2)) == (
        "the notebook page did not answer within 0.2 s"
    )
    assert "busy running a cell" in off_main(lambda: link.apply_change(message, 5, True))
    assert "main thread" in link.apply_change(message, 5)  # the main thread handles replies
    runs = run_cells("r1", ["a"], 5, ORIGIN)  # type: ignore[arg-type]
    assert runs is not None
    assert off_main(lambda: link.run_cells(runs, 1)) == (
        "the connected dsh-notebook extension cannot run cells"
    )

    def broken(data: Any = None) -> None:
        raise OSError("gone")

    comm.send = broken  # type: ignore[method-assign]
    assert "could not be sent" in off_main(lambda: link.apply_change(message, 5))
    assert off_main(lambda: FrontendLink(create_comm=make()[0]._create_comm).apply_change(
        message, 5)) == NO_PAGE  # fmt: skip


def test_undo_changes_reports_once_and_the_undo_button_reaches_its_callback() -> None:
    link, comm = connected(["edit_cells"])
    reports: list[Any] = []
    anchors: list[str] = []
    message = undo_changes("u1", "r", [{"kind": "insert", "cell_id": "n", "source": "1"}])
    assert message is not None and link.undo_changes(message, reports.append)  # main thread too
    answer = {"v": 1, "type": "undo_reply", "request_id": "u1", "reverted": 1, "skipped": []}
    comm.receive(answer)
    comm.receive(answer)  # a second page: reported once
    assert reports == [answer]

    def failing(anchor: str) -> None:
        anchors.append(anchor)
        raise RuntimeError("a bug in the handler must not break the link")

    link.on_undo_request = failing
    comm.receive({"v": 1, "type": "undo_request", "anchor": "dsh-cell"})
    comm.receive({"v": 1, "type": "undo_request", "anchor": ""})  # malformed: ignored
    assert anchors == ["dsh-cell"] and link.present
    bare, _ = connected(["waiting"])
    assert not bare.undo_changes(message, reports.append)  # no edit_cells: not sent


def test_an_applied_counts_only_where_every_page_that_answers_agrees() -> None:
    """Two pages (kernel connections) of one notebook: one page's ``applied`` is not the
    answer while the other refused; a page that never answers is waited for once, briefly."""
    link, comm = connected(["edit_cells"])
    comm.receive({"v": 1, "type": "hello_reply", "version": "1", "capabilities": ["edit_cells"]},
                 session="b")  # fmt: skip

    def ask(*answers: tuple[str | None, dict[str, Any]]) -> Any:
        message = apply_change(link.request_id("c"), ORIGIN, EDIT)  # type: ignore[arg-type]
        assert message is not None

        def answer(data: Any = None) -> None:
            for session, fields in answers:
                comm.receive(reply(data["request_id"], **fields), session=session)

        comm.send = answer  # type: ignore[method-assign]
        return off_main(lambda: link.apply_change(message, 5))

    applied = {"status": "applied", "cell_id": "a", "index": 0, "source": "y"}
    stale = {"status": "stale", "source": "z"}
    got = ask(("b", applied), (None, stale))
    assert got["status"] == "disagree" and [r["status"] for r in got["replies"]] == [
        "applied", "stale"]  # fmt: skip
    assert ask(("b", applied), (None, applied))["status"] == "applied"
    assert ask(("b", stale), (None, applied))["status"] == "disagree"
    assert ask((None, stale), ("b", stale))["status"] == "stale"  # none applied: the first
    started = time.monotonic()
    assert ask(("b", applied))["status"] == "applied"  # the other page closed: waited once
    assert 0.9 < time.monotonic() - started < 3
    started = time.monotonic()
    assert ask(("b", applied))["status"] == "applied"  # and not again
    assert time.monotonic() - started < 0.5


def test_a_flooding_page_is_logged_once_a_minute_never_per_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link, comm = connected(["edit_cells"])
    answered: list[str] = []
    link.on_undo_request = answered.append
    for _ in range(500):
        comm.receive({"v": 1, "type": "undo_request", "anchor": "dsh-cell"})
        comm.receive({"v": 1, "type": "hello_reply", "version": "1",
                      "capabilities": ["edit_cells"] * 65})  # fmt: skip
    assert 1 <= len(answered) <= UNDOS_PER_SECOND + 1
    lines = [r.getMessage() for r in caplog.records if r.name == "dsh_notebook.frontend"]
    assert len(lines) == 2, lines  # one per kind
    assert sorted(line.split()[3] for line in lines) == ["hello_reply", "undo_request"]
    assert link.capabilities == {"edit_cells"}  # the over-long list was not kept
