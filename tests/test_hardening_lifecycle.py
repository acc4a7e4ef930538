"""Issue 13 items 3, 4 and 11 (exit watch): lifecycle faults never orphan, hang or leak.

Peers here are tiny Python scripts (``PEER`` below, behaviour chosen by argv) or the fake runtime.
"""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from dsh_notebook import DeepSeekHarness, HarnessClient
from dsh_notebook.errors import (
    ConfigError,
    JsonRpcError,
    RequestTimeout,
    SdkProtocolError,
    TransportClosed,
)
from dsh_notebook.testing.harnesses import fake_harness
from dsh_notebook.testing.harnesses import pid_alive as alive

pytestmark = pytest.mark.anyio

PEER = textwrap.dedent(
    """
    import json, os, signal, subprocess, sys, time
    mode = sys.argv[1]
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    def say(frame):
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\\n"); sys.stdout.flush()
    def err(text):
        sys.stderr.write(text + "\\n"); sys.stderr.flush()
    err("peer: booting with profile sdk")
    if mode == "silent":
        err("peer: error: profile 'sdk' has no sdk server row")
        while True:
            time.sleep(1)
    for line in sys.stdin:
        frame = json.loads(line)
        method, rid = frame.get("method"), frame.get("id")
        if method == "initialize":
            if mode == "init-error":
                err("peer: cannot resolve model route deepseek-flash")
                say({"id": rid, "error": {"code": -32603, "message": "model route unavailable"}})
                continue
            say({"id": rid, "result": {"serverInfo": {"name": "deepseek-harness-sdk-runtime"}}})
        elif method == "session/prompt":
            if mode == "prompt-hang":
                err("peer: prompt queue stuck behind a dead worker")
                continue
            if mode == "grandchild":
                subprocess.Popen(
                    [sys.executable, "-c", "import time; time.sleep(60)"],
                    start_new_session=True,
                )  # inherits our stdout and stderr, in its own session
                err("peer: fatal: worker lost")
                os._exit(5)
        elif method == "shutdown":
            say({"id": rid, "result": {}})
            sys.exit(0)
    """
)


def peer(tmp_path: Path, mode: str, **fields: Any) -> DeepSeekHarness:
    script = tmp_path / "peer.py"
    script.write_text(PEER)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    fields.setdefault("initialize_timeout", 10)
    return DeepSeekHarness(
        dsh_bin=[sys.executable, str(script), mode],
        dsh_home=tmp_path / "home",
        cwd=workspace,
        bridge=False,
        **fields,
    )


# -- item 3: stderr tails and a bounded failed start ---------------------------------------------


async def test_initialize_timeout_carries_the_stderr_tail_and_surfaces_fast(tmp_path: Path) -> None:
    harness = peer(tmp_path, "silent", initialize_timeout=0.1)
    started = time.monotonic()
    with pytest.raises(RequestTimeout) as info:
        await harness.start()
    elapsed = time.monotonic() - started
    assert "'sdk'" in str(info.value)
    assert "no sdk server row" in str(info.value) and "no sdk server row" in info.value.stderr_tail
    # the runtime ignores stdin EOF and SIGTERM: the failed start's ladder is still bounded
    assert elapsed < 1.8, elapsed
    assert harness.pid is not None and not alive(harness.pid)


async def test_prompt_timeout_carries_the_stderr_tail(tmp_path: Path) -> None:
    async with peer(tmp_path, "prompt-hang", request_timeout=0.5, close_grace=0.3) as harness:
        with pytest.raises(RequestTimeout) as info:
            await harness.start_session().run("hi")
    assert info.value.method == "session/prompt"
    assert "dead worker" in str(info.value) and "dead worker" in info.value.stderr_tail


async def test_initialize_error_response_carries_the_stderr_tail(tmp_path: Path) -> None:
    harness = peer(tmp_path, "init-error")
    with pytest.raises(JsonRpcError) as info:
        await harness.start()
    assert "model route unavailable" in str(info.value)
    assert "cannot resolve model route" in str(info.value)
    assert "cannot resolve model route" in info.value.stderr_tail


async def test_wrong_identity_error_carries_the_stderr_tail(tmp_path: Path) -> None:
    harness = fake_harness(tmp_path, scenario_args={"server_name": "someone-else"})
    with pytest.raises(SdkProtocolError) as info:
        await harness.start()
    assert isinstance(info.value.stderr_tail, str)


# -- item 4: one start, one owner, safe concurrent close ------------------------------------------


async def test_a_failed_harness_refuses_to_start_again_and_spawns_nothing(tmp_path: Path) -> None:
    harness = fake_harness(tmp_path, "no-initialize", initialize_timeout=0.2)
    with pytest.raises(RequestTimeout):
        await harness.start()
    first = harness.pid
    with pytest.raises(ConfigError, match="cannot start again"):
        await harness.start()
    assert harness.pid == first and first is not None and not alive(first)
    await harness.close()  # still fine


async def test_a_closed_client_refuses_to_start_again(tmp_path: Path) -> None:
    harness = fake_harness(tmp_path)
    client = harness.client
    await client.start()
    pid = client.pid
    await client.aclose()
    with pytest.raises(ConfigError, match="cannot start again"):
        await client.start()
    assert client.pid == pid and pid is not None and not alive(pid)
    never = HarnessClient()
    await never.aclose()
    with pytest.raises(ConfigError):
        await never.start()


async def test_concurrent_close_from_sibling_tasks_is_safe_and_leaks_no_cancellation(
    tmp_path: Path,
) -> None:
    harness = fake_harness(tmp_path)
    await harness.start()
    pid = harness.pid
    assert pid is not None
    finished: list[str] = []

    async def unrelated() -> None:
        await anyio.sleep(0.5)
        finished.append("unrelated")

    async def closer(name: str) -> None:
        await harness.close()
        assert not alive(pid)
        finished.append(name)

    with anyio.fail_after(15):
        async with anyio.create_task_group() as tg:
            tg.start_soon(unrelated)
            tg.start_soon(closer, "a")
            tg.start_soon(closer, "b")
        await anyio.sleep(0.05)  # the starting task itself is not cancelled either
    assert sorted(finished) == ["a", "b", "unrelated"]
    await harness.close()


async def test_close_from_another_task_than_start(tmp_path: Path) -> None:
    harness = fake_harness(tmp_path)
    async with anyio.create_task_group() as tg:
        tg.start_soon(harness.start)
    result = await harness.start_session().run("hello")
    assert result.finish_reason == "completed"
    async with anyio.create_task_group() as tg:
        tg.start_soon(harness.close)
    assert harness.pid is not None and not alive(harness.pid)


# -- item 11: the runtime's exit is noticed even when its stdout stays open ----------------------


async def test_runtime_exit_with_a_grandchild_holding_stdout_fails_pending_work(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    async with peer(tmp_path, "grandchild", close_grace=0.3) as harness:
        with anyio.fail_after(15), pytest.raises(TransportClosed) as info:
            await harness.start_session().run("hi")
    assert time.monotonic() - started < 10
    assert info.value.exit_status == 5
    assert "worker lost" in info.value.stderr_tail


async def test_a_run_timeout_is_a_typed_timeout_with_the_stderr_tail(tmp_path: Path) -> None:
    async with peer(tmp_path, "prompt-hang", close_grace=0.3) as harness:
        with pytest.raises(RequestTimeout) as info:
            await harness.start_session().run("hi", timeout=0.3)
    assert isinstance(info.value, TimeoutError)
    assert "dead worker" in info.value.stderr_tail
