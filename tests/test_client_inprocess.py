"""The async client against ``MockRuntime``: an in-process peer, no subprocess.

What the client does on its own (handshake, the run algorithm, answering server requests, error
classification, local prompt validation) is checked here, fast, on asyncio and trio; the process
side (spawn, crash, close ladder) stays in ``test_client_fake_runtime.py``.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import anyio
import pytest

from dsh_notebook import (
    JsonRpcError,
    MethodNotFound,
    RequestTimeout,
    SdkProtocolError,
    SessionNotFound,
    TransportClosed,
    UnsupportedByRuntime,
)
from dsh_notebook.errors import PromptError
from dsh_notebook.protocol import ApprovalRequest, Notification, UserQuestionAsk
from dsh_notebook.testing import MockRuntime, standard_reply

pytestmark = pytest.mark.anyio


# -- a tiny scripted runtime: one turn per prompt, answered by session/wait ---------------------


class OneTurnRuntime:
    """Answers each ``session/prompt`` like the runtime: the receipt and ``turn/start`` before the
    ``{messageId}`` response, the answer and ``turn/end`` before ``session/wait`` returns.

    Events of another session ("bystander") are interleaved to check the client's routing.
    """

    def __init__(self, reply: str = "Hello from the mock.") -> None:
        self.reply = reply
        self.runtime = MockRuntime(self.handle)
        self._seq = itertools.count()
        self._ids = itertools.count(1)
        self.turns: dict[str, str] = {}  # session -> text of the turn still to finish

    async def event(self, session_id: str, etype: str, data: dict[str, Any]) -> None:
        await self.runtime.notify(
            "session.event",
            {
                "sessionId": session_id,
                "event": {"type": etype, "seq": next(self._seq), "time": 0, "data": data},
            },
        )

    async def handle(self, method: str, params: dict[str, Any] | None) -> Any:
        assert params is not None or method in ("initialize", "shutdown")
        if method == "session/prompt":
            assert params is not None
            sid, blocks = params["sessionId"], params["contentBlocks"]
            message_id = f"msg-{next(self._ids)}"
            await self.event(sid, "permission/preset", {"preset": "workspace-write"})
            await self.event(
                sid,
                "agent/inbox/spliced",
                {"inserted": [{"id": message_id, "role": "user", "content": blocks}]},
            )
            await self.runtime.notify("session.status", {"sessionId": sid, "status": "running"})
            await self.event(sid, "turn/start", {"turn": 1})
            await self.event("bystander", "turn/start", {"turn": 1})
            text = blocks[0].get("text", "")
            self.turns[sid] = (
                text.split("]]", 1)[0][len("[[reply:") :] if "[[reply:" in text else ""
            )
            return {"messageId": message_id}
        if method == "session/wait":
            assert params is not None
            sid = params["sessionId"]
            if sid in self.turns:
                answer = self.turns.pop(sid) or self.reply
                message = {"role": "assistant", "content": [{"type": "text", "text": answer}]}
                await self.event(sid, "assistant/message", {"turn": 1, "message": message})
                await self.event("bystander", "assistant/message", {"turn": 1, "message": message})
                await self.event(sid, "turn/end", {"turn": 1, "reason": {"kind": "completed"}})
                await self.runtime.notify("session.status", {"sessionId": sid, "status": "idle"})
            return {}
        return standard_reply(method, params)


# -- handshake -----------------------------------------------------------------------------------


async def test_handshake_sends_the_config_and_opts_in_only_with_handlers(tmp_path: Path) -> None:
    async def on_approval(request: ApprovalRequest) -> str:
        return "rejected"

    async with (
        MockRuntime() as runtime,
        runtime.harness(cwd=tmp_path, on_approval=on_approval) as harness,
    ):
        assert harness.server_info is not None
        assert harness.server_info.server_info.name == "deepseek-harness-sdk-runtime"
        assert harness.pid is None  # no process behind the streams
    (init,) = runtime.requests("initialize")
    assert init["params"]["cwd"] == str(tmp_path)
    assert init["params"]["approvalRequests"] is True
    assert "capabilities" not in init["params"]  # no question handler: not opted in
    assert runtime.requests("shutdown") == []  # streams are the caller's: no close ladder


async def test_wrong_server_identity_is_a_protocol_error(tmp_path: Path) -> None:
    def handler(method: str, params: dict[str, Any] | None) -> Any:
        if method == "initialize":
            return {"serverInfo": {"name": "someone-else", "version": "1"}}
        return standard_reply(method, params)

    async with MockRuntime(handler) as runtime:
        harness = runtime.harness(cwd=tmp_path)
        with pytest.raises(SdkProtocolError, match="someone-else"):
            await harness.start()
        assert harness.client.closing


async def test_initialize_that_never_answers_times_out_naming_the_profile(tmp_path: Path) -> None:
    from dsh_notebook.transport import NoResponse

    def handler(method: str, params: dict[str, Any] | None) -> Any:
        raise NoResponse

    async with MockRuntime(handler) as runtime:
        harness = runtime.harness(cwd=tmp_path, initialize_timeout=0.2)
        with pytest.raises(RequestTimeout, match="initialize") as caught:
            await harness.start()
    assert caught.value.profile == harness.config.profile


# -- a run ---------------------------------------------------------------------------------------


async def test_run_collects_from_the_receipt_until_session_wait_returns(tmp_path: Path) -> None:
    fake = OneTurnRuntime()
    seen: list[Notification] = []
    async with fake.runtime, fake.runtime.harness(cwd=tmp_path) as harness:
        result = await harness.start_session("s1").run("hello", on_notification=seen.append)
    assert result.session_id == "s1"
    assert result.final_response == "Hello from the mock."
    assert result.finish_reason == "completed"
    types = [e.type for e in result.events]
    # the interval starts at the receipt; the session-creation event before it is not in it
    assert types == ["agent/inbox/spliced", "turn/start", "assistant/message", "turn/end"]
    assert result.notifications[-1].method == "session.status"
    assert all(n.params.get("sessionId") == "s1" for n in result.notifications)  # no bystander
    assert seen == result.notifications
    methods = [f["method"] for f in fake.runtime.requests()]
    assert methods == ["initialize", "session/prompt", "session/wait"]
    prompt = fake.runtime.requests("session/prompt")[0]["params"]
    assert prompt == {"sessionId": "s1", "contentBlocks": [{"type": "text", "text": "hello"}]}


async def test_concurrent_sessions_get_their_own_answers(tmp_path: Path) -> None:
    fake = OneTurnRuntime()
    results: dict[str, str] = {}
    async with fake.runtime, fake.runtime.harness(cwd=tmp_path) as harness:

        async def one(name: str) -> None:
            result = await harness.start_session(name).run(f"[[reply:answer {name}]] go")
            results[name] = result.final_response

        async with anyio.create_task_group() as tg:
            for name in ("a", "b", "c"):
                tg.start_soon(one, name)
    assert results == {n: f"answer {n}" for n in "abc"}


async def test_settling_without_the_receipt_is_a_protocol_error(tmp_path: Path) -> None:
    def handler(method: str, params: dict[str, Any] | None) -> Any:
        if method == "session/prompt":
            return {"messageId": "never-spliced"}
        return standard_reply(method, params)

    async with MockRuntime(handler) as runtime, runtime.harness(cwd=tmp_path) as harness:
        with pytest.raises(SdkProtocolError, match="never-spliced"):
            await harness.start_session("s").run("hi")


async def test_runtime_gone_mid_run_fails_the_run_with_transport_closed(tmp_path: Path) -> None:
    started = anyio.Event()

    async def handler(method: str, params: dict[str, Any] | None) -> Any:
        if method == "session/prompt":
            started.set()
            await anyio.sleep_forever()
        return standard_reply(method, params)

    async with (
        MockRuntime(handler) as runtime,
        runtime.harness(cwd=tmp_path) as harness,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(_close_when, started, runtime)
        with pytest.raises(TransportClosed):
            await harness.start_session("s").run("hi")


async def _close_when(event: anyio.Event, runtime: MockRuntime) -> None:
    await event.wait()
    await runtime.disconnect()


# -- server -> client requests --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("allowed-once", "allowed-once"),
        ({"outcome": "allowed-once"}, "allowed-once"),
        ("rejected", "rejected"),
        ("cancelled", "cancelled"),
        ("ALLOWED", "rejected"),  # outside the vocabulary: never a grant
        ({"outcome": "allowed-once", "extra": 1}, "rejected"),
        (ValueError("handler bug"), "rejected"),
    ],
)
async def test_approval_request_is_answered_fail_closed(
    tmp_path: Path, answer: Any, expected: str
) -> None:
    asked: list[ApprovalRequest] = []

    async def on_approval(request: ApprovalRequest) -> Any:
        asked.append(request)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async with MockRuntime() as runtime, runtime.harness(cwd=tmp_path, on_approval=on_approval):
        params = {"sessionId": "ap", "toolName": "bash", "callId": "call-1", "reason": "why"}
        result = await runtime.request("approval/request", params)
    assert result == {"outcome": expected}
    assert [(a.session_id, a.tool_name, a.call_id) for a in asked] == [("ap", "bash", "call-1")]


async def test_approval_handler_timeout_answers_cancelled(tmp_path: Path) -> None:
    async def on_approval(request: ApprovalRequest) -> str:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async with (
        MockRuntime() as runtime,
        runtime.harness(cwd=tmp_path, on_approval=on_approval, approval_timeout=0.1),
    ):
        params = {"sessionId": "ap", "toolName": "bash"}
        assert await runtime.request("approval/request", params) == {"outcome": "cancelled"}


async def test_question_request_reaches_the_handler_and_its_answer_comes_back(
    tmp_path: Path,
) -> None:
    async def on_question(ask: UserQuestionAsk) -> Any:
        return [{"id": ask.questions[0].id, "selected": ["Blue"]}]

    params = {
        "requestId": "q1",
        "sessionId": "s",
        "questions": [{"id": "color", "question": "Which?", "options": [{"label": "Blue"}]}],
    }
    async with (
        MockRuntime() as runtime,
        runtime.harness(cwd=tmp_path, on_user_question=on_question),
    ):
        result = await runtime.request("user-question/ask", params)
    assert result == {"answers": [{"id": "color", "selected": ["Blue"]}]}
    assert runtime.requests("initialize")[0]["params"]["capabilities"] == {"userQuestions": True}


async def test_unknown_server_request_is_answered_method_not_found(tmp_path: Path) -> None:
    async with MockRuntime() as runtime, runtime.harness(cwd=tmp_path):
        with pytest.raises(MethodNotFound) as caught:
            await runtime.request("plugin/unknown", {"x": 1})
    assert caught.value.code == -32601


# -- error responses --------------------------------------------------------------------------------


async def test_error_responses_are_classified_with_code_message_and_data(tmp_path: Path) -> None:
    def handler(method: str, params: dict[str, Any] | None) -> Any:
        if method == "session/resume":
            raise JsonRpcError(-32603, 'session "gone" not found', {"hint": 1})
        if method == "session/working-directory/get":
            raise RuntimeError("disk on fire")
        return standard_reply(method, params)

    async with MockRuntime(handler) as runtime, runtime.harness(cwd=tmp_path) as harness:
        with pytest.raises(SessionNotFound) as missing:
            await harness.resume_session("gone")
        with pytest.raises(JsonRpcError, match="disk on fire") as failed:
            await harness.start_session("s").get_working_directory()
    assert (missing.value.code, missing.value.message) == (-32603, 'session "gone" not found')
    assert missing.value.data == {"hint": 1} and missing.value.method == "session/resume"
    assert failed.value.code == -32603 and type(failed.value) is JsonRpcError


async def test_session_query_unsupported_is_detected_once(tmp_path: Path) -> None:
    fake = OneTurnRuntime()
    async with fake.runtime, fake.runtime.harness(cwd=tmp_path) as harness:
        session = harness.start_session()
        with pytest.raises(UnsupportedByRuntime):
            await session.query("/help")
        assert harness.client._query_supported is False
        with pytest.raises(UnsupportedByRuntime, match="not served"):
            await session.query("/help")
        assert (await session.run("still usable")).finish_reason == "completed"
    assert len(fake.runtime.requests("session/query")) == 1  # the second was answered locally


async def test_bad_prompt_is_rejected_locally_and_session_stays_usable(tmp_path: Path) -> None:
    fake = OneTurnRuntime()
    async with fake.runtime, fake.runtime.harness(cwd=tmp_path) as harness:
        session = harness.start_session()
        with pytest.raises(PromptError):
            await session.run([{"type": "audio", "data": "AAAA"}])
        assert (await session.run("fine")).finish_reason == "completed"
    assert len(fake.runtime.requests("session/prompt")) == 1  # the bad one never left


async def test_malformed_lines_are_counted_and_survived(tmp_path: Path) -> None:
    fake = OneTurnRuntime()
    async with fake.runtime, fake.runtime.harness(cwd=tmp_path) as harness:
        for line in ("not json", "[1, 2]", "42", '{"jsonrpc": "2.0", "id": "nobody", "result": 1}'):
            await fake.runtime.send_line(line)
        result = await harness.start_session().run("go")
        assert harness.client.transport is not None
        assert harness.client.transport.malformed_lines >= 3
    assert result.finish_reason == "completed"


def test_the_testing_package_imports_neither_pytest_nor_jupyter() -> None:
    """Only the pytest plugin (loaded by pytest) and ``testing.comms`` import those."""
    import subprocess
    import sys

    code = (
        "import sys, dsh_notebook.testing\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pytest', '_pytest', 'IPython', 'ipykernel', 'ipywidgets', 'anywidget', 'comm'))\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
