"""Issue 29: the figures an approved ``run_python`` call showed appear under the call, in the
snapshot (the widget's state), the saved markdown (as images whose PNG data is defined once at
the end) and the plain text (named, not embedded)."""

from __future__ import annotations

import base64
import re

import pytest

from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import FIGURES_MAX
from dsh_notebook.transcript.facts import ApprovalDecided, ApprovalRequested, Figures, Settled

from .helpers.transcripts import _render, assistant, tool_call, tool_result

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake figure bytes").decode("ascii")
CODE = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"


def figure_transcript(session: str = "s", call: str = "toolu_1") -> Transcript:
    t = Transcript("s")
    t.apply(tool_call(session, call, "mcp__notebook__run_python", {"code": CODE}))
    assert t.apply_local(Figures(session, call, (PNG, PNG)))
    t.apply(tool_result(session, call, "1 figure(s) attached as PNG."))
    t.apply(assistant("s", {"type": "text", "text": "The figure is shown under the call above."}))
    t.apply_local(Settled("completed"))
    return t


def test_figures_sit_under_their_call_in_the_snapshot() -> None:
    (tool, *_) = figure_transcript().snapshot()["items"]
    assert tool["kind"] == "tool" and tool["figures"] == [PNG, PNG]


def test_the_markdown_shows_each_figure_where_its_call_is_and_its_data_last() -> None:
    md = figure_transcript().to_markdown()
    first = md.index("![Figure 1 shown by the code][dsh-figure-toolu_1-1]")
    assert md.index("run_python") < first < md.index("The figure is shown") < md.index("\n---\n")
    definitions = re.findall(r"^\[(dsh-figure-[\w-]+)\]: data:image/png;base64,(\S+)$", md, re.M)
    assert definitions == [("dsh-figure-toolu_1-1", PNG), ("dsh-figure-toolu_1-2", PNG)]
    assert md.rstrip("\n").endswith(PNG)  # after the footer: a reader's head stays readable
    html = _render(md)  # a CommonMark renderer resolves the references to inline images
    assert html.count(f'<img src="data:image/png;base64,{PNG}" alt="Figure') == 2


def test_the_text_rendering_names_the_figures_without_their_data() -> None:
    text = figure_transcript().to_text()
    assert "2 figures (PNG; shown in the notebook's transcript)" in text and PNG not in text


def test_figures_of_an_unknown_call_are_ignored_and_the_count_is_bounded() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "mcp__notebook__run_python", {"code": "1"}))
    assert not t.apply_local(Figures("s", "elsewhere", (PNG,)))
    assert not t.apply_local(Figures("other-session", "c1", (PNG,)))
    t.apply_local(Figures("s", "c1", (PNG,) * (FIGURES_MAX + 3)))
    assert len(t.snapshot()["items"][0]["figures"]) == FIGURES_MAX


@pytest.mark.parametrize("bad", ['") onerror=alert(1)', "iVBOR\n<script>", ""])
def test_a_figure_is_base64_or_refused_where_it_is_built(bad: str) -> None:
    with pytest.raises(ValueError, match="base64 PNG"):
        Figures("s", "c1", (bad,))


def test_a_hostile_call_id_cannot_shape_the_reference_label() -> None:
    t = Transcript("s")
    call = "c]: javascript:alert(1)\n[x"
    t.apply(tool_call("s", call, "mcp__notebook__run_python", {"code": "1"}))
    t.apply_local(Figures("s", call, (PNG,)))
    md = t.to_markdown()
    assert "javascript:" not in md
    assert "[dsh-figure-cjavascriptalert1x-1]: data:image/png;base64," in md


# -- shorter saved transcripts: names in words, listings folded, code once ---------------------


def test_mcp_tools_read_in_words_and_listings_fold_whole() -> None:
    listing = "\n".join(f"v{i} | int | | 28 B | {i}" for i in range(13))
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "mcp__notebook__notebook_variables", {}))
    t.apply(tool_result("s", "c1", listing))
    md = t.to_markdown()
    assert "**Tool** `notebook_variables` (notebook) · done" in md
    assert "mcp__notebook__" not in md  # the wire name stays in the snapshot and the exports
    assert t.snapshot()["items"][0]["name"] == "mcp__notebook__notebook_variables"
    assert "<details><summary>Result (13 lines)</summary>\n\n```text\nv0 | int" in md
    assert md.count("v12 | int") == 1


def test_the_code_of_an_approved_call_shows_once() -> None:
    t = Transcript("s")
    t.apply(tool_call("s", "c1", "mcp__notebook__run_python", {"code": CODE}))
    t.apply_local(
        ApprovalRequested(request_id="a1", session_id="s", tool_name="run_python", reason=CODE)
    )
    t.apply_local(ApprovalDecided(request_id="a1", outcome="allowed-once", decided_by="you"))
    t.apply(tool_result("s", "c1", "done"))
    md = t.to_markdown()
    assert md.count("plt.plot([1, 2])") == 1
    assert "**Approval** for `run_python`: **allowed once** (by you)" in md


def test_the_values_a_prompt_inserted_fold_below_what_was_typed() -> None:
    from dsh_notebook.context.interpolate import VALUES_HEADING

    typed = "Which region grows fastest?\n\n`revenue` (DataFrame: 6 rows x 4 columns; see below)"
    values = "\n".join(f"row {i}" for i in range(30))
    t = Transcript("s", prompt=f"{typed}\n\n\n---\n{VALUES_HEADING}\n\n{values}")
    md = t.to_markdown()
    assert f"**Prompt**\n\n```text\n{typed}\n```\n\n<details><summary>Values referenced above" in md
    assert "(32 lines)</summary>" in md and md.count("row 29") == 1


def test_figures_past_the_saved_budget_are_named_not_embedded() -> None:
    from dsh_notebook.transcript.bounds import FIGURES_SAVED_MAX

    big = "A" * (FIGURES_SAVED_MAX // 3 + 1)
    t = Transcript("s")
    for call in ("c1", "c2"):
        t.apply(tool_call("s", call, "mcp__notebook__run_python", {"code": call}))
        t.apply_local(Figures("s", call, (big, big)))
    md = t.to_markdown()
    assert md.count("data:image/png;base64,") == 2  # the first call's two; the rest named
    assert md.count("not kept in the saved transcript (too large)") == 2
    assert len(md) < FIGURES_SAVED_MAX + 5_000
    assert len(t.snapshot()["items"][1]["figures"]) == 2  # the widget still shows them all
