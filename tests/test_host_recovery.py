"""Recovery after a runtime death (``RuntimeHost``): the rule, then the host on the fake runtime.

A dead runtime is replaced by the next prompt every time, whatever happened before (earlier
recoveries, ``restart``); the crash-loop guard only stops an automatic replacement that died again
at once without serving anything.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.client import HarnessConfig
from dsh_notebook.errors import TransportClosed
from dsh_notebook.kernel.host import RECOVERY_GRACE, RuntimeHost, RuntimeStart, may_replace
from dsh_notebook.testing.harnesses import fake_runtime_argv, pid_alive


@pytest.mark.parametrize(
    ("automatic", "served", "age", "replaced"),
    [
        (False, False, 0.1, True),  # the person started it (first start, prewarm, restart)
        (False, True, 0.1, True),
        (True, True, 0.1, True),  # a replacement that served a turn
        (True, False, RECOVERY_GRACE + 0.1, True),  # died unserved, but long after its start
        (True, False, 0.1, False),  # the crash loop: a replacement that died at once, unserved
    ],
)
def test_only_an_unserved_replacement_that_died_at_once_is_left_dead(
    automatic: bool, served: bool, age: float, replaced: bool
) -> None:
    start = RuntimeStart(at=1000.0, automatic=automatic, served=served)
    assert may_replace(start, 1000.0 + age) is replaced


@pytest.fixture
def host(tmp_path: Path) -> Iterator[RuntimeHost]:
    (tmp_path / "ws").mkdir()
    argv = fake_runtime_argv("normal")
    config = HarnessConfig(
        dsh_bin=argv, dsh_home=tmp_path / "home", cwd=tmp_path / "ws", bridge=False
    )
    host = RuntimeHost(lambda: config)
    try:
        yield host
    finally:
        host.close()


def kill(host: RuntimeHost) -> int:
    """SIGKILL the running runtime and wait until it is gone; its pid."""
    assert host.harness is not None
    pid = host.harness.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while pid_alive(pid) or host.alive():
        assert time.monotonic() < deadline, "the killed runtime was not noticed"
        time.sleep(0.02)
    return pid


def prompt(host: RuntimeHost, text: str) -> tuple[str, list[str]]:
    """One run on session ``s``: its final response and the notes it got."""
    notes: list[str] = []
    result = host.run("s", [{"type": "text", "text": text}], on_note=notes.append).result(30)
    return str(result.final_response), notes


def test_every_death_is_recovered_by_the_next_prompt(host: RuntimeHost) -> None:
    """Kills right after a recovery that served, and right after ``restart``: each recovers."""
    prompt(host, "[[reply:first]] hi")
    recoveries = 0
    for round_ in range(4):
        if round_ == 2:
            host.restart()  # the person starts a runtime: the next death recovers too
        old = kill(host)
        answer, notes = prompt(host, f"[[reply:answer {round_}]] again")
        assert answer == f"answer {round_}"
        assert host.harness is not None and host.harness.pid != old
        recoveries += any("a new one was started" in note for note in notes)
    assert recoveries == 4


def test_a_replacement_that_dies_before_serving_is_left_to_the_person(host: RuntimeHost) -> None:
    prompt(host, "[[reply:first]] hi")
    kill(host)
    assert host._recover() is not None  # the person's runtime served: replaced
    replacement = host.last_start
    assert replacement is not None and replacement.automatic and not replacement.served
    kill(host)  # the replacement dies at once, before any prompt: a crash loop
    assert host._recover() is None
    assert not host.alive() and host.last_start is replacement  # nothing was started
    with pytest.raises(TransportClosed):
        prompt(host, "[[reply:never]] fails without starting a runtime")
    assert host.last_start is replacement
    host.restart()  # the person decides
    assert prompt(host, "[[reply:back]] again")[0] == "back"


def test_a_run_not_sent_yet_when_the_runtime_restarts_is_never_sent(host: RuntimeHost) -> None:
    """``restart`` is how a run is stopped: a run started before it whose prompt had not gone
    out (here its launch waits behind another job) ends with ``TransportClosed`` and reaches
    neither runtime, although its session is resumed in the new one."""
    prompt(host, "[[reply:first]] hi")  # session s is open: the restart resumes it
    gate = threading.Event()
    host._launch(lambda: gate.wait(30))  # the launcher is busy: the next run is not sent yet
    seen: list[object] = []
    stopped = host.run("s", [{"type": "text", "text": "[[reply:sent after all]] x"}], seen.append)
    assert host.restart() == ["s"]
    gate.set()
    with pytest.raises(TransportClosed, match="nothing was sent"):
        stopped.result(30)
    assert seen == []
    assert prompt(host, "[[reply:next]] the next prompt")[0] == "next"  # the session still works
