"""Real kernels with the extension loaded, over jupyter_client: the ``kernel_python`` fixture,
starting one, the page's execute metadata, the link messages a page received, a page that
answers its reads."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from ..kernels import Execution, Kernel, kernel_pythons, scripted_model_env


class KernelLike(Protocol):
    """What the helpers here read of a kernel: a real one (:class:`tests.kernels.Kernel`) or the
    in-process one (:class:`tests.helpers.in_process.InProcessSession`)."""

    @property
    def iopub(self) -> list[dict[str, Any]]: ...

    def drain_iopub(self, timeout: float = 0.1) -> list[dict[str, Any]]: ...

    def execute(self, code: str) -> Execution: ...

    def value(self, expression: str) -> str: ...


@pytest.fixture(params=kernel_pythons())
def kernel_python(request: pytest.FixtureRequest) -> str:
    """Each interpreter of :func:`.kernels.kernel_pythons` in turn (ipykernel 6 and 7 in CI)."""
    return str(request.param)


on_one_ipykernel = pytest.mark.parametrize("kernel_python", kernel_pythons()[-1:])
"""For a test of ours that does not touch what differs between ipykernel 6 and 7 (where output
goes, stdin, interrupts, comms, shutdown, the connection file): it runs on the last interpreter
of :func:`.kernels.kernel_pythons` only (ipykernel 7 in CI), not once per interpreter. (A direct
parametrization of ``kernel_python`` overrides the fixture's parameters.)"""


def start_kernel(
    tmp_path: Path, scripted_model: ScriptedModelServer, python: str, **extra_env: str
) -> Kernel:
    """A real kernel with the extension loaded; kernels of one ``tmp_path`` share DSH_HOME."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    env = scripted_model_env(tmp_path, scripted_model.base_url, home="dsh-home", **extra_env)
    k = Kernel(env=env, cwd=str(workspace), python=python)
    loaded = k.execute("%load_ext dsh_notebook")
    assert loaded.error is None, loaded.error
    return k


def identity(notebook_id: str, cell_id: str = "c1") -> dict[str, object]:
    """The execute metadata the dsh-notebook frontend extension sends with every cell."""
    return {"dsh_notebook": {"v": 1, "id": notebook_id, "path": "x.ipynb", "cell_id": cell_id}}


def link_messages(k: KernelLike, comm_id: str, kind: str, since: int = 0) -> list[dict[str, Any]]:
    k.drain_iopub(0.2)
    return [
        m["content"]["data"]
        for m in k.iopub[since:]
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("type") == kind
    ]


def play_page_until(
    k: Kernel,
    model: ScriptedModelServer,
    scenario: str,
    requests: int,
    answer: Callable[[], None],
    *,
    since: int,
    timeout: float = 90,
) -> None:
    """Play the page (``answer()`` answers what it has been sent) until ``model`` has received
    ``requests`` requests of ``scenario`` after its first ``since`` (the run's last step asked),
    then until the run is done.

    The run's state is read by running a cell (``_dsh.done()``) only after that: a cell running
    while the agent asks the page makes the kernel busy, and a page on the shell channel (this
    one) cannot answer then, so the agent is rightly told so; how often that happened would
    depend on the machine's load."""
    deadline = time.monotonic() + timeout
    while sum(r.scenario == scenario for r in model.requests[since:]) < requests:
        assert time.monotonic() < deadline, f"the model got fewer than {requests} requests"
        answer()
        time.sleep(0.2)
    while k.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run did not settle"
        time.sleep(0.2)


def wait_shown(k: KernelLike, needle: str, timeout: float = 60) -> str:
    """Every IOPub message's content read so far, as JSON, once ``needle`` is in it. A run's
    settled transcript can reach IOPub after ``_dsh.done()`` reads true (the UI pump publishes
    it from its own thread), so a test that read IOPub once right after :func:`wait_done` could
    miss it on a busy machine; this reads until it came (``AssertionError`` with the tail after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        k.drain_iopub(0.2)
        shown = json.dumps([m["content"] for m in k.iopub])
        if needle in shown:
            return shown
        assert time.monotonic() < deadline, f"{needle!r} was never shown: …{shown[-1500:]}"


def wait_for(k: KernelLike, what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
    """``check()``'s first true value (polled; ``TimeoutError`` naming ``what`` after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise TimeoutError(what)


def pending_key(k: KernelLike) -> str | None:
    """The broker id of the ``run_python`` approval ``%dsh pending`` lists, if one waits."""
    found = re.search(r"^(a\d+): approve run_python\?", k.execute("%dsh pending").stdout, re.M)
    return found.group(1) if found else None


def wait_pending(k: KernelLike, needle: str, timeout: float = 60) -> str:
    """``%dsh pending``'s output once it names ``needle`` (polled; ``TimeoutError`` after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = k.execute("%dsh pending").stdout
        if needle in pending:
            return pending
        time.sleep(0.2)
    raise TimeoutError(f"{needle!r} never became pending")


def wait_done(k: KernelLike, timeout: float = 60) -> None:
    """Until the kernel's last run (``_dsh``) settled; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while k.value("_dsh.done()") != "True":
        assert time.monotonic() < deadline, "the run did not settle"
        time.sleep(0.2)


PageCell = tuple[Any, ...]
"""A code cell as a played page shows it: ``(id, source, execution count or None, outputs)``
and, optionally, ``True`` when it is tagged ``dsh-private``."""


def answers_reads(
    k: Kernel, comm_id: str, since: int, cells: Sequence[PageCell], path: str = "a.ipynb"
) -> Callable[[], None]:
    """A page's answer to the link: each call answers every ``read_notebook`` the kernel sent
    (after iopub message ``since``) and not answered yet, with ``cells`` (all of them, whatever
    the read asked: the kernel chooses)."""
    answered: set[str] = set()

    def answer() -> None:
        for ask in link_messages(k, comm_id, "read_notebook", since):
            if ask["request_id"] in answered:
                continue
            answered.add(ask["request_id"])
            shown = []
            for i, (cell_id, source, count, outputs, *private) in enumerate(cells):
                cell = {"index": i, "id": cell_id, "cell_type": "code", "source": source,
                        "execution_count": count, "agent": False, "selected": False,
                        "outputs": outputs}  # fmt: skip
                if private and private[0]:
                    cell["private"] = True
                shown.append(cell)
            reply = {"v": 1, "type": "read_notebook_reply", "request_id": ask["request_id"],
                     "path": path, "total_cells": len(cells), "cells": shown}  # fmt: skip
            msg = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": reply})
            k.client.shell_channel.send(msg)

    return answer
