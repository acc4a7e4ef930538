"""The saved transcript of an editing run reads as a summary of the work (issue 48 items 1-3),
through a real ipykernel, the real runtime and the scripted model (``notebook-calls``), the page
played over the kernel's own channels and each card allowed by the person (``%dsh allow ID``).

- Each cell tool is one line in words ("Edited cell 3 (`y = x * 20`) — applied by you"), its
  diff folded under it; no JSON arguments, no result written for the model ("Applied: …"); the
  run ends with one line of what it changed ("Edited 2 cells, ran 2, added 1, deleted 1").
- A ``run_python`` result shows what ran and its output, not the note written for the model
  ("… Do not repeat the code in your answer."), which the model still receives as before.
- "context sent" appears once.

The five-tool run's transcript is measured (characters and lines of the saved markdown); the
figures before and after are in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.kernel.tools.agent_cells import kept_note
from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.scripted_model.notebook_calls import tool_results

from .fake_page import CAPABILITIES, FakePage
from .helpers.played_page import PlayedPage
from .helpers.real_kernel import wait_shown
from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = pytest.mark.timeout(300)

FIVE_TOOLS = [
    {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}},
    {"tool": "edit_cell",
     "args": {"cell_id": "@3", "old_text": "y = x * 10", "new_text": "y = x * 20"}},
    {"tool": "insert_cell",
     "args": {"after_cell_id": "@3", "source": "## Results", "cell_type": "markdown"}},
    {"tool": "delete_cell", "args": {"cell_id": "@4"}},
    {"tool": "run_cells", "args": {"cell_ids": ["@2", "@3"]}},
]  # fmt: skip
CELLS = ["%load_ext dsh_notebook", "x = 1", "y = x * 10\nprint(y)", "print('old')"]
SETUP = "%load_ext dsh_notebook\n%config DshMagics.default_format = 'markdown'"
TRANSCRIPT = "get_ipython()._dsh_notebook_magics.agent.runs.last().view.transcript"
ANSWER = "Notebook calls done."
"""Where the scripted model's final answer begins (it quotes each result's first line)."""


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url, setup=SETUP) as k:
        yield k


def run_allowing_each_card(
    k: Kernel, model: ScriptedModelServer, calls: list[dict[str, Any]]
) -> tuple[str, FakePage]:
    """Run ``calls``, the page played and each card allowed by ``%dsh allow ID`` (the
    person); the settled output's markdown (what the saved notebook keeps)."""
    comm_id = open_link(k, (*CAPABILITIES, "identity"))
    text = "%%dsh\n[[scenario:notebook-calls]] " + json.dumps(calls)
    page = FakePage([*CELLS, text])
    page.cells[-1]["id"] = "dsh-cell"
    page.run_results = lambda ids: [
        {"cell_id": i, "index": n + 1, "status": "ok", "execution_count": n + 5,
         "outputs": [{"output_type": "stream", "text": "20\n"}] if n else []}
        for n, i in enumerate(ids)
    ]  # fmt: skip
    played = PlayedPage(k, comm_id, page)
    model.clear_requests()
    run = k.execute(text, allow_stdin=True, metadata=identity("dsh-cell"))
    assert run.error is None, run.error
    allowed: list[str] = []
    deadline = time.monotonic() + 200
    while sum(r.scenario == "notebook-calls" for r in model.requests) < len(calls) + 2:
        assert time.monotonic() < deadline, f"the model got fewer requests ({allowed=})"
        played.answer()
        for key in played.waiting_ids():
            if key not in allowed:
                allowed.append(key)
                decided = k.execute(f"%dsh allow {key}")
                assert decided.error is None, decided.error
        time.sleep(0.1)
    while k.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run did not settle"
        played.answer()
        time.sleep(0.2)
    wait_shown(k, "**settled**")  # the settled footer (the kernel's only run): published last
    settled = [
        m["content"]["data"]["text/markdown"]
        for m in k.iopub
        if m["msg_type"] == "update_display_data"
        and "text/markdown" in m["content"].get("data", {})
    ]
    assert settled, "no settled markdown was published"
    return settled[-1], page


def the_calls(markdown: str) -> str:
    """The calls after ``notebook_cells`` (whose listing quotes the prompt), before the
    scripted model's answer (which quotes each result's first line)."""
    read = markdown.index("</details>", markdown.index("`notebook_cells`"))
    return markdown[read : markdown.index(ANSWER)]


def test_a_five_tool_editing_run_reads_one_line_per_tool_and_ends_with_what_it_changed(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    markdown, page = run_allowing_each_card(kernel, scripted_model, FIVE_TOOLS)
    assert [page.source(n) for n in (2, 3, 4)] == ["x = 2", "y = x * 20\nprint(y)", "## Results"]
    work = the_calls(markdown)
    for line in (
        "**Edited cell 2** (`x = 2`) — applied by you",
        "**Edited cell 3** (`y = x * 20`) — applied by you",
        "**Inserted a markdown cell after cell 3** (`## Results`) — applied by you",
        "**Deleted cell 5** — applied by you",
        "**Ran cells 2\u20133**: `20` — allowed by you",
    ):
        assert f"\n{line}\n" in work, work
    assert "```json" not in work and '"old_text"' not in work  # no JSON arguments
    assert "Applied:" not in work and "(approved; the page confirmed it" not in work
    assert "**Approval**" not in work  # the decision is on the tool's line
    assert work.count("<details><summary>The change (") == 4  # each diff, once, folded
    assert "\n-y = x * 10\n+y = x * 20\n" in work
    summary = (
        "_Edited 2 cells, ran 2, added 1, deleted 1_ — **Undo this run** (on the prompt cell) "
        "or `%dsh undo`"
    )
    assert f"\n{summary}\n\n---\n" in markdown, markdown[-1500:]
    assert markdown.count("context sent") == 1, markdown[:3000]  # item 3: once, as its fold

    text = kernel.value(f"{TRANSCRIPT}.to_text()")
    assert "Edited cell 3 (y = x * 20) — applied by you" in text
    assert "Edited 2 cells, ran 2, added 1, deleted 1 — Undo this run" in text
    assert "arguments:" not in text.split(ANSWER)[0]

    # measured: the whole saved markdown, and the calls' own part (what this change governs;
    # the header, the context fold, the listing, run_cells' Changes and the footer are others'
    # and may grow)
    calls = re.sub(r"\*\*Changes\*\*\n\n(?:- [^\n]*\n)+\n?", "", work)  # issue 45's, apart
    for what, part, bound in (("saved markdown", markdown, None), ("the calls", calls, 1_800)):
        shown = re.sub(r"<details><summary>.*?</summary>.*?</details>", "", part, flags=re.S)
        visible = [line for line in shown.splitlines() if line.strip()]
        print(
            f"\nfive-tool editing run, {what}: {len(part):,} characters, "
            f"{part.count(chr(10)) + 1} lines; unfolded: {len(shown):,} characters, "
            f"{len(visible)} non-blank lines"
        )
        if bound is not None:  # before: 2,276 characters, 106 non-blank lines, nothing folded
            assert len(part) < bound and len(shown) < 600 and len(visible) < 16, part


def test_a_run_python_result_shows_what_ran_not_the_note_written_for_the_model(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    calls = [{"tool": "run_python", "args": {"code": "z = 41 + 1\nprint(z)"}}]
    markdown, _ = run_allowing_each_card(kernel, scripted_model, calls)
    work = the_calls(markdown)
    assert "Do not repeat the code" not in work and "This code is now a cell" not in work
    assert "kept as agent cell 1, below the prompt" in work
    assert "```python\nz = 41 + 1\nprint(z)\n```" in work
    assert "stdout:\n42" in work  # what ran printed
    assert "Do not repeat the code" not in kernel.value(f"{TRANSCRIPT}.to_text()").split(ANSWER)[0]
    # what the model receives is unchanged: the note first, then the output
    bodies = [r.body for r in scripted_model.requests if r.scenario == "notebook-calls" and r.body]
    result = tool_results(bodies[-1])[-1]
    assert result.startswith(kept_note(1) + "\n\nstdout:\n42"), result
    assert "\n_Added 1 cell_ — **Undo this run**" in markdown  # the agent cell it added
