"""Wire models: every frame of the real captures round-trips; unknowns are preserved."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from dsh_notebook.protocol import (
    CLIENT_METHODS,
    NOTIFICATION_MODELS,
    AssistantMessageData,
    ContentBlock,
    InitializeParams,
    Notification,
    SessionEvent,
    SessionEventParams,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    TurnEndData,
    UnknownBlock,
    UserQuestionDismissed,
    parse_notification,
)

from .conftest import load_capture

CAPTURE_FILES = [
    "plain.jsonl",
    "bash.jsonl",
    "subagent.jsonl",
    "misc_methods.jsonl",
    "approval_allowed_once.jsonl",
    "approval_rejected.jsonl",
    "approval_unavailable.jsonl",
    "ask_user_answered.jsonl",
    "resume-run1.jsonl",
    "resume-run2.jsonl",
    "handshake.jsonl",
    "long_stream.jsonl",
]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("name", CAPTURE_FILES)
def test_every_captured_notification_round_trips(name: str) -> None:
    frames = [r["frame"] for r in load_capture(name) if r["dir"] == "s2c"]
    notifications = [f for f in frames if "method" in f and "id" not in f]
    assert notifications or name == "handshake.jsonl"
    for frame in notifications:
        model = NOTIFICATION_MODELS[frame["method"]]
        parsed = model.model_validate(frame["params"])
        assert canonical(parsed.to_wire()) == canonical(frame["params"])


@pytest.mark.parametrize("name", CAPTURE_FILES)
def test_every_captured_request_params_round_trip(name: str) -> None:
    frames = [r["frame"] for r in load_capture(name) if r["dir"] == "c2s"]
    checked = 0
    for frame in frames:
        params_model, _ = CLIENT_METHODS.get(frame["method"], (None, None))
        params = frame.get("params")
        if params_model is None or not isinstance(params, dict):
            continue
        try:
            parsed = params_model.model_validate(params)
        except Exception:
            continue  # the captures deliberately send invalid requests (handshake errors, bad blocks)
        assert canonical(parsed.to_wire()) == canonical(params)
        checked += 1
    assert checked or name in ("handshake.jsonl",)


def test_event_types_parse_typed_where_modelled() -> None:
    frames = [r["frame"] for r in load_capture("bash.jsonl") if r["dir"] == "s2c"]
    events = [
        SessionEvent.model_validate(f["params"]["event"])
        for f in frames
        if f.get("method") == "session.event"
    ]
    typed = {e.type: e.typed_data() for e in events}
    assert isinstance(typed["turn/end"], TurnEndData)
    assert typed["turn/end"].reason.kind == "completed"
    message = typed["assistant/message"]
    assert isinstance(message, AssistantMessageData)
    kinds = {
        type(b)
        for e in events
        if e.type == "assistant/message"
        for b in e.typed_data().message.content
    }  # type: ignore[union-attr]
    assert ToolCallBlock in kinds and TextBlock in kinds
    assert isinstance(typed["session/title"], dict)  # unmodelled: the raw dict


def test_unknown_block_and_fields_survive_byte_for_byte() -> None:
    raw = {
        "type": "hologram",
        "frames": [1, 2.5, {"deep": None}],
        "ünïcode": "✓",
    }
    block = TypeAdapter(ContentBlock).validate_python(raw)
    assert isinstance(block, UnknownBlock)
    assert json.dumps(block.to_wire(), sort_keys=True) == json.dumps(raw, sort_keys=True)
    # a known type with a malformed body falls back to the unknown variant, kept verbatim
    bad_text = {"type": "text", "text": 42}
    parsed = TypeAdapter(ContentBlock).validate_python(bad_text)
    assert isinstance(parsed, UnknownBlock) and parsed.to_wire() == bad_text
    nested = {
        "type": "tool-result",
        "toolCallId": "t1",
        "content": [{"type": "text", "text": "ok", "newField": 1}, raw],
        "isError": False,
        "futureFlag": True,
    }
    result = TypeAdapter(ContentBlock).validate_python(nested)
    assert isinstance(result, ToolResultBlock)
    assert isinstance(result.content[1], UnknownBlock)
    assert canonical(result.to_wire()) == canonical(nested)


def test_session_event_with_unknown_type_and_envelope_fields() -> None:
    params = {
        "sessionId": "s",
        "event": {
            "type": "plugin:x/y",
            "seq": 7,
            "time": 1700000000123,
            "data": {"a": [1]},
            "newEnvelope": 1,
        },
        "extra": "kept",
    }
    parsed = SessionEventParams.model_validate(params)
    assert parsed.event.typed_data() == {"a": [1]}
    assert canonical(parsed.to_wire()) == canonical(params)


def test_parse_notification_unknown_method_is_none() -> None:
    assert parse_notification(Notification("future.thing", {"x": 1})) is None
    assert parse_notification(Notification("session.status", {"nope": 1})) is None


def test_initialize_params_validation() -> None:
    with pytest.raises(ValueError, match="at least 1 character"):
        InitializeParams(cwd="/", provider="p", model="m", reasoning_effort="")
    with pytest.raises(ValueError, match="greater than 0"):
        InitializeParams(cwd="/", provider="p", model="m", max_tokens=0)
    wire = InitializeParams(
        cwd="/w",
        provider="p",
        model="m",
        approval_requests=True,
        capabilities={"user_questions": True},
    ).to_wire()
    assert wire == {
        "cwd": "/w",
        "provider": "p",
        "model": "m",
        "approvalRequests": True,
        "capabilities": {"userQuestions": True},
    }


def test_question_dismissal_is_exactly_cancelled_true() -> None:
    assert UserQuestionDismissed().model_dump() == {"cancelled": True}
    with pytest.raises(ValueError, match="Extra inputs"):
        UserQuestionDismissed.model_validate({"cancelled": True, "answers": []})


def test_the_bridge_words_are_spelled_once_in_the_package() -> None:
    """``protocol/bridge.py`` is the only module that spells the bridge's method names."""
    from pathlib import Path

    from dsh_notebook.protocol import bridge

    package = Path(bridge.__file__).resolve().parents[1]
    words = [
        bridge.BRIDGE_READY,
        bridge.APPROVAL_CANCELLED,
        bridge.USER_QUESTION_CANCELLED,
        bridge.ASSISTANT_STREAM,
    ]
    spelled = sorted(
        f"{path.relative_to(package)}: {word}"
        for path in package.rglob("*.py")
        if path.name != "bridge.py" and "testing" not in path.parts
        for word in words
        if f'"{word}"' in path.read_text()
    )
    assert spelled == []
    assert NOTIFICATION_MODELS[bridge.ASSISTANT_STREAM] is bridge.AssistantStreamParams
    params = parse_notification(
        Notification(bridge.ASSISTANT_STREAM, {"sessionId": "s", "frame": {"type": "start"}})
    )
    assert isinstance(params, bridge.AssistantStreamParams) and params.frame == {"type": "start"}
