"""The extension in a real ipykernel, driven over jupyter_client like a frontend, against the real
runtime and the scripted model endpoint, on each interpreter of ``kernel_pythons()`` (ipykernel 6
and 7 in CI) where the subject differs between them, else on the last (``on_one_ipykernel``). A
real kernel is the point here: where a background run's output goes (parent
headers), stdin, interrupts (SIGINT), what a kernel's shutdown, unload and restart leave of the
runtime process, a click over a real comm, the runtime's launch and crash, and two kernels on one
``DSH_HOME``. Who answers an approval in each mode, and two background runs on one session, are
kernel logic: ``test_approval_modes``, in process."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.testing.harnesses import group_alive

from .helpers.real_kernel import (
    identity,
    kernel_python,
    on_one_ipykernel,
    start_kernel,
    wait_for,
    wait_shown,
)
from .kernels import Kernel, kernel_pythons

__all__ = ["kernel_python"]  # the fixture

pytestmark = [
    pytest.mark.real_runtime,  # skipped without the runtime wheel (the plugin)
]


@pytest.fixture
def kernel(
    tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> Iterator[Kernel]:
    k = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        yield k
    finally:
        k.shutdown()


LAST_VIEW = "get_ipython()._dsh_notebook_magics.agent.runs.last().view"
"""The live view of the kernel's last run (its ``done`` is set once its settled output was
published)."""


def runtime_pid(k: Kernel) -> int:
    return int(k.value("get_ipython()._dsh_notebook_magics.agent.host.harness.pid"))


def wait_done(k: Kernel, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if k.value("_dsh.done()") == "True":
            return
        time.sleep(0.2)
    raise TimeoutError("the run did not settle")


def test_kernel_versions_under_test() -> None:
    """CI runs these tests on ipykernel 6 and 7: prove both interpreters really have them."""
    expected = os.environ.get("DSH_TEST_EXPECT_IPYKERNEL_MAJORS")
    if not expected:
        pytest.skip("DSH_TEST_EXPECT_IPYKERNEL_MAJORS not set (local run)")
    majors = {
        subprocess.run(
            [python, "-c", "import ipykernel; print(ipykernel.__version__.split('.')[0])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        for python in kernel_pythons()
    }  # fmt: skip
    assert majors == set(expected.split(","))


def test_background_run_returns_at_once_and_streams_into_its_output(kernel: Kernel) -> None:
    warm = kernel.execute("%%dsh --wait\n[[scenario:plain]] warm up", allow_stdin=True)
    assert warm.error is None, warm.error
    started = time.monotonic()
    cell = kernel.execute(
        "%%dsh --format markdown\n[[scenario:slow]] tell me slowly", allow_stdin=True
    )
    elapsed = time.monotonic() - started
    assert cell.error is None, cell.error
    assert elapsed < 2.0, f"a background cell took {elapsed:.2f} s"
    display = [m for m in cell.outputs if m["msg_type"] == "display_data"]
    assert len(display) == 1
    display_id = display[0]["content"]["transient"]["display_id"]
    wait_done(kernel)
    # the settled transcript can reach IOPub after done() read true (the UI pump publishes it);
    # (as JSON) the answer's last word, then the settled footer: only the settled rendering
    wait_shown(kernel, "slow19\\n\\n---\\n\\n**settled**")
    updates = [
        m for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]  # fmt: skip
    assert len(updates) >= 2  # it kept updating after the cell returned
    final = updates[-1]["content"]["data"]
    assert "text/markdown" in final and "text/plain" in final
    assert "slow0 slow1" in final["text/markdown"] and "slow19" in final["text/markdown"]
    assert "settled" in final["text/plain"]
    # marked as a run's output, so the page extension adds Insert below to its code blocks
    marked = [display[0]["content"]["metadata"], updates[-1]["content"]["metadata"]]
    assert all(m.get("dsh_notebook", {}).get("run") is True for m in marked), marked
    # live text: an update before the end already held part of the answer, not all of it
    partial = [u["content"]["data"]["text/markdown"] for u in updates[:-1]]
    assert any("slow0" in text and "slow19" not in text for text in partial)
    # the updates carry the parent of the cell that started the run
    assert all(
        m["parent_header"].get("msg_id") == updates[0]["parent_header"].get("msg_id")
        for m in updates
    )


def test_wait_mode_asks_on_stdin_when_offered(kernel: Kernel, tmp_path: Path) -> None:
    """A real kernel is the point: the waiting cell's ``input()`` goes to the frontend as an
    ``input_request`` on the stdin channel and the typed answer comes back (ipykernel 6 and 7),
    and the kernel's ``_allow_stdin`` is what tells a live frontend (DESIGN §13)."""
    target = tmp_path / "outside" / "typed-yes.txt"
    target.parent.mkdir()
    cell = kernel.execute(
        f"%%dsh --wait\n[[scenario:escalate]] [[target:{target}]] touch it",
        allow_stdin=True,
        stdin_answers=["y"],
    )
    assert cell.error is None, cell.error
    assert cell.stdin_prompts and "allow bash" in cell.stdin_prompts[0]
    assert target.exists()


def test_interrupt_in_a_wait_cell_stops_the_run(kernel: Kernel) -> None:
    """Interrupt is what a Jupyter user presses first: in a --wait cell it stops the run (the
    runtime restarts, history kept) and the output says "stopped by you", not an error."""
    kernel.execute("%%dsh --wait\n[[scenario:plain]] warm up")
    pid = runtime_pid(kernel)
    timer = threading.Timer(1.0, kernel.manager.interrupt_kernel)
    cell = kernel.execute(
        "%%dsh --wait --format markdown\n[[scenario:slow]] [[chunk-delay:0.2]] take your time",
        on_started=timer.start,
    )
    assert "stopped by you" in cell.stderr
    wait_done(kernel)
    assert kernel.value("type(_dsh.exception()).__name__") == "'TransportClosed'"
    deadline = time.monotonic() + 20
    probe = "getattr(get_ipython()._dsh_notebook_magics.agent.host.harness, 'pid', None)"
    while kernel.value(probe) in ("None", str(pid)):  # None while the restart is under way
        assert time.monotonic() < deadline, "the runtime was not restarted"
        time.sleep(0.2)
    # the settled rendering reads like the "stopped" one published before it, so no text marks
    # it: wait until the pump published it (then it is in kernel.iopub, sent on IOPub before
    # the output of the cell that read true), so the last one read below is the settled one
    wait_for(
        kernel,
        "the settled transcript was published",
        lambda: kernel.value(f"{LAST_VIEW}.done.is_set()") == "True",
    )
    shown = [
        m["content"]["data"]["text/markdown"] for m in kernel.iopub
        if m["msg_type"] in ("display_data", "update_display_data") and "data" in m["content"]
        and "text/markdown" in m["content"]["data"]
    ]  # fmt: skip
    assert shown and "stopped" in shown[-1] and "the runtime exited" not in shown[-1]
    after = kernel.execute("%%dsh --wait\n[[scenario:plain]] still there?")
    assert after.error is None, after.error


def test_interrupt_during_dsh_wait_stops_only_the_waiting(kernel: Kernel) -> None:
    kernel.execute("%%dsh --wait\n[[scenario:plain]] warm up")
    pid = runtime_pid(kernel)
    kernel.execute("%%dsh\n[[scenario:slow]] [[chunk-delay:0.2]] take your time", allow_stdin=True)
    timer = threading.Timer(1.0, kernel.manager.interrupt_kernel)
    cell = kernel.execute("%dsh wait", on_started=timer.start)
    assert "stopped waiting" in cell.stderr
    assert kernel.value("_dsh.done()") == "False"  # the run goes on
    assert kernel.value("_dsh.result(30).finish_reason") == "'completed'"
    assert runtime_pid(kernel) == pid  # the runtime was not killed by the interrupt


def test_kernel_shutdown_leaves_no_runtime(
    tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> None:
    env = dict(
        os.environ,
        DSH_HOME=str(tmp_path / "home"),
        DEEPSEEK_BASE_URL=scripted_model.base_url,
        DEEPSEEK_API_KEY="k",
    )
    k = Kernel(env=env, cwd=str(tmp_path), python=kernel_python)
    k.execute("%load_ext dsh_notebook")
    k.execute("%%dsh --wait\n[[scenario:plain]] hi")
    pid = runtime_pid(k)
    assert group_alive(pid)
    k.shutdown()
    deadline = time.monotonic() + 10
    while group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_alive(pid)


@on_one_ipykernel
def test_unload_closes_the_runtime(kernel: Kernel) -> None:
    kernel.execute("%%dsh --wait\n[[scenario:plain]] hi")
    pid = runtime_pid(kernel)
    unloaded = kernel.execute("%unload_ext dsh_notebook")
    assert unloaded.error is None, unloaded.error
    assert not group_alive(pid)


@on_one_ipykernel
def test_stop_restarts_the_runtime_and_keeps_the_session(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    kernel.execute("%%dsh --wait\n[[scenario:plain]] remember the word BANANA")
    pid = runtime_pid(kernel)
    slow = "%%dsh\n[[scenario:slow]] [[chunks:200]] [[chunk-delay:0.3]] a long answer"
    scripted_model.clear_requests()  # (the module's server: an earlier test's run is no sign)
    kernel.execute(slow, allow_stdin=True)
    # stop the run while it streams (a minute of it): a loaded machine may still be starting it
    deadline = time.monotonic() + 60
    while not any(r.scenario == "slow" for r in scripted_model.requests):
        assert time.monotonic() < deadline, "the slow run never reached the model"
        time.sleep(0.1)
    stopped = kernel.execute("%dsh stop")
    assert "runtime restarted" in stopped.stdout, stopped.stdout + stopped.stderr
    wait_done(kernel)
    assert kernel.value("type(_dsh.exception()).__name__") == "'TransportClosed'"
    assert runtime_pid(kernel) != pid
    assert not group_alive(pid)
    scripted_model.clear_requests()
    after = kernel.execute("%%dsh --wait\n[[scenario:plain]] which word was it?")
    assert after.error is None, after.error
    assert kernel.value("_dsh.result().finish_reason") == "'completed'"
    assert "BANANA" in str(scripted_model.requests[-1].body["messages"])  # the history was kept


def widget_comm_id(k: Kernel, deadline: float) -> str:
    while time.monotonic() < deadline:
        k.drain_iopub()
        for m in k.iopub:
            if m["msg_type"] == "comm_open":
                state = m["content"].get("data", {}).get("state", {})
                if "snapshot" in state and "_esm" in state:
                    return str(m["content"]["comm_id"])
        time.sleep(0.1)
    raise TimeoutError("no widget comm was opened")


def test_widget_click_answers_the_approval(kernel: Kernel, tmp_path: Path) -> None:
    """The default in a live frontend is the widget; a click arrives as the comm_msg a browser
    sends, and only that grants the escalation."""
    target = tmp_path / "outside" / "clicked.txt"
    target.parent.mkdir()
    cell = kernel.execute(
        f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it", allow_stdin=True
    )
    assert cell.error is None, cell.error
    comm_id = widget_comm_id(kernel, time.monotonic() + 30)
    deadline = time.monotonic() + 30
    while "a1" not in kernel.execute("%dsh pending").stdout:
        assert time.monotonic() < deadline, "the approval never became pending"
        time.sleep(0.2)
    assert not target.exists()
    time.sleep(0.6)  # the card is inert for ~0.5 s after it appears (a browser would wait too)
    click = {
        "method": "custom",
        "content": {"type": "approval", "request_id": "a1", "decision": "allowed-once"},
    }
    message = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": click})
    kernel.client.shell_channel.send(message)
    wait_done(kernel)
    assert target.exists()
    # the static transcript that replaces the widget (markdown: never in the widget's messages)
    wait_shown(kernel, "**allowed once**")
    display_id = next(
        m["content"]["transient"]["display_id"]
        for m in cell.outputs
        if m["msg_type"] == "display_data"
    )
    finals = [
        m["content"]["data"] for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]  # fmt: skip
    assert finals, "the widget was not replaced by the static transcript"
    assert "allowed" in finals[-1]["text/markdown"].lower()
    assert "application/vnd.jupyter.widget-view+json" not in finals[-1]
    metadata = [
        m["content"]["metadata"] for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]  # fmt: skip
    # the static transcript keeps the run marker: the page extension decorates its code blocks
    assert metadata[-1]["dsh_notebook"]["run"] is True, metadata[-1]


@on_one_ipykernel
def test_first_prompt_of_a_kernel_returns_at_once_while_the_runtime_starts(kernel: Kernel) -> None:
    """The cold first cell (no prewarm: nothing answered the page's hello) builds the agent and
    returns while the runtime is still starting: its reply comes before the runtime was ready.
    (Compared with the start itself, not with a fixed bound that a loaded machine misses; how
    long the cell takes is measured by ``bench/prewarm.py``, arm "cold".)"""
    started = time.monotonic()
    cell = kernel.execute("%%dsh --format markdown\n[[scenario:plain]] hello", allow_stdin=True)
    returned_at, elapsed = time.time(), time.monotonic() - started
    assert cell.error is None, cell.error
    first = next(m for m in cell.outputs if m["msg_type"] == "display_data")["content"]["data"]
    assert "starting" in first["text/plain"]
    wait_done(kernel)
    assert kernel.value("_dsh.result().finish_reason") == "'completed'"
    ready_at = float(kernel.value("get_ipython()._dsh_notebook_magics.agent.host.started_at"))
    assert returned_at < ready_at, (
        f"the cold first cell held the kernel {elapsed:.2f} s, until the runtime was ready"
    )


@on_one_ipykernel
def test_a_run_that_cannot_start_settles_with_the_error(kernel: Kernel, tmp_path: Path) -> None:
    broken = tmp_path / "no-such-dsh"
    kernel.execute(f"%config DshMagics.dsh_bin = {str(broken)!r}")
    cell = kernel.execute("%%dsh --format markdown\n[[scenario:plain]] hello", allow_stdin=True)
    assert cell.error is None, cell.error
    display_id = next(m for m in cell.outputs if m["msg_type"] == "display_data")["content"][
        "transient"
    ]["display_id"]
    wait_done(kernel)
    wait_shown(kernel, "install the runtime wheel")  # the settle's error: only when settled
    final = [
        m["content"]["data"] for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ][-1]  # fmt: skip
    assert "error" in final["text/plain"] and "running" not in final["text/plain"]
    assert "install the runtime wheel" in final["text/markdown"]  # the error says what to do


@on_one_ipykernel
def test_the_next_prompt_after_a_runtime_crash_recovers_by_itself(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    kernel.execute("%%dsh --wait\n[[scenario:plain]] remember the word MANGO")
    pid = runtime_pid(kernel)
    os.killpg(pid, 9)
    deadline = time.monotonic() + 10
    while group_alive(pid):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    scripted_model.clear_requests()
    after = kernel.execute("%%dsh --wait --format markdown\n[[scenario:plain]] which word?")
    assert after.error is None, after.error
    assert kernel.value("_dsh.result().finish_reason") == "'completed'"
    assert runtime_pid(kernel) != pid
    assert "MANGO" in str(scripted_model.requests[-1].body["messages"])  # resumed with its history
    shown = "".join(str(m["content"].get("data", {})) for m in after.outputs)
    assert "a new one was started" in shown


@on_one_ipykernel
def test_each_notebook_has_its_own_conversation_and_one_session_one_kernel(
    kernel: Kernel, tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> None:
    """Two notebooks (two kernels, one DSH_HOME) that a Launcher would both have named
    Untitled.ipynb: each gets its own session from its id; a session written by one kernel is
    refused to the other with one line that says how to go on."""
    a_id, b_id = "a" * 32, "b" * 32
    first = kernel.execute("%%dsh --wait\n[[scenario:plain]] hi from A", metadata=identity(a_id))
    assert first.error is None, first.error
    assert kernel.value("_dsh.session") == f"'nb-{a_id[:12]}'"
    other = start_kernel(tmp_path, scripted_model, kernel_python)
    try:
        second = other.execute(
            "%%dsh --wait\n[[scenario:plain]] hi from B", metadata=identity(b_id)
        )
        assert second.error is None, second.error
        assert other.value("_dsh.session") == f"'nb-{b_id[:12]}'"
        # the same notebook id again in this kernel (e.g. a later cell): same conversation
        again = other.execute(
            "%%dsh --wait\n[[scenario:plain]] again", metadata=identity(b_id, "c2")
        )
        assert again.error is None and other.value("_dsh.session") == f"'nb-{b_id[:12]}'"
        # B's kernel may not write A's session while A's kernel holds it
        stolen = other.execute(f"%%dsh --wait -s nb-{a_id[:12]}\n[[scenario:plain]] peek")
        assert stolen.reply["status"] == "error" and "in use by another kernel" in stolen.stderr
        assert "--new" in stolen.stderr and "Traceback" not in stolen.stderr
    finally:
        other.shutdown()


def test_without_the_extension_two_kernels_never_share_a_default_session(
    tmp_path: Path, scripted_model: ScriptedModelServer, kernel_python: str
) -> None:
    # what jupyter_server tells two kernels of two notebooks made from the Launcher
    untitled = {"JPY_SESSION_NAME": str(tmp_path / "Untitled.ipynb")}
    kernel = start_kernel(tmp_path, scripted_model, kernel_python, **untitled)
    other = start_kernel(tmp_path, scripted_model, kernel_python, **untitled)
    try:
        kernel.execute("%%dsh --wait\n[[scenario:plain]] hi")
        other.execute("%%dsh --wait\n[[scenario:plain]] hi")
        assert other.value("_dsh.session") != kernel.value("_dsh.session")
        assert other.value("_dsh.exception()") == "None"
    finally:
        other.shutdown()
        kernel.shutdown()
