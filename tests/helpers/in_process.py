"""The in-process kernel behind the real-kernel tests' words: ``execute`` and ``value``.

A test written against :class:`tests.kernels.Kernel` (a real ipykernel over jupyter_client) reads
the same on :class:`InProcessSession`: the extension loaded into the worker's own
``InteractiveShell`` on a :class:`~dsh_notebook.testing.kernel.ScriptedPeer` (no kernel process,
no runtime process), the notebook tools server the kernel's own, its scripted turns in
``peer.scripts`` (:mod:`dsh_notebook.testing.tool_turns`). Use it where the kernel's logic is the
subject (approvals, cards, undo, scopes); what only a kernel process or the runtime can show
(channels, stdin, interrupts, what the model receives) stays on the real ones.

The comms the kernel opens (its link to the page, the run widgets) are recorded in one order as
a kernel's IOPub would carry them (:attr:`InProcessSession.iopub`), and a page's ``comm_msg``
sent with ``client.shell_channel.send`` is handled on the calling thread, so ``open_link``,
``link_messages`` and :class:`~tests.helpers.played_page.PlayedPage` work unchanged.

Guarantees: every :meth:`InProcessSession.execute` is one cell of the shell (``run_cell``), so
the approved ``run_python`` calls waiting for the main thread run after it, as a kernel runs
them between cells. ``allow_stdin`` and ``metadata`` are what the live page's execute request
carries (a background ``%%dsh`` run and the notebook identity). The shell's namespace is
emptied before the session and after it, and its configuration (``%config``) given back after it.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import comm
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.testing.comms import RecordingComm
from dsh_notebook.testing.kernel import InProcessKernel, LiveKernel

from ..kernels import Execution


class CommLog:
    """The comms the kernel opened, and every message it published on them, in one order: what
    a real kernel's IOPub carries of them (``comm_open`` / ``comm_msg`` / ``comm_close``)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.comms: dict[str, RecordingComm] = {}
        self._lock = threading.Lock()

    def create(self, *args: Any, **kwargs: Any) -> RecordingComm:
        log = self

        class LoggedComm(RecordingComm):
            def publish_msg(self, msg_type: str, data: Any = None, *a: Any, **k: Any) -> None:
                super().publish_msg(msg_type, data, *a, **k)
                content = {"comm_id": self.comm_id, "data": data or {}}
                if msg_type == "comm_open":
                    content["target_name"] = self.target_name
                with log._lock:
                    log.messages.append({"msg_type": msg_type, "content": content})

        made = LoggedComm(*args, **kwargs)
        with self._lock:
            self.comms[made.comm_id] = made
        return made


class _ClientSession:
    """``client.session.msg`` of jupyter_client, for the messages a page sends."""

    _ids = itertools.count(1)

    def msg(self, msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
        header = {"msg_type": msg_type, "msg_id": f"page-{next(self._ids)}", "session": "page"}
        return {"header": header, "parent_header": {}, "metadata": {}, "content": content,
                "buffers": []}  # fmt: skip


class _ShellChannel:
    """``client.shell_channel.send``: a page's ``comm_msg`` handled on the calling thread (the
    shell's: a kernel handles a page's message on its main thread, between cells)."""

    def __init__(self, log: CommLog) -> None:
        self._log = log

    def send(self, msg: dict[str, Any]) -> None:
        target = self._log.comms.get(str(msg["content"].get("comm_id")))
        if target is not None and msg["header"]["msg_type"] == "comm_msg":
            target.handle_msg(msg)


class _Client:
    def __init__(self, log: CommLog) -> None:
        self.session = _ClientSession()
        self.shell_channel = _ShellChannel(log)


class InProcessSession:
    """``execute`` / ``value`` on an :class:`InProcessKernel` (see the module docstring), and
    what :mod:`tests.helpers.real_kernel` reads of a kernel's channels: ``iopub`` (the comm
    messages), ``drain_iopub`` and ``client`` (a page's ``comm_msg``)."""

    def __init__(self, kernel: InProcessKernel, comms: CommLog) -> None:
        self.kernel = kernel
        self.shell: Any = kernel.shell
        self.comms = comms
        self.client = _Client(comms)
        page = kernel.driver
        assert isinstance(page, LiveKernel), "load the kernel with a LiveKernel driver"
        self._page = page

    @property
    def iopub(self) -> list[dict[str, Any]]:
        """The comm messages the kernel published so far, in order (a live list)."""
        return self.comms.messages

    def drain_iopub(self, timeout: float = 0.1) -> list[dict[str, Any]]:
        """Nothing waits in a channel here: every message is in :attr:`iopub` as it is sent."""
        return []

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
        reply = {"execution_count": result.execution_count}
        if error is not None:
            outputs.append(
                {"msg_type": "error", "content": {"evalue": f"{type(error).__name__}: {error}"}}
            )
        return Execution(reply=reply, outputs=outputs)

    def value(self, expression: str) -> str:
        """``repr`` of ``expression`` in the shell's namespace (a cell of its own)."""
        result = self.execute(f"print(repr({expression}))")
        assert result.error is None, result.error
        return result.stdout.strip()


@contextlib.contextmanager
def in_process_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcessSession]:
    """The extension loaded on an empty namespace, working in ``tmp_path / "ws"`` with its own
    ``DSH_HOME``; unloaded after, the namespace emptied and the configuration given back."""
    shell: Any = InteractiveShell.instance()
    config = copy.deepcopy(shell.config)
    shell.reset(new_session=True)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(workspace)
    comms = CommLog()
    monkeypatch.setattr(comm, "create_comm", comms.create)
    kernel = InProcessKernel.load(shell, driver=LiveKernel())
    try:
        yield InProcessSession(kernel, comms)
    finally:
        try:
            kernel.unload()
        finally:
            shell.reset(new_session=True)
            shell.config = config
