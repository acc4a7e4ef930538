"""A long ``%dsh`` line in a real ipykernel (issue 43, item 5): a 1 MB ``--note``, undo id or
``%%dsh`` option line is refused at once with one short line (IPython's variable expansion of
such a line alone took hours), the kernel answers the next cell at once, and no answer echoes
a long word the person typed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.kernel.options.line_args import LINE_MAX, QUOTE_MAX
from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import Execution, Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(180)]

MB = 1_000_000
REFUSE_WITHIN = 5.0
"""Seconds a refused 1 MB line may take, end to end (sending 1 MB to the kernel included)."""


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        assert k.execute("%dsh help").error is None  # the agent is built: only the line counts
        yield k


def shown(run: Execution) -> str:
    """What the cell showed: its streams and its error (IPython prints a ``UsageError`` on
    stderr), not the kernel's echo of its code."""
    return run.stdout + run.stderr + (run.error or "")


@pytest.mark.parametrize(
    "code",
    [
        '%dsh reject a1 --note "' + "n" * MB + '"',
        "%dsh undo " + "u" * MB,
        "%%dsh --wait -s " + "s" * MB + "\n[[scenario:plain]] hi",
    ],
    ids=["note", "undo-id", "cell-option"],
)
def test_a_1mb_line_is_refused_at_once_in_one_short_line(kernel: Kernel, code: str) -> None:
    started = time.monotonic()
    refused = kernel.execute(code, timeout=60)
    took = time.monotonic() - started
    assert refused.reply.get("ename") == "UsageError", refused.reply
    message = shown(refused)
    assert "characters long" in message and message.count("\n") <= 1, message[:500]
    assert len(message) < 300, message[:500]
    assert took < REFUSE_WITHIN, f"refusing took {took:.1f} s"
    started = time.monotonic()
    assert kernel.value("1 + 1") == "2"  # the kernel is free
    assert time.monotonic() - started < REFUSE_WITHIN


def test_a_long_word_is_never_echoed_back(kernel: Kernel) -> None:
    word = "w" * (LINE_MAX - 100)  # a line that fits, with a long id in it
    for code in (f"%dsh undo {word}", f"%dsh allow {word}", f"%dsh export {word}",
                 f"%dsh {word}", f"%dsh answer {word} yes", f"%dsh resume {word}"):  # fmt: skip
        run = kernel.execute(code)
        assert word[: QUOTE_MAX + 1] not in shown(run), (code[:20], shown(run)[:300])
        assert len(shown(run)) < 400, (code[:20], shown(run)[:500])
    # variables are still expanded in a line that fits
    assert kernel.execute("target = 'a9'").error is None
    assert "'a9'" in kernel.execute("%dsh allow {target}").stdout
