"""The scenarios: which turn a root prompt gets (:data:`SCENARIOS`) and what each turn does.

``normal`` answers; ``subagent`` starts a background child; ``approval`` and ``question`` send
the seed's server requests when the client opted in; ``malformed`` writes garbage around a turn;
``error`` fails the attempt; ``crash``, ``flood``, ``slow`` and ``big`` stress the client. See the
package docstring for the scenario arguments.
"""

from __future__ import annotations

import time
import uuid

from .admission import validate_answers
from .records import (
    APPROVAL_TEXTS,
    DEFAULT_REPLY,
    GARBAGE,
    QUESTIONS,
    message,
    new_id,
    now_ms,
    text_block,
)
from .sessions import Item, Session
from .steps import StepsRuntime
from .wire import Json, dumps

SCENARIOS: dict[str, str] = {  # scenario -> default turn kind of a root prompt
    "normal": "normal",
    "serve-seed": "normal",
    "subagent": "subagent",
    "approval": "approval",
    "question": "question",
    "malformed": "malformed",
    "crash": "crash",
    "flood": "flood",
    "slow": "slow",
    "error-turn": "error",
    "big-frame": "big",
    "no-initialize": "normal",
    "ignore-sigterm": "normal",
}


class FakeRuntime(StepsRuntime):
    """The whole fake: every turn kind on top of the steps."""

    def __init__(self, scenario: str, args: dict[str, str]) -> None:
        super().__init__(scenario, args, SCENARIOS)
        answer = self.turn_answer
        self.turns.update(
            {
                "normal": answer,
                "malformed": answer,
                "crash": answer,
                "flood": answer,
                "slow": answer,
                "big": answer,
                "child": answer,
                "settled": answer,
                "error": self.turn_error,
                "subagent": self.turn_subagent,
                "approval": self.turn_approval,
                "question": self.turn_question,
            }
        )

    def run_turn(self, s: Session, items: list[Item]) -> Json:
        s.step = 0
        if any(item.bad_text for item in items):
            return {
                "kind": "error",
                "error": {
                    "message": "Cannot read properties of undefined (reading 'matchAll')",
                    "code": "UNKNOWN",
                },
            }
        if s.poison is not None:
            failure = {
                "message": "DeepSeek Messages cannot represent user/tool-result content "
                f"{s.poison}",
                "code": "UNSUPPORTED_CONTENT",
            }
            return self.turn_error(s, items, failure)
        return self.turns[items[0].kind](s, items)

    # -- turns ---------------------------------------------------------------------------------
    def turn_answer(self, s: Session, items: list[Item]) -> Json:
        kind = items[0].kind
        self.first_step(s, items)
        if kind == "crash":
            self.crash()
        if kind == "malformed":
            self.malformed(s)
        elif kind == "slow":
            time.sleep(self.num("seconds", 2.0))
        elif kind == "flood":
            count = int(self.num("count", 10000))
            for index in range(count):
                s.ev("plugin:flood", {"index": index, "count": count})
        content = [{"type": "reasoning", "text": "The user wants a short reply."}]
        if kind == "big":
            size = int(self.num("size", 300000))
            text = ("All work and no play makes a big frame. " * (size // 40 + 1))[:size]
        elif kind == "child":
            text, content = "Hello from the child subagent.", []
        elif kind == "settled":
            text, content = items[0].reply or "The child said hello.", []
        else:
            text = items[0].reply or DEFAULT_REPLY
        self.reply(s, [*content, text_block(text)])
        if kind == "malformed":
            for line in GARBAGE[3:]:
                self.wire.write_line(line)
        s.step_ev("step/end")
        return {"kind": "completed"}

    def malformed(self, s: Session) -> None:
        for line in GARBAGE[1:3]:
            self.wire.write_line(line)
        self.wire.result("fake-unknown-response-id", {"surprise": True})
        self.wire.error(987654321, "a response nobody asked for")
        self.wire.notify("fake.unknownNotification", {"sessionId": s.id, "detail": {"x": 1}})
        self.wire.send(
            {
                "jsonrpc": "2.0",
                "id": "req_" + uuid.uuid4().hex,
                "method": "fake/unknown-request",
                "params": {"sessionId": s.id},
            }
        )
        with self.lock:
            seq, s.seq = s.seq, s.seq + 1
            self.wire.notify(
                "session.event",
                {
                    "sessionId": s.id,
                    "futureParamsField": [1],
                    "event": {
                        "type": "x-fake/unknown-event",
                        "seq": seq,
                        "time": now_ms(),
                        "data": {
                            "message": {
                                "role": "assistant",
                                "content": [{"type": "hologram", "payload": {"shape": "cube"}}],
                            },
                            "novel": True,
                        },
                        "futureEnvelopeField": {"nested": True},
                        "ignorable": True,
                    },
                },
            )

    def turn_error(self, s: Session, items: list[Item], failure: Json | None = None) -> Json:
        if failure is None:
            failure = {
                "message": self.arg("error_message", "scripted invalid request"),
                "code": self.arg("error_code", "INVALID_REQUEST"),
                "status": int(self.num("error_status", 400)),
            }
        self.first_step(s, items)
        s.ev(
            "assistant/attempt",
            {
                "turn": s.turn,
                "step": s.step,
                "stream": [
                    {
                        "type": "chunk",
                        "time": now_ms(),
                        "chunk": {
                            "type": "finish",
                            "reason": {"kind": "error", "failure": failure},
                        },
                    }
                ],
            },
        )
        s.step_ev("step/end")
        return {"kind": "error", "error": failure}

    def turn_subagent(self, s: Session, items: list[Item]) -> Json:
        self.first_step(s, items)
        prompt = "Say hello from the child."
        cid, call_seq = self.tool_call(
            s, "subagent", {"description": "child task", "prompt": prompt}
        )
        with self.lock:
            child = Session(self, new_id(), s.route, s.origin, s.cwd, parent=s, seq=3)
            self.sessions[child.id] = child
            s.children.append(child)
            self.wire.notify(
                "subagent.started", {"parentSessionId": s.id, "childSessionId": child.id}
            )
            instruction = str(self.fixture.get("childInstruction", "Report back to {parent}."))
            content = [text_block(prompt), text_block(instruction.replace("{parent}", s.id))]
            self.enqueue(child, Item(message(content, {"kind": "user"}), "child", items[0].reply))
            self.save(child)
            self.start_worker(child)
        s.ev(
            "subagent/catalog",
            {
                "version": 0,
                "childId": child.id,
                "childCreatedAt": child.created_at,
                "mode": "continuable",
                "label": "child task",
            },
        )
        self.tool_result(s, cid, call_seq, f"started subagent {child.id}")
        return self.final_answer(s, "Started the subagent; waiting for it.")

    def turn_approval(self, s: Session, items: list[Item]) -> Json:
        self.first_step(s, items)
        why = "The fake runtime must run a command outside the workspace."
        cid, call_seq = self.tool_call(
            s,
            "bash",
            {
                "description": "Run a command outside the sandbox",
                "command": "echo ran",
                "sandbox_permissions": "danger-full-access",
                "justification": why,
            },
        )
        approval_id, reason = new_id(), f"escalate sandbox to danger-full-access: {why}"
        s.ev(
            "approval/asked",
            {"id": approval_id, "toolName": "bash", "callId": cid, "reason": reason},
        )
        outcome = "rejected" if s.policy == "never" else "unavailable"
        if self.approvals and s.policy == "ask":
            timeout = self.num("approval_timeout", -1.0)
            frame = self.wire.request(
                "approval/request",
                {"sessionId": s.id, "toolName": "bash", "callId": cid, "reason": reason},
                timeout if timeout >= 0 else None,
            )
            result = frame.get("result") if frame is not None and "error" not in frame else None
            outcome = (
                "cancelled"
                if frame is None
                else "rejected"
                if not isinstance(result, dict) or set(result) != {"outcome"}
                else str(result["outcome"])
            )
            if outcome not in ("allowed-once", "rejected", "cancelled"):
                outcome = "rejected"
        s.ev("approval/decided", {"id": approval_id, "outcome": outcome})
        if outcome == "allowed-once":
            job = {
                "jobId": f"bash-{uuid.uuid4().hex[:16]}",
                "owner": s.id,
                "kind": "bash",
                "label": "echo ran",
                "startedAt": now_ms(),
                "toolCall": {"callId": cid, "rootCallId": cid},
            }
            s.ev("job/registered", job)
            s.ev(
                "job/settled",
                {
                    **job,
                    "finishedAt": now_ms(),
                    "status": "completed",
                    "cause": "producer",
                    "producerReported": True,
                    "detail": "exit code: 0",
                },
            )
            self.tool_result(s, cid, call_seq, "ran\n", meta={"cwd": s.cwd})
        else:
            self.tool_result(s, cid, call_seq, APPROVAL_TEXTS[outcome], is_error=True)
        return self.final_answer(s, items[0].reply or DEFAULT_REPLY)

    def turn_question(self, s: Session, items: list[Item]) -> Json:
        self.first_step(s, items)
        model_args = [
            {**{k: v for k, v in q.items() if k != "multiSelect"}, "multi_select": q["multiSelect"]}
            for q in QUESTIONS
        ]
        cid, call_seq = self.tool_call(s, "ask_user_question", {"questions": model_args})
        text, code = self.ask_question(s)
        error = None if code is None else {"name": "UserQuestionError", "code": code}
        self.tool_result(s, cid, call_seq, text, error=error)
        return self.final_answer(s, items[0].reply or DEFAULT_REPLY)

    def ask_question(self, s: Session) -> tuple[str, str | None]:
        if not self.questions or s.parent is not None:
            return "Error: no user-questions answerer accepted the request", "NO_PROVIDER"
        request_id, timeout = new_id(), self.num("question_timeout", -1.0)
        frame = self.wire.request(
            "user-question/ask",
            {"requestId": request_id, "sessionId": s.id, "questions": QUESTIONS},
            timeout if timeout >= 0 else None,
        )
        if frame is None:
            self.wire.notify(
                "user-question.cancelled", {"requestId": request_id, "sessionId": s.id}
            )
            return "Error: ASK_TIMED_OUT: the question was not answered in time", "ASK_TIMED_OUT"
        if "error" in frame or "result" not in frame:
            return "Error: PROVIDER_ERROR: the question host failed", "PROVIDER_ERROR"
        result = frame["result"]
        if (
            isinstance(result, dict)
            and set(result) == {"cancelled"}
            and result["cancelled"] is True
        ):
            return "Error: ASK_CANCELLED: the user dismissed the question", "ASK_CANCELLED"
        answers = validate_answers(result)
        if answers is None:
            return "Error: BAD_ANSWER: the answer does not match the questions", "BAD_ANSWER"
        return dumps(answers), None
