"""The in-process kernel behind the real-kernel tests' words: ``execute`` and ``value``.

A test written against :class:`tests.kernels.Kernel` (a real ipykernel over jupyter_client) reads
the same on :class:`InProcessSession`: the extension loaded into the worker's own
``InteractiveShell`` on a :class:`~dsh_notebook.testing.kernel.ScriptedPeer` (no kernel process,
no runtime process), the notebook tools server the kernel's own, its scripted turns in
``peer.scripts`` (:mod:`dsh_notebook.testing.tool_turns`). Use it where the kernel's logic is the
subject (approvals, cards, undo, scopes); what only a kernel process or the runtime can show
(channels, stdin, interrupts, what the model receives) stays on the real ones.

Guarantees: every :meth:`InProcessSession.execute` is one cell of the shell (``run_cell``), so
the approved ``run_python`` calls waiting for the main thread run after it, as a kernel runs
them between cells. ``allow_stdin`` and ``metadata`` are what the live page's execute request
carries (a background ``%%dsh`` run and the notebook identity). The shell's namespace and its
configuration are reset before the session and given back after it.
"""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.testing.kernel import InProcessKernel, LiveKernel

from ..kernels import Execution


class InProcessSession:
    """``execute`` / ``value`` on an :class:`InProcessKernel` (see the module docstring)."""

    def __init__(self, kernel: InProcessKernel) -> None:
        self.kernel = kernel
        self.shell: Any = kernel.shell
        self._page = LiveKernel()
        self.kernel.driver = self._page
        self.shell.kernel = self._page

    @property
    def peer(self) -> Any:
        return self.kernel.peer

    def execute(
        self, code: str, *, allow_stdin: bool = False, metadata: dict[str, Any] | None = None
    ) -> Execution:
        """Run ``code`` as one cell; its stdout and error as :class:`~tests.kernels.Execution`."""
        self._page._allow_stdin = allow_stdin  # type: ignore[misc]
        self._page.metadata = metadata
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            result = self.shell.run_cell(code, store_history=True)
        outputs: list[dict[str, Any]] = [
            {"msg_type": "stream", "content": {"name": "stdout", "text": out.getvalue()}}
        ]
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            outputs.append(
                {"msg_type": "error", "content": {"evalue": f"{type(error).__name__}: {error}"}}
            )
        return Execution(reply={}, outputs=outputs)

    def value(self, expression: str) -> str:
        """``repr`` of ``expression`` in the shell's namespace (a cell of its own)."""
        result = self.execute(f"print(repr({expression}))")
        assert result.error is None, result.error
        return result.stdout.strip()


@contextlib.contextmanager
def in_process_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcessSession]:
    """The extension loaded on a fresh namespace, working in ``tmp_path / "ws"`` with its own
    ``DSH_HOME``; unloaded after, the shell's namespace and configuration given back."""
    shell: Any = InteractiveShell.instance()
    config = copy.deepcopy(shell.config)
    shell.reset(new_session=True)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(workspace)
    kernel = InProcessKernel.load(shell, driver=LiveKernel())
    try:
        yield InProcessSession(kernel)
    finally:
        try:
            kernel.unload()
        finally:
            shell.reset(new_session=True)
            shell.config = config
