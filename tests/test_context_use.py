"""Issue 29 item 10: the session's context use against the model's window, in the transcript.

From the real captures: the root session's tokens after its latest step (``usage`` of each
``assistant/message``) against the window of its ``request/context`` event; carried from run to
run (the runtime does not report the window again after a resume); never estimated."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.context_use import (
    ContextUse,
    context_tokens,
    context_window,
    format_tokens,
)
from dsh_notebook.transcript.facts import ContextCarried, Settled, local_fact

from .helpers.transcripts import notifications, prompted_sessions


def _events(items: list[Notification], etype: str) -> list[Notification]:
    return [
        n
        for n in items
        if n.method == "session.event" and n.params["event"]["type"] == etype  # type: ignore[index]
    ]


def _with_usages(name: str, usages: list[dict[str, Any]]) -> list[Notification]:
    """The capture's notifications with the ``usage`` of its assistant messages replaced, in
    order (the scripted model of the captures reports the same 11 + 7 on every step)."""
    items = [Notification(n.method, copy.deepcopy(n.params)) for n in notifications(name)]
    messages = _events(items, "assistant/message")
    assert len(messages) == len(usages), len(messages)
    for note, usage in zip(messages, usages, strict=True):
        note.params["event"]["data"]["usage"] = usage  # type: ignore[index]
    return items


def test_plain_capture_reports_tokens_against_the_window() -> None:
    t = Transcript(prompted_sessions("plain")[0])
    before = []
    for note in notifications("plain"):
        before.append(t.snapshot()["header"]["context_use"])
        t.apply(note)
    t.apply_local(Settled())
    header = t.snapshot()["header"]
    assert header["context_use"] == {"tokens": 18, "window": 1_000_000, "fraction": 0.000018}
    assert before[0] is None  # nothing reported yet: no figure at all (never 0)
    # the window arrives first (request/context), the tokens with the step's message
    assert {"tokens": None, "window": 1_000_000, "fraction": None} in before
    assert ContextUse(18, 1_000_000).words() == "context <1% · 18 / 1M tokens"


def test_it_is_the_latest_root_step_not_a_sum() -> None:
    """misc_methods: nine steps in two sessions; each message moves the figure to its own
    context (the prompt grows), while ``usage`` sums them."""
    name = "misc_methods"
    session = prompted_sessions(name)[0]
    items = notifications(name)
    count = len(_events(items, "assistant/message"))
    usages = [{"inputTokens": 1000 * (i + 1), "outputTokens": 10, "totalTokens": 1000 * (i + 1) + 10}
              for i in range(count)]  # fmt: skip
    t = Transcript(session)
    seen: list[int | None] = []
    for note in _with_usages(name, usages):
        if t.apply(note):
            use = t.snapshot()["header"]["context_use"]
            seen.append(use["tokens"] if use else None)
    root_messages = [
        u["totalTokens"]
        for n, u in zip(
            _events(_with_usages(name, usages), "assistant/message"), usages, strict=True
        )
        if n.params["sessionId"] == session  # type: ignore[index]
    ]
    assert root_messages and seen[-1] == root_messages[-1]
    assert [v for v in dict.fromkeys(seen) if v is not None] == root_messages
    assert t.snapshot()["header"]["usage"]["total_tokens"] > root_messages[-1]


def test_a_subagent_step_does_not_move_the_roots_figure() -> None:
    name = "subagent"
    root = prompted_sessions(name)[0]
    items = notifications(name)
    messages = _events(items, "assistant/message")
    usages = [
        {"inputTokens": 5000 if n.params["sessionId"] == root else 90_000, "outputTokens": 0}  # type: ignore[index]
        for n in messages
    ]
    assert {u["inputTokens"] for u in usages} == {5000, 90_000}  # both kinds of step are there
    t = Transcript(root)
    for note in _with_usages(name, usages):
        t.apply(note)
    assert t.snapshot()["header"]["context_use"] == {
        "tokens": 5000, "window": 1_000_000, "fraction": 0.005
    }  # fmt: skip


def test_cached_input_fills_the_window_too() -> None:
    """``inputTokens`` is only the uncached part of the request: the cached part counts."""
    usage = {"inputTokens": 2_000, "cacheReadTokens": 790_000, "outputTokens": 8_000}
    assert context_tokens(usage) == 800_000
    assert context_tokens({**usage, "totalTokens": 800_500}) == 800_500  # the runtime's own sum
    assert context_tokens({}) is None and context_tokens({"inputTokens": True}) is None
    assert context_tokens({"inputTokens": -5}) is None and context_tokens(None) is None
    t = Transcript(prompted_sessions("plain")[0])
    for note in _with_usages("plain", [usage]):
        t.apply(note)
    use = ContextUse.from_dict(t.snapshot()["header"]["context_use"])
    assert use == ContextUse(800_000, 1_000_000) and use.high
    assert use.words() == "context 80% · 800k / 1M tokens"


def test_a_resumed_run_reports_no_window_and_carries_the_last_one() -> None:
    """resume-run2: the runtime sends no ``request/context`` after a resume. Alone, the run
    shows its tokens without a percentage; carried, with the window its session reported."""
    session = prompted_sessions("resume-run2")[0]
    alone = Transcript(session)
    for note in notifications("resume-run2"):
        alone.apply(note)
    assert alone.snapshot()["header"]["context_use"] == {
        "tokens": 18, "window": None, "fraction": None
    }  # fmt: skip
    assert ContextUse(18).words() == "context 18 tokens (window not reported)"

    first = Transcript(prompted_sessions("resume-run1")[0])
    for note in notifications("resume-run1"):
        first.apply(note)
    last = ContextUse.from_dict(first.snapshot()["header"]["context_use"])
    assert last == ContextUse(18, 1_000_000)
    carried = Transcript(session)
    assert carried.apply_local(ContextCarried(tokens=last.tokens, window=last.window))
    assert carried.snapshot()["header"]["context_use"]["tokens"] == 18  # type: ignore[index]
    for note in _with_usages("resume-run2", [{"inputTokens": 40, "outputTokens": 2}]):
        carried.apply(note)
    # this run's own tokens win; the carried window stays
    assert carried.snapshot()["header"]["context_use"] == {
        "tokens": 42, "window": 1_000_000, "fraction": 0.000042
    }  # fmt: skip


def test_carried_values_never_override_what_this_run_reported() -> None:
    t = Transcript(prompted_sessions("plain")[0])
    for note in notifications("plain"):
        t.apply(note)
    assert not t.apply_local(ContextCarried(tokens=500, window=64_000))
    assert t.snapshot()["header"]["context_use"]["window"] == 1_000_000  # type: ignore[index]


def test_the_fact_and_the_record_reject_what_is_not_a_count() -> None:
    with pytest.raises(ValueError, match="must be a count"):
        ContextCarried(tokens=-1)
    with pytest.raises(ValueError, match="must be a count"):
        ContextCarried(window=True)  # type: ignore[arg-type]
    assert local_fact("context-carried", {"tokens": 3}) == ContextCarried(tokens=3)
    assert ContextUse.from_dict({"tokens": "12", "window": 0}) is None
    assert ContextUse.from_dict({"tokens": 12, "window": 0}) == ContextUse(12)
    assert context_window({"contextWindow": 0}) is None
    assert context_window({"contextWindow": 128_000}) == 128_000
    assert [format_tokens(n) for n in (999, 1200, 120_000, 999_960, 1_000_000)] == [
        "999", "1.2k", "120k", "1M", "1M"
    ]  # fmt: skip


def test_added_bytes_per_header() -> None:
    """What the figure adds to a snapshot (and to a delta that carries the header)."""
    t = Transcript(prompted_sessions("plain")[0])
    for note in notifications("plain"):
        t.apply(note)
    use = t.snapshot()["header"]["context_use"]
    added = len(json.dumps({"context_use": use}, separators=(",", ":")))
    assert added < 80, added


# -- kept with the conversation ------------------------------------------------------------------


def test_the_conversation_keeps_the_figure_and_the_tokens_per_run(tmp_path: Any) -> None:
    from dsh_notebook.kernel.persistence.conversations import ConversationIndex

    index = ConversationIndex(tmp_path)
    index.record_run("nb", "s1", ContextUse(10, 100), 10)  # no prompt counted yet: nothing
    assert index.list("nb") == [] and index.context_of("nb", "s1") is None
    index.note("nb", "s1", "Load sales.csv")
    (before,) = index.list("nb")
    assert (before.context, before.last_run_tokens, before.tokens) == (None, None, None)
    index.record_run("nb", "s1", ContextUse(122_000, 1_000_000), 122_000)
    index.record_run("nb", "s1", ContextUse(851_000), 851_000)  # a run that saw no window
    (after,) = index.list("nb")
    assert after.context == ContextUse(851_000)  # as reported: the carry is the run's business
    assert (after.last_run_tokens, after.tokens, after.prompts) == (851_000, 973_000, 1)
    path = tmp_path / "dsh_notebook" / "conversations" / "nb.json"
    record = json.loads(path.read_text())
    assert record["v"] == 1  # optional keys of an entry: an older kernel keeps them as they are
    assert record["sessions"]["s1"]["context"] == {"tokens": 851_000, "window": None}
    record["sessions"]["s1"].update(context={"tokens": "many"}, tokens=-3, last_run_tokens=True)
    path.write_text(json.dumps(record))
    (broken,) = index.list("nb")  # what is not a count reads as absent
    assert (broken.context, broken.tokens, broken.last_run_tokens) == (None, None, None)


def test_a_starting_run_carries_what_the_run_before_it_reported() -> None:
    from dsh_notebook.kernel.notebook.session_context import SessionContexts

    contexts = SessionContexts()
    reads: list[str] = []

    def kept() -> ContextUse | None:
        reads.append("read")
        return ContextUse(500, 64_000)

    assert contexts.carried("s1", kept) == ContextUse(500, 64_000)  # a kernel's first run of it
    session = prompted_sessions("resume-run2")[0]
    assert contexts.carried(session, lambda: None) is None  # nothing kept, nothing reported
    for note in _with_usages("resume-run2", [{"inputTokens": 40, "outputTokens": 2}]):
        contexts.observe(session, note)
    assert contexts.carried(session, kept) == ContextUse(42)  # observed here: no record read
    assert contexts.carried("s1", kept) == ContextUse(500, 64_000) and reads == ["read"]


def test_the_settled_transcript_says_it_in_its_footer() -> None:
    usage = {"inputTokens": 2_000, "cacheReadTokens": 848_000, "outputTokens": 1_000}
    t = Transcript(prompted_sessions("plain")[0])
    for note in _with_usages("plain", [usage]):
        t.apply(note)
    t.apply_local(Settled())
    footer = [line for line in t.to_markdown().splitlines() if line.startswith("**settled**")]
    assert footer[0].endswith(
        "context 85% · 851k / 1M tokens — nearly full: `%%dsh --new` starts a fresh conversation"
    ), footer
    assert "· context 85% · 851k / 1M tokens — nearly full: %%dsh --new" in t.to_text()
    quiet = Transcript(prompted_sessions("resume-run2")[0])
    for note in notifications("resume-run2"):
        quiet.apply(note)
    assert "context 18 tokens (window not reported)" in quiet.to_text()
