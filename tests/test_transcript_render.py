"""Renderings of issue 12: code shown as code, folded results, stop, elapsed time, hints, waits."""

from __future__ import annotations

from typing import Any

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import (
    ApprovalDecided,
    ApprovalRequested,
    RunError,
    Settled,
    Stopped,
)

from .helpers.transcripts import _render, assert_safe_markdown, event, tool_call, tool_result

TWO_STATEMENTS = "totals = sales.groupby('region')['revenue'].sum()\ntotals"
RUN_PYTHON = "mcp__notebook__run_python"


def timed(session_id: str, etype: str, data: dict[str, Any], time: int) -> Notification:
    note = event(session_id, etype, data)
    note.params["event"]["time"] = time
    return note


def run_python_transcript(code: str = TWO_STATEMENTS) -> Transcript:
    t = Transcript("s")
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    t.apply(tool_call("s", "c1", RUN_PYTHON, {"code": code}))
    return t


def ask_run_python(t: Transcript, code: str = TWO_STATEMENTS) -> None:
    """As the notebook MCP server does: no call id, the code as the reason."""
    t.apply_local(
        ApprovalRequested(request_id="a1", session_id="s", tool_name="run_python", reason=code)
    )


# -- code keeps its lines ----------------------------------------------------------------------


def test_run_python_code_is_a_python_block_with_its_line_breaks() -> None:
    t = run_python_transcript()
    md = t.to_markdown()
    assert f"```python\n{TWO_STATEMENTS}\n```" in md
    assert '"code"' not in md  # not a JSON string with an escaped \n
    assert "        totals = sales.groupby" in t.to_text() and "\n        totals\n" in t.to_text()


def test_run_python_approval_shows_the_code_as_a_block() -> None:
    t = run_python_transcript()
    ask_run_python(t)
    t.apply_local(ApprovalDecided(request_id="a1", outcome="rejected", decided_by="you"))
    md = t.to_markdown()
    call, approval = md.split("**Approval**")
    # the code shows once, as a block under the call; the decision on it says so in one line
    assert approval.startswith(" for `run_python`: **rejected** (by you)\n\n---")
    assert f"```python\n{TWO_STATEMENTS}\n```" in call and md.count(TWO_STATEMENTS) == 1
    assert "sum() totals" not in md  # never flattened to one line
    assert "\n    totals" in t.to_text()[t.to_text().index("approval for run_python") :]


def test_code_fence_outgrows_backticks_inside_the_code() -> None:
    code = 'doc = """\n````\n"""\nprint(doc)'
    t = run_python_transcript(code)
    md = t.to_markdown()
    assert f"`````python\n{code}\n`````" in md
    assert_safe_markdown(md)
    assert '<pre><code class="language-python">' in _render(md)


def test_bash_command_is_a_bash_block_and_other_arguments_stay_json() -> None:
    t = Transcript("s")
    args = {"description": "List", "command": "ls -la\npwd", "timeout": 5}
    t.apply(tool_call("s", "c1", "bash", args))
    md = t.to_markdown()
    assert "```bash\nls -la\npwd\n```" in md
    assert '"timeout": 5' in md and '"command"' not in md


def test_hostile_code_stays_inert() -> None:
    t = run_python_transcript("print('<img src=x onerror=alert(1)>')\n```\n<script>x</script>")
    ask_run_python(t, "x = 1\n<svg onload=alert(1)>")
    assert_safe_markdown(t.to_markdown())


# -- long results fold -------------------------------------------------------------------------


def test_long_tool_output_is_folded_in_the_static_transcript() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "seq 1 900"}))
    t.apply(tool_result("s", "c1", "\n".join(str(i) for i in range(1, 901)) + "\n"))
    t.apply_local(Settled(finish_reason="completed"))
    md = t.to_markdown()
    assert "\n20\n```\n\n<details><summary>880 more lines</summary>\n\n```text\n21\n" in md
    assert "\n900\n```\n\n</details>" in md
    assert_safe_markdown(md)
    html = _render(md)  # the first lines stay open; the rest is folded, as code
    assert '<pre><code class="language-text">1\n' in html.split("<details>")[0]
    folded = html.split("<details>")[1]
    assert folded.startswith("<summary>880 more lines</summary>\n<pre><code")
    assert "900\n</code></pre>\n</details>" in folded
    assert "        900\n" in t.to_text()  # plain text keeps everything


def test_short_tool_output_is_not_folded() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "seq 1 20"}))
    t.apply(tool_result("s", "c1", "\n".join(str(i) for i in range(1, 21))))
    md = t.to_markdown()
    assert "\n20\n```" in md and "more line" not in md


# -- stop --------------------------------------------------------------------------------------


def test_stop_reads_as_stopped_by_you_not_as_an_error() -> None:
    t = run_python_transcript()
    assert t.apply_local(Stopped())
    # what the kernel sends today when the restarted runtime ends the run
    t.apply_local(
        RunError(
            message="the runtime exited", hint="run `%dsh restart`; the session's history is kept"
        )
    )
    t.apply_local(Settled(finish_reason=None))
    snap = t.snapshot()
    assert snap["header"]["stopped"] is True and snap["header"]["state"] == "settled"
    assert [i["kind"] for i in snap["items"]] == ["tool", "note"]
    assert snap["items"][-1]["note"] == "stopped"
    md = t.to_markdown()
    assert "_Stopped by you._" in md and "Error" not in md and "restart" not in md
    assert md.split("\n---\n\n")[-1].startswith("**stopped** · ")  # the footer
    assert "State: stopped" in t.to_text() and " · stopped · " in t.summary_line()


def test_stop_is_recorded_once() -> None:
    t = Transcript("s")
    assert t.apply_local(Stopped())
    assert t.apply_local(Stopped()) is False


def test_an_error_before_the_stop_is_kept() -> None:
    t = Transcript("s")
    t.apply_local(RunError(message="boom"))
    t.apply_local(Stopped())
    assert [i["kind"] for i in t.snapshot()["items"]] == ["error", "note"]


# -- elapsed time ------------------------------------------------------------------------------


def test_footer_shows_the_elapsed_time_from_event_times() -> None:
    t = Transcript("s")
    t.apply(timed("s", "turn/start", {"turn": 1}, 1_000))
    t.apply(timed("s", "turn/end", {"turn": 1, "reason": {"kind": "completed"}}, 75_500))
    t.apply_local(Settled(finish_reason="completed"))
    header = t.snapshot()["header"]
    assert (header["started_at"], header["ended_at"]) == (1_000, 75_500)
    assert "**settled** · 1 min 14 s · finish reason" in t.to_markdown()
    assert "State: settled · 1 min 14 s" in t.to_text()


def test_event_times_alone_do_not_move_seq() -> None:
    t = Transcript("s")
    t.apply(timed("s", "turn/start", {"turn": 1}, 1_000))
    seq = t.seq
    assert t.apply(timed("s", "step/start", {}, 9_000)) is False  # a silent event
    assert t.seq == seq and t.snapshot()["header"]["ended_at"] == 1_000


def test_no_elapsed_time_without_events() -> None:
    t = Transcript("s")
    t.apply_local(Settled(finish_reason="completed"))
    assert "**settled** · finish reason" in t.to_markdown()


# -- hints are our text ------------------------------------------------------------------------


def test_hint_code_spans_render_as_code() -> None:
    t = Transcript("s")
    t.apply_local(RunError(message="boom", hint="run `%dsh restart`; the history is kept"))
    md = t.to_markdown()
    assert "_Hint:_ run `%dsh restart`; the history is kept" in md
    assert "<code>%dsh restart</code>" in _render(md)


def test_hint_outside_code_is_still_escaped() -> None:
    t = Transcript("s")
    t.apply_local(RunError(message="boom", hint="<img src=x onerror=alert(1)> then `a<b>`"))
    md = t.to_markdown()
    assert_safe_markdown(md)
    assert "&lt;img src=x onerror=alert(1)&gt; then `a<b>`" in md


# -- waiting for you ---------------------------------------------------------------------------


def test_tool_waiting_for_its_approval_says_so() -> None:
    t = run_python_transcript()
    assert "· running" in t.to_markdown() or "· pending" in t.to_markdown()
    ask_run_python(t)
    assert "**Tool** `run_python` (notebook) · waiting for you" in t.to_markdown()
    assert "[tool] run_python (notebook) · waiting" in t.to_text()
    t.apply_local(ApprovalDecided(request_id="a1", outcome="allowed-once", decided_by="you"))
    assert "waiting for you" not in t.to_markdown()


def test_a_pending_approval_of_another_tool_does_not_mark_the_call() -> None:
    t = run_python_transcript()
    t.apply_local(ApprovalRequested(request_id="a1", session_id="s", tool_name="write"))
    assert "waiting for you" not in t.to_markdown()


def test_plain_text_names_tools_in_words_and_the_json_keeps_the_wire_name() -> None:
    """``%%dsh --format text`` and ``%dsh export --format text`` read like the markdown: an MCP
    tool is ``run_python (notebook)``, in its line and in its approval's; the snapshot (what
    ``--format json`` and ``_dsh`` carry) keeps ``mcp__notebook__run_python``."""
    t = Transcript("s")
    t.apply(tool_call("s", "c1", RUN_PYTHON, {"code": "1 + 1"}))
    t.apply_local(
        ApprovalRequested(request_id="a1", session_id="s", tool_name=RUN_PYTHON, reason="1 + 1")
    )
    t.apply_local(ApprovalDecided(request_id="a1", outcome="allowed-once", decided_by="you"))
    t.apply(tool_result("s", "c1", "2"))
    t.apply_local(Settled("completed"))
    text = t.to_text()
    assert "[tool] run_python (notebook) · " in text
    assert "approval for run_python (notebook): allowed once (by you)" in text
    assert "mcp__" not in text
    assert t.snapshot()["items"][0]["name"] == RUN_PYTHON
