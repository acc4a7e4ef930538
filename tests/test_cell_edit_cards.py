"""Cell-editing approvals in the transcript (issue 27) and the Reject note (issue 25).

The kernel's facts carry a cell edit's diff (``reason``), its new whole source (``proposed``) and
the full id of its cell (``target``); the approval node keeps all three for the widget's card,
and the static transcript shows the diff as a ``diff`` block, folded when long, with who decided
and the person's note.
"""

from __future__ import annotations

import difflib

import pytest

from dsh_notebook.kernel.registry.broker import RunPolicy
from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import LINE_MAX, PROPOSED_MAX
from dsh_notebook.transcript.facts import ApprovalDecided, ApprovalRequested
from dsh_notebook.transcript.schema import ApprovalItem
from dsh_notebook.widget.actions import check_action

from .helpers.approvals import approve_with_click, ask
from .helpers.transcripts import assert_safe_markdown, tool_call, tool_result
from .run_registry import broker_with_runs, hold

CELL_ID = "1a2b3c4d-0000-4000-8000-000000000007"
EDIT_CELL = "mcp__notebook__edit_cell"


def cell_diff(before: str, after: str, *, position: int = 7, count: int = 12) -> str:
    """The reason the kernel builds (docs/cell-editing.md): a unified diff, two header lines."""
    short = CELL_ID[:8]
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        f"cell {position} · id {short} · In [{count}]",
        f"cell {position} · id {short} · edited by dsh",
        lineterm="",
    )
    return "\n".join(lines)


def two_hundred_lines() -> tuple[str, str]:
    before = "\n".join(f"x{i} = {i} * 2  # step {i} of the cleaning" for i in range(200))
    after = before.replace("x100 = 100 * 2", "x100 = 100 * 3")
    return before, after


def edit_asked(
    before: str, after: str, *, tool: str = "edit_cell", proposed: str | None = None
) -> Transcript:
    t = Transcript("s")
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    t.apply(
        tool_call("s", "c1", EDIT_CELL, {"cell_id": CELL_ID[:8], "old_text": "x", "new_text": "y"})
    )
    t.apply_local(
        ApprovalRequested(
            request_id="a1",
            session_id="s",
            tool_name=tool,
            call_id="c1",
            reason=cell_diff(before, after),
            proposed=after if proposed is None else proposed,
            target=CELL_ID,
        )
    )
    return t


def approval_of(t: Transcript) -> ApprovalItem:
    for item in t.snapshot()["items"]:
        if item["kind"] == "tool" and item["approval"] is not None:
            return item["approval"]
        if item["kind"] == "approval":
            return item
    raise AssertionError("no approval card")


# -- the facts reach the card --------------------------------------------------------------------


def test_the_card_carries_the_diff_the_proposed_source_and_the_target() -> None:
    before, after = two_hundred_lines()
    card = approval_of(edit_asked(before, after))
    assert card["proposed"] == after
    assert card["target"] == CELL_ID
    assert card["reason"] == cell_diff(before, after)
    assert card["note"] is None


def test_a_long_diff_is_not_cut_at_the_reason_cap() -> None:
    before = "\n".join(f"old_value_{i} = {i}" for i in range(300))
    after = "\n".join(f"new_value_{i} = {i}" for i in range(300))
    diff = cell_diff(before, after)
    assert len(diff) > 4 * LINE_MAX
    card = approval_of(edit_asked(before, after, tool="replace_cell"))
    assert card["reason"] == diff
    # other tools' reasons stay one bounded line
    t = Transcript("s")
    t.apply_local(ApprovalRequested(request_id="b", session_id="s", tool_name="bash", reason=diff))
    assert len(approval_of(t)["reason"] or "") < LINE_MAX + 100


def test_a_proposed_source_too_long_for_the_editor_is_left_out_not_cut() -> None:
    huge = "y = 1\n" * (PROPOSED_MAX // 6 + 1)
    card = approval_of(edit_asked("x = 1", "x = 2", proposed=huge))
    assert card["proposed"] is None  # no editor then: a cut source would become the cell
    assert card["target"] == CELL_ID


def test_an_edited_apply_keeps_the_agents_diff_and_records_the_persons_source() -> None:
    t = edit_asked("x = 1", "x = 2")
    t.apply_local(
        ApprovalDecided(
            request_id="a1", outcome="allowed-once", decided_by="you-edited", code="x = 5"
        )
    )
    card = approval_of(t)
    assert (card["reason"], card["proposed"]) == (cell_diff("x = 1", "x = 2"), "x = 5")
    md = t.to_markdown()
    assert "The source you applied instead" in md and "```python\nx = 5\n```" in md


def test_a_rejection_keeps_the_persons_note_on_the_card_and_in_the_transcript() -> None:
    t = edit_asked("x = 1", "x = 2")
    t.apply_local(
        ApprovalDecided(
            request_id="a1", outcome="rejected", decided_by="you", note="use the 2024 data"
        )
    )
    card = approval_of(t)
    assert (card["outcome"], card["note"]) == ("rejected", "use the 2024 data")
    # one line in words (issue 48): what was asked, who decided, the note
    assert "**Edit cell 7** (`y`) — rejected by you — note: use the 2024 data" in t.to_markdown()
    assert "Edit cell 7 (y) — rejected by you — note: use the 2024 data" in t.to_text()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_brokers_decision_carries_the_note_to_the_card() -> None:
    t = Transcript("s", prompt="p")
    broker, runs = broker_with_runs()
    hold(runs, "s", RunPolicy(notify=t.apply_local))
    decision = await approve_with_click(
        broker, ask("bash", reason="rm -r data"), "a1", outcome="rejected", note="keep the data"
    )
    assert (decision.outcome, decision.note) == ("rejected", "keep the data")
    card = approval_of(t)
    assert (card["outcome"], card["decided_by"], card["note"]) == (
        "rejected",
        "you",
        "keep the data",
    )


@pytest.mark.parametrize(
    ("tool", "accepted"),
    [("edit_cell", True), ("replace_cell", True), ("insert_cell", True), ("delete_cell", False)],
)
def test_the_widget_may_send_an_edited_source_for_every_editing_tool_but_delete(
    tool: str, accepted: bool
) -> None:
    snapshot = edit_asked("x = 1", "x = 2", tool=tool).snapshot()
    message = {"type": "approval", "request_id": "a1", "decision": "allowed-once", "code": "x = 9"}
    assert (check_action(snapshot, message) == message) is accepted


def test_a_note_on_any_tool_is_shown_and_escaped() -> None:
    t = Transcript("s")
    t.apply_local(ApprovalRequested(request_id="b", session_id="s", tool_name="bash"))
    t.apply_local(
        ApprovalDecided(
            request_id="b",
            outcome="rejected",
            decided_by="you",
            note="<img src=x onerror=alert(1)>",
        )
    )
    md = t.to_markdown()
    assert "note: " in md and "<img" not in md
    assert_safe_markdown(md)


# -- the static transcript -----------------------------------------------------------------------


def test_the_static_transcript_shows_the_diff_as_a_diff_block_with_who_decided() -> None:
    before, after = two_hundred_lines()
    t = edit_asked(before, after)
    t.apply_local(ApprovalDecided(request_id="a1", outcome="allowed-once", decided_by="you"))
    t.apply(tool_result("s", "c1", "Applied: Edited cell 7 · id 1a2b3c4d (approved; …)."))
    md = t.to_markdown()
    approval = md[md.index("**Edited cell 7**") :]
    assert approval.startswith(  # one line in words, the diff folded under it (issue 48)
        "**Edited cell 7** (`y`) — applied by you\n\n"
        "<details><summary>The change (11 lines)</summary>\n\n```diff\n"
    )
    assert "\n-x100 = 100 * 2  # step 100 of the cleaning\n+x100 = 100 * 3" in approval
    assert "--- cell 7 · id 1a2b3c4d · In [12]" in approval
    assert "Applied:" not in md  # the result written for the model is not repeated
    assert_safe_markdown(md)


def test_a_long_diff_is_folded_in_the_static_transcript() -> None:
    before = "\n".join(f"a{i} = {i}" for i in range(60))
    t = edit_asked(before, "", tool="delete_cell")
    md = t.to_markdown()
    approval = md[md.index("**Edit cell 7**") :]  # waiting: the verb is what is asked
    start = approval.index("```diff\n") + 8
    shown = approval[start : approval.index("\n```", start)]
    assert len(shown.splitlines()) == 63  # 2 headers + @@ + 60, all behind one fold
    assert "<details><summary>The change (63 lines)</summary>" in approval
    assert "\n-a59 = 59\n" in approval[approval.index("<details>") :]
    assert_safe_markdown(md)


def test_a_diff_holding_html_stays_inert_text() -> None:
    t = edit_asked("x = 1", "x = '<img src=x onerror=alert(1)>'\n```\n<script>1</script>")
    md = t.to_markdown()
    assert_safe_markdown(md)
    block = md[md.index("````diff") :] if "````diff" in md else md[md.index("```diff") :]
    assert "<img src=x onerror=alert(1)>" in block  # as text, inside the fence


def test_size_of_the_static_transcript_for_a_one_line_change_in_a_200_line_cell() -> None:
    before, after = two_hundred_lines()
    t = edit_asked(before, after)
    t.apply_local(ApprovalDecided(request_id="a1", outcome="allowed-once", decided_by="you"))
    md = t.to_markdown()
    approval = md[md.index("**Edit cell 7**") :]
    print(f"static markdown: {len(md)} chars (approval part {len(approval)})")
    assert len(approval) < 1_000  # 3 lines of context around one change, not 200 lines
