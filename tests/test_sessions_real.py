"""Issue 15 in a real ipykernel with the real runtime: ``%dsh new NAME`` and ``%dsh sessions``
for one notebook (its identity in the execute metadata, as the extension sends it), across a
kernel restart, and never another notebook's conversations."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .helpers.real_kernel import identity, kernel_python, start_kernel
from .kernels import Kernel

pytestmark = [pytest.mark.real_runtime]
__all__ = ["kernel_python"]  # the fixture, re-used

A, B = "a" * 32, "b" * 32


def rows(out: str) -> list[str]:
    """The listed conversations' names, in order."""
    return [line[2:].split()[0] for line in out.splitlines() if line[:2] in ("* ", "  ")]


def conversations_of_a(kernel: Kernel) -> str:
    """Notebook A: a prompt, `%dsh new churn-q3`, a prompt there; returns `%dsh sessions`."""
    first = kernel.execute(
        "%%dsh --wait\n[[scenario:plain]] Which region grows fastest?", metadata=identity(A)
    )
    assert first.error is None, first.error
    made = kernel.execute("%dsh new churn-q3", metadata=identity(A, "c2"))
    assert "new session churn-q3" in made.stdout, made.stdout
    second = kernel.execute(
        "%%dsh --wait\n[[scenario:plain]] Who churned in week 8?", metadata=identity(A, "c3")
    )
    assert second.error is None and kernel.value("_dsh.session") == "'churn-q3'"
    listed = kernel.execute("%dsh sessions", metadata=identity(A, "c4")).stdout
    assert rows(listed) == ["churn-q3", f"nb-{A[:12]}"], listed
    assert "* churn-q3" in listed and "Who churned in week 8?" in listed
    assert "Which region grows fastest?" in listed and "[[scenario" in listed  # the prompt as sent
    return listed


def test_sessions_lists_this_notebooks_conversations(
    tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> None:
    kernel = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        conversations_of_a(kernel)
    finally:
        kernel.shutdown()
    # a restarted kernel of the same notebook lists the same conversations
    again = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        listed = again.execute("%dsh sessions", metadata=identity(A)).stdout
        assert rows(listed) == ["churn-q3", f"nb-{A[:12]}"], listed
        # another notebook in the same DSH_HOME sees none of them
        other = again.execute("%dsh sessions", metadata=identity(B)).stdout
        assert "churn-q3" not in other and "grows fastest" not in other, other
    finally:
        again.shutdown()
