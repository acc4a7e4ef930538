"""Issue 15: the saved transcript folds long results, names jobs and subagents, and reads in
nbconvert HTML (a real ``jupyter nbconvert --to html`` on a notebook holding a transcript)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.display import fold_text
from dsh_notebook.transcript.facts import Settled

from .helpers.transcripts import _render, assert_safe_markdown, event, tool_call, tool_result

JOB = "bash-4f536804ba2a46ab"
CHILD = "c4af6878-3138-4017-8be4-5c3249ea5cde"


def job_event(etype: str, call_id: str, **extra: Any) -> Any:
    data = {"jobId": JOB, "owner": "s", "kind": "bash", "label": "sleep 5 && echo done"}
    return event("s", etype, {**data, "toolCall": {"callId": call_id}, **extra})


def background_job_transcript() -> Transcript:
    t = Transcript("s")
    args = {"command": "sleep 5 && echo done", "run_in_background": True}
    t.apply(tool_call("s", "c1", "bash", {"description": "Wait and say done", **args}))
    t.apply(job_event("job/registered", "c1"))
    t.apply(tool_result("s", "c1", f"started background job {JOB}"))
    t.apply(tool_call("s", "c2", "job_output", {"job_id": JOB, "wait": True}))
    t.apply(job_event("job/settled", "c1", status="completed", detail="exit code: 0"))
    t.apply(tool_result("s", "c2", f"job {JOB} completed\ndone"))
    t.apply_local(Settled(finish_reason="completed"))
    return t


# -- folding -----------------------------------------------------------------------------------


def test_fold_keeps_every_character_in_order() -> None:
    text = "\n".join(f"line {i}" for i in range(50)) + "\n"
    fold = fold_text(text)
    assert fold.shown + "\n" + fold.rest == text.rstrip("\n")
    assert (fold.hidden_lines, fold.summary) == (30, "30 more lines")
    assert fold_text("short\n").rest == ""


def test_one_long_line_folds_by_characters() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "python -c 'print(\"x\" * 9000)'"}))
    t.apply(tool_result("s", "c1", "x" * 9000))
    md = t.to_markdown()
    assert "<details><summary>6,000 more characters</summary>" in md
    # 3,000 characters open, 6,000 folded: nothing lost, nothing repeated
    assert f"```text\n{'x' * 3000}\n```\n\n<details>" in md
    assert f"```text\n{'x' * 6000}\n```\n\n</details>" in md


def test_a_result_cannot_close_the_fold_or_inject_html() -> None:
    hostile = "\n".join(
        ["ok"] * 25
        + ["</details>", "<script>alert(1)</script>", "```", "<img src=x onerror=alert(1)>"]
    )
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "cat evil"}))
    t.apply(tool_result("s", "c1", hostile))
    md = t.to_markdown()
    assert_safe_markdown(md)
    html = _render(md)
    assert html.count("<details>") == html.count("</details>") == 1
    assert "&lt;/details&gt;" in html and "&lt;script&gt;" in html  # shown, as text


def test_a_fold_inside_a_subagent_stays_inside_its_quote() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "subagent", {"description": "count", "prompt": "count to 40"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "s", "childSessionId": CHILD}))
    t.apply(tool_call(CHILD, "k1", "bash", {"command": "seq 1 40"}))
    t.apply(tool_result(CHILD, "k1", "\n".join(str(i) for i in range(1, 41))))
    md = t.to_markdown()
    assert "> <details><summary>20 more lines</summary>\n>\n> ```text\n> 21\n" in md
    assert_safe_markdown(md)
    assert "<blockquote>" in _render(md).split("<details>")[0]


# -- names, not ids ----------------------------------------------------------------------------


def test_a_background_job_reads_by_its_description() -> None:
    t = background_job_transcript()
    md, text = t.to_markdown(), t.to_text()
    assert "started background job “Wait and say done”" in md
    assert "job “Wait and say done” completed" in md  # a later job_output result too
    assert "started background job “Wait and say done”" in text
    assert JOB not in md.split('"job_id"')[0]  # results name it; the call's own argument stays
    snap = t.snapshot()  # the snapshot (hence _dsh, %dsh export --format json) keeps the raw id
    assert snap["items"][0]["result"] == f"started background job {JOB}"  # type: ignore[typeddict-item]


def test_a_job_without_description_reads_by_its_command() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "sleep 5 && echo done\nmore"}))
    t.apply(job_event("job/registered", "c1"))
    t.apply(tool_result("s", "c1", f"started background job {JOB}"))
    assert "started background job “sleep 5 && echo done”" in t.to_text()


def test_a_subagent_reads_by_its_label_and_unknown_ids_stay() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "subagent", {"description": "child task", "prompt": "hello"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "s", "childSessionId": CHILD}))
    other = "0d9e8f7a-0000-4000-8000-000000000000"
    t.apply(tool_result("s", "c1", f"started subagent {CHILD}; see also {other}"))
    md = t.to_markdown()
    assert f"started subagent “child task”; see also {other}" in md
    assert CHILD not in md


# -- nbconvert HTML ----------------------------------------------------------------------------


def test_nbconvert_html_folds_and_keeps_code_as_code(tmp_path: Path) -> None:
    t = Transcript("s")
    code = "import pandas as pd\nfor region in ['N', 'S']:\n    print(region)"
    t.apply(tool_call("s", "c1", "mcp__notebook__run_python", {"code": code}))
    t.apply(tool_result("s", "c1", "\n".join(f"row {i}" for i in range(1, 101))))
    t.apply_local(Settled(finish_reason="completed"))
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("%%dsh\nLoop over the regions")
    bundle = {"text/markdown": t.to_markdown(), "text/plain": t.to_text()}
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    nb.cells.append(cell)
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    html = (tmp_path / "saved.html").read_text()
    output = html[html.index('data-mime-type="text/markdown"') :]
    before, folded = output.split("<details>", 1)
    assert "<pre>" in before and "row 20\n" in before and "row 21\n" not in before
    assert '<span class="k">for</span>' in before  # the code is a highlighted <pre> block
    assert "    <span" in before  # its indentation kept
    assert folded.startswith("<summary>80 more lines</summary>")
    inside = folded[: folded.index("</details>")]
    assert "<pre>" in inside and "row 21\n" in inside and "row 100\n" in inside


def test_a_long_subagent_transcript_folds_and_its_result_stays_open() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "subagent", {"description": "count", "prompt": "count to 30"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "s", "childSessionId": CHILD}))
    for i in range(12):
        t.apply(tool_call(CHILD, f"k{i}", "bash", {"command": f"echo {i}"}))
        t.apply(tool_result(CHILD, f"k{i}", str(i)))
    last = [{"type": "text", "text": "I counted to 11."}]
    t.apply(Notification("subagent.finished", {"parentSessionId": "s", "childSessionId": CHILD,
                                               "status": "ok", "lastAssistantMessage": last}))  # fmt: skip
    md = t.to_markdown()
    assert "> <details><summary>Its transcript (12 items)</summary>\n>\n> **Tool** `bash`" in md
    assert "> </details>\n>\n> **Result**\n>\n> I counted to 11." in md
    assert_safe_markdown(md)
    html = _render(md)
    assert html.count("<details>") == 1 and "echo 11" in html.split("</details>")[0]


def test_a_short_subagent_transcript_stays_open() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "subagent", {"description": "hi", "prompt": "say hi"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "s", "childSessionId": CHILD}))
    t.apply(tool_call(CHILD, "k1", "bash", {"command": "echo hi"}))
    t.apply(tool_result(CHILD, "k1", "hi"))
    assert "<details>" not in t.to_markdown()


def test_a_result_past_the_cap_says_where_the_whole_of_it_is() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "bash", {"command": "cat big.log"}))
    t.apply(tool_result("s", "c1", "\n".join(f"log line {i}" for i in range(5000))))
    md = t.to_markdown()
    assert "characters omitted; all of it: `%dsh export --format json` …]" in md
    assert "log line 4999" in md  # the tail is kept, inside the fold
