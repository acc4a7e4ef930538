"""Unit tests of the scripted fake model endpoint, over real HTTP on 127.0.0.1 (no runtime)."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import (
    BUILTIN_SCRIPTS,
    REDACTED,
    AfterReply,
    HttpError,
    Script,
    ScriptContext,
    ScriptedModelServer,
    Step,
    ToolCall,
    analyze_request,
    long_text_chunks,
)
from dsh_notebook.scripted_model.builtin import (
    BASH_COMMAND,
    CHILD_ANSWER,
    CHILD_PROMPT,
    ESCALATE_DEFAULT_PREFIX,
    PLAIN_ANSWER,
    SUBAGENT_FINAL,
    SUBAGENT_INTERIM,
)

REPO = Path(__file__).resolve().parents[1]
RUNTIME_CONTEXT = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\n"
    'Current working directory: "/ws".'
)
CHILD_INSTRUCTION = (
    'Your parent agent id is "sub-1". Before you finish, send your result to that agent with '
    "send_message(...)."
)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


class Reply:
    def __init__(self, status: int, headers: dict[str, str], raw: bytes) -> None:
        self.status = status
        self.headers = headers
        self.raw = raw

    def json(self) -> Any:
        return json.loads(self.raw)

    def events(self) -> list[dict[str, Any]]:
        return parse_sse(self.raw)


def parse_sse(raw: bytes) -> list[dict[str, Any]]:
    """Strict SSE parser: every event is ``event: X`` + ``data: {json}`` with ``type == X``."""
    text = raw.decode()
    assert text.endswith("\n\n"), "stream must end with a blank line"
    events: list[dict[str, Any]] = []
    for block in text.split("\n\n"):
        if not block:
            continue
        lines = block.split("\n")
        assert len(lines) == 2, block
        assert lines[0].startswith("event: "), block
        assert lines[1].startswith("data: "), block
        data = json.loads(lines[1][len("data: ") :])
        assert data["type"] == lines[0][len("event: ") :]
        events.append(data)
    return events


def post(
    server: ScriptedModelServer,
    body: Any,
    *,
    path: str = "/v1/messages",
    headers: dict[str, str] | None = None,
    timeout: float = 5.0,
) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs = {"content-type": "application/json", "accept": "text/event-stream"}
        hdrs.update(headers or {})
        conn.request("POST", path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw)
    finally:
        conn.close()


def user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def prompt_body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "deepseek-flash", "stream": True, "messages": list(messages), **extra}


def assistant_tool(call_id: str = "toolu_x", name: str = "bash") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": call_id, "name": name, "input": {}}],
    }


def assistant_text(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_result(call_id: str = "toolu_x", text: str = "ok\n") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": [{"type": "text", "text": text}],
                "is_error": False,
            }
        ],
    }


def session_log(*events: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "version": 1,
        "events": [{"seq": i, "type": t, "data": d} for i, (t, d) in enumerate(events)],
    }


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["delta"]["text"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
    )


def deltas_of(events: list[dict[str, Any]], kind: str) -> list[Any]:
    """Payloads of the content_block_delta events of one delta type, in order."""
    key = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json",
           "signature_delta": "signature"}[kind]  # fmt: skip
    return [
        e["delta"][key]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == kind
    ]


def tool_uses(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(id, name, parsed input) per tool_use block, from start + input_json_delta events."""
    blocks: dict[int, dict[str, Any]] = {}
    for e in events:
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use":
            blocks[e["index"]] = {"block": e["content_block"], "json": ""}
        elif e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta":
            blocks[e["index"]]["json"] += e["delta"]["partial_json"]
    return [
        (b["block"]["id"], b["block"]["name"], json.loads(b["json"]))
        for _, b in sorted(blocks.items())
    ]


def stop_reason(events: list[dict[str, Any]]) -> str:
    (delta,) = [e for e in events if e["type"] == "message_delta"]
    return str(delta["delta"]["stop_reason"])


def assert_well_formed(events: list[dict[str, Any]]) -> None:
    """message_start first, message_stop last, blocks opened/closed once with fresh indices."""
    assert events[0]["type"] == "message_start"
    assert events[-1]["type"] == "message_stop"
    assert events[-2]["type"] == "message_delta"
    assert events[0]["message"]["usage"]["input_tokens"] > 0
    assert events[-2]["usage"]["output_tokens"] > 0
    open_blocks: set[int] = set()
    seen: list[int] = []
    for e in events[1:-2]:
        if e["type"] == "content_block_start":
            assert e["index"] not in seen
            seen.append(e["index"])
            open_blocks.add(e["index"])
        elif e["type"] == "content_block_delta":
            assert e["index"] in open_blocks
        elif e["type"] == "content_block_stop":
            open_blocks.remove(e["index"])
        else:
            raise AssertionError(f"unexpected event {e['type']}")
    assert not open_blocks
    assert seen == list(range(len(seen)))


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


# ---------------------------------------------------------------------------------------------
# stream format and built-in scripts
# ---------------------------------------------------------------------------------------------


def test_untagged_request_gets_plain_answer_with_exact_event_order(
    server: ScriptedModelServer,
) -> None:
    reply = post(server, prompt_body(user("Say hello.", RUNTIME_CONTEXT)))
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/event-stream"
    events = reply.events()
    kinds = [
        (e["type"], e.get("content_block", {}).get("type") or e.get("delta", {}).get("type"))
        for e in events
    ]
    assert kinds == [
        ("message_start", None),
        ("content_block_start", "thinking"),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", "text"),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]
    assert_well_formed(events)
    assert text_of(events) == PLAIN_ANSWER
    assert stop_reason(events) == "end_turn"
    assert events[0]["message"]["model"] == "deepseek-flash"
    assert events[0]["message"]["usage"] == {"input_tokens": 11, "output_tokens": 0}
    assert events[-2]["usage"] == {"input_tokens": 11, "output_tokens": 7}
    assert server.requests[-1].scenario == "plain"


def test_bash_first_step_is_a_tool_call(server: ScriptedModelServer) -> None:
    events = post(server, prompt_body(user("[[scenario:bash]] do it", RUNTIME_CONTEXT))).events()
    assert_well_formed(events)
    ((call_id, name, args),) = tool_uses(events)
    assert call_id.startswith("toolu_")
    assert name == "bash"
    assert args == {"description": args["description"], "command": BASH_COMMAND}
    assert args["command"] == "echo hello-from-bash > bash-out.txt && cat bash-out.txt"
    assert stop_reason(events) == "tool_use"


def test_step_is_the_number_of_assistant_messages_after_the_tagged_prompt(
    server: ScriptedModelServer,
) -> None:
    # An earlier, finished turn of another scenario must not count.
    history = [
        user("[[scenario:parallel]] earlier turn"),
        assistant_tool("toolu_a"),
        tool_result("toolu_a"),
        assistant_text("Both commands ran."),
    ]
    step0 = post(server, prompt_body(*history, user("[[scenario:bash]] now")))
    assert [n for _, n, _ in tool_uses(step0.events())] == ["bash"]
    step1 = post(
        server,
        prompt_body(*history, user("[[scenario:bash]] now"), assistant_tool(), tool_result()),
    )
    events = step1.events()
    assert tool_uses(events) == []
    assert text_of(events) == "The command printed hello-from-bash."
    assert stop_reason(events) == "end_turn"
    assert [(r.scenario, r.step_index) for r in server.requests] == [("bash", 0), ("bash", 1)]


def test_script_exhausted_answers_and_ends_turn(server: ScriptedModelServer) -> None:
    body = prompt_body(user("[[scenario:plain]] hi"), assistant_text("a"), user("x"))
    # latest human message is untagged "x": plain step 0
    assert text_of(post(server, body).events()) == PLAIN_ANSWER
    body = prompt_body(user("[[scenario:plain]] hi"), assistant_tool(), tool_result())
    events = post(server, body).events()
    assert "has no step 1" in text_of(events)
    assert stop_reason(events) == "end_turn"


def test_parallel_calls_in_one_reply_with_unique_ids(server: ScriptedModelServer) -> None:
    events = post(server, prompt_body(user("[[scenario:parallel]] go"))).events()
    assert_well_formed(events)
    calls = tool_uses(events)
    assert [n for _, n, _ in calls] == ["bash", "bash"]
    assert len({i for i, _, _ in calls}) == 2
    assert [a["command"] for _, _, a in calls] == ["echo parallel-one", "echo parallel-two"]
    assert stop_reason(events) == "tool_use"
    again = tool_uses(post(server, prompt_body(user("[[scenario:parallel]] go"))).events())
    assert not {i for i, _, _ in calls} & {i for i, _, _ in again}


@pytest.mark.parametrize(
    ("scenario", "tool", "expected"),
    [
        ("write", "write", {"file_path": "written.txt"}),
        (
            "readonly-write",
            "write",
            {"file_path": "readonly-written.txt", "sandbox_permissions": "workspace-write"},
        ),
        ("unknown-tool", "no_such_tool", {}),
        (
            "ask",
            "ask_user_question",
            {
                "questions": [
                    {
                        "id": "color",
                        "question": "Which color?",
                        "header": "Color",
                        "options": [{"label": "Red"}, {"label": "Blue"}],
                    }
                ]
            },
        ),
    ],
)
def test_tool_scripts_first_step(
    server: ScriptedModelServer, scenario: str, tool: str, expected: dict[str, Any]
) -> None:
    events = post(server, prompt_body(user(f"[[scenario:{scenario}]] go"))).events()
    ((_, name, args),) = tool_uses(events)
    assert name == tool
    assert expected.items() <= args.items()
    if "sandbox_permissions" in args:
        assert args["justification"]
    final = post(
        server, prompt_body(user(f"[[scenario:{scenario}]] go"), assistant_tool(), tool_result())
    ).events()
    assert tool_uses(final) == []
    assert text_of(final)
    assert stop_reason(final) == "end_turn"


def test_escalate_uses_target_tag_and_danger_full_access(server: ScriptedModelServer) -> None:
    events = post(
        server, prompt_body(user("[[scenario:escalate]] [[target:/tmp/x y/probe]] go"))
    ).events()
    ((_, name, args),) = tool_uses(events)
    assert name == "bash"
    assert args["sandbox_permissions"] == "danger-full-access"
    assert args["justification"]
    assert args["command"] == "touch '/tmp/x y/probe' && echo touched"
    default = tool_uses(post(server, prompt_body(user("[[scenario:escalate]] go"))).events())
    assert default[0][2]["command"].startswith(f"touch {ESCALATE_DEFAULT_PREFIX}")


def test_subagent_parent_child_and_settled_follow_up(server: ScriptedModelServer) -> None:
    parent_prompt = user("[[scenario:subagent]] Delegate.", RUNTIME_CONTEXT)
    step0 = post(server, prompt_body(parent_prompt)).events()
    ((call_id, name, args),) = tool_uses(step0)
    assert name == "subagent"
    assert args == {"description": "child task", "prompt": CHILD_PROMPT}

    child = post(server, prompt_body(user(CHILD_PROMPT, CHILD_INSTRUCTION, RUNTIME_CONTEXT)))
    assert text_of(child.events()) == CHILD_ANSWER

    history = [parent_prompt, assistant_tool(call_id, "subagent"), tool_result(call_id)]
    interim = post(server, prompt_body(*history)).events()
    assert text_of(interim) == SUBAGENT_INTERIM
    assert stop_reason(interim) == "end_turn"

    notice = user(
        "Background subagent c4af finished and will do no further work unless you send it more.",
        "Its closing message:",
        CHILD_ANSWER,  # the child's closing message is quoted verbatim: not human text
    )
    final = post(server, prompt_body(*history, assistant_text(SUBAGENT_INTERIM), notice))
    assert text_of(final.events()) == SUBAGENT_FINAL
    assert [(r.scenario, r.step_index) for r in server.requests] == [
        ("subagent", 0),
        ("child", 0),
        ("subagent", 1),
        ("subagent", 2),
    ]


@contextlib.contextmanager
def _held_child(server: ScriptedModelServer, grace: float) -> Iterator[Future[Reply]]:
    """child-7 asks scenario ``held``: a reply held until parent-1's reply to the request that
    names child-7 (and, with statuses reported, parent-1's idle after it)."""
    hold = AfterReply("parent-1", mention="child-7", grace=grace, timeout=5.0)
    server.register("held", [Step(text="the child's report", after_reply=hold)])
    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(
            post,
            server,
            prompt_body(user("[[scenario:held]] go")),
            headers={"x-deepseek-harness-session-id": "child-7"},
        )


def _parent_names_the_child(server: ScriptedModelServer) -> None:
    body = prompt_body(user("[[scenario:plain]] started subagent child-7"))
    assert post(server, body, headers={"x-deepseek-harness-session-id": "parent-1"}).status == 200


def test_a_held_reply_waits_for_the_parents_reported_idle_not_a_grace(
    server: ScriptedModelServer,
) -> None:
    # The runtime steers a settled child's notice into a running parent turn and queues a new
    # turn for an idle parent, so the child may answer only once the parent's turn has ended.
    # With statuses reported that is exact: an idle of the parent after the awaited request.
    server.report_session_status("parent-1", "running")
    server.report_session_status("parent-1", "idle")  # an earlier turn's: must not count
    with _held_child(server, grace=0.05) as child:
        time.sleep(0.2)
        _parent_names_the_child(server)
        time.sleep(0.5)  # ten graces: a grace-timed hold would have answered by now
        assert not child.done()
        server.report_session_status("parent-1", "idle")
        assert text_of(child.result(timeout=3).events()) == "the child's report"
    assert server.idle_releases == 1


def test_without_reported_statuses_a_held_reply_waits_out_its_grace(
    server: ScriptedModelServer,
) -> None:
    with _held_child(server, grace=0.3) as child:
        time.sleep(0.3)
        assert not child.done()  # the awaited reply was not sent yet
        _parent_names_the_child(server)
        sent = time.monotonic()
        assert text_of(child.result(timeout=3).events()) == "the child's report"
        assert time.monotonic() - sent >= 0.25
    assert server.idle_releases == 0


def test_observe_takes_only_session_status_notifications(server: ScriptedModelServer) -> None:
    server.observe("session.event", {"sessionId": "parent-1", "status": "idle"})
    server.observe("session.status", {"sessionId": 7, "status": "idle"})
    assert not server._reported
    server.observe("session.status", {"sessionId": "parent-1", "status": "idle"})
    assert server._reported == {"parent-1"} and "parent-1" in server._idle_at


def test_long_streams_requested_number_of_deltas(server: ScriptedModelServer) -> None:
    events = post(server, prompt_body(user("[[scenario:long]] [[chunks:50]] go"))).events()
    assert deltas_of(events, "text_delta") == long_text_chunks(50)
    events = post(server, prompt_body(user("[[scenario:long]] go"))).events()
    deltas = deltas_of(events, "text_delta")
    assert len(deltas) == 2000
    assert "".join(deltas) == "".join(long_text_chunks(2000))
    assert all(0 < len(d) <= 6 for d in deltas)
    assert_well_formed(events)


def test_slow_streams_chunks_apart(server: ScriptedModelServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    body = prompt_body(user("[[scenario:slow]] [[chunks:4]] [[chunk-delay:0.1]] go"))
    start = time.monotonic()
    conn.request("POST", "/v1/messages", body=json.dumps(body))
    resp = conn.getresponse()
    arrivals: list[float] = []
    buffer = b""
    while chunk := resp.read1(65536):
        buffer += chunk
        arrivals.extend(time.monotonic() for _ in range(chunk.count(b"text_delta")))
    conn.close()
    events = parse_sse(buffer)
    assert text_of(events) == "slow0 slow1 slow2 slow3"
    assert len(arrivals) == 4
    assert arrivals[-1] - start >= 0.3
    assert all(b - a >= 0.05 for a, b in itertools.pairwise(arrivals))


def test_default_slow_and_builtin_names() -> None:
    assert set(BUILTIN_SCRIPTS) >= {
        "plain", "bash", "parallel", "write", "escalate", "readonly-write", "ask", "subagent",
        "child", "long", "slow", "http400", "http429", "http500", "http500-always",
        "unknown-tool",
    }  # fmt: skip
    ctx = ScriptContext("slow", 0, 0, {}, "", (), "human", {})
    step = BUILTIN_SCRIPTS["slow"].step_for(ctx)
    assert len(step.text_deltas()) == 20
    assert 1.5 <= step.chunk_delay * 19 <= 2.5


# ---------------------------------------------------------------------------------------------
# errors and retries
# ---------------------------------------------------------------------------------------------


def retry_log(failed_attempts: int, turn: int = 1, step: int = 1) -> dict[str, Any]:
    events: list[tuple[str, dict[str, Any]]] = [("step/start", {"turn": turn, "step": step})]
    for _ in range(failed_attempts):
        events.append(("assistant/attempt", {"turn": turn, "step": step, "stream": []}))
        events.append(("llm/retry", {"turn": turn, "step": step}))
        events.append(("llm/retry-started", {"turn": turn, "step": step}))
    return session_log(*events)


def test_http400_error_body(server: ScriptedModelServer) -> None:
    reply = post(server, prompt_body(user("[[scenario:http400]] go")))
    assert reply.status == 400
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "scripted invalid request"},
    }


@pytest.mark.parametrize(
    ("scenario", "status", "error_type"),
    [("http429", 429, "rate_limit_error"), ("http500", 500, "api_error")],
)
def test_retryable_errors_fail_first_attempt_then_recover(
    server: ScriptedModelServer, scenario: str, status: int, error_type: str
) -> None:
    first = post(
        server, prompt_body(user(f"[[scenario:{scenario}]] go"), dsh_session_log=retry_log(0))
    )
    assert first.status == status
    assert first.json()["error"]["type"] == error_type
    if status == 429:
        assert first.headers["retry-after"] == "0"
    second = post(
        server, prompt_body(user(f"[[scenario:{scenario}]] go"), dsh_session_log=retry_log(1))
    )
    assert second.status == 200
    assert text_of(second.events()).startswith("Recovered")
    assert [r.attempt for r in server.requests] == [0, 1]


def test_fail_times_tag_and_always_variant(server: ScriptedModelServer) -> None:
    prompt = user("[[scenario:http500]] [[fail-times:3]] go")
    assert post(server, prompt_body(prompt, dsh_session_log=retry_log(2))).status == 500
    assert post(server, prompt_body(prompt, dsh_session_log=retry_log(3))).status == 200
    always = user("[[scenario:http500-always]] go")
    assert post(server, prompt_body(always, dsh_session_log=retry_log(5))).status == 500


def test_attempts_of_an_earlier_turn_do_not_count(server: ScriptedModelServer) -> None:
    log = session_log(
        ("step/start", {"turn": 1, "step": 1}),
        ("assistant/attempt", {"turn": 1, "step": 1}),
        ("turn/end", {"turn": 1}),
        ("step/start", {"turn": 2, "step": 1}),
    )
    reply = post(server, prompt_body(user("[[scenario:http429]] go"), dsh_session_log=log))
    assert reply.status == 429


def test_unknown_scenario_is_a_400_naming_known_scenarios(server: ScriptedModelServer) -> None:
    reply = post(server, prompt_body(user("[[scenario:nope]] go")))
    assert reply.status == 400
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "'nope'" in error["message"]
    for name in ("plain", "bash", "subagent", "http500-always"):
        assert name in error["message"]
    assert server.requests[-1].scenario == "nope"
    assert server.requests[-1].status == 400


def test_other_paths_and_bad_bodies(server: ScriptedModelServer) -> None:
    assert post(server, prompt_body(user("hi")), path="/v1/files").status == 404
    assert post(server, b"not json").status == 400
    assert post(server, prompt_body(user("hi")), path="/prefix/v1/messages").status == 200
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/")
    health = json.loads(conn.getresponse().read())
    conn.close()
    assert health["ok"] is True
    assert "bash" in health["scenarios"]


# ---------------------------------------------------------------------------------------------
# request analysis edge cases
# ---------------------------------------------------------------------------------------------


def test_prompt_merged_into_failed_turn_uses_newest_prompt(server: ScriptedModelServer) -> None:
    # After a failed turn the runtime appends the next prompt to the same user message.
    merged = user("[[scenario:http400]] go", RUNTIME_CONTEXT, "[[scenario:bash]] again")
    calls = tool_uses(post(server, prompt_body(merged)).events())
    assert [n for _, n, _ in calls] == ["bash"]

    # An untagged follow-up prompt: the session log names the newest prompt exactly.
    merged = user("[[scenario:http400]] go", RUNTIME_CONTEXT, "thanks")
    log = session_log(
        ("user/message", {"role": "user", "source": {"kind": "user"}, "content": [
            {"type": "text", "text": "[[scenario:http400]] go"}]}),
        ("assistant/attempt", {"turn": 1, "step": 1}),
        ("step/start", {"turn": 2, "step": 1}),
        ("user/message", {"role": "user", "source": {"kind": "user"}, "content": [
            {"type": "text", "text": "thanks"}]}),
    )  # fmt: skip
    reply = post(server, prompt_body(merged, dsh_session_log=log))
    assert reply.status == 200
    assert text_of(reply.events()) == PLAIN_ANSWER


def test_image_handle_and_extra_blocks_keep_the_tag() -> None:
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "[[scenario:write]] describe"},
            {"type": "text", "text": "second block"},
            {"type": "text", "text": "Image sha256:abc; request preview 1x1px."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}},
            {"type": "text", "text": RUNTIME_CONTEXT},
        ],
    }
    analysis = analyze_request(prompt_body(message))
    assert analysis.scenario == "write"
    assert analysis.prompt_text == "[[scenario:write]] describe\nsecond block"
    assert analysis.latest_user_kind == "human"
    notice = analyze_request(prompt_body(message, assistant_text("a"), user(
        "The working directory changed from \"/a\" to \"/b\".")))  # fmt: skip
    assert (notice.scenario, notice.step_index, notice.latest_user_kind) == ("write", 1, "notice")


# ---------------------------------------------------------------------------------------------
# user scripts, recording, concurrency, lifecycle
# ---------------------------------------------------------------------------------------------


def test_registered_script_with_factory_chunks_and_json_chunks(
    server: ScriptedModelServer,
) -> None:
    def second(ctx: ScriptContext) -> Step:
        return Step(text=f"step {ctx.step_index} tag {ctx.tags['word']}", chunks=3)

    server.register(
        "mine",
        Script(
            steps=(
                Step(
                    text_chunks=("a", "b", "c"),
                    tool_calls=(ToolCall("bash", {"command": "echo ü"}, json_chunks=4),),
                ),
                second,
            )
        ),
    )
    events = post(server, prompt_body(user("[[scenario:mine]] [[word:zebra]]"))).events()
    assert deltas_of(events, "text_delta") == ["a", "b", "c"]
    assert len(deltas_of(events, "input_json_delta")) == 4
    assert tool_uses(events)[0][2] == {"command": "echo ü"}
    body = prompt_body(user("[[scenario:mine]] [[word:zebra]]"), assistant_tool(), tool_result())
    deltas = deltas_of(post(server, body).events(), "text_delta")
    assert len(deltas) == 3
    assert "".join(deltas) == "step 1 tag zebra"
    server.register("listed", [Step(text="x", stop_reason="max_tokens")])
    events = post(server, prompt_body(user("[[scenario:listed]]"))).events()
    assert stop_reason(events) == "max_tokens"
    # registrations are per server
    with ScriptedModelServer() as other:
        assert "mine" not in other.scenarios()


def test_failing_step_factory_is_reported_as_500(server: ScriptedModelServer) -> None:
    def broken(ctx: ScriptContext) -> Step:
        raise KeyError("boom")

    server.register("broken", [broken])
    reply = post(server, prompt_body(user("[[scenario:broken]]")))
    assert reply.status == 500
    assert "boom" in reply.json()["error"]["message"]
    assert post(server, prompt_body(user("hi"))).status == 200  # still serving


def test_recording_redacts_secrets(server: ScriptedModelServer) -> None:
    before = time.time()
    post(
        server,
        prompt_body(user("[[scenario:plain]] hi")),
        headers={
            "x-api-key": "sk-secret-1",
            "Authorization": "Bearer sk-secret-2",
            "x-deepseek-harness-session-id": "sess-1",
        },
    )
    (rec,) = server.requests
    assert rec.method == "POST"
    assert rec.path == "/v1/messages"
    assert rec.headers["x-api-key"] == REDACTED
    assert rec.headers["authorization"] == REDACTED
    assert "sk-secret" not in repr(rec)
    assert rec.session_id == "sess-1"
    assert rec.body["messages"][0]["content"][0]["text"] == "[[scenario:plain]] hi"
    assert (rec.scenario, rec.step_index, rec.status) == ("plain", 0, 200)
    assert before <= rec.time <= time.time()
    server.clear_requests()
    assert server.requests == []


def test_concurrent_requests_are_answered_statelessly(server: ScriptedModelServer) -> None:
    server.register("wait", [Step(text="waited", delay=0.2)])
    cases: list[tuple[dict[str, Any], str]] = []
    for i in range(6):
        cases.append((prompt_body(user(f"[[scenario:bash]] {i}")), "tool:bash"))
        cases.append(
            (
                prompt_body(user(f"[[scenario:bash]] {i}"), assistant_tool(), tool_result()),
                "text:The command printed hello-from-bash.",
            )
        )
        cases.append((prompt_body(user(CHILD_PROMPT, CHILD_INSTRUCTION)), f"text:{CHILD_ANSWER}"))
        cases.append((prompt_body(user("[[scenario:wait]]")), "text:waited"))

    def run(case: tuple[dict[str, Any], str]) -> str:
        events = post(server, case[0]).events()
        calls = tool_uses(events)
        return f"tool:{calls[0][1]}" if calls else f"text:{text_of(events)}"

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        results = list(pool.map(run, cases))
    assert results == [expected for _, expected in cases]
    assert time.monotonic() - start < 1.5  # the six delayed replies ran in parallel
    assert len(server.requests) == len(cases)


def test_keep_alive_and_chunked_request_body(server: ScriptedModelServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    for text in ("hi", "[[scenario:child]] x"):
        conn.request("POST", "/v1/messages", body=json.dumps(prompt_body(user(text))))
        resp = conn.getresponse()
        assert resp.status == 200
        assert text_of(parse_sse(resp.read())) in (PLAIN_ANSWER, CHILD_ANSWER)
    chunks = iter([json.dumps(prompt_body(user("[[scenario:child]] x"))).encode()])
    conn.request("POST", "/v1/messages", body=chunks, encode_chunked=True)
    assert text_of(parse_sse(conn.getresponse().read())) == CHILD_ANSWER
    conn.close()


def test_binds_loopback_and_stop_aborts_streams_idempotently() -> None:
    srv = ScriptedModelServer().start()
    assert srv.base_url == f"http://127.0.0.1:{srv.port}"
    srv.register("stuck", [Step(text_chunks=("a", "b"), chunk_delay=30)])
    outcome: list[str] = []

    def client() -> None:
        try:
            post(srv, prompt_body(user("[[scenario:stuck]]")), timeout=10)
            outcome.append("completed")
        except (OSError, http.client.HTTPException):
            outcome.append("aborted")

    worker = threading.Thread(target=client)
    worker.start()
    idle = socket.create_connection(("127.0.0.1", srv.port))  # idle keep-alive connection
    time.sleep(0.2)
    start = time.monotonic()
    srv.stop()
    srv.stop()
    assert time.monotonic() - start < 2
    worker.join(5)
    assert outcome == ["aborted"]
    assert idle.recv(1) == b""  # the server closed it
    idle.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=1).close()
    with pytest.raises(RuntimeError):
        srv.start()


def test_step_validation() -> None:
    with pytest.raises(ValueError, match="chunks"):
        Step(text="x", chunks=0)
    with pytest.raises(ValueError, match="status"):
        HttpError(200, "x", "y")
    with pytest.raises(ValueError, match="at least one step"):
        Script(steps=())
    with pytest.raises(ValueError, match="invalid scenario name"):
        ScriptedModelServer().register("bad name", [Step(text="x")])
    assert Step(text="abcdefg", chunks=3).text_deltas() == ["abc", "de", "fg"]
    assert Step(text="ab", chunks=5).text_deltas() == ["a", "b"]


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------


def spawn_cli(*args: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-m", "dsh_notebook.scripted_model", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    return proc, line


def cli_get_plain(url: str) -> str:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    conn.request("POST", "/v1/messages", body=json.dumps(prompt_body(user("hi"))))
    text = text_of(parse_sse(conn.getresponse().read()))
    conn.close()
    return text


def test_cli_prints_url_and_exits_on_stdin_eof() -> None:
    proc, url = spawn_cli("--exit-on-stdin-eof")
    try:
        assert url.startswith("http://127.0.0.1:")
        assert cli_get_plain(url) == PLAIN_ANSWER
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(5) == 0
    finally:
        proc.kill()
        proc.wait()


def test_cli_exits_on_sigterm() -> None:
    proc, url = spawn_cli()
    try:
        assert cli_get_plain(url) == PLAIN_ANSWER
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(5) == 0
    finally:
        proc.kill()
        proc.wait()


def test_scripted_model_imports_only_the_stdlib_and_itself() -> None:
    """The demo model is product code that must stay free of dsh_notebook's other layers."""
    import ast

    package = REPO / "dsh_notebook" / "scripted_model"
    foreign: list[str] = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "__future__" and top not in sys.stdlib_module_names:
                    foreign.append(f"{path.name}: {name}")
    assert foreign == []
    assert len(list(package.glob("*.py"))) >= 8
