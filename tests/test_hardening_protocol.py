"""Issue 13, protocol side: tolerant where the protocol allows, typed errors where a frame is bad.

Rule under test: nothing but a ``DshError`` leaves ``Session.run``; missing ``seq``/``time``/``role``
never fail a run; really malformed frames raise ``SdkProtocolError`` naming the frame's method.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.errors import DshError, SdkProtocolError
from dsh_notebook.protocol import Notification

from .hardening_peer import Json, event, peer_harness, receipt, status, turn_end

pytestmark = pytest.mark.anyio

COMPLETED = {"kind": "completed"}


def text(value: str) -> Json:
    return {"type": "text", "text": value}


def reply(data: Any, reason: Any = COMPLETED) -> Any:
    """A script: receipt, one assistant/message with ``data``, a turn/end, idle."""

    def script(sid: str, mid: str) -> list[Json]:
        frames = [receipt(sid, mid)]
        frames.append(event(sid, "assistant/message", data))
        frames.append(turn_end(sid, reason))
        frames.append(status(sid, "idle"))
        return frames

    return script


async def run_once(script: Any) -> Any:
    async with peer_harness(script) as harness:
        return await harness.start_session("s").run("hi", timeout=10)


# -- tolerated: what the protocol does not require ----------------------------------------------


async def test_events_without_seq_time_and_role_do_not_fail_the_run() -> None:
    def script(sid: str, mid: str) -> list[Json]:
        data = {"message": {"content": [text("hello")]}}  # no role
        return [
            receipt(sid, mid, bare=True),
            event(sid, "assistant/message", data, bare=True),
            turn_end(sid, COMPLETED, bare=True),
        ]

    result = await run_once(script)
    assert result.final_response == "hello"
    assert result.finish_reason == "completed"
    assert [e.type for e in result.events] == [
        "agent/inbox/spliced",
        "assistant/message",
        "turn/end",
    ]
    assert result.events[1].seq is None and result.events[1].time is None


async def test_text_in_data_content_without_message_is_the_final_response() -> None:
    result = await run_once(reply({"content": [text("from "), text("data")]}))
    assert result.final_response == "from data"


async def test_an_unknown_block_and_an_unknown_event_type_are_kept() -> None:
    def script(sid: str, mid: str) -> list[Json]:
        return [
            receipt(sid, mid),
            event(sid, "plugin:new", {"x": 1}),
            event(sid, "assistant/message", {"message": {"content": [{"type": "new"}, text("a")]}}),
            turn_end(sid, {"kind": "max-tokens"}),
        ]

    result = await run_once(script)
    assert result.final_response == "a"
    assert result.finish_reason == "max-tokens"


@pytest.mark.parametrize(
    "reason",
    [
        {"kind": "completed"},
        {"kind": "blocked"},
        {"kind": "interrupted"},
        {"kind": "forked"},
        {"kind": "max-tokens"},
        {"kind": "error", "error": {"message": "boom", "code": "SERVER"}},
        {"kind": "aborted", "reason": {"kind": "user"}},
    ],
)
async def test_every_turn_end_reason_of_the_runtime_is_accepted(reason: Json) -> None:
    result = await run_once(reply({"message": {"content": []}}, reason))
    assert result.finish_reason == reason["kind"]


# -- malformed: a typed error naming the method -------------------------------------------------


MALFORMED: list[tuple[str, Any, Any, str]] = [
    ("content not a list", {"message": {"content": "hello"}}, COMPLETED, "assistant/message"),
    ("message not an object", {"message": "hello"}, COMPLETED, "assistant/message"),
    ("no data at all", None, COMPLETED, "assistant/message"),
    ("neither message nor content", {"turn": 1}, COMPLETED, "assistant/message"),
    (
        "a block that is not an object",
        {"message": {"content": [3]}},
        COMPLETED,
        "assistant/message",
    ),
    ("unknown reason kind", {"content": []}, {"kind": "exploded"}, "turn/end"),
    ("reason without kind", {"content": []}, {}, "turn/end"),
    ("reason not an object", {"content": []}, "completed", "turn/end"),
    ("error without its error", {"content": []}, {"kind": "error"}, "turn/end"),
    (
        "error without code",
        {"content": []},
        {"kind": "error", "error": {"message": "x"}},
        "turn/end",
    ),
    ("aborted without its cause", {"content": []}, {"kind": "aborted"}, "turn/end"),
]


@pytest.mark.parametrize(
    ("why", "data", "reason", "method"), MALFORMED, ids=[m[0] for m in MALFORMED]
)
async def test_malformed_frames_raise_sdk_protocol_error(
    why: str, data: Any, reason: Any, method: str
) -> None:
    with pytest.raises(SdkProtocolError) as info:
        await run_once(reply(data, reason))
    assert method in str(info.value)
    assert "session.event" in str(info.value)


@pytest.mark.parametrize(
    "bad_event",
    [
        {"type": 3, "data": {}},
        {"type": "turn/start", "data": []},
        {"type": "turn/start", "seq": "one", "data": {}},
        "not an object",
    ],
)
async def test_a_malformed_envelope_is_a_dsh_error_not_a_validation_error(bad_event: Any) -> None:
    def script(sid: str, mid: str) -> list[Json]:
        return [
            receipt(sid, mid),
            {"method": "session.event", "params": {"sessionId": sid, "event": bad_event}},
        ]

    with pytest.raises(SdkProtocolError, match=r"session\.event"):
        await run_once(script)


async def test_no_pydantic_error_escapes_for_a_hostile_mix() -> None:
    hostile = [
        {"message": {"role": 7, "content": [text("x")]}},
        {"message": {"content": [{"type": "text", "text": 5}]}},
        {"message": {"content": [{"type": "tool-result", "content": "x"}]}},
    ]
    for data in hostile:
        try:
            await run_once(reply(data))
        except DshError:
            pass


# -- the receipt is the root's -----------------------------------------------------------------


async def test_a_child_receipt_does_not_open_the_run_window() -> None:
    def script(sid: str, mid: str) -> list[Json]:
        return [
            {
                "method": "subagent.started",
                "params": {"parentSessionId": sid, "childSessionId": "kid"},
            },
            receipt("kid", mid),  # a child splices an item with the same id: not our receipt
            event(sid, "assistant/message", {"content": [text("early")]}),
            receipt(sid, mid),
            event(sid, "assistant/message", {"content": [text("late")]}),
            turn_end(sid, COMPLETED),
        ]

    seen: list[Notification] = []
    async with peer_harness(script) as harness:
        result = await harness.start_session("s").run("hi", seen.append, timeout=10)
    assert result.final_response == "late"
    assert result.notifications[0].params["sessionId"] == "s"
    assert result.notifications[0] is seen[0]
    assert all(n.params.get("sessionId") != "kid" for n in result.notifications)
