"""The transcript reducer and its renderings: captures, goldens, live streams, merges, escaping.

Golden files live in ``tests/golden/transcript/``; regenerate them with ``UPDATE_GOLDEN=1``.
The hostile-markdown checker renders with markdown-it-py (raw HTML enabled, link validation off,
i.e. as permissive as a trusted Jupyter output) and inspects the produced HTML.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Literal

import pytest

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import RESULT_MAX, Transcript, fence, sanitize_markdown
from dsh_notebook.transcript.facts import (
    ApprovalDecided,
    ApprovalRequested,
    QuestionAnswered,
    QuestionAsked,
    QuestionCancelled,
    RunError,
    Settled,
    Status,
    local_fact,
)
from dsh_notebook.transcript.markdown import render_markdown
from dsh_notebook.transcript.text import render_text, summary_line

from .helpers.transcripts import (
    _render,
    assert_safe_markdown,
    assistant,
    chunk_frame,
    event,
    notifications,
    prompted_sessions,
    tool_call,
    tool_result,
    with_live_frames,
)

GOLDEN = Path(__file__).parent / "golden" / "transcript"
PACKAGE = Path(__file__).resolve().parents[1] / "dsh_notebook" / "transcript"

CAPTURES = [
    "plain",
    "bash",
    "subagent",
    "approval_allowed_once",
    "approval_rejected",
    "approval_unavailable",
    "ask_user_answered",
    "misc_methods",
    "long_stream",
    "resume-run1",
    "resume-run2",
]


# -- helpers -----------------------------------------------------------------------------------


def reduce(
    name: str, session_id: str | None = None, *, live: bool = False, settle: bool = True
) -> Transcript:
    session_id = session_id or prompted_sessions(name)[0]
    t = Transcript(session_id)
    items = notifications(name)
    for note in with_live_frames(items) if live else items:
        t.apply(note)
    if settle:
        t.apply_local(Settled(finish_reason=None))
    return t


def all_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        out.append(item)
        for key in ("approval", "question"):
            if item.get(key):
                out.append(item[key])
        sub = (
            item.get("subagent")
            if item["kind"] == "tool"
            else item
            if item["kind"] == "subagent"
            else None
        )
        if sub:
            if sub is not item:
                out.append(sub)
            out += all_items(sub["items"])
    return out


def texts(snapshot: dict[str, Any], kind: str = "text") -> list[str]:
    return [i["text"] for i in snapshot["items"] if i["kind"] == kind]


# -- every capture -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CAPTURES)
def test_every_capture_reduces_and_renders(name: str) -> None:
    for session_id in prompted_sessions(name):
        for live in (False, True):
            t = reduce(name, session_id, live=live)
            snap = t.snapshot()
            assert json.loads(json.dumps(snap)) == snap
            assert snap["schema"] == 1
            assert not [k for k in snap["unknown"] if k.startswith("malformed")], snap["unknown"]
            assert snap["header"]["state"] in ("settled", "error")
            assert snap["header"]["turns"] >= 1
            assert not [i for i in all_items(snap["items"]) if i.get("streaming")]
            md, text = t.to_markdown(), t.to_text()
            assert md.startswith("**dsh**") and md.endswith("\n")
            assert text.splitlines()[0] == t.summary_line()
            assert_safe_markdown(md)


def _keys_of(cls: Any) -> tuple[set[str], set[str]]:
    """(required, all) keys of a TypedDict."""
    return set(cls.__required_keys__), set(cls.__required_keys__) | set(cls.__optional_keys__)


def assert_matches_schema(snap: dict[str, Any]) -> None:
    from dsh_notebook.transcript import schema

    by_kind = {
        "text": schema.TextItem,
        "reasoning": schema.TextItem,
        "user": schema.UserItem,
        "tool": schema.ToolItem,
        "approval": schema.ApprovalItem,
        "question": schema.QuestionItem,
        "subagent": schema.SubagentItem,
        "error": schema.ErrorItem,
        "note": schema.NoteItem,
    }
    checks: list[tuple[Any, dict[str, Any]]] = [
        (schema.Snapshot, snap),
        (schema.Header, snap["header"]),
        (schema.Usage, snap["header"]["usage"]),
        *((schema.Pending, p) for p in snap["pending"]),
    ]
    for item in all_items(snap["items"]):
        checks.append((by_kind[item["kind"]], item))
        if item["kind"] == "question":
            checks += [(schema.Question, q) for q in item["questions"]]
            checks += [(schema.Answer, a) for a in item["answers"] or []]
        if item["kind"] == "tool" and item["job"]:
            checks.append((schema.Job, item["job"]))
    for cls, value in checks:
        required, allowed = _keys_of(cls)
        assert required <= set(value) <= allowed, (cls.__name__, sorted(value))
    # states: within their Literal, and never a view-only one (``waiting`` tools, ``undecided``)
    from typing import get_args

    states = {
        "approval": get_args(schema.ApprovalState),
        "question": get_args(schema.QuestionState),
        "subagent": get_args(schema.SubagentState),
        "tool": get_args(schema.ToolState),
    }
    assert snap["header"]["state"] in get_args(schema.RunState)
    for item in all_items(snap["items"]):
        if item["kind"] in states:
            assert item["state"] in states[item["kind"]], item
            assert item["state"] not in ("waiting", "undecided"), item
        if item["kind"] == "approval":
            assert item["decided_by"] is None or item["decided_by"] in get_args(schema.DecidedBy)


@pytest.mark.parametrize("name", CAPTURES)
def test_every_snapshot_has_exactly_the_keys_of_schema_py(name: str) -> None:
    for session_id in prompted_sessions(name):
        for live in (False, True):
            assert_matches_schema(reduce(name, session_id, live=live).snapshot())


def _ts_declarations(
    path: Path,
) -> tuple[dict[str, set[str]], dict[str, dict[str, str]], dict[str, list[str]]]:
    """The exported declarations of a TypeScript module, as the mirror tests compare them:
    ``(interface -> field names (inherited ones too), interface -> field -> its type as written,
    type alias -> the members of its union: quoted literals as ``"x"``, named types bare)``."""
    source = path.read_text(encoding="utf-8")
    fields: dict[str, set[str]] = {}
    types: dict[str, dict[str, str]] = {}
    for name, extends, body in re.findall(
        r"export interface (\w+)(?: extends (\w+))? \{(.*?)\n\}", source, re.S
    ):
        declared = dict(re.findall(r"^  (\w+)\??: (.*?);$", body, re.M))
        fields[name] = set(declared) | fields.get(extends, set())
        types[name] = {**types.get(extends, {}), **declared}
    unions = {
        name: [m.strip() for m in body.split("|") if m.strip()]
        for name, body in re.findall(r"^export type (\w+) =\s*(.*?);$", source, re.S | re.M)
    }
    return fields, types, unions


def _literal_values(members: list[str]) -> set[str] | None:
    """The string literals of a TS union, or ``None`` when any member is not one."""
    values = [m[1:-1] for m in members if re.fullmatch(r'"[^"]*"', m)]
    return set(values) if len(values) == len(members) else None


def _compare_typeddicts(module: Any, fields: dict[str, set[str]]) -> list[str]:
    """Assert each TypedDict of ``module.__all__`` that the TS side names has the same fields."""
    compared = []
    for name, ts_fields in fields.items():
        cls = getattr(module, name, None)
        if not hasattr(cls, "__required_keys__"):
            continue  # absent, or ContextChip (an open dict: types.ts has an index signature)
        compared.append(name)
        assert _keys_of(cls)[1] == ts_fields, name
    typed = [n for n in module.__all__ if hasattr(getattr(module, n), "__required_keys__")]
    assert sorted(compared) == sorted(n for n in typed if n in fields)
    return compared


def test_schema_py_mirrors_types_ts_field_for_field() -> None:
    """Each interface of ``js/src/types.ts`` that schema.py names has the same fields."""
    from dsh_notebook.transcript import schema

    fields, _, _ = _ts_declarations(PACKAGE.parents[1] / "js" / "src" / "types.ts")
    assert len(_compare_typeddicts(schema, fields)) >= 12


def test_schema_py_and_types_ts_allow_the_same_states() -> None:
    """Every ``Literal`` of schema.py (the states, ``decided_by``, the item kinds) is a
    string-literal union of the same name and the same values in ``types.ts``, and each field
    typed by one of them on one side is typed by the same one on the other."""
    from typing import get_args

    from dsh_notebook.transcript import schema

    _, ts_types, unions = _ts_declarations(PACKAGE.parents[1] / "js" / "src" / "types.ts")
    literals = {
        name: set(get_args(value))
        for name, value in vars(schema).items()
        if name in schema.__all__ and getattr(value, "__origin__", None) is Literal
    }
    assert {"RunState", "ApprovalState", "QuestionState", "SubagentState", "ToolState",
            "DecidedBy"} <= set(literals)  # fmt: skip
    for name, values in literals.items():
        if name == "ItemKind":
            continue  # the kinds are the discriminators of the item interfaces (compared below)
        assert name in unions, f"types.ts has no union {name}"
        assert _literal_values(unions[name]) == values, name
    ts_kinds = {
        kind
        for fields in ts_types.values()
        for kind in (_literal_values([k.strip() for k in fields.get("kind", "").split("|")]) or set())
    }
    assert ts_kinds == literals["ItemKind"]
    state_fields = 0
    for name, ts_fields in ts_types.items():
        cls = getattr(schema, name, None)
        if not hasattr(cls, "__required_keys__"):
            continue
        for field, written in cls.__annotations__.items():
            alias = str(getattr(written, "__forward_arg__", written)).replace(" | None", "")
            if alias in literals and alias != "ItemKind":
                state_fields += 1
                assert ts_fields.get(field, "").replace(" | null", "") == alias, (name, field)
    assert state_fields >= 6


def test_messages_py_mirrors_messages_ts() -> None:
    """``js/src/messages.ts`` declares every message of ``widget/_messages.py`` with the same
    fields and discriminator, the same unions of them, and the same decisions."""
    from typing import get_args, get_type_hints

    from dsh_notebook.widget import _messages

    fields, ts_types, unions = _ts_declarations(PACKAGE.parents[1] / "js" / "src" / "messages.ts")
    compared = _compare_typeddicts(_messages, fields)
    assert sorted(compared) == sorted(
        n for n in _messages.__all__ if hasattr(getattr(_messages, n), "__required_keys__")
    )
    for name in compared:
        hints = get_type_hints(getattr(_messages, name))
        tag = "type" if "type" in hints else "op"
        assert _literal_values([ts_types[name][tag]]) == set(get_args(hints[tag])), name

    def flat(name: str) -> set[str]:  # a union's members, the unions in it expanded
        return set().union(*({m} if m not in unions else flat(m) for m in unions[name]))

    for name in ("Op", "KernelMessage", "WidgetAction", "ViewMessage"):
        members = {m.__name__ for m in get_args(getattr(_messages, name))}
        assert flat(name) == members, name
    assert _literal_values(unions["Decision"]) == set(_messages.DECISIONS)


@pytest.mark.parametrize("name", CAPTURES)
def test_live_frames_do_not_change_the_final_transcript(name: str) -> None:
    for session_id in prompted_sessions(name):
        still, live = reduce(name, session_id), reduce(name, session_id, live=True)
        assert live.to_markdown() == still.to_markdown()
        assert live.to_text() == still.to_text()


def test_plain_capture() -> None:
    snap = reduce("plain").snapshot()
    assert [i["kind"] for i in snap["items"]] == ["reasoning", "text"]
    assert snap["items"][0]["collapsed"] is True
    assert texts(snap) == ["Hello from the fake model!"]
    h = snap["header"]
    assert (h["state"], h["turns"], h["finish_reason"], h["model"]) == (
        "settled",
        1,
        "completed",
        "deepseek-flash",
    )
    assert h["usage"]["input_tokens"] == 11 and h["usage"]["total_tokens"] == 18
    assert snap["prompt"] == "[[scenario:plain]] Say hello."


def test_bash_capture() -> None:
    snap = reduce("bash").snapshot()
    (tool,) = [i for i in snap["items"] if i["kind"] == "tool"]
    assert tool["name"] == "bash" and tool["state"] == "done" and tool["is_error"] is False
    assert tool["args"]["command"].startswith("echo hi-from-bash")
    assert tool["description"] == "Write and print a file"
    assert tool["result"] == "hi-from-bash\n"
    assert tool["job"]["status"] == "completed" and tool["job"]["detail"] == "exit code: 0"
    assert texts(snap) == ["I will run a command.", "The command ran; see bash_out.txt."]


def test_subagent_capture_nests_the_child_under_its_tool_call() -> None:
    snap = reduce("subagent").snapshot()
    (tool,) = [i for i in snap["items"] if i["kind"] == "tool"]
    sub = tool["subagent"]
    assert sub["child_id"].startswith("c4af6878")
    assert (sub["label"], sub["description"], sub["mode"]) == (
        "child task",
        "child task",
        "continuable",
    )
    assert (sub["state"], sub["status"], sub["stop_reason"]) == ("done", "ok", "completed")
    assert sub["result"] == "Hello from the child subagent."
    assert sub["prompt"] == "[[scenario:child]] Say hello from the child."
    assert [i["text"] for i in sub["items"]] == ["Hello from the child subagent."]
    assert sub["turns"] == 1 and sub["usage"]["total_tokens"] == 18
    h = snap["header"]
    assert (h["turns"], h["subagents"], h["usage"]["total_tokens"]) == (2, 1, 72)
    assert texts(snap)[-1] == "The subagent finished and said hello."
    assert any(
        i["kind"] == "note" and i["note"] == "subagent" and "child task" in i["text"]
        for i in snap["items"]
    )


@pytest.mark.parametrize(
    ("name", "outcome", "decided_by", "state"),
    [
        ("approval_allowed_once", "allowed-once", None, "done"),
        ("approval_rejected", "rejected", None, "rejected"),
        ("approval_unavailable", "unavailable", "runtime", "rejected"),
    ],
)
def test_approval_captures(name: str, outcome: str, decided_by: str | None, state: str) -> None:
    snap = reduce(name).snapshot()
    (tool,) = [i for i in snap["items"] if i["kind"] == "tool"]
    approval = tool["approval"]
    assert (approval["outcome"], approval["decided_by"], approval["state"]) == (
        outcome,
        decided_by,
        "decided",
    )
    assert approval["reason"].startswith("escalate sandbox to danger-full-access")
    assert approval["call_id"] == tool["call_id"] and approval["tool_name"] == "bash"
    assert tool["state"] == state


def test_ask_user_capture_answers_the_question_from_the_tool_result() -> None:
    snap = reduce("ask_user_answered").snapshot()
    (tool,) = [i for i in snap["items"] if i["kind"] == "tool"]
    question = tool["question"]
    assert question["state"] == "answered"
    assert (
        question["questions"][0]["id"] == "color" and question["questions"][0]["header"] == "Color"
    )
    assert [o["label"] for o in question["questions"][0]["options"]] == ["Red", "Blue"]
    assert question["answers"] == [{"id": "color", "selected": ["Blue"], "custom": None}]


def test_misc_capture_details() -> None:
    one = reduce("misc_methods", "misc-1").snapshot()
    assert [i["name"] for i in one["items"] if i["kind"] == "tool"] == ["glob", "working_directory"]
    assert one["header"]["turns"] == 3
    bad = reduce("misc_methods", "misc-2").snapshot()
    (tool,) = [i for i in bad["items"] if i["kind"] == "tool"]
    assert tool["state"] == "failed" and tool["is_error"] and "unknown tool" in tool["result"]
    err = reduce("misc_methods", "misc-3").snapshot()
    (error,) = [i for i in err["items"] if i["kind"] == "error"]
    assert (error["code"], error["status"], error["message"]) == (
        "INVALID_REQUEST",
        400,
        "scripted invalid request",
    )
    assert err["header"]["state"] == "error" and err["header"]["finish_reason"] == "error"
    queued = reduce("misc_methods", "misc-4").snapshot()
    assert [i["text"] for i in queued["items"] if i["kind"] == "user"] == ["second while busy"]
    assert queued["header"]["turns"] == 2
    poisoned = reduce("misc_methods", "misc-6").snapshot()
    assert [i["code"] for i in poisoned["items"] if i["kind"] == "error"] == [
        "UNSUPPORTED_CONTENT",
        "UNKNOWN",
        "UNSUPPORTED_CONTENT",
    ]
    image = reduce("misc_methods", "misc-5").snapshot()
    assert image["prompt"] == "describe\n[image image/png 1x1]"


def test_resume_capture_counts_only_the_turns_seen() -> None:
    snap = reduce("resume-run2").snapshot()
    assert snap["header"]["turns"] == 1 and snap["prompt"] == "continue please"


def test_other_sessions_are_ignored() -> None:
    t = Transcript("long-warmup")
    changed = [t.apply(n) for n in notifications("long_stream")]
    others = [n for n in notifications("long_stream") if n.session_id != "long-warmup"]
    assert others and changed.count(True) == t.seq
    for n in others:
        assert t.apply(n) is False
    assert texts(t.snapshot()) == ["ok"]


# -- goldens -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "bash", "subagent", "approval_rejected"])
def test_golden_renderings(name: str) -> None:
    t = reduce(name)
    for suffix, rendered in ((".md", t.to_markdown()), (".txt", t.to_text())):
        path = GOLDEN / f"{name}{suffix}"
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rendered, encoding="utf-8")
        assert path.exists(), f"missing golden {path}; run with UPDATE_GOLDEN=1"
        assert rendered == path.read_text(encoding="utf-8"), (
            f"{path} differs (UPDATE_GOLDEN=1 to accept)"
        )
    assert reduce(name).to_markdown() == t.to_markdown()  # deterministic


# -- live stream -------------------------------------------------------------------------------


def test_live_deltas_grow_then_the_final_message_wins() -> None:
    t = Transcript("s")
    frames = [
        chunk_frame("s", "s:1", i, {"type": "text-delta", "index": 1, "text": w})
        for i, w in enumerate(["Hel", "lo ", "wor"])
    ]
    reasoning = chunk_frame(
        "s", "s:1", 9, {"type": "reasoning-delta", "index": 0, "text": "thinking"}
    )
    assert t.apply(reasoning)
    seqs = []
    for f in frames:
        assert t.apply(f)
        seqs.append(t.seq)
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    snap = t.snapshot()
    assert [(i["kind"], i["text"], i["streaming"]) for i in snap["items"]] == [
        ("reasoning", "thinking", True),
        ("text", "Hello wor", True),
    ]
    ids = [i["id"] for i in snap["items"]]
    final = assistant(
        "s",
        {"type": "reasoning", "text": "thought"},
        {"type": "text", "text": "Hello world, final."},
    )
    assert t.apply(final)
    snap = t.snapshot()
    assert [(i["kind"], i["text"], i["streaming"]) for i in snap["items"]] == [
        ("reasoning", "thought", False),
        ("text", "Hello world, final.", False),
    ]
    assert [i["id"] for i in snap["items"]] == ids  # replaced in place
    end = Notification(
        "session.assistant_stream",
        {
            "sessionId": "s",
            "frame": {"type": "end", "attemptId": "s:1", "outcome": {"kind": "committed"}},
        },
    )
    assert t.apply(end) is False


def test_abandoned_and_failed_attempts_lose_their_live_text() -> None:
    t = Transcript("s")
    t.apply(chunk_frame("s", "s:1", 0, {"type": "text-delta", "index": 0, "text": "partial"}))
    t.apply(
        Notification(
            "session.assistant_stream",
            {
                "sessionId": "s",
                "frame": {"type": "end", "attemptId": "s:1", "outcome": {"kind": "abandoned"}},
            },
        )
    )
    assert t.snapshot()["items"] == []
    t.apply(chunk_frame("s", "s:2", 0, {"type": "text-delta", "index": 0, "text": "again"}))
    t.apply(event("s", "assistant/attempt", {"turn": 1, "step": 1}))
    assert t.snapshot()["items"] == []


def test_live_tool_call_deltas_then_committed_call() -> None:
    t = Transcript("s")
    t.apply(
        chunk_frame(
            "s",
            "s:1",
            0,
            {
                "type": "tool-call-delta",
                "index": 0,
                "id": "c1",
                "name": "bash",
                "argumentsDelta": '{"command": ',
            },
        )
    )
    t.apply(
        chunk_frame(
            "s",
            "s:1",
            1,
            {"type": "tool-call-delta", "index": 0, "id": "c1", "argumentsDelta": '"ls"}'},
        )
    )
    (tool,) = t.snapshot()["items"]
    assert (tool["state"], tool["name"], tool["arguments"]) == (
        "streaming",
        "bash",
        '{"command": "ls"}',
    )
    t.apply(
        assistant(
            "s", {"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}
        )
    )
    t.apply(tool_call("s", "c1", "bash", {"command": "ls"}))
    (same,) = t.snapshot()["items"]
    assert (
        same["id"] == tool["id"]
        and same["state"] == "running"
        and same["args"] == {"command": "ls"}
    )


def test_child_frames_belong_to_the_subagent() -> None:
    t = Transcript("p")
    t.apply(tool_call("p", "c1", "subagent", {"description": "kid", "prompt": "go"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "p", "childSessionId": "k"}))
    t.apply(chunk_frame("k", "k:1", 0, {"type": "text-delta", "index": 0, "text": "child says"}))
    t.apply(chunk_frame("x", "x:1", 0, {"type": "text-delta", "index": 0, "text": "stranger"}))
    snap = t.snapshot()
    (tool,) = snap["items"]
    assert [i["text"] for i in tool["subagent"]["items"]] == ["child says"]
    assert "stranger" not in json.dumps(snap)


def test_captured_20000_chunk_stream_stays_bounded() -> None:
    t = reduce("long_stream", "long-chunks_20000", live=True, settle=False)
    assert t.seq > 20_000
    snap = t.snapshot()
    assert texts(snap) == ["y" * 20_000]
    assert len(json.dumps(snap)) < 25_000


# -- subagents ---------------------------------------------------------------------------------


def test_subagent_without_a_tool_call_is_an_item_and_grandchildren_nest() -> None:
    t = Transcript("p")
    t.apply(Notification("subagent.started", {"parentSessionId": "p", "childSessionId": "k"}))
    t.apply(
        event(
            "k",
            "user/message",
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "task"},
                    {"type": "text", "text": "report back"},
                ],
                "source": {"kind": "user"},
            },
        )
    )
    t.apply(tool_call("k", "c2", "subagent", {"description": "grandkid"}))
    t.apply(Notification("subagent.started", {"parentSessionId": "k", "childSessionId": "g"}))
    t.apply(
        assistant(
            "g",
            {"type": "text", "text": "deep"},
            usage={"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
        )
    )
    t.apply(
        event(
            "k", "approval/asked", {"id": "a1", "toolName": "bash", "callId": "zz", "reason": "r"}
        )
    )
    t.apply(event("k", "approval/decided", {"id": "a1", "outcome": "rejected"}))
    t.apply(
        Notification(
            "subagent.finished",
            {
                "parentSessionId": "p",
                "childSessionId": "k",
                "status": "error",
                "stopReason": "error",
            },
        )
    )
    snap = t.snapshot()
    (sub,) = snap["items"]
    assert sub["kind"] == "subagent" and sub["state"] == "failed" and sub["stop_reason"] == "error"
    assert sub["prompt"] == "task"
    tool, approval = sub["items"]
    assert tool["subagent"]["child_id"] == "g" and tool["subagent"]["items"][0]["text"] == "deep"
    assert tool["subagent"]["usage"]["total_tokens"] == 3 and sub["usage"]["total_tokens"] == 3
    assert snap["header"]["usage"]["total_tokens"] == 3
    assert (
        approval["kind"] == "approval" and approval["decided_by"] == "policy"
    )  # children: policy never
    md = t.to_markdown()
    assert "**Subagent** grandkid" in md and "> > deep" in md


# -- approvals and questions ---------------------------------------------------------------------


def _escalation(t: Transcript) -> None:
    t.apply(event("s", "approval/policy", {"policy": "ask"}))
    t.apply(
        tool_call(
            "s",
            "call-1",
            "bash",
            {"command": "touch /x", "sandbox_permissions": "danger-full-access"},
        )
    )
    t.apply(
        event(
            "s",
            "approval/asked",
            {"id": "rt-1", "toolName": "bash", "callId": "call-1", "reason": "escalate: need it"},
        )
    )


def test_approval_merges_wire_and_local_facts() -> None:
    t = Transcript("s")
    t.apply(Notification("session.status", {"sessionId": "s", "status": "running"}))
    _escalation(t)
    assert t.apply_local(
        ApprovalRequested(
            request_id="dshnb-1",
            session_id="s",
            tool_name="bash",
            call_id="call-1",
            reason="escalate: need it",
        )
    )
    snap = t.snapshot()
    (tool,) = snap["items"]
    approval = tool["approval"]
    assert (approval["approval_id"], approval["request_id"], approval["state"]) == (
        "rt-1",
        "dshnb-1",
        "pending",
    )
    assert snap["pending"] == [
        {"kind": "approval", "id": approval["id"], "request_id": "dshnb-1", "session_id": "s"}
    ]
    assert snap["header"]["state"] == "waiting"
    assert t.apply_local(
        ApprovalDecided(request_id="dshnb-1", outcome="rejected", decided_by="you")
    )
    t.apply(event("s", "approval/decided", {"id": "rt-1", "outcome": "rejected"}))
    snap = t.snapshot()
    approval = snap["items"][0]["approval"]
    assert (approval["outcome"], approval["decided_by"]) == ("rejected", "you")
    assert (
        snap["items"][0]["state"] == "rejected"
        and snap["pending"] == []
        and snap["header"]["state"] == "running"
    )
    assert "**rejected** (by you)" in t.to_markdown()
    assert "rejected (by you)" in t.to_text()


def test_runtime_outcome_wins_over_a_late_local_answer() -> None:
    t = Transcript("s")
    _escalation(t)
    t.apply_local(ApprovalRequested(request_id="r", session_id="s", tool_name="bash"))  # no call id
    t.apply_local(ApprovalDecided(request_id="r", outcome="allowed-once", decided_by="you"))
    t.apply(event("s", "approval/decided", {"id": "rt-1", "outcome": "rejected"}))
    approval = t.snapshot()["items"][0]["approval"]
    assert (approval["request_id"], approval["outcome"], approval["decided_by"]) == (
        "r",
        "rejected",
        "runtime",
    )


def test_bridge_timeout_cancels_the_card() -> None:
    t = Transcript("s")
    _escalation(t)
    t.apply_local(
        ApprovalRequested(request_id="r", session_id="s", tool_name="bash", call_id="call-1")
    )
    assert t.apply(
        Notification(
            "approval/cancelled", {"requestId": "r", "sessionId": "s", "reason": "timeout"}
        )
    )
    approval = t.snapshot()["items"][0]["approval"]
    assert (approval["outcome"], approval["decided_by"], approval["state"]) == (
        "rejected",
        "timeout",
        "decided",
    )
    assert t.apply(event("s", "approval/decided", {"id": "rt-1", "outcome": "rejected"})) is False


def test_local_approval_without_any_wire_event_is_a_standalone_card() -> None:
    t = Transcript("s")
    t.apply_local(
        ApprovalRequested(request_id="r", session_id="s", tool_name="write", reason="<b>why</b>")
    )
    t.apply_local(
        ApprovalDecided(request_id="r", outcome="cancelled", decided_by="connection-lost")
    )
    (card,) = t.snapshot()["items"]
    assert (
        card["kind"] == "approval"
        and card["outcome"] == "cancelled"
        and card["decided_by"] == "connection-lost"
    )
    assert "&lt;b&gt;why&lt;/b&gt;" in t.to_markdown()


def test_cards_left_pending_read_undecided_once_settled() -> None:
    t = Transcript("s")
    _escalation(t)
    t.apply_local(
        QuestionAsked(request_id="q", session_id="s", questions=[{"id": "a", "question": "Why?"}])
    )
    assert len(t.snapshot()["pending"]) == 2
    t.apply_local(Settled(finish_reason="aborted"))
    assert (
        t.snapshot()["pending"] == [] and t.snapshot()["items"][0]["approval"]["state"] == "pending"
    )
    # nobody can decide them any more (issue 48 item 4): the one phrase, cards and questions
    assert t.to_markdown().count("not decided — the run was interrupted") == 2
    assert t.to_text().count("not decided — the run was interrupted") == 2


def test_a_copy_of_a_run_in_progress_made_to_outlive_it_reads_nothing_as_waiting() -> None:
    """The copy kept for the next kernel and the one a save keeps (issue 48 item 4): its
    pending cards, its waiting calls and its state read interrupted; the live rendering of the
    same snapshot still says the card waits."""
    t = Transcript("s")
    _escalation(t)
    t.apply_local(
        QuestionAsked(request_id="q", session_id="s", questions=[{"id": "a", "question": "Why?"}])
    )
    snapshot = t.snapshot()
    assert "awaiting a decision" in render_markdown(snapshot)  # live: it does wait
    for rendered in (
        render_markdown(snapshot, interrupted=True),
        render_text(snapshot, interrupted=True),
    ):
        assert rendered.count("not decided — the run was interrupted") == 2, rendered
        for waiting in ("awaiting", "waiting for you", "waiting ·", "· waiting", "running"):
            assert waiting not in rendered, (waiting, rendered)
    assert "\n**interrupted** · " in render_markdown(snapshot, interrupted=True)
    assert "· interrupted ·" in summary_line(snapshot, interrupted=True)
    assert snapshot == t.snapshot()  # the snapshot itself is not changed


def test_questions_from_local_facts() -> None:
    questions = [
        {
            "id": "color",
            "question": "Which color?",
            "header": "Color",
            "options": [{"label": "Red"}, {"label": "Blue"}],
            "multiSelect": True,
        }
    ]
    for answers, state in (
        ([{"id": "color", "selected": ["Red"], "custom": "teal"}], "answered"),
        (None, "dismissed"),
    ):
        t = Transcript("s")
        t.apply(tool_call("s", "q1", "ask_user_question", {"questions": questions}))
        t.apply_local(QuestionAsked(request_id="dshnb-2", session_id="s", questions=questions))
        snap = t.snapshot()
        card = snap["items"][0]["question"]
        assert card["request_id"] == "dshnb-2" and card["questions"][0]["multi_select"] is True
        assert snap["pending"][0]["kind"] == "question"
        t.apply_local(QuestionAnswered(request_id="dshnb-2", answers=answers))
        t.apply(
            tool_result(
                "s",
                "q1",
                "Error: the user cancelled",
                is_error=True,
                error={"code": "ASK_CANCELLED"},
            )
        )
        card = t.snapshot()["items"][0]["question"]
        assert card["state"] == state
    assert "→ **Red, “teal”**" in _answered_markdown(questions)


def _answered_markdown(questions: list[dict[str, Any]]) -> str:
    t = Transcript("s")
    t.apply(tool_call("s", "q1", "ask_user_question", {"questions": questions}))
    t.apply_local(QuestionAsked(request_id="r", session_id="s", questions=questions, call_id="q1"))
    t.apply_local(
        QuestionAnswered(
            request_id="r", answers=[{"id": "color", "selected": ["Red"], "custom": "teal"}]
        )
    )
    return t.to_markdown()


def test_question_cancelled_on_the_wire() -> None:
    t = Transcript("s")
    t.apply_local(
        QuestionAsked(request_id="r", session_id="s", questions=[{"id": "a", "question": "?"}])
    )
    assert t.apply(Notification("user-question.cancelled", {"requestId": "r", "sessionId": "s"}))
    assert t.snapshot()["items"][0]["state"] == "cancelled"
    assert t.apply_local(QuestionCancelled(request_id="r")) is False


# -- errors, notes, unknowns, local facts --------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "needle"),
    [
        ("MISSING_CREDENTIAL", "DEEPSEEK_API_KEY"),
        ("AUTH", "DEEPSEEK_API_KEY"),
        ("INVALID_CREDENTIAL", "DEEPSEEK_API_KEY"),
        ("RATE_LIMIT", "wait"),
        ("CONTEXT_WINDOW_EXCEEDED", "new session"),
    ],
)
def test_turn_error_hints(code: str, needle: str) -> None:
    t = Transcript("s")
    t.apply(
        event(
            "s",
            "turn/end",
            {
                "turn": 1,
                "reason": {
                    "kind": "error",
                    "error": {"message": "boom", "code": code, "status": 401},
                },
            },
        )
    )
    (err,) = t.snapshot()["items"]
    assert err["kind"] == "error" and needle in err["hint"] and err["status"] == 401
    t.apply_local(Settled(finish_reason=None))
    assert t.snapshot()["header"]["state"] == "error"
    assert needle in _render(t.to_markdown()) and needle in t.to_text()


def test_retry_notes_merge_and_compaction_marker() -> None:
    t = Transcript("s")
    for n in (1, 2):
        t.apply(
            event(
                "s",
                "llm/retry",
                {
                    "retry": n,
                    "maxRetries": 5,
                    "failure": {"message": "transport failed", "code": "TRANSPORT"},
                },
            )
        )
    t.apply(event("s", "compaction/start", {}))
    t.apply(event("s", "compaction/end", {}))
    t.apply(
        event(
            "s",
            "user/message",
            {"role": "user", "content": [], "source": {"kind": "user"}},
            surfaceOp={"op": "replace", "startSeq": 1, "endSeq": 5},
        )
    )
    notes = [(i["note"], i["count"]) for i in t.snapshot()["items"]]
    assert notes == [("retry", 2), ("compaction", 1)]
    assert "retry 2/5" in t.to_markdown() and "Context compacted" in t.to_markdown()


def test_unknown_and_malformed_input_is_counted_never_raised() -> None:
    t = Transcript("s")
    assert t.apply(event("s", "feedback/record", {"note": "x"}))
    assert t.apply(Notification("session.brand_new", {"sessionId": "s"}))
    assert t.apply(
        Notification(
            "session.event", {"sessionId": "s", "event": {"type": "tool/call", "seq": "x"}}
        )
    )
    t.apply(event("s", "tool/call", {"callId": 3, "name": None, "arguments": {"not": "a string"}}))
    t.apply(event("s", "tool/result", {"message": "nope"}))
    t.apply(
        event(
            "s",
            "assistant/message",
            {"message": {"content": [{"type": "audio"}, "junk", {"type": "text", "text": 5}]}},
        )
    )
    t.apply(
        Notification(
            "session.assistant_stream",
            {"sessionId": "s", "frame": {"type": "chunk", "attemptId": "s:1", "chunk": "junk"}},
        )
    )
    assert (
        t.apply(
            Notification("session.event", {"sessionId": "other", "event": {"type": "feedback/record"}})
        )
        is False
    )
    assert t.apply(Notification("dsh_notebook/bridge.ready", {"version": 1})) is False
    unknown = t.snapshot()["unknown"]
    assert unknown["feedback/record"] == 1 and unknown["notification session.brand_new"] == 1
    assert unknown["malformed session.event"] == 1
    assert "1 unrecognized event" not in t.to_markdown()  # several were counted
    assert json.dumps(t.snapshot())


def test_seq_moves_only_on_change_and_stamps_revs() -> None:
    t = Transcript(
        "s", prompt="hi", context=[{"name": "df", "kind": "DataFrame"}], title="T", model="m"
    )
    assert t.seq == 0 and t.snapshot()["header"]["state"] == "starting"
    running = Notification("session.status", {"sessionId": "s", "status": "running"})
    assert t.apply(running) and t.seq == 1
    assert t.apply(running) is False and t.seq == 1
    assert t.apply(event("s", "step/start", {"turn": 1, "step": 1})) is False
    assert (
        t.apply(event("s", "request/context", {"model": "other"})) is False
    )  # the caller's model wins
    t.apply(assistant("s", {"type": "text", "text": "a"}))
    t.apply(assistant("s", {"type": "text", "text": "b"}))
    first, second = t.snapshot()["items"]
    assert first["rev"] < second["rev"] == t.seq
    assert t.apply_local(Status(state="running")) is False
    assert (
        t.apply_local(Settled(finish_reason="completed"))
        and t.apply_local(Settled(finish_reason="completed")) is False
    )
    snap = t.snapshot()
    assert snap["header"]["title"] == "T" and snap["header"]["model"] == "m"
    assert snap["context"] == [{"name": "df", "kind": "DataFrame"}]
    assert "`df` (DataFrame)" in t.to_markdown()
    snap["context"][0]["name"] = "mutated"  # a snapshot is a copy
    snap["items"].clear()
    assert t.snapshot()["context"][0]["name"] == "df" and len(t.snapshot()["items"]) == 2


def test_local_facts_are_validated_where_they_are_built() -> None:
    t = Transcript("s")
    with pytest.raises(ValueError, match="unknown local fact"):
        local_fact("nonsense")
    with pytest.raises(TypeError, match="not a local fact"):
        t.apply_local("settled")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="decided_by"):
        ApprovalDecided(request_id="r", outcome="rejected", decided_by="someone")
    with pytest.raises(ValueError, match="state"):
        Status(state="busy")
    with pytest.raises(TypeError, match="finish"):
        Settled(finish="completed")  # type: ignore[call-arg]  # a misspelt field
    with pytest.raises(TypeError):
        local_fact("note", {"txt": "typo"})
    assert t.seq == 0  # nothing reached the transcript
    with pytest.raises(TypeError):
        t.apply_local(RunError(text="x"))
    assert t.apply_local(
        RunError(message="runtime exited", detail="stderr tail", code="MISSING_CREDENTIAL")
    )
    snap = t.snapshot()
    assert snap["header"]["state"] == "error"
    (err,) = snap["items"]
    assert err["source"] == "client" and "DEEPSEEK_API_KEY" in err["hint"]
    assert t.apply_local(Settled(finish_reason="completed"))
    assert t.snapshot()["header"]["state"] == "error"  # a client error is not undone by settling


def test_summary_line_format() -> None:
    t = Transcript("abc")
    t.apply(event("abc", "turn/start", {"turn": 1}))
    t.apply(event("abc", "turn/start", {"turn": 2}))
    for i in range(3):
        t.apply(tool_call("abc", f"c{i}", "bash", {"command": "ls"}))
    t.apply(
        assistant(
            "abc", {"type": "text", "text": "x"}, usage={"inputTokens": 1000, "outputTokens": 200}
        )
    )
    t.apply_local(Settled(finish_reason="completed"))
    assert t.summary_line() == "dsh · session abc · settled · 2 turns · 3 tool calls · 1.2k tokens"
    assert repr(t) == f"<Transcript {t.summary_line()}>"


# -- bounds ------------------------------------------------------------------------------------


def test_synthetic_20000_chunk_stream_and_huge_tool_output_stay_bounded() -> None:
    t = Transcript("s")
    for i in range(20_000):
        t.apply(chunk_frame("s", "s:1", i, {"type": "text-delta", "index": 0, "text": "y"}))
    assert t.seq == 20_000 and texts(t.snapshot()) == ["y" * 20_000]
    huge = "z" * 1_000_000
    t.apply(tool_call("s", "c1", "bash", json.dumps({"command": huge})))
    t.apply(tool_result("s", "c1", "line\n" * 200_000 + "the end"))
    snap = t.snapshot()
    tool = snap["items"][-1]
    assert len(tool["result"]) < RESULT_MAX + 100 and tool["result"].endswith("the end")
    assert "characters omitted" in tool["result"]
    assert tool["args"] is None and len(tool["arguments"]) < RESULT_MAX + 100
    assert len(json.dumps(snap)) < 70_000
    assert len(t.to_markdown()) < 80_000 and len(t.to_text()) < 120_000  # text indents lines


def test_item_count_is_bounded() -> None:
    t = Transcript("s")
    for i in range(1_100):
        t.apply(tool_call("s", f"c{i}", "glob", {"pattern": "*"}))
    snap = t.snapshot()
    assert len(snap["items"]) == 1_000 and snap["items_omitted"] == 100
    assert "100 earlier items omitted" in t.to_markdown()


# -- hostile input -----------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<SCRIPT>alert(1)</SCRIPT> <iframe src=javascript:alert(1)></iframe>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x]( javascript:alert(1))",
    "[x](\njavascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](javascript\\:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](javascript:`alert(1)`)",
    "<javascript:alert(1)>",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[x][r]\n\n[r]:\n  JAVASCRIPT:alert(1)",
    "[x](data:text/html,<script>alert(1)</script>)",
    "[x](vbscript:msgbox(1)) ![i](javascript:alert(1))",
    "&lt;script&gt; &#60;img src=x onerror=alert(1)&#62;",
    "<!-- c --> <a href='javascript:alert(1)'>a</a>",
    "foo ` bar\n`<img src=x onerror=alert(1)>`",
    "| a | b |\n|---|---|\n| `x | <img src=x onerror=alert(1)> | y` | z |",
    "\\`<img src=x onerror=alert(1)>`",
    "```\n<script>alert(1)</script>\n````\n<img src=x onerror=alert(1)>\n```",
    "~~~\n```\n~~~\n<svg onload=alert(1)>",
    "- ```\n  <img src=x onerror=alert(1)>\n",
    "> ```\n> <img src=x onerror=alert(1)>\n> ```",
    "    <img src=x onerror=alert(1)>",
    "<div>\n\n<img src=x onerror=alert(1)>\n\n</div>",
]
BACKTICKS = "```\n</code></pre><img src=x onerror=alert(1)>\n``````````\n<script>alert(1)</script>"


def _hostile_transcript() -> Transcript:
    blob = "\n\n".join(HOSTILE)
    t = Transcript(
        "s<script>",
        prompt=blob,
        context=[{"name": "<img src=x onerror=alert(1)>", "kind": "[x](javascript:alert(1))"}],
        title="<svg onload=alert(1)>",
        model="`m`<script>",
    )
    t.apply(
        chunk_frame("s<script>", "a:1", 0, {"type": "reasoning-delta", "index": 0, "text": blob})
    )
    t.apply(
        assistant("s<script>", {"type": "reasoning", "text": blob}, {"type": "text", "text": blob})
    )
    for i, text in enumerate([*HOSTILE, BACKTICKS]):
        args = {"description": text, "command": BACKTICKS}
        t.apply(tool_call("s<script>", f"c{i}", f"bash<img src=x onerror=alert({i})>", args))
        t.apply(
            event(
                "s<script>",
                "approval/asked",
                {"id": f"a{i}", "toolName": "<b>", "callId": f"c{i}", "reason": text},
            )
        )
        t.apply(
            tool_result(
                "s<script>",
                f"c{i}",
                text + BACKTICKS,
                is_error=True,
                error={"code": "<img src=x onerror=1>"},
            )
        )
    t.apply(
        tool_call(
            "s<script>",
            "q",
            "ask_user_question",
            {
                "questions": [
                    {
                        "id": "x",
                        "question": HOSTILE[1],
                        "header": HOSTILE[4],
                        "options": [{"label": HOSTILE[2]}],
                    }
                ]
            },
        )
    )
    t.apply_local(
        QuestionAsked(
            request_id="r",
            session_id="s<script>",
            questions=[{"id": "x", "question": HOSTILE[1], "options": [{"label": HOSTILE[5]}]}],
        )
    )
    t.apply_local(
        QuestionAnswered(
            request_id="r", answers=[{"id": "x", "selected": [HOSTILE[0]], "custom": HOSTILE[4]}]
        )
    )
    t.apply(tool_call("s<script>", "sub", "subagent", {"description": HOSTILE[2]}))
    t.apply(
        Notification("subagent.started", {"parentSessionId": "s<script>", "childSessionId": "k"})
    )
    t.apply(event("s<script>", "subagent/catalog", {"childId": "k", "label": HOSTILE[13]}))
    t.apply(assistant("k", {"type": "text", "text": blob}))
    t.apply(
        Notification(
            "subagent.finished",
            {
                "parentSessionId": "s<script>",
                "childSessionId": "k",
                "status": "ok",
                "lastAssistantMessage": [{"type": "text", "text": HOSTILE[0]}],
            },
        )
    )
    t.apply(
        event(
            "s<script>",
            "user/message",
            {
                "role": "user",
                "content": [{"type": "text", "text": "x"}],
                "source": {"kind": "user"},
            },
        )
    )
    t.apply(
        event(
            "s<script>",
            "user/message",
            {
                "role": "user",
                "content": [{"type": "text", "text": blob}],
                "source": {"kind": "user"},
            },
        )
    )
    t.apply(
        event(
            "s<script>",
            "turn/end",
            {"reason": {"kind": "error", "error": {"message": HOSTILE[1], "code": HOSTILE[2]}}},
        )
    )
    t.apply(
        event(
            "s<script>",
            "llm/retry",
            {"retry": 1, "maxRetries": 2, "failure": {"message": HOSTILE[4], "code": HOSTILE[0]}},
        )
    )
    t.apply_local(RunError(message=HOSTILE[1], detail=BACKTICKS, hint=HOSTILE[4]))
    t.apply_local(Settled(finish_reason="<img src=x onerror=alert(1)>"))
    return t


def test_the_checker_catches_unsanitized_markdown() -> None:
    for raw in (
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "<svg onload=alert(1)>",
        "x\n\n<div>y</div>",
    ):
        with pytest.raises(AssertionError):
            assert_safe_markdown(raw)


def test_hostile_transcript_markdown_is_inert() -> None:
    t = _hostile_transcript()
    md = t.to_markdown()
    assert_safe_markdown(md)
    assert json.dumps(t.snapshot())
    # the hostile text is still shown (escaped), not dropped
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "#blocked-link" in md
    assert "\n</code></pre><img src=x onerror=alert(1)>\n" in md  # verbatim, inside a fence
    assert "<script>alert(1)</script>" in t.to_text()  # plain text needs no escaping


@pytest.mark.parametrize("text", [*HOSTILE, BACKTICKS])
def test_each_hostile_sample_is_inert(text: str) -> None:
    assert_safe_markdown(sanitize_markdown(text))
    assert_safe_markdown(fence(text))


def test_ordinary_markdown_still_renders() -> None:
    source = (
        "# Title\n\n**bold** _em_ `a < b` [site](https://example.com/?a=1&b=2)\n\n"
        "1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n"
        "```python\nif a < b:\n    print('<ok>')\n```\n"
    )
    html = _render(sanitize_markdown(source))
    for needle in (
        "<h1>Title</h1>",
        "<strong>bold</strong>",
        "<em>em</em>",
        "<code>a &lt; b</code>",
        '<a href="https://example.com/?a=1&amp;b=2">site</a>',
        "<ol>",
        "<table>",
        "<blockquote>",
        "<code class=\"language-python\">if a &lt; b:\n    print('&lt;ok&gt;')\n</code>",
    ):
        assert needle in html, needle


@pytest.mark.parametrize(
    "text",
    [
        "[" * 200_000,
        "[a" * 100_000 + "]:",
        "](" * 100_000,
        "](javascript:" * 20_000,
        "](<" * 60_000,
        "".join("`" * k + " |" for k in range(1, 600)),
        "<&>" * 70_000,
        "```\n" * 50_000,
        ("javascript" + " " * 50) * 4_000,
    ],
    ids=[
        "brackets",
        "refdefs",
        "links",
        "js-links",
        "pointy",
        "ticks",
        "entities",
        "fences",
        "words",
    ],
)
def test_sanitizer_is_not_quadratic(text: str) -> None:
    started = time.perf_counter()
    out = sanitize_markdown(text)
    assert time.perf_counter() - started < 5.0  # linear-ish: ~0.1 s here; quadratic: minutes
    assert "javascript:" not in out.lower()


def test_fence_outgrows_backtick_runs() -> None:
    block = fence("a ``` b\n``````\nc", "py<script>")
    assert block.startswith("```````py") and block.endswith("\n```````")


# -- package hygiene -----------------------------------------------------------------------------


def test_public_names_are_pinned() -> None:
    import dsh_notebook.transcript as pkg

    assert pkg.__all__ == [
        "APPROVAL_CANCELLED",
        "ARGS_MAX",
        "ARGS_PARSED_MAX",
        "ASSISTANT_MAX",
        "DECIDED_BY",
        "LOCAL_KINDS",
        "MAX_ITEMS",
        "PROMPT_MAX",
        "RESULT_MAX",
        "SCHEMA_VERSION",
        "STATES",
        "Transcript",
        "code_span",
        "escape_inline",
        "fence",
        "markdown_companion",
        "sanitize_markdown",
    ]


def test_transcript_imports_only_protocol_stdlib_and_pydantic() -> None:
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                ok = (
                    top in sys.stdlib_module_names
                    or top == "pydantic"
                    or name.startswith("dsh_notebook.protocol")
                )
                assert ok, f"{path.name} imports {name}"


def _user_message(session_id: str, text: str) -> Notification:
    return event(
        session_id,
        "user/message",
        {"role": "user", "content": [{"type": "text", "text": text}], "source": {"kind": "user"}},
    )


def test_a_huge_prompt_is_shown_bounded_everywhere() -> None:
    """Issue 13 item 17: a 5 MB prompt must not be repeated whole by the snapshot, the markdown
    and the text (the cell output holds all three); the marker says where the rest is."""
    prompt = "".join(f"line {i}: some data\n" for i in range(300_000))  # ~5.6 MB
    assert len(prompt) > 5_000_000
    t = Transcript("s", prompt=prompt, full_prompt_at="_dsh.prompt")
    t.apply(_user_message("s", prompt))  # the runtime echoes the prompt back
    t.apply(_user_message("s", prompt))  # and a second, queued message as long
    t.apply_local(Settled(finish_reason="completed"))
    snap, md, text = json.dumps(t.snapshot()), t.to_markdown(), t.to_text()
    omitted = len(prompt) - 4_000
    for rendering in (snap, md, text):
        assert len(rendering) < 3 * 4_000 + 1_000
        assert f"[… {omitted:,} characters omitted; the full prompt is in `_dsh.prompt` …]" in (
            rendering if rendering is not snap else t.snapshot()["prompt"]
        )
    shown = t.snapshot()["prompt"]
    assert shown.startswith(prompt[:3_000]) and shown.endswith(prompt[-500:])
    # without a place to point at, the marker just counts
    bare = Transcript("s", prompt=prompt).snapshot()["prompt"]
    assert f"\n[… {omitted:,} characters omitted …]\n" in bare
    # the session's own first message stands in for a missing prompt, bounded the same way
    echoed = Transcript("s")
    echoed.apply(_user_message("s", prompt))
    assert len(echoed.snapshot()["prompt"]) < 4_100


def test_kernel_style_context_chips() -> None:
    chips = [
        {
            "token": "{df}",
            "kind": "variable",
            "summary": "DataFrame 3x4",
            "chars": 120,
            "truncated": True,
        },
        {
            "token": "--image a.png",
            "kind": "image",
            "summary": "image",
            "chars": 0,
            "truncated": False,
        },
    ]
    t = Transcript("s", prompt="look at {df}", context=chips)
    assert "Context: `{df}` (DataFrame 3x4, truncated) · `--image a.png` (image)" in t.to_markdown()
    assert "Context: {df} (DataFrame 3x4, truncated), --image a.png (image)" in t.to_text()


def test_a_note_names_a_command_as_code_not_as_escaped_backquotes() -> None:
    """Issue 48 item 5: the queued note's `%dsh pending` read \\`%dsh pending\\` in the saved
    transcript; the rest of the note stays escaped."""
    t = Transcript("s")
    t.apply_local(local_fact("note", {"text": "queued: `%dsh pending` lists it <b>x</b>"}))
    md = t.to_markdown()
    assert "`%dsh pending`" in md and "\\`" not in md, md
    assert "<b>" not in md


def test_a_fix_prompts_traceback_is_folded_in_the_kept_transcript() -> None:
    """Issue 48 item 7: the settled prompt of Fix with dsh reads as its one line, the traceback
    (whole, behind a click) folded; a short fenced block stays inline."""
    frames = [f'  File "<cell>", line {n}, in <module>' for n in range(36)]
    traceback = "\n".join(["Traceback (most recent call last):", *frames, "KeyError: 'staton'"])
    prompt = (
        "Fix the error in cell 1a2b3c4d (edit it with edit_cell; I will review the diff).\n\n"
        f"```\n{traceback}\n```"
    )
    md = render_markdown(Transcript("s", prompt=prompt).snapshot())
    head, fold = md.split("<details><summary>Traceback (38 lines)</summary>", 1)
    assert "Fix the error in cell 1a2b3c4d" in head and "KeyError" not in head
    assert traceback in fold.split("</details>", 1)[0]
    short = render_markdown(Transcript("s", prompt="Look:\n```python\nx = 1\n```").snapshot())
    assert "<details>" not in short and "x = 1" in short


def test_a_session_title_made_from_the_prompt_keeps_the_persons_words_only() -> None:
    """The runtime titles a session from its first user message, the kernel's context block
    included ("Hi! Who are you? <notebook-context> Written by…"): the header keeps the words."""
    t = Transcript("s")
    title = "Hi! Who are you? <notebook-context> Written by dsh_notebook, not by the user"
    t.apply(event("s", "session/title", {"title": title, "source": {"kind": "fallback"}}))
    assert t.snapshot()["header"]["title"] == "Hi! Who are you?"
    plain = Transcript("p")
    plain.apply(event("p", "session/title", {"title": "Say hello."}))
    assert plain.snapshot()["header"]["title"] == "Say hello."
