"""Prewarm in a real ipykernel (over jupyter_client, as a frontend drives it) with the real runtime:
where a person is at the keyboard (``allow_stdin``) the runtime starts in the background once the
loading cell finished, with or without the page extension (whose ``hello`` imports the widget
ahead too); nothing is printed; ``DshMagics.prewarm = False`` and nbclient (no stdin) start nothing; a failed
prewarm is reported by the first prompt, and the next prompt starts afresh."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import Execution, Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

HOST = "get_ipython()._dsh_notebook_magics.agent.host"
POLL = re.compile(r"^(\((True|False), (True|False)\)|True|False|'\d+'|\d+)\n", re.MULTILINE)
REPLY = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": ["identity"]}


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url, setup=None) as k:
        yield k


def frontend_comm(execution: Execution) -> str | None:
    """The id of the ``dsh_notebook.frontend`` comm the cell opened, if any."""
    for msg in execution.outputs:
        content = msg["content"]
        if msg["msg_type"] == "comm_open" and content["target_name"] == "dsh_notebook.frontend":
            return str(content["comm_id"])
    return None


def answer_hello(k: Kernel, comm_id: str) -> None:
    """What the extension sends: a ``comm_msg`` on the shell channel."""
    msg = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": REPLY})
    k.client.shell_channel.send(msg)


def host_state(k: Kernel) -> tuple[bool, bool]:
    running, starting = k.value(f"({HOST}.running, {HOST}.starting)").strip("()").split(", ")
    return running == "True", starting == "True"


def wait_until_running(k: Kernel, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if host_state(k)[0]:
            return
        time.sleep(0.2)
    raise TimeoutError("the runtime did not start")


def streams(messages: list[dict[str, Any]]) -> list[str]:
    """Stream output, except the lines this test's own state polls print (``(False, True)``, …):
    a background thread's print lands in whichever cell ran last, so all cells are checked. A
    print can reach IOPub in pieces (``(False, True)``, then ``\\n``), so the texts are joined
    before the poll lines are taken out; what is left is one string, or nothing."""
    text = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
    rest = POLL.sub("", text)
    return [rest] if rest else []


def test_the_runtime_starts_in_the_background_when_the_extension_answers(kernel: Kernel) -> None:
    loaded = kernel.execute("%load_ext dsh_notebook", allow_stdin=True)  # a live frontend
    assert loaded.error is None, loaded.error
    assert streams(loaded.outputs) == []  # nothing printed at load
    comm_id = frontend_comm(loaded)
    assert comm_id is not None, "no frontend comm opened at load"
    # no extension answered yet, but a person is at the keyboard: it starts in the background
    wait_until_running(kernel)
    assert kernel.value("'dsh_notebook.widget' in __import__('sys').modules") == "False"
    answer_hello(kernel, comm_id)
    # the widget (anywidget, ipywidgets) was imported on the side too: the first background
    # cell does not hold the kernel's main thread ~100 ms for it
    imported = "'dsh_notebook.widget' in __import__('sys').modules"
    deadline = time.monotonic() + 10
    while kernel.value(imported) != "True" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert kernel.value(imported) == "True"
    idle = kernel.execute("1 + 1", allow_stdin=True)
    assert streams(idle.outputs) == []
    assert streams(kernel.iopub) == []  # the background start printed nothing anywhere

    pid = kernel.value(f"{HOST}.harness.pid")
    ran = kernel.execute("%%dsh --wait --format text\n[[scenario:plain]] hi", allow_stdin=True)
    assert ran.error is None, ran.error
    assert kernel.value("_dsh.result(30).final_response") == repr("Hello from the fake model!")
    assert kernel.value(f"{HOST}.harness.pid") == pid  # the prompt used the prewarmed runtime


def test_a_frontend_without_the_page_extension_gets_a_warm_first_prompt(kernel: Kernel) -> None:
    """VS Code, Colab, classic Notebook: stdin, no extension. The first prompt finds the runtime
    started (the issue measured 4.1 s to its first event here, against 0.13 s warm)."""
    loaded = kernel.execute("%load_ext dsh_notebook", allow_stdin=True)
    assert loaded.error is None and streams(loaded.outputs) == []
    wait_until_running(kernel)
    # the agent was built (its modules imported) on the prewarm's thread, not the main one
    assert kernel.value("get_ipython()._dsh_notebook_magics._warming.name") == repr("dsh-prewarm")
    pid = kernel.value(f"{HOST}.harness.pid")
    ran = kernel.execute("%%dsh --wait --format text\n[[scenario:plain]] hi", allow_stdin=True)
    assert ran.error is None, ran.error
    assert kernel.value(f"{HOST}.harness.pid") == pid  # the prompt used the warm runtime


def test_prewarm_false_and_nbclient_start_nothing(kernel: Kernel) -> None:
    # nbclient / nbconvert send allow_stdin false: not a live frontend, no comm, no start
    loaded = kernel.execute("%load_ext dsh_notebook")
    assert loaded.error is None, loaded.error
    assert frontend_comm(loaded) is None
    kernel.execute("1 + 1")  # the cell after the loading one: still nothing starts
    time.sleep(1.0)
    assert host_state(kernel) == (False, False)
    kernel.execute("%unload_ext dsh_notebook")

    # a live frontend, but prewarm switched off in the loading cell: the reply starts nothing
    loaded = kernel.execute(
        "%load_ext dsh_notebook\n%config DshMagics.prewarm = False", allow_stdin=True
    )
    assert loaded.error is None, loaded.error
    comm_id = frontend_comm(loaded)
    assert comm_id is not None
    answer_hello(kernel, comm_id)
    time.sleep(2.0)
    assert host_state(kernel) == (False, False)
    assert kernel.value("'dsh_notebook.widget' in __import__('sys').modules") == "False"


def test_a_failed_prewarm_is_reported_by_the_first_prompt(kernel: Kernel, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-dsh")
    loaded = kernel.execute(
        f"%load_ext dsh_notebook\n%config DshMagics.dsh_bin = {missing!r}", allow_stdin=True
    )
    comm_id = frontend_comm(loaded)
    assert comm_id is not None
    answer_hello(kernel, comm_id)
    deadline = time.monotonic() + 30
    while kernel.value(f"{HOST}._starting is not None and {HOST}._starting.done()") != "True":
        assert time.monotonic() < deadline, "the prewarm never finished"
        time.sleep(0.2)
    assert kernel.value(f"{HOST}._starting.exception() is not None") == "True"  # it failed...
    quiet = kernel.execute("2 + 2", allow_stdin=True)
    assert streams(quiet.outputs) == [] and streams(kernel.iopub) == []  # ...silently

    first = kernel.execute("%%dsh --wait --format text\n[[scenario:plain]] hi", allow_stdin=True)
    shown = "".join(
        str(m["content"].get("data", {}).get("text/plain", "")) + "".join(streams([m]))
        for m in first.outputs
    ) + (first.error or "")
    assert "no-such-dsh" in shown, shown  # the first prompt says what failed
    assert kernel.value("_dsh.exception() is not None") == "True"

    # fixed: the next prompt starts afresh (the failure was reported once, not kept)
    kernel.execute("%config DshMagics.dsh_bin = None")
    second = kernel.execute(
        "%%dsh --wait --format text\n[[scenario:plain]] again", allow_stdin=True
    )
    assert second.error is None, second.error
    assert kernel.value("_dsh.result(30).final_response") == repr("Hello from the fake model!")


def test_a_config_change_after_load_restarts_an_unused_prewarmed_runtime(kernel: Kernel) -> None:
    loaded = kernel.execute("%load_ext dsh_notebook", allow_stdin=True)
    comm_id = frontend_comm(loaded)
    assert comm_id is not None
    answer_hello(kernel, comm_id)
    wait_until_running(kernel)
    pid = kernel.value(f"{HOST}.harness.pid")
    kernel.execute("%config DshMagics.max_tokens = 1234")  # read when the runtime starts
    ran = kernel.execute("%%dsh --wait --format text\n[[scenario:plain]] hi", allow_stdin=True)
    assert ran.error is None, ran.error
    assert kernel.value(f"{HOST}.harness.pid") != pid  # started again with the new setting
    assert kernel.value(f"{HOST}.harness.config.max_tokens") == "1234"


# what the comm package does around every comm message's callback (comm.base_comm.handle_msg):
# pre_execute and post_execute, on whatever thread handles the message (a page's subshell too)
A_COMM_CALLBACK_DURING_THE_CELL = """\
%load_ext dsh_notebook
import threading
from comm import create_comm
_c = create_comm(target_name="dsh-test-any-widget")
_c.on_msg(lambda msg: None)
_t = threading.Thread(target=_c.handle_msg, args=({"content": {"data": {}}},))
_t.start(); _t.join()
_c.handle_msg({"content": {"data": {}}})
%config DshMagics.prewarm = False
"""


def test_a_comm_callback_during_the_loading_cell_is_not_its_end(kernel: Kernel) -> None:
    """The loading cell has not finished while another widget's message is handled (on a
    subshell thread or the main one): ``prewarm = False`` set later in that cell still applies,
    and no hook error is printed."""
    loaded = kernel.execute(A_COMM_CALLBACK_DURING_THE_CELL, allow_stdin=True)
    assert loaded.error is None, loaded.error
    assert streams(loaded.outputs) == []
    time.sleep(2.0)
    assert host_state(kernel) == (False, False)
    after = kernel.execute("1 + 1", allow_stdin=True)  # later cells start nothing either
    assert streams(after.outputs) == []
    time.sleep(1.0)
    assert host_state(kernel) == (False, False)
