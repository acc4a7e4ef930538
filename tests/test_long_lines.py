"""A long ``%dsh`` line (issue 43, item 5), through IPython's own cell path in the in-process
kernel (as nbclient drives it): a 1 MB ``--note``, undo id or ``%%dsh`` option line is refused
at once with one short line (IPython's variable expansion of such a line alone took hours), the
shell runs the next cell at once, and no answer echoes a long word the person typed."""

from __future__ import annotations

import time

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import ExecutionResult

from dsh_notebook.kernel.options.line_args import LINE_MAX, QUOTE_MAX
from dsh_notebook.testing.kernel import InProcessKernel

MB = 1_000_000
REFUSE_WITHIN = 5.0
"""Seconds a refused 1 MB line may take, end to end."""


@pytest.fixture
def kernel(dsh_headless_kernel: InProcessKernel) -> InProcessKernel:
    assert dsh_headless_kernel.shell.run_cell("%dsh help").success  # built: only the line counts
    return dsh_headless_kernel


def execute(
    kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], code: str
) -> tuple[ExecutionResult, str]:
    """Run ``code`` as a cell: its result and what it showed (IPython prints a ``UsageError``
    on stderr; the shell does not echo the code)."""
    capsys.readouterr()
    ran = kernel.shell.run_cell(code)
    out = capsys.readouterr()
    return ran, out.out + out.err


@pytest.mark.parametrize(
    "code",
    [
        '%dsh reject a1 --note "' + "n" * MB + '"',
        "%dsh undo " + "u" * MB,
        "%%dsh --wait -s " + "s" * MB + "\n[[reply:ok]] hi",
    ],
    ids=["note", "undo-id", "cell-option"],
)
def test_a_1mb_line_is_refused_at_once_in_one_short_line(
    kernel: InProcessKernel, capsys: pytest.CaptureFixture[str], code: str
) -> None:
    started = time.monotonic()
    refused, message = execute(kernel, capsys, code)
    took = time.monotonic() - started
    assert isinstance(refused.error_in_exec, UsageError), repr(refused.error_in_exec)
    assert "characters long" in message and message.strip().count("\n") <= 1, message[:500]
    assert len(message) < 300, message[:500]
    assert took < REFUSE_WITHIN, f"refusing took {took:.1f} s"
    started = time.monotonic()
    assert execute(kernel, capsys, "print(1 + 1)")[1] == "2\n"  # the shell is free
    assert time.monotonic() - started < REFUSE_WITHIN
    assert kernel.peer.prompts == []


def test_a_long_word_is_never_echoed_back(
    kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    word = "w" * (LINE_MAX - 100)  # a line that fits, with a long id in it
    for code in (f"%dsh undo {word}", f"%dsh allow {word}", f"%dsh export {word}",
                 f"%dsh {word}", f"%dsh answer {word} yes", f"%dsh resume {word}"):  # fmt: skip
        _, shown = execute(kernel, capsys, code)
        assert word[: QUOTE_MAX + 1] not in shown, (code[:20], shown[:300])
        assert len(shown) < 400, (code[:20], shown[:500])
    # variables are still expanded in a line that fits
    assert execute(kernel, capsys, "target = 'a9'")[0].success
    assert "'a9'" in execute(kernel, capsys, "%dsh allow {target}")[1]
