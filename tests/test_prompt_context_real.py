"""Issue 25, the prompt side, end to end: what the model really receives for a ``%%dsh`` cell.

A real ipykernel, the real runtime and the scripted model, which records every request; the page
extension is played by this test (execute-request metadata). The assertions read the user
message the model got: the person's text with named, fenced values, then the notebook context
block as a second text block."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step

from .kernels import Kernel, identity, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

SCRIPTS = {"answer": Script(steps=(Step(text="Noted."),), repeat_last=True)}
RUNTIME_NOTICE = "Current runtime context."


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(
        tmp_path, scripted_model.base_url, setup="%load_ext dsh_notebook", metadata=identity("s")
    ) as k:
        yield k


def user_texts(scripted_model: ScriptedModelServer, marker: str) -> list[str]:
    """The text blocks of the user message whose text holds ``marker`` (the newest such request),
    without the runtime's own context notice."""
    for request in reversed(scripted_model.requests):
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        for message in reversed(messages):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            texts = [b["text"] for b in content if b.get("type") == "text"]
            if any(marker in t for t in texts):
                return [t for t in texts if not t.startswith(RUNTIME_NOTICE)]
    raise AssertionError(f"no request carried {marker!r}")


def run_prompt(k: Kernel, cell: str, cell_id: str | None) -> None:
    metadata = identity(cell_id) if cell_id else None
    ran = k.execute(f"%%dsh --wait --format text -s ctx\n{cell}", metadata=metadata)
    assert ran.error is None, ran.error
    assert "Noted." in json.dumps([m["content"] for m in ran.outputs]), ran.outputs


def test_the_model_gets_named_fenced_values_and_the_notebook_context_block(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    setup = "import pandas as pd\nsales = pd.DataFrame({'region': ['N', 'S'], 'rev': [10, 7]})"
    assert kernel.execute(setup, metadata=identity("c-load")).error is None
    failed = kernel.execute("sales['regin']", metadata=identity("c-fail"))
    assert failed.error is not None
    version = kernel.value("pd.__version__").strip("'")
    prompt_cell = "3f9a1c2e-5b1d-4068-a9e7-c3f10b000001"
    run_prompt(
        kernel,
        "[[scenario:answer]] Which region fell behind in {sales}? Explain {Err[-2]}; {{sales}} "
        "and {nope} stay.",
        prompt_cell,
    )
    texts = user_texts(scripted_model, "Which region fell behind")
    assert len(texts) == 2, texts  # the person's text, then the block: two text blocks
    person, block = texts

    # named values, each description after the text (not mid-sentence), fenced
    sentence, _, values = person.partition("\n\n---\nValues referenced above")
    assert re.fullmatch(
        r"\[\[scenario:answer\]\] Which region fell behind in `sales` \(DataFrame: 2 rows x 2 "
        r"columns; see below\)\? Explain `Err\[3\]` \(KeyError: 'regin'; see below\); "
        r"\{sales\} and \{nope\} stay\.",
        sentence.rstrip(),
    ), (sentence, block)
    assert "`sales` (DataFrame: 2 rows x 2 columns):\n```text\nDataFrame: 2 rows x 2 columns" in (
        values
    )
    assert re.search(r"`Err\[3\]` \(KeyError: 'regin'\):\n```text\n[^`]*KeyError", values)

    # the notebook context block: delimited, from what the kernel and the page know
    lines = block.splitlines()
    assert lines[0] == "<notebook-context>" and lines[-1] == "</notebook-context>", block
    assert "Notebook: a.ipynb" in lines
    assert re.search(r"^This prompt: the %%dsh cell with id 3f9a1c2e, In \[\d+\]$", block, re.M)
    assert re.search(rf"^Kernel: Python 3\.\d+\.\d+; imported: pandas {re.escape(version)} "
                     r"\(as pd\)", block, re.M), block  # fmt: skip
    assert "  In [2]: import pandas as pd  (+1 lines)" in lines, block
    assert "  In [3]: sales['regin']  → error: KeyError: 'regin'" in lines, block
    assert re.search(
        r"^Values in the prompt: `sales` \(DataFrame: 2 rows x 2 columns\), `Err\[3\]` "
        r"\(KeyError: 'regin'\)$",
        block,
        re.M,
    ), block
    assert len(block) <= 2000

    # _dsh: the person's text stays the prompt (and the ledger key); the block is beside it
    assert ast.literal_eval(kernel.value("_dsh.prompt")) == person
    assert ast.literal_eval(kernel.value("_dsh.context_block")) == block

    # the next prompt of the conversation hears what ran in between, and only that
    assert kernel.execute("total = sales.rev.sum()", metadata=identity("c-total")).error is None
    run_prompt(kernel, "[[scenario:answer]] and now?", "c-next")
    _, block2 = user_texts(scripted_model, "and now?")
    since = re.search(r"^Cells run since your previous prompt in this conversation \(In \[(\d+)\]\):"
                      r"$", block2, re.M)  # fmt: skip
    assert since is not None, block2
    listed = re.findall(r"^  In \[(\d+)\]: (.*)$", block2, re.M)
    assert all(int(n) > int(since.group(1)) for n, _ in listed), block2
    assert ("total = sales.rev.sum()" in [src for _, src in listed]), block2
    assert "import pandas" not in block2


def test_show_context_prints_the_block_and_sends_nothing(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    before = len(scripted_model.requests)
    shown = kernel.execute("%%dsh --show-context -s ctx\nhello", metadata=identity("c-show"))
    assert shown.error is None, shown.error
    assert shown.stdout.startswith("<notebook-context>\n"), shown.stdout
    assert "This prompt: the %%dsh cell with id c-show" in shown.stdout
    assert len(scripted_model.requests) == before  # nothing was sent


def test_without_the_page_extension_the_block_says_what_is_not_known(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    run_prompt(kernel, "[[scenario:answer]] where am I?", None)
    _, block = user_texts(scripted_model, "where am I?")
    assert (
        "Notebook: not known (the dsh-notebook page extension is not connected, so the "
        "notebook's path and this prompt's cell are not known)." in block.splitlines()
    ), block
    assert "cell with id" not in block and "position" not in block


def test_the_block_can_be_turned_off(kernel: Kernel, scripted_model: ScriptedModelServer) -> None:
    assert kernel.execute("%config DshMagics.context_block = False").error is None
    run_prompt(kernel, "[[scenario:answer]] no block please", "c-off")
    assert user_texts(scripted_model, "no block please") == ["[[scenario:answer]] no block please\n"]
    assert kernel.value("_dsh.context_block") == "None"
