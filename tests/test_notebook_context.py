"""Issue 25, the prompt side, without a kernel: named values, the context block builder, the
planner's blocks, the transcript fold, and the demo model skipping the block."""

from __future__ import annotations

import types

import pytest

from dsh_notebook.analyst.intents import question_text
from dsh_notebook.context import interpolate
from dsh_notebook.context.notebook_context import (
    CONTEXT_MAX,
    CellRun,
    NotebookFacts,
    notebook_context_block,
)
from dsh_notebook.kernel.notebook.prompt_context import imported_libraries
from dsh_notebook.kernel.options.settings import KernelSettings
from dsh_notebook.kernel.run import Frontend, RunOptions, plan_run
from dsh_notebook.scripted_model import analyze_request
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.markdown import render_markdown

from .helpers.notebook_facts import FACTS

EXPECTED = """\
<notebook-context>
Written by dsh_notebook, not by the user: where this prompt runs.
Notebook: analysis/sales.ipynb
This prompt: the %%dsh cell with id 3f9a1c2e, In [12]
Kernel: Python 3.12.3; imported: pandas 2.2.3 (as pd), matplotlib 3.9.2 (plt = matplotlib.pyplot)
Cells run since your previous prompt in this conversation (In [7]):
  In [8]: sales = pd.read_csv("sales.csv")  (+1 lines)
  In [9]: sales.groupby("regin").sum()  → error: KeyError: 'regin'
Values in the prompt: `sales` (DataFrame: 1,200 rows x 4 columns)
</notebook-context>"""


def test_the_block_says_where_the_prompt_runs() -> None:
    block = notebook_context_block(FACTS)
    assert block == EXPECTED
    print(f"typical block: {len(block)} characters, ~{len(block) // 4} tokens")


def test_without_the_extension_the_block_says_so_in_one_line_and_claims_no_cell() -> None:
    block = notebook_context_block(NotebookFacts(python="3.12.3", execution_count=3))
    lines = block.splitlines()
    assert lines[2] == (
        "Notebook: not known (the dsh-notebook page extension is not connected, so the "
        "notebook's path and this prompt's cell are not known)."
    )
    assert "This prompt: In [3]" in lines
    assert "cell with id" not in block and "edited" not in block and "position" not in block


def test_the_block_is_bounded_and_cut_with_the_package_marker() -> None:
    flood = NotebookFacts(
        path="p/" * 500 + "x.ipynb",
        python="3.12.3",
        libraries=tuple((f"lib{i}", "1.0" * 30, None) for i in range(50)),
        cells=tuple(CellRun(i, "x = '" + "y" * 500 + "'\n" * 30) for i in range(1, 400)),
        values=tuple((f"v{i}", "DataFrame: " + "9" * 300) for i in range(200)),
    )
    block = notebook_context_block(flood)
    assert len(block) <= CONTEXT_MAX
    assert block.startswith("<notebook-context>\n") and block.endswith("\n</notebook-context>")
    assert "characters omitted …]" in block  # the one marker, transcript.bounds.truncation_mark
    assert "the last 12 of 399" in block


def test_imported_libraries_are_the_ones_the_namespace_uses_with_aliases() -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    namespace = {
        "pd": pd,
        "np": np,
        "frame_class": pd.DataFrame,
        "arr": np.zeros(2),
        "_hidden": types,
        "n": 3,
    }
    assert imported_libraries(namespace) == [
        ("pandas", pd.__version__, "as pd"),
        ("numpy", np.__version__, "as np"),
    ]
    # imported somewhere (by this test run) but not used by the notebook: not claimed
    assert imported_libraries({"arr": np.zeros(1)}) == [("numpy", np.__version__, None)]
    assert imported_libraries({}) == []


def test_interpolation_names_the_value_and_fences_it_after_the_text() -> None:
    namespace = {
        "sales": {"region": ["North", "South", "East", "West"] * 3, "rev": list(range(12))},
        "x": 3,
        "In": ["", "sales = load()\n", 'print("```")'],
    }
    result = interpolate(
        "Which region fell behind in {sales}? With x={x}, {In[2]}, {Err[1]}, {{x}} and {nope}. "
        "End of the sentence.",
        namespace,
        errors={1: "Traceback (most recent call last):\nKeyError: 'regin'"},
        current_cell=3,
        named=True,
    )
    text, _, section = result.text.partition("\n\n---\nValues referenced above")
    assert text == (
        "Which region fell behind in `sales` (dict: 2 items; see below)? With x=`x` = `3` (int), "
        "`In[2]` (1 line of code; see below), `Err[1]` (KeyError: 'regin'; see below), {x} and "
        "{nope}. End of the sentence."
    )
    assert '`In[2]` (1 line of code):\n````python\nprint("```")\n````' in section  # 4 ticks
    assert "`Err[1]` (KeyError: 'regin'):\n```text\nTraceback" in section
    assert "`sales` (dict: 2 items):\n```text\n{'region'" in section
    assert result.unresolved == ["{nope}"]


def plan(**kw: object):  # type: ignore[no-untyped-def]
    args: dict[str, object] = {
        "session_id": "nb-x",
        "settings": KernelSettings(),
        "frontend": Frontend(terminal=False, stdin=True),
        "namespace": {"n": 3},
        "errors": {},
        "execution_count": 12,
        "answered_before": lambda session, prompt: False,
        "notebook": FACTS,
    }
    args.update(kw)
    return plan_run("n is {n}", RunOptions(), **args)  # type: ignore[arg-type]


def test_the_plan_sends_the_block_second_and_keeps_the_prompt_the_persons_text() -> None:
    keys: list[str] = []
    p = plan(answered_before=lambda session, prompt: keys.append(prompt) or False)
    assert p.context_block is not None
    assert p.blocks == [
        {"type": "text", "text": "n is `n` = `3` (int)"},
        {"type": "text", "text": p.context_block},
    ]
    assert p.prompt == keys[0] == "n is `n` = `3` (int)"  # _dsh.prompt and the ledger key
    assert "Values in the prompt: `n` (int: 3)" in p.context_block
    chip = p.context[-1]
    assert chip["label"] == "context sent" and chip["text"] == p.context_block


def test_the_block_is_masked_and_can_be_turned_off() -> None:
    key = "sk-canary-7f3a9c2e5b1d4068a9e7c3f10b"
    leaky = NotebookFacts(python="3.12.3", cells=(CellRun(1, f"key = '{key}'"),))
    p = plan(notebook=leaky, secrets=(key,))
    assert p.context_block is not None and key[:8] not in p.context_block
    assert "key = '***'" in p.context_block
    off = plan(settings=KernelSettings(context_block=False))
    assert off.context_block is None and len(off.blocks) == 1


def test_the_transcript_keeps_the_block_folded() -> None:
    p = plan()
    markdown = render_markdown(Transcript("nb-x", prompt=p.prompt, context=p.context).snapshot())
    assert "<details><summary>context sent (" in markdown
    assert "<notebook-context>" in markdown and "Notebook: analysis/sales.ipynb" in markdown


def test_the_demo_model_reads_the_persons_text_not_the_block() -> None:
    block = notebook_context_block(
        NotebookFacts(cells=(CellRun(3, "x = 1  # [[scenario:other]]"),))
    )
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "[[scenario:plain]] hi\n\n---\nValues referenced"},
                    {"type": "text", "text": block},
                ],
            }
        ]
    }
    analysis = analyze_request(body)
    assert analysis.scenario == "plain" and "notebook-context" not in analysis.prompt_text
    named = interpolate("Which region grows in {t}?", {"t": list(range(40))}, named=True).text
    assert "---\nValues referenced above" in named
    assert question_text(named).strip() == "Which region grows in `t` (list: 40 items; see below)?"


def test_the_prompt_cell_count_comes_from_the_raw_history_ipython_9_counts_ahead() -> None:
    from types import SimpleNamespace

    from dsh_notebook.kernel.notebook.prompt_context import current_execution_count

    raw = ["", "x = 1", "%%dsh -s a\nwhat is {x}"]  # the running %%dsh cell is In [2]
    shell = SimpleNamespace(history_manager=SimpleNamespace(input_hist_raw=raw), execution_count=3)
    assert current_execution_count(shell, "what is {x}\n") == 2
    called_directly = SimpleNamespace(
        history_manager=SimpleNamespace(input_hist_raw=raw[:2]), execution_count=2
    )
    assert current_execution_count(called_directly, "what is {x}\n") is None  # not claimed


def test_a_cell_magic_is_listed_with_its_first_body_line() -> None:
    block = notebook_context_block(
        NotebookFacts(cells=(CellRun(5, "%%dsh --new\nWhich region grows?\nmore"),), since=4)
    )
    assert "  In [5]: %%dsh --new ⏎ Which region grows?  (+1 lines)" in block.splitlines()
