"""The async client end to end against the protocol-exact fake runtime (a real subprocess).

These cover what the published runtime cannot produce on demand: seed-native approval and question
requests, session/query, malformed frames, crashes, floods, a runtime that never answers. What needs
no process (local validation, query-support caching, routing of concurrent sessions) is in
``test_client_inprocess.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from dsh_notebook import (
    DirectoryNotFound,
    RequestTimeout,
    SdkProtocolError,
    SessionAlreadyExists,
    SessionNotFound,
    TransportClosed,
    UnknownSession,
)
from dsh_notebook.protocol import ApprovalRequest, Notification, UserQuestionAsk
from dsh_notebook.testing.harnesses import FAKE_RUNTIME, HarnessFactory, pid_alive

pytestmark = pytest.mark.anyio


def tool_results(result: Any) -> list[str]:
    texts = []
    for event in result.events:
        if event.type == "tool/result":
            texts.append("".join(b.get("text", "") for b in event.data["message"]["content"]))
    return texts


async def test_plain_run_and_receipt(fake_harness: HarnessFactory) -> None:
    seen: list[Notification] = []
    async with fake_harness() as harness:
        session = harness.start_session("plain-1")
        result = await session.run("[[reply:Hi there]] hello", on_notification=seen.append)
    assert result.final_response == "Hi there"
    assert result.finish_reason == "completed"
    assert result.session_id == "plain-1"
    # the interval starts at the receipt: the session-creation events are not in it
    assert result.events[0].type == "agent/inbox/spliced"
    assert "permission/preset" not in [e.type for e in result.events]
    assert result.events[-1].type == "turn/end"
    assert result.notifications[-1].method == "session.status"
    assert seen == result.notifications  # the callback saw exactly what the result holds
    assert harness.client.process is not None and harness.client.process.returncode == 0


async def test_async_callback_and_second_turn(fake_harness: HarnessFactory) -> None:
    count = 0

    async def on_notification(_: Notification) -> None:
        nonlocal count
        count += 1
        await anyio.lowlevel.checkpoint()

    async with fake_harness() as harness:
        session = harness.start_session()
        await session.run("first")
        second = await session.run("[[reply:again]] second", on_notification)
    assert second.final_response == "again" and count == len(second.notifications)


async def test_subagent_result_is_the_answer_after_the_child(fake_harness: HarnessFactory) -> None:
    async with fake_harness("subagent") as harness:
        result = await harness.start_session("sub-1").run("delegate")
    methods = [n.method for n in result.notifications]
    assert result.final_response == "The child said hello."
    assert "subagent.started" in methods and "subagent.finished" in methods
    child = next(
        n.params["childSessionId"] for n in result.notifications if n.method == "subagent.started"
    )
    assert any(n.params.get("sessionId") == child for n in result.notifications)
    assert all(e.type != "x" for e in result.events)
    # two root turns: the follow-up after the child settled is inside the result
    assert [e.type for e in result.events].count("turn/end") == 2


@pytest.mark.parametrize(
    ("answer", "expected_outcome", "ran"),
    [
        ("allowed-once", "allowed-once", True),
        ({"outcome": "allowed-once"}, "allowed-once", True),
        ("rejected", "rejected", False),
        ("cancelled", "cancelled", False),
        ("ALLOWED", "rejected", False),  # outside the vocabulary: never a grant
        ({"outcome": "allowed-once", "extra": 1}, "rejected", False),
        (ValueError("handler bug"), "rejected", False),
    ],
)
async def test_seed_approval_requests_fail_closed(
    fake_harness: HarnessFactory, answer: Any, expected_outcome: str, ran: bool
) -> None:
    asked: list[ApprovalRequest] = []

    async def on_approval(request: ApprovalRequest) -> Any:
        asked.append(request)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async with fake_harness("approval", on_approval=on_approval) as harness:
        result = await harness.start_session("ap").run("escalate")
    assert len(asked) == 1 and asked[0].session_id == "ap" and asked[0].tool_name == "bash"
    decided = [e.data["outcome"] for e in result.events if e.type == "approval/decided"]
    assert decided == [expected_outcome]
    assert (tool_results(result)[0].strip() == "ran") is ran


async def test_approval_without_handler_is_not_opted_in(fake_harness: HarnessFactory) -> None:
    async with fake_harness("approval") as harness:
        result = await harness.start_session().run("escalate")
    assert [e.data["outcome"] for e in result.events if e.type == "approval/decided"] == [
        "unavailable"
    ]


async def test_approval_handler_timeout_cancels(fake_harness: HarnessFactory) -> None:
    async def never(_: ApprovalRequest) -> str:
        await anyio.sleep_forever()
        return "allowed-once"

    async with fake_harness("approval", on_approval=never, approval_timeout=0.2) as harness:
        result = await harness.start_session().run("escalate")
    assert [e.data["outcome"] for e in result.events if e.type == "approval/decided"] == [
        "cancelled"
    ]
    assert tool_results(result)[0].strip() != "ran"


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        ([{"id": "color", "selected": ["Blue"]}], '"selected":["Blue"]'),
        ({"answers": [{"id": "color", "selected": [], "custom": "teal"}]}, '"custom":"teal"'),
        (None, "ASK_CANCELLED"),
        ([{"id": "wrong", "selected": ["Blue"]}], "PROVIDER_ERROR"),
    ],
)
async def test_seed_questions(fake_harness: HarnessFactory, answer: Any, expect: str) -> None:
    asks: list[UserQuestionAsk] = []

    async def on_question(ask: UserQuestionAsk) -> Any:
        asks.append(ask)
        return answer

    async with fake_harness("question", on_user_question=on_question) as harness:
        result = await harness.start_session("q").run("ask me")
    assert asks[0].questions[0].id == "color"
    assert [o.label for o in asks[0].questions[0].options or []] == ["Red", "Blue"]
    text = tool_results(result)[0]
    assert expect in text, text


async def test_question_withdrawn_by_runtime_cancels_callback(fake_harness: HarnessFactory) -> None:
    cancelled = anyio.Event()

    async def on_question(_: UserQuestionAsk) -> Any:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    async with fake_harness(
        "question", on_user_question=on_question, scenario_args={"question_timeout": 0.3}
    ) as harness:
        result = await harness.start_session().run("ask me")
        assert cancelled.is_set()
        assert len(harness.pending) == 0
    assert "user-question.cancelled" in [n.method for n in result.notifications]
    assert "ASK_TIMED_OUT" in tool_results(result)[0]


async def test_session_query_served(fake_harness: HarnessFactory) -> None:
    async with fake_harness("serve-seed") as harness:
        session = harness.start_session()
        prompt = await session.query("[[reply:queried]] hi")
        command = await session.query("/help")
    assert prompt.final_response == "queried" and prompt.finish_reason == "completed"
    assert "session.query.completed" in [n.method for n in command.notifications]
    assert harness.server_info is not None and harness.server_info.capabilities


async def test_malformed_frames_are_survived(fake_harness: HarnessFactory) -> None:
    async with fake_harness("malformed") as harness:
        result = await harness.start_session().run("go")
        malformed = harness.client.transport.malformed_lines  # type: ignore[union-attr]
    assert result.finish_reason == "completed"
    assert malformed >= 5
    unknown = [
        e
        for e in result.events
        if (e.type not in {"agent/inbox/spliced"} and e.type.startswith("fake:"))
        or "unknown" in e.type
    ]
    assert unknown, [e.type for e in result.events]


async def test_crash_mid_turn_raises_transport_closed_with_status_and_stderr(
    fake_harness: HarnessFactory,
) -> None:
    harness = fake_harness("crash")
    async with harness:
        pid = harness.pid
        assert pid is not None
        with anyio.fail_after(10):
            with pytest.raises(TransportClosed) as info:
                await harness.start_session().run("boom")
        assert info.value.exit_status == 3
        assert "crash" in info.value.stderr_tail
        with pytest.raises(TransportClosed):
            await harness.start_session().run("after the crash")
    assert not pid_alive(pid)


async def test_flood_is_delivered_in_order(fake_harness: HarnessFactory) -> None:
    async with fake_harness("flood", scenario_args={"count": 10000}) as harness:
        result = await harness.start_session().run("flood")
    floods = [e for e in result.events if e.type == "plugin:flood"]
    assert len(floods) == 10000
    seqs = [e.seq for e in result.events]
    assert seqs == sorted(seqs)


async def test_flood_with_a_stalled_consumer_fails_fast_instead_of_growing(
    fake_harness: HarnessFactory,
) -> None:
    async def slow(_: Notification) -> None:
        await anyio.sleep(0.5)

    async with fake_harness(
        "flood", subscription_buffer=500, scenario_args={"count": 5000}
    ) as harness:
        with anyio.fail_after(15), pytest.raises(SdkProtocolError, match="overflow"):
            await harness.start_session().run("flood", on_notification=slow)
        # the harness stays usable
        assert (
            await harness.start_session().run("[[turn:normal]] ok")
        ).finish_reason == "completed"


async def test_runtime_that_never_initializes_times_out_and_is_reaped(
    fake_harness: HarnessFactory,
) -> None:
    harness = fake_harness("no-initialize", initialize_timeout=0.5)
    with pytest.raises(RequestTimeout) as info:
        await harness.start()
    assert info.value.method == "initialize" and "'sdk'" in str(info.value)
    pid = harness.pid
    assert pid is not None and not pid_alive(pid)


async def test_close_ladder_escalates_to_sigkill(fake_harness: HarnessFactory) -> None:
    harness = fake_harness(
        "ignore-sigterm",
        shutdown_timeout=0.2,
        close_grace=0.3,
        scenario_args={"serve": 1},
    )
    await harness.start()
    pid = harness.pid
    assert pid is not None and pid_alive(pid)
    started = time.monotonic()
    await harness.close()
    assert time.monotonic() - started < 5
    assert not pid_alive(pid)
    assert harness.client.process is not None and harness.client.process.returncode == -9


async def test_big_frame_and_error_turn(fake_harness: HarnessFactory) -> None:
    async with fake_harness() as harness:
        big = await harness.start_session().run("[[turn:big]] big")
        failed = await harness.start_session().run("[[turn:error]] fail")
    assert len(big.final_response) >= 300_000
    assert failed.finish_reason == "error"
    end = [e for e in failed.events if e.type == "turn/end"][-1]
    assert end.data["reason"]["error"]["code"] == "INVALID_REQUEST"


async def test_resume_across_processes(tmp_path: Path, fake_harness: HarnessFactory) -> None:
    home = tmp_path / "shared-home"
    async with fake_harness(home=home) as first:
        await first.start_session("persist-1").run("remember me")
    async with fake_harness(home=home) as second:
        with pytest.raises(SessionAlreadyExists):
            await second.start_session("persist-1").run("not resumed yet")
    async with fake_harness(home=home) as third:
        with pytest.raises(SessionNotFound):
            await third.resume_session("no-such-session")
        session = await third.resume_session("persist-1")
        result = await session.run("[[reply:continued]] and now")
    assert result.final_response == "continued"


async def test_working_directory_and_wait(fake_harness: HarnessFactory) -> None:
    async with fake_harness() as harness:
        session = harness.start_session()
        origin = await session.get_working_directory()
        (Path(origin) / "sub").mkdir()
        assert await session.set_working_directory("sub") == str(Path(origin) / "sub")
        with pytest.raises(DirectoryNotFound):
            await session.set_working_directory("missing")
        await session.wait()  # idle: returns at once
        with pytest.raises(UnknownSession):
            await harness.start_session("never-opened").wait()


async def test_wrong_server_identity_is_a_protocol_error(fake_harness: HarnessFactory) -> None:
    harness = fake_harness(scenario_args={"server_name": "someone-else"})
    with pytest.raises(SdkProtocolError, match="someone-else"):
        await harness.start()
    assert harness.pid is not None and not pid_alive(harness.pid)


def test_interpreter_exit_without_close_leaves_no_orphan(tmp_path: Path) -> None:
    script = f"""
import anyio, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from dsh_notebook.testing.harnesses import fake_harness
from pathlib import Path

async def main():
    h = fake_harness(Path({str(tmp_path)!r}))
    await h.start()
    print(h.pid, flush=True)
    # no close: the interpreter exits with the harness still open

anyio.run(main)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 5
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(pid)


@pytest.mark.parametrize("by", ["path", "module"])
def test_fake_runtime_is_runnable_as_a_module(by: str) -> None:
    # by path it must not import dsh_notebook (nor pydantic): an independent, fast oracle
    launch = [str(FAKE_RUNTIME)] if by == "path" else ["-m", "dsh_notebook.testing.fake_runtime"]
    lines = [
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "session/wait", "params": {"sessionId": "x"}}
        ),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    ]
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *launch, "--scenario", "normal"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    frames = [json.loads(line) for line in out.stdout.splitlines()]
    assert frames[0]["error"]["message"] == "SDK server is not initialized"
    assert frames[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert out.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.stderr.splitlines()}
    assert ("dsh_notebook" in imported) is (by == "module")
    assert "pydantic" not in imported or by == "module"


async def test_missing_bridge_is_reported_once_and_runs_go_on(
    fake_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # the fake runtime ignores --patch, like a runtime whose hooks the bridge cannot use
    async with fake_harness(bridge=True) as harness:
        assert harness.bridge_info is None
        assert any("notebook-bridge.patch.yml" in a for a in harness.client.launch_spec.argv)  # type: ignore[union-attr]
        assert (await harness.start_session().run("hi")).finish_reason == "completed"
    assert sum("bridge did not load" in r.getMessage() for r in caplog.records) == 1


def test_pid_alive_reads_a_process_reaped_while_it_is_looked_at_as_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between ``kill(pid, 0)`` and reading ``/proc/<pid>/stat`` the process may be reaped; the
    read then fails with ``ESRCH`` (a CI failure of a recovery test's wait for a killed runtime)."""
    from dsh_notebook.testing import harnesses

    def reaped(path: str, *args: object, **kwargs: object) -> Any:
        raise ProcessLookupError(3, "No such process")

    assert pid_alive(os.getpid())
    monkeypatch.setattr(harnesses, "open", reaped, raising=False)
    assert not pid_alive(os.getpid())
