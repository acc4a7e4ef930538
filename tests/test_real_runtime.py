"""Integration suite: the client against the real DeepSeek Harness runtime (PyPI wheel) and the
scripted model endpoint on 127.0.0.1. Nothing leaves the machine."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import anyio
import pytest

from dsh_notebook import (
    DirectoryNotFound,
    PromptError,
    SessionAlreadyExists,
    SessionNotFound,
    TransportClosed,
    UnknownSession,
    UnsupportedByRuntime,
)
from dsh_notebook.scripted_model import BUILTIN_SCRIPTS, Script, ScriptedModelServer, Step
from dsh_notebook.scripted_model.builtin import SUBAGENT_INTERIM
from dsh_notebook.testing.harnesses import HarnessFactory, group_alive

pytestmark = [
    pytest.mark.real_runtime,  # skipped without the runtime wheel; asyncio only (the plugin)
    pytest.mark.anyio,
]


def tool_texts(result: object) -> list[str]:
    out = []
    for event in result.events:  # type: ignore[attr-defined]
        if event.type == "tool/result":
            out.append("".join(b.get("text", "") for b in event.data["message"]["content"]))
    return out


async def test_handshake_and_clean_shutdown(tmp_path: Path, real_harness: HarnessFactory) -> None:
    harness = real_harness()
    async with harness:
        assert harness.server_info is not None
        assert harness.server_info.server_info.name == "deepseek-harness-sdk-runtime"
        assert harness.dsh_home == (tmp_path / "dsh-home").resolve()
        pid = harness.pid
        assert pid is not None
    assert harness.client.process is not None
    assert harness.client.process.returncode == 0
    assert not group_alive(pid)


async def test_stdin_eof_closes_with_exit_status(real_harness: HarnessFactory) -> None:
    async with real_harness() as harness:
        process = harness.client.process
        assert process is not None
        transport = harness.client.transport
        assert transport is not None
        await process.stdin.aclose()  # EOF: the runtime exits 0 on its own
        with anyio.fail_after(10):
            await transport.wait_closed()
        assert transport.closed is not None
        assert transport.closed.exit_status == 0
        with pytest.raises(TransportClosed, match="exit status 0"):
            await harness.start_session().wait()
        assert not group_alive(process.pid)


async def test_sigkill_mid_turn_is_a_typed_error_and_leaves_nothing(
    real_harness: HarnessFactory,
) -> None:
    async with real_harness() as harness:
        pid = harness.pid
        assert pid is not None

        async def kill_soon() -> None:
            await anyio.sleep(0.5)
            os.kill(pid, signal.SIGKILL)

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill_soon)
            with anyio.fail_after(20), pytest.raises(TransportClosed) as info:
                await harness.start_session().run("[[scenario:slow]] take your time")
        assert info.value.exit_status == -signal.SIGKILL
    assert not group_alive(pid)


async def test_plain_turn(real_harness: HarnessFactory) -> None:
    async with real_harness() as harness:
        result = await harness.start_session("plain-1").run("[[scenario:plain]] Say hello.")
    assert result.final_response == "Hello from the fake model!"
    assert result.finish_reason == "completed"
    # the receipt opens the interval although it arrived before the session/prompt response
    first = result.events[0]
    assert first.type == "agent/inbox/spliced"
    assert first.data["inserted"][0]["content"][0]["text"].endswith("Say hello.")
    assert result.events[-1].type == "turn/end"
    assert result.notifications[-1].params == {"sessionId": "plain-1", "status": "idle"}


async def test_bash_and_parallel_tool_calls(tmp_path: Path, real_harness: HarnessFactory) -> None:
    async with real_harness() as harness:
        bash = await harness.start_session().run("[[scenario:bash]] run it")
        parallel = await harness.start_session().run("[[scenario:parallel]] two at once")
    assert any("hello-from-bash" in t for t in tool_texts(bash))
    assert (tmp_path / "workspace" / "bash-out.txt").read_text().strip() == "hello-from-bash"
    assert bash.final_response == "The command printed hello-from-bash."
    steps = {(e.data.get("step")) for e in parallel.events if e.type == "tool/call"}
    assert len([e for e in parallel.events if e.type == "tool/call"]) == 2 and len(steps) == 1
    assert len(tool_texts(parallel)) == 2


async def test_subagent_answer_comes_after_the_child(real_harness: HarnessFactory) -> None:
    async with real_harness() as harness:
        result = await harness.start_session("sub-1").run("[[scenario:subagent]] delegate")
    methods = [n.method for n in result.notifications]
    assert result.final_response == "The child said hello."
    assert result.finish_reason == "completed"
    finished = [n for n in result.notifications if n.method == "subagent.finished"]
    assert len(finished) == 1 and finished[0].params["status"] == "ok"
    child = finished[0].params["childSessionId"]
    child_events = [n for n in result.notifications if n.params.get("sessionId") == child]
    assert any(n.params.get("event", {}).get("type") == "assistant/message" for n in child_events)
    # the parent went idle in between (interim answer) and still the result is the final one
    root_idles = [
        n for n in result.notifications if n.params == {"sessionId": "sub-1", "status": "idle"}
    ]
    assert len(root_idles) >= 2
    assert methods.index("subagent.started") < methods.index("subagent.finished")


@pytest.mark.parametrize("statuses", ["reported", "not reported"])
async def test_subagent_turn_count_does_not_depend_on_the_parents_speed(
    scripted_model: ScriptedModelServer, real_harness: HarnessFactory, statuses: str
) -> None:
    # The runtime steers a settled child's notice into the parent's running turn, or queues a
    # new turn when the parent is idle. The scripted child waits for its parent's turn to end,
    # so a parent that is slow to answer after starting the child (here 1.5 s) still ends its
    # first turn before the child settles: always 2 turns (without the hold this run has 1).
    # With the runtime's session statuses reported to the model server (as the kernel's demo
    # model is fed) the end of the parent's turn is the runtime's own idle, not a grace.
    builtin = BUILTIN_SCRIPTS["subagent"]
    slow = Script(
        steps=(builtin.steps[0], Step(text=SUBAGENT_INTERIM, delay=1.5), builtin.steps[2])
    )
    scripted_model.register("subagent-slow-parent", slow)
    releases = scripted_model.idle_releases
    try:
        async with real_harness() as harness:
            if statuses == "reported":
                harness.client.router.add_tap(lambda n: scripted_model.observe(n.method, n.params))
            result = await harness.start_session(f"slow-{statuses[0]}").run(
                "[[scenario:subagent-slow-parent]] delegate"
            )
    finally:
        scripted_model.unregister("subagent-slow-parent")
    root_turns = [
        n
        for n in result.notifications
        if n.params.get("sessionId") == f"slow-{statuses[0]}"
        and n.params.get("event", {}).get("type") == "turn/start"
    ]
    assert len(root_turns) == 2
    assert result.final_response == "The child said hello."
    assert scripted_model.idle_releases - releases == (1 if statuses == "reported" else 0)


@pytest.mark.parametrize("how", ["shutdown", "sigkill"])
async def test_resume_in_a_new_runtime(
    tmp_path: Path, scripted_model: ScriptedModelServer, real_harness: HarnessFactory, how: str
) -> None:
    home = tmp_path / "home"
    first = real_harness(home=home)
    async with first:
        await first.start_session("persist-1").run(
            "[[scenario:plain]] Remember the word PINEAPPLE."
        )
        if how == "sigkill":
            assert first.pid is not None
            os.kill(first.pid, signal.SIGKILL)
            await anyio.sleep(0.3)
    async with real_harness(home=home) as second:
        with pytest.raises(SessionAlreadyExists):
            await second.start_session("persist-1").run("[[scenario:plain]] not resumed")
    async with real_harness(home=home) as third:
        with pytest.raises(SessionNotFound):
            await third.resume_session("does-not-exist")
        session = await third.resume_session("persist-1")
        scripted_model.clear_requests()
        result = await session.run("[[scenario:plain]] What was the word?")
    assert result.finish_reason == "completed"
    body = json.dumps(scripted_model.requests[-1].body["messages"])
    assert "PINEAPPLE" in body and "What was the word?" in body


async def test_working_directory_wait_and_query(
    tmp_path: Path, real_harness: HarnessFactory
) -> None:
    async with real_harness() as harness:
        session = harness.start_session("wd")
        origin = await session.get_working_directory()
        assert Path(origin) == (tmp_path / "workspace").resolve()
        (Path(origin) / "sub").mkdir()
        assert await session.set_working_directory("sub") == str(Path(origin) / "sub")
        with pytest.raises(DirectoryNotFound):
            await session.set_working_directory("missing")
        await session.wait()  # idle: returns at once
        with pytest.raises(UnknownSession):
            await harness.start_session("nobody").wait()
        with pytest.raises(UnsupportedByRuntime):
            await session.query("/help")


async def test_model_failures(real_harness: HarnessFactory) -> None:
    async with real_harness() as harness:
        failed = await harness.start_session().run("[[scenario:http400]] fail please")
        session = harness.start_session()
        with pytest.raises(PromptError):
            await session.run([{"type": "audio", "data": "AAAA"}])
        ok = await session.run("[[scenario:plain]] still fine?")
    assert failed.finish_reason == "error"
    end = [e for e in failed.events if e.type == "turn/end"][-1]
    assert end.data["reason"]["error"]["code"] == "INVALID_REQUEST"
    assert ok.finish_reason == "completed"


async def test_missing_key_is_a_clear_error_turn(real_harness: HarnessFactory) -> None:
    harness = real_harness(api_key=None)
    async with harness:
        result = await harness.start_session().run("[[scenario:plain]] hi")
    assert result.finish_reason == "error"
    end = [e for e in result.events if e.type == "turn/end"][-1]
    assert end.data["reason"]["error"]["code"] == "MISSING_CREDENTIAL"


async def test_two_sessions_concurrently(real_harness: HarnessFactory) -> None:
    results = {}
    async with real_harness() as harness:

        async def one(name: str, scenario: str) -> None:
            results[name] = await harness.start_session(name).run(f"[[scenario:{scenario}]] go")

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "a", "plain")
            tg.start_soon(one, "b", "bash")
    assert results["a"].final_response == "Hello from the fake model!"
    assert results["b"].final_response == "The command printed hello-from-bash."
    assert {n.params.get("sessionId") for n in results["a"].notifications} == {"a"}
