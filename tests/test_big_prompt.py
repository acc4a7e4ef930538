"""A 5 MB prompt (issue 24, item 8c; issue 43, item 10) in the in-process kernel as nbclient
drives it, the runtime a ``MockRuntime`` that echoes the prompt back in its receipt: the cell's
output shows a bounded head and tail of it with the marker naming ``_dsh.prompt``, which keeps
the whole prompt: the saved markdown transcript and the plain text (``--format text``). A live
page (the widget's state, its page messages, every IOPub message) against the real runtime, with
all its echoes of the prompt, is ``test_big_prompt_real``."""

from __future__ import annotations

import json

import pytest

from dsh_notebook.testing.kernel import Displayed, InProcessKernel
from dsh_notebook.transcript import PROMPT_MAX

SIZE = 5_000_000
MARKER = "characters omitted; the full prompt is in `_dsh.prompt`"


def run_huge(
    kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], options: str
) -> tuple[list[Displayed], str]:
    """A ``%%dsh options`` cell of a 5 MB prompt, settled: what it displayed and printed."""
    capsys.readouterr()
    assert kernel.shell.run_cell(f"%%dsh {options}\n[[reply:ok]] {'q' * SIZE}").success
    handle = kernel.shell.user_ns["_dsh"]
    assert handle.result(120).final_response == "ok"
    kernel.agent.pump.flush(10)
    out = capsys.readouterr()
    assert handle.prompt.count("q") == SIZE  # the handle keeps the whole prompt
    assert len(kernel.peer.prompts) == 1  # ... and the runtime got it
    return list(kernel.displayed), out.out + out.err


def test_a_huge_prompt_is_capped_in_the_output_and_whole_in_the_handle(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    shown, printed = run_huge(dsh_headless_kernel, capsys, "--wait --format markdown")
    assert shown
    assert max(len(json.dumps(d.data)) for d in shown) < 4 * PROMPT_MAX
    assert MARKER in shown[-1].data["text/markdown"]
    assert len(printed) < 4 * PROMPT_MAX


def test_every_output_of_a_huge_prompt_is_bounded_as_text(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    shown, printed = run_huge(dsh_headless_kernel, capsys, "--wait --format text -s big")
    sizes = [len(json.dumps(d.data)) for d in shown] + [len(printed)]
    assert max(sizes) < 4 * PROMPT_MAX, sizes
    assert sum(sizes) < 50 * PROMPT_MAX
    assert MARKER in shown[-1].text()
