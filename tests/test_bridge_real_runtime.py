"""Integration suite for the notebook bridge: the client against the real DeepSeek Harness runtime
loaded with ``dsh_notebook/bridge/notebook-bridge.patch.yml`` and the scripted model endpoint on
127.0.0.1. Every check looks at the effect (files on disk, tool results, decided outcomes, wire
order), not only at the absence of errors. Nothing leaves the machine."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from dsh_notebook import TransportClosed
from dsh_notebook.protocol import (
    ASSISTANT_STREAM,
    BRIDGE_READY,
    ApprovalRequest,
    Notification,
    UserQuestionAsk,
)
from dsh_notebook.scripted_model import Script, ScriptContext, ScriptedModelServer, Step, ToolCall
from dsh_notebook.testing.harnesses import group_alive, real_harness

pytestmark = [
    pytest.mark.real_runtime,  # skipped without the runtime wheel; asyncio only (the plugin)
    pytest.mark.anyio,
]

ESCALATE_REASON = (
    "escalate sandbox to danger-full-access: The integration test must write outside the workspace."
)
ASK_PROMPT = "[[scenario:ask]] ask me"


def _child_call(scenario: str) -> Any:
    """Step factory: a subagent call whose child prompt runs ``scenario`` (tags passed on)."""

    def factory(ctx: ScriptContext) -> Step:
        extra = " ".join(f"[[{k}:{v}]]" for k, v in ctx.tags.items() if k != "scenario")
        prompt = f"[[scenario:{scenario}]] {extra} do the child part."
        return Step(
            tool_calls=(ToolCall("subagent", {"description": "child task", "prompt": prompt}),)
        )

    return factory


def _sandboxed_touch(ctx: ScriptContext) -> Step:
    command = f"touch {shlex.quote(ctx.tags['target'])} && echo touched"
    return Step(tool_calls=(ToolCall("bash", {"description": "touch", "command": command}),))


@pytest.fixture(scope="module")
def scripted_model_scripts() -> dict[str, Script]:
    scripts = {
        name: Script(
            steps=(
                _child_call(child),
                Step(text="Waiting for the child."),
                Step(text="The child has finished."),
            ),
            after_last=Step(text="The child has finished."),
        )
        for name, child in (("sub-escalate", "escalate"), ("sub-ask", "ask"))
    }
    # control: the same touch without asking for a wider sandbox
    scripts["touch-sandboxed"] = Script(
        steps=(_sandboxed_touch, Step(text="The touch attempt is finished."))
    )
    return scripts


# -- helpers ------------------------------------------------------------------------------------


def events_of(result: Any, kind: str) -> list[Any]:
    return [e for e in result.events if e.type == kind]


def tool_results(result: Any) -> list[dict[str, Any]]:
    """The root's ``tool/result`` messages, with the joined text under ``"text"``."""
    return [tool_message(event.data) for event in events_of(result, "tool/result")]


def tool_message(data: dict[str, Any]) -> dict[str, Any]:
    """A ``tool/result`` event's message, plus the joined ``text`` and the event's ``error``."""
    message = dict(data["message"])
    message["text"] = "".join(b.get("text", "") for b in message["content"])
    message["error"] = data.get("error") or {}
    return message


def child_events(result: Any, child: str, kind: str | None = None) -> list[dict[str, Any]]:
    out = []
    for n in result.notifications:
        if n.method == "session.event" and n.params.get("sessionId") == child:
            event = n.params["event"]
            if kind is None or event["type"] == kind:
                out.append(event)
    return out


def decided(result: Any) -> list[str]:
    return [e.data["outcome"] for e in events_of(result, "approval/decided")]


def assert_not_run(result: Any, target: Path, outcome: str) -> None:
    """The escalated command did not run: no file, the expected decision, no command output."""
    assert not target.exists()
    assert decided(result) == [outcome]
    (tool,) = tool_results(result)
    assert "touched" not in tool["text"]


def escalate_prompt(target: Path) -> str:
    return f"[[scenario:escalate]] [[target:{target}]] touch the file"


def outside_target(tmp_path: Path) -> Path:
    """A path outside the workspace (``tmp_path/workspace``): only an escalation may create it."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    return outside / "escalated.txt"


async def run_escalation(
    tmp_path: Path, scripted_model: ScriptedModelServer, session_id: str, **fields: Any
) -> tuple[Any, Path]:
    target = outside_target(tmp_path)
    async with real_harness(tmp_path, scripted_model, bridge=True, **fields) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session(session_id).run(escalate_prompt(target))
    assert result.finish_reason == "completed"
    return result, target


def root_stream_frames(result: Any) -> list[tuple[int, dict[str, Any]]]:
    """(position in notifications, frame) of the root's ``session.assistant_stream`` frames."""
    return [
        (i, n.params["frame"])
        for i, n in enumerate(result.notifications)
        if n.method == ASSISTANT_STREAM and n.params.get("sessionId") == result.session_id
    ]


def joined_text_deltas(frames: list[tuple[int, dict[str, Any]]]) -> str:
    """The text deltas of chunk frames, in order (coalesced frames carry concatenated text)."""
    return "".join(
        f["chunk"]["text"]
        for _, f in frames
        if f["type"] == "chunk" and f["chunk"]["type"] == "text-delta"
    )


# -- 1. approvals for an escalating bash call ------------------------------------------------------


async def test_escalation_allowed_once_runs_the_command(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    seen: list[ApprovalRequest] = []

    async def allow(request: ApprovalRequest) -> str:
        seen.append(request)
        return "allowed-once"

    result, target = await run_escalation(tmp_path, scripted_model, "esc-allow", on_approval=allow)
    assert target.exists(), "allowed-once must run the escalated command"
    assert decided(result) == ["allowed-once"]
    (request,) = seen
    (call,) = events_of(result, "tool/call")
    assert request.session_id == "esc-allow"
    assert request.tool_name == "bash"
    assert request.call_id is not None and request.call_id == call.data["callId"]
    assert request.reason == ESCALATE_REASON
    (tool,) = tool_results(result)
    assert not tool["isError"] and "touched" in tool["text"]
    # the asked event comes before the decision, both in the root's durable log
    types = [e.type for e in result.events]
    assert types.index("approval/asked") < types.index("approval/decided")


async def test_control_the_sandbox_alone_cannot_write_outside(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """Without escalation the target stays absent, so its presence proves an escalated run."""
    calls: list[ApprovalRequest] = []

    async def allow(request: ApprovalRequest) -> str:
        calls.append(request)
        return "allowed-once"

    target = outside_target(tmp_path)
    async with real_harness(tmp_path, scripted_model, bridge=True, on_approval=allow) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("control").run(
                f"[[scenario:touch-sandboxed]] [[target:{target}]] touch"
            )
    assert calls == [] and decided(result) == []
    (tool,) = tool_results(result)
    assert "touched" not in tool["text"] and "exit code" in tool["text"]
    assert not target.exists()


async def test_escalation_rejected_does_not_run(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    async def reject(request: ApprovalRequest) -> str:
        return "rejected"

    result, target = await run_escalation(
        tmp_path, scripted_model, "esc-reject", on_approval=reject
    )
    assert_not_run(result, target, "rejected")
    (tool,) = tool_results(result)
    assert "user rejected" in tool["text"]


async def test_escalation_without_handler_is_rejected(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    result, target = await run_escalation(tmp_path, scripted_model, "esc-none", on_approval=None)
    assert_not_run(result, target, "rejected")


async def test_escalation_handler_error_is_rejected(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    calls = 0

    async def broken(request: ApprovalRequest) -> str:
        nonlocal calls
        calls += 1
        raise RuntimeError("the approval widget crashed")

    result, target = await run_escalation(tmp_path, scripted_model, "esc-raise", on_approval=broken)
    assert calls == 1
    assert_not_run(result, target, "rejected")


async def test_escalation_unanswered_handler_times_out_cancelled(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    cancelled = anyio.Event()

    async def never(request: ApprovalRequest) -> str:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        return "allowed-once"  # pragma: no cover - unreachable

    result, target = await run_escalation(
        tmp_path, scripted_model, "esc-timeout", on_approval=never, approval_timeout=1
    )
    assert cancelled.is_set()
    assert_not_run(result, target, "cancelled")
    (tool,) = tool_results(result)
    assert "cancelled" in tool["text"]


async def test_close_while_approval_pending_does_not_run_or_hang(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    target = outside_target(tmp_path)
    asked = anyio.Event()
    handler_cancelled = anyio.Event()
    outcome: list[object] = []

    async def blocked(request: ApprovalRequest) -> str:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            handler_cancelled.set()
        return "allowed-once"  # pragma: no cover - unreachable

    harness = real_harness(tmp_path, scripted_model, bridge=True, on_approval=blocked)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            await harness.start()  # the client's task group nests inside ours: close() is legal
            pid = harness.pid
            assert pid is not None

            async def run() -> None:
                try:
                    outcome.append(
                        await harness.start_session("esc-close").run(escalate_prompt(target))
                    )
                except TransportClosed as exc:
                    outcome.append(exc)

            try:
                tg.start_soon(run)
                await asked.wait()
            finally:
                await harness.close()
    # The run ended (no hang) with a typed error: the runtime answers the pending session/wait
    # while it shuts down, and the client does not pass that off as a settled run.
    assert len(outcome) == 1
    (ended,) = outcome
    assert isinstance(ended, TransportClosed), ended
    assert handler_cancelled.is_set()
    assert not target.exists()
    assert not group_alive(pid)


# -- 2. read-only mode ---------------------------------------------------------------------------


async def test_read_only_write_asks_and_writes_when_allowed(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    seen: list[ApprovalRequest] = []

    async def allow(request: ApprovalRequest) -> str:
        seen.append(request)
        return "allowed-once"

    written = tmp_path / "workspace" / "readonly-written.txt"
    async with real_harness(
        tmp_path, scripted_model, bridge=True, on_approval=allow, permission_mode="read-only"
    ) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("ro").run("[[scenario:readonly-write]] write")
    assert len(seen) == 1 and seen[0].tool_name == "write" and seen[0].session_id == "ro"
    assert decided(result) == ["allowed-once"]
    assert written.read_text() == "written by the scripted model\n"


# -- 3. ask_user_question ------------------------------------------------------------------------


async def run_question(
    tmp_path: Path,
    scripted_model: ScriptedModelServer,
    handler: Any,
    session_id: str,
    **fields: Any,
) -> Any:
    async with real_harness(
        tmp_path, scripted_model, bridge=True, on_user_question=handler, **fields
    ) as harness:
        with anyio.fail_after(60):
            return await harness.start_session(session_id).run(ASK_PROMPT)


async def test_question_answered_with_a_label(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    seen: list[UserQuestionAsk] = []

    async def answer(ask: UserQuestionAsk) -> Any:
        seen.append(ask)
        return [{"id": "color", "selected": ["Blue"]}]

    result = await run_question(tmp_path, scripted_model, answer, "q-label")
    (ask,) = seen
    assert ask.session_id == "q-label"
    assert [q.id for q in ask.questions] == ["color"]
    assert [o.label for o in ask.questions[0].options or []] == ["Red", "Blue"]
    (tool,) = tool_results(result)
    assert not tool["isError"]
    assert json.loads(tool["text"]) == {"answers": [{"id": "color", "selected": ["Blue"]}]}
    assert result.final_response == "Thanks for answering."


async def test_question_answered_with_free_text(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    async def answer(ask: UserQuestionAsk) -> Any:
        return [{"id": "color", "selected": [], "custom": "Green, please"}]

    result = await run_question(tmp_path, scripted_model, answer, "q-custom")
    (tool,) = tool_results(result)
    assert json.loads(tool["text"]) == {
        "answers": [{"id": "color", "selected": [], "custom": "Green, please"}]
    }


async def test_question_dismissed(tmp_path: Path, scripted_model: ScriptedModelServer) -> None:
    async def dismiss(ask: UserQuestionAsk) -> None:
        return None

    result = await run_question(tmp_path, scripted_model, dismiss, "q-dismiss")
    (tool,) = tool_results(result)
    assert tool["isError"]
    assert tool["error"] == {"name": "UserQuestionError", "code": "ASK_CANCELLED"}
    assert "cancelled" in tool["text"]


async def test_question_runtime_timeout_withdraws_the_handler(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    cancelled = anyio.Event()
    asked: list[UserQuestionAsk] = []

    async def forever(ask: UserQuestionAsk) -> Any:
        asked.append(ask)
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    env = {"DSH_NOTEBOOK_QUESTION_TIMEOUT": "2"}
    async with real_harness(
        tmp_path, scripted_model, bridge=True, on_user_question=forever, env=env
    ) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("q-timeout").run(ASK_PROMPT)
        # withdrawn by the notification, not by closing the harness
        with anyio.fail_after(2):
            await cancelled.wait()
        assert len(harness.pending) == 0
    (ask,) = asked
    withdrawn = [n for n in result.notifications if n.method == "user-question.cancelled"]
    assert [n.params for n in withdrawn] == [
        {"requestId": ask.request_id, "sessionId": "q-timeout"}
    ]
    (tool,) = tool_results(result)
    assert json.loads(tool["text"])["pending"] is True


# -- 4. live model stream ------------------------------------------------------------------------


@pytest.mark.parametrize("coalesce_ms", [0, 20])
async def test_long_stream_precedes_the_message_and_equals_it(
    tmp_path: Path, scripted_model: ScriptedModelServer, coalesce_ms: int
) -> None:
    chunks = 2500
    env = {"DSH_NOTEBOOK_STREAM_COALESCE_MS": str(coalesce_ms)}
    async with real_harness(tmp_path, scripted_model, bridge=True, env=env) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("long").run(
                f"[[scenario:long]] [[chunks:{chunks}]] talk a lot"
            )
    expected = " ".join(f"w{i}" for i in range(chunks))
    assert result.final_response == expected
    frames = root_stream_frames(result)
    assert frames, "no session.assistant_stream notification reached the run"
    (message_pos,) = [
        i
        for i, n in enumerate(result.notifications)
        if n.method == "session.event"
        and n.params.get("sessionId") == "long"
        and n.params["event"]["type"] == "assistant/message"
    ]
    message_seq = result.notifications[message_pos].params["event"]["seq"]
    chunk_frames = [(i, f) for i, f in frames if f["type"] == "chunk"]
    text_frames = [f for _, f in chunk_frames if f["chunk"]["type"] == "text-delta"]
    # every model delta is covered exactly once (a coalesced frame spans index … lastIndex)
    assert sum(f.get("lastIndex", f["index"]) - f["index"] + 1 for f in text_frames) == chunks
    if coalesce_ms == 0:
        assert len(text_frames) == chunks and not any("lastIndex" in f for f in text_frames)
    else:
        assert len(text_frames) < chunks and any("lastIndex" in f for f in text_frames)
    assert all(i < message_pos for i, f in frames if f["type"] in ("start", "chunk"))
    ends = [(i, f) for i, f in frames if f["type"] == "end"]
    assert len(ends) == 1 and ends[0][0] > message_pos
    assert ends[0][1]["outcome"] == {
        "kind": "committed",
        "eventType": "assistant/message",
        "seq": message_seq,
    }
    # chunk indices are gap-free (read as index … lastIndex on coalesced frames)
    next_index = 0
    for _, f in chunk_frames:
        assert f["index"] == next_index
        next_index = f.get("lastIndex", f["index"]) + 1
    assert joined_text_deltas(frames) == expected


async def test_slow_stream_arrives_live(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    first_delta: list[float] = []
    turn_end: list[float] = []

    def clock(n: Notification) -> None:
        if n.params.get("sessionId") != "slow":
            return
        if n.method == ASSISTANT_STREAM:
            frame = n.params["frame"]
            is_text = frame["type"] == "chunk" and frame["chunk"]["type"] == "text-delta"
            if is_text and not first_delta:
                first_delta.append(time.monotonic())
        elif n.method == "session.event" and n.params["event"]["type"] == "turn/end":
            turn_end.append(time.monotonic())

    async with real_harness(tmp_path, scripted_model, bridge=True) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("slow").run("[[scenario:slow]] slowly", clock)
    assert first_delta and len(turn_end) == 1
    assert turn_end[0] - first_delta[0] >= 1.0
    assert joined_text_deltas(root_stream_frames(result)) == result.final_response
    assert result.final_response.startswith("slow0 slow1")


# -- 5. subagent children never reach the client --------------------------------------------------


async def test_child_escalation_is_rejected_inside_the_runtime(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    calls: list[ApprovalRequest] = []

    async def allow(request: ApprovalRequest) -> str:
        calls.append(request)
        return "allowed-once"

    target = outside_target(tmp_path)
    async with real_harness(tmp_path, scripted_model, bridge=True, on_approval=allow) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("par-esc").run(
                f"[[scenario:sub-escalate]] [[target:{target}]] delegate"
            )
    started = [n for n in result.notifications if n.method == "subagent.started"]
    assert len(started) == 1
    child = started[0].params["childSessionId"]
    assert calls == [], "a child's escalation must not reach the client handler"
    assert not target.exists()
    assert len(child_events(result, child, "approval/asked")) == 1
    assert [e["data"]["outcome"] for e in child_events(result, child, "approval/decided")] == [
        "rejected"
    ]
    # the child's tool call did run through the approval step, not around it
    child_results = [tool_message(e["data"]) for e in child_events(result, child, "tool/result")]
    assert len(child_results) == 1
    assert "rejected" in child_results[0]["text"]
    assert decided(result) == []  # nothing was asked in the root


async def test_child_question_fails_delegated_caller(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    calls: list[UserQuestionAsk] = []

    async def answer(ask: UserQuestionAsk) -> Any:
        calls.append(ask)
        return [{"id": "color", "selected": ["Blue"]}]

    async with real_harness(
        tmp_path, scripted_model, bridge=True, on_user_question=answer
    ) as harness:
        with anyio.fail_after(60):
            result = await harness.start_session("par-ask").run("[[scenario:sub-ask]] delegate")
    (started,) = [n for n in result.notifications if n.method == "subagent.started"]
    child = started.params["childSessionId"]
    assert calls == []
    (child_result,) = [tool_message(e["data"]) for e in child_events(result, child, "tool/result")]
    assert child_result["isError"]
    assert child_result["error"].get("code") == "DELEGATED_CALLER"


# -- 6. RunResult shape and the ready announcement ------------------------------------------------


async def test_events_are_exactly_the_runtime_events_and_ready_is_announced(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    tapped: list[Notification] = []
    harness = real_harness(tmp_path, scripted_model, bridge=True)
    harness.client.router.add_tap(tapped.append)  # before start: sees the pre-initialize frame
    async with harness:
        with anyio.fail_after(60):
            result = await harness.start_session("shape").run("[[scenario:bash]] run it")
    ready = [n for n in tapped if n.method == BRIDGE_READY]
    assert len(ready) == 1
    assert ready[0].params["version"] == 1
    assert set(ready[0].params["features"]) == {
        "approval/request",
        "user-question/ask",
        "session.assistant_stream",
    }
    assert tapped.index(ready[0]) == 0, "bridge.ready is the first frame of the run"
    assert (tmp_path / "workspace" / "bash-out.txt").read_text().strip() == "hello-from-bash"
    # events == the root's session.event payloads, in order; stream frames are only notifications
    root_events = [
        n.params["event"]
        for n in result.notifications
        if n.method == "session.event" and n.params.get("sessionId") == "shape"
    ]
    assert [
        e.model_dump(mode="json", by_alias=True, exclude_unset=True) for e in result.events
    ] == (root_events)
    assert not any(e.type.startswith("session.") or "frame" in e.data for e in result.events)
    streams = [n for n in result.notifications if n.method == ASSISTANT_STREAM]
    assert streams, "the bridge relays the model stream"
    starts = [f for _, f in root_stream_frames(result) if f["type"] == "start"]
    assert len(starts) == len(events_of(result, "assistant/message")) == 2
