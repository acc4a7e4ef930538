"""Drive a real ipykernel over jupyter_client, as a frontend does."""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import os
import queue
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager


def kernel_pythons() -> list[str]:
    """Interpreters to run kernels with: ``$DSH_TEST_KERNEL_PYTHONS`` (``os.pathsep``-separated,
    e.g. one venv with ipykernel 6 and one with 7), else this interpreter."""
    listed = os.environ.get("DSH_TEST_KERNEL_PYTHONS", "")
    return [p for p in listed.split(os.pathsep) if p] or [sys.executable]


@functools.cache
def _spec_manager(python: str) -> KernelSpecManager:
    """A kernelspec that starts ``python``'s ipykernel: one folder per interpreter and process,
    removed when the process exits (not one per kernel left in the temp folder)."""
    root = Path(tempfile.mkdtemp(prefix="dsh-kernelspec-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    spec = root / "dshtest"
    spec.mkdir()
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"dsh test ({python})",
                "language": "python",
            }
        )
    )
    return KernelSpecManager(kernel_dirs=[str(root)])


@dataclass
class Execution:
    reply: dict[str, Any]
    outputs: list[dict[str, Any]] = field(default_factory=list)
    stdin_prompts: list[str] = field(default_factory=list)

    @property
    def stdout(self) -> str:
        return "".join(
            m["content"]["text"]
            for m in self.outputs
            if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
        )

    @property
    def stderr(self) -> str:
        return "".join(
            m["content"]["text"]
            for m in self.outputs
            if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
        )

    @property
    def error(self) -> str | None:
        errors = [m for m in self.outputs if m["msg_type"] == "error"]
        return "\n".join(e["content"]["evalue"] for e in errors) if errors else None


_KERNEL_NUMBERS = itertools.count(1)
"""Each kernel's socket names in :func:`_ipc_folder` (``k<n>-<channel>``)."""


@functools.cache
def _ipc_folder() -> str:
    """This process's folder of kernel sockets (removed when it exits); short, as a Unix
    socket's path must be under 108 bytes."""
    folder = tempfile.mkdtemp(prefix="dsh-ipc-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def ipc_channels() -> dict[str, str]:
    """``KernelManager`` keyword arguments for a kernel whose channels are Unix sockets of its
    own (see :class:`Kernel`); every test that starts a kernel itself uses them."""
    return {"transport": "ipc", "ip": os.path.join(_ipc_folder(), f"k{next(_KERNEL_NUMBERS)}")}


class Kernel:
    """A started kernel plus a client; collects iopub messages of every request.

    The kernel's channels are Unix sockets in :func:`_ipc_folder` (``transport="ipc"``), never
    TCP ports: a port jupyter_client found free could be taken by another worker's kernel,
    server or browser before the kernel bound it, and the kernel then failed at start-up (and
    hung: the test waited 60 s for its ``kernel_info``). A socket path of its own is never taken.
    """

    def __init__(
        self, env: dict[str, str] | None = None, cwd: str | None = None, python: str | None = None
    ) -> None:
        self.python = python or sys.executable
        self.manager = KernelManager(
            kernel_name="dshtest",
            kernel_spec_manager=_spec_manager(self.python),
            **ipc_channels(),
        )
        self.manager.start_kernel(env=env, cwd=cwd)
        self.client = self.manager.client()
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=60)
        except BaseException:  # a kernel that never answered is killed, never left running
            self.client.stop_channels()
            self.manager.shutdown_kernel(now=True)
            raise
        self.iopub: list[dict[str, Any]] = []

    def drain_iopub(self, timeout: float = 0.1) -> list[dict[str, Any]]:
        got = []
        while True:
            try:
                msg = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                break
            self.iopub.append(msg)
            got.append(msg)
        return got

    def execute(
        self,
        code: str,
        *,
        allow_stdin: bool = False,
        stdin_answers: list[str] | None = None,
        timeout: float = 120,
        on_started: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> Execution:
        if metadata is None:
            msg_id = self.client.execute(code, allow_stdin=allow_stdin)
        else:  # what a frontend with the dsh-notebook extension sends (request metadata)
            content = {"code": code, "silent": False, "store_history": True,
                       "user_expressions": {}, "allow_stdin": allow_stdin, "stop_on_error": True}  # fmt: skip
            msg = self.client.session.msg("execute_request", content, metadata=metadata)
            self.client.shell_channel.send(msg)
            msg_id = msg["header"]["msg_id"]
        execution = Execution(reply={})
        answers = list(stdin_answers or [])
        deadline = time.monotonic() + timeout
        idle = False
        started = False
        while time.monotonic() < deadline:
            if allow_stdin:
                try:
                    request = self.client.get_stdin_msg(timeout=0.01)
                except queue.Empty:
                    pass
                else:
                    execution.stdin_prompts.append(request["content"]["prompt"])
                    self.client.input(answers.pop(0) if answers else "")
            try:
                msg = self.client.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                msg = None
            if msg is not None:
                self.iopub.append(msg)
                if msg["parent_header"].get("msg_id") == msg_id:
                    if (
                        msg["msg_type"] == "status"
                        and msg["content"]["execution_state"] == "busy"
                        and not started
                    ):
                        started = True
                        if on_started is not None:
                            on_started()
                    elif (
                        msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
                    ):
                        idle = True
                    else:
                        execution.outputs.append(msg)
            if idle and not execution.reply:
                try:
                    reply = self.client.get_shell_msg(timeout=0.05)
                except queue.Empty:
                    continue
                if reply["parent_header"].get("msg_id") == msg_id:
                    execution.reply = reply["content"]
            if idle and execution.reply:
                return execution
        raise TimeoutError(f"execution did not finish in {timeout} s: {code[:80]!r}")

    def value(self, expression: str) -> str:
        result = self.execute(f"print(repr({expression}))")
        assert result.error is None, result.error
        return result.stdout.strip()

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


def scripted_model_env(
    tmp_path: Path,
    base_url: str,
    *,
    api_key: str = "dummy-key",
    home: str = "home",
    **extra: str,
) -> dict[str, str]:
    """This process's environment for a kernel whose runtime talks to the scripted model at
    ``base_url``: its own ``DSH_HOME`` (``tmp_path / home``) and agents folder under
    ``tmp_path``, telemetry off; ``extra`` is added last."""
    (tmp_path / "agents").mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        DSH_HOME=str(tmp_path / home),
        DEEPSEEK_BASE_URL=base_url,
        DEEPSEEK_API_KEY=api_key,
        DSH_TELEMETRY_MODE="DISABLED",
        DSH_AGENTS_HOME=str(tmp_path / "agents"),
        **extra,
    )
    return env


@contextlib.contextmanager
def scripted_kernel(
    tmp_path: Path,
    base_url: str,
    *,
    setup: str | None = "%load_ext dsh_notebook",
    api_key: str = "dummy-key",
    home: str = "home",
    **setup_options: Any,
) -> Iterator[Kernel]:
    """A real kernel working in ``tmp_path / "ws"`` with :func:`scripted_model_env`.

    ``setup`` (default: load the extension) runs first and must raise nothing; it is executed
    with ``setup_options`` (``allow_stdin``, ``metadata``, …). On exit the extension is unloaded
    when ``setup`` loaded it (its runtime stops before the kernel does), then the kernel shuts
    down, also when the body failed."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    env = scripted_model_env(tmp_path, base_url, api_key=api_key, home=home)
    k = Kernel(env=env, cwd=str(workspace))
    loaded = setup is not None and "%load_ext dsh_notebook" in setup
    try:
        if setup is not None:
            ran = k.execute(setup, **setup_options)
            assert ran.error is None, ran.error
        yield k
    finally:
        if loaded:
            k.execute("%unload_ext dsh_notebook", timeout=30)
        k.shutdown()


TEXT_SETUP = "%load_ext dsh_notebook\n%config DshMagics.default_format = 'text'"
"""The extension loaded, runs shown as plain text (tests that read a run's streams)."""


def page_kernel(
    tmp_path: Path, base_url: str, *, setup: str = TEXT_SETUP
) -> contextlib.AbstractContextManager[Kernel]:
    """A :func:`scripted_kernel` as a page with the extension starts it: ``setup`` runs as the
    cell ``setup`` of the notebook (its identity in the execute metadata), stdin offered."""
    return scripted_kernel(
        tmp_path, base_url, setup=setup, allow_stdin=True, metadata=identity("setup")
    )


NOTEBOOK_ID = "0123456789abcdef0123456789abcdef"
"""The notebook identity the page extension would send (tests that play the page)."""

PAGE_CAPABILITIES = ("identity", "waiting", "run_output", "insert_cell")


def identity(cell_id: str) -> dict[str, Any]:
    """Execute-request metadata as the page extension sends it for the cell ``cell_id``."""
    return {"dsh_notebook": {"v": 1, "id": NOTEBOOK_ID, "path": "a.ipynb", "cell_id": cell_id}}


def open_link(k: Kernel, capabilities: tuple[str, ...] = PAGE_CAPABILITIES) -> str:
    """Open the kernel's frontend comm and answer it as the extension does; its comm id."""
    link = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
    # a live frontend's %load_ext opened it already (prewarm waits for its hello_reply)
    assert k.value(f"{link}.open()") == "True"
    comm_id = str(k.value(f"{link}._comm.comm_id")).strip("'")
    reply = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": list(capabilities)}
    msg = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
    k.client.shell_channel.send(msg)
    deadline = time.monotonic() + 30
    while k.value(f"{link}.present") != "True":
        assert time.monotonic() < deadline, "the kernel never took the hello_reply"
        time.sleep(0.2)
    return comm_id
