"""A settle renders the settled transcript once: the real pump, the widget view's publisher
(IOPub update, the page extension's ``run_output``, the widget closed) and ``settle_run``'s
keep for Restart & Run All share one snapshot and one render of each form."""

from __future__ import annotations

import concurrent.futures
import queue
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar, cast

import pytest

from dsh_notebook.client import RunResult
from dsh_notebook.kernel.notebook.session_context import record_settled
from dsh_notebook.kernel.persistence.conversations import ConversationIndex
from dsh_notebook.kernel.persistence.ledger import PromptLedger
from dsh_notebook.kernel.registry.broker import Broker, RunPolicy
from dsh_notebook.kernel.registry.handle import RunHandle
from dsh_notebook.kernel.registry.runs import ActiveRun, Runs
from dsh_notebook.kernel.run import RunContext, settle_run
from dsh_notebook.kernel.showing.display import DisplayChoice, ViewPublisher
from dsh_notebook.kernel.showing.pump import LiveView, UiPump
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript import markdown as markdown_module
from dsh_notebook.transcript import text as text_module

from .helpers.run_output import Recorder, text

F = TypeVar("F", bound=Callable[..., Any])
KEY = "sk-settle-0123456789abcdef"


def counting(counts: Counter[str], name: str, fn: F) -> F:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return fn(*args, **kwargs)

    return cast(F, wrapper)


def test_a_settle_snapshots_and_renders_the_settled_transcript_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = Recorder()

    class Handle:
        display_id = "d1"
        update = staticmethod(page.handle_update)

    shell = SimpleNamespace(kernel=object())  # a kernel without a display publisher
    publisher = ViewPublisher(shell, DisplayChoice("widget"), page, page, "c7")
    transcript = Transcript("s", prompt="sum the sales")
    for i in range(50):
        text(transcript, i, f"word{i} {KEY if i == 7 else ''} ")
    view = LiveView(transcript, "widget", publisher, secrets=(KEY,))
    publisher.handle = Handle()
    pump, runs, ledger = UiPump(), Runs(), PromptLedger(tmp_path)
    future: concurrent.futures.Future[RunResult] = concurrent.futures.Future()
    run = ActiveRun(RunHandle(future, session="s", prompt="p"), view, RunPolicy(), queue.Queue())
    run.accepted = True
    conversations = ConversationIndex(tmp_path)
    conversations.note("nb", "s", "p", ())
    # as start_run wires it: the context use is read from the settle's own rendering
    run.record = lambda view: record_settled(conversations, "nb", view.rendering().snapshot)
    runs.add(run)
    runs.hold(run)
    agent = SimpleNamespace(
        runs=runs, broker=Broker(runs), results={}, pump=pump, ending=False, ledger=ledger
    )
    counts: Counter[str] = Counter()
    try:
        pump.add(view)
        assert pump.flush()
        page.events.clear()
        monkeypatch.setattr(
            Transcript, "snapshot", counting(counts, "snapshot", Transcript.snapshot)
        )
        monkeypatch.setattr(markdown_module, "_render", counting(counts, "markdown", markdown_module._render))  # fmt: skip
        monkeypatch.setattr(text_module, "_items", counting(counts, "text", text_module._items))
        future.set_result(RunResult("s", "", "completed", [], []))
        settle_run(cast(RunContext, agent), run, future)
        assert pump.flush() and view.done.is_set()
    finally:
        pump.stop()
    assert [e[0] for e in page.events] == ["display.update", "run_output", "widget.close"]
    updated, sent = page.events[0][1], page.events[1][4]
    kept = ledger.kept("s", "p")
    assert kept is not None and not kept.interrupted
    assert updated == sent["text/markdown"] == kept.bundle["text/markdown"]
    assert "word49" in updated and KEY not in updated and "***" in updated
    assert kept.bundle["text/plain"].startswith("dsh · session s · settled")
    assert counts == {"snapshot": 1, "markdown": 1, "text": 1}, counts
    (conversation,) = conversations.list("nb")
    assert conversation.last_run_tokens == 0  # the settled run's tokens were recorded
