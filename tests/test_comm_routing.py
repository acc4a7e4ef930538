"""``keep_open_against_pages``: a page's ``comm_close`` never closes a comm this package owns
(issue 24 item 7: Notebook 7's file-browser tab refused our comm_opens and so closed them for the
notebook too). The browser proof is ``tests/browser/test_decisions_reach.py``."""

from __future__ import annotations

from typing import Any

from dsh_notebook.comm_routing import keep_open_against_pages


class FakeKernel:
    def __init__(self) -> None:
        self.closed: list[str] = []
        self.shell_handlers: dict[str, Any] = {"comm_close": self._close}

    def _close(self, stream: Any, ident: Any, msg: dict[str, Any]) -> None:
        self.closed.append(msg["content"]["comm_id"])


class FakeComm:
    def __init__(self, comm_id: str, kernel: FakeKernel) -> None:
        self.comm_id, self.kernel = comm_id, kernel


def close(kernel: FakeKernel, comm_id: str) -> None:
    kernel.shell_handlers["comm_close"](None, [], {"content": {"comm_id": comm_id}})


def test_a_pages_close_of_a_kept_comm_is_ignored_and_others_still_close() -> None:
    kernel = FakeKernel()
    ours, again = FakeComm("ours", kernel), FakeComm("again", kernel)
    keep_open_against_pages(ours)
    keep_open_against_pages(again)  # installed once: the guard does not wrap itself
    close(kernel, "ours")
    close(kernel, "again")
    close(kernel, "widgets-own")
    assert kernel.closed == ["widgets-own"]


def test_a_comm_without_a_kernel_is_left_alone() -> None:
    keep_open_against_pages(object())  # tests' fakes: no kernel, no comm_id, no error
