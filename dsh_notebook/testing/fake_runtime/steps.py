"""Turn building blocks: the first step's events (system prompt, context snapshot, request header,
title), a model reply with its stream record, a tool call and its result, the final answer.
"""

from __future__ import annotations

from .methods import ServedRuntime
from .records import (
    APPROVAL_ASK,
    APPROVAL_NEVER,
    CONTEXT_HEAD,
    FALLBACK_TOOLS,
    PROVIDER,
    call_id,
    message,
    new_id,
    stream_records,
    text_block,
)
from .sessions import Item, Session
from .wire import Json, dumps


class StepsRuntime(ServedRuntime):
    """The served runtime plus the events a turn is made of."""

    def first_step(self, s: Session, items: list[Item]) -> None:
        s.step = 1
        s.step_ev("step/start")
        if s.fresh:
            prompt = str(
                self.fixture.get("systemPrompt", "You are an AI agent powered by DeepSeek Harness.")
            )
            s.ev(
                "system/message",
                {
                    "turn": s.turn,
                    "step": 1,
                    "message": message(
                        [text_block(prompt.replace("{model}", s.route.model))],
                        {"kind": "system-prompt"},
                        "system",
                    ),
                },
                surfaceOp="append",
            )
        for notice in s.claimed_notices:
            s.ev("user/message", notice, surfaceOp="append")
        s.claimed_notices = []
        seqs = [s.ev("user/message", item.message, surfaceOp="append") for item in items]
        if s.fresh or s.ctx_cwd != s.cwd:
            s.ev("user/message", self.context_message(s), surfaceOp="append")
            s.ctx_cwd = s.cwd
        if s.header_reason:
            tools = self.fixture.get("tools", FALLBACK_TOOLS)
            s.ev(
                "request/header",
                {"header": {**s.route.header(), "tools": tools}, "reason": s.header_reason},
            )
            s.header_reason = None
        if s.fresh:
            s.ev(
                "request/context",
                {
                    "provider": PROVIDER,
                    "model": s.route.model,
                    "contextWindow": 1000000,
                    "systemPromptUpdate": "in-history",
                },
            )
            title = " ".join(
                str(b.get("text"))
                for b in items[0].message["content"]
                if isinstance(b, dict) and b.get("type") == "text"
            )
            if len(title) > 40:
                title = title[:40].rsplit(" ", 1)[0]
            s.ev(
                "session/title",
                {"title": title, "messageSeqs": seqs[:1], "source": {"kind": "fallback"}},
            )
        s.fresh = False

    def context_message(self, s: Session) -> Json:
        sandbox = (
            f"Current DSH file policy: workspace-write. Any available operation enforced "
            f"by the DSH file sandbox may modify files under the session workspace: "
            f"{dumps(s.origin)}. Some platform temporary areas may also be writable."
            if self.mode == "workspace-write"
            else f"Current DSH file policy: {self.mode}."
        )
        sections: list[Json] = [
            {
                "name": "working-directory:current",
                "text": f"Current working directory: {dumps(s.cwd)}.",
            },
            {"name": "sandbox:policy", "text": sandbox},
            {
                "name": "approval:policy",
                "text": APPROVAL_ASK if s.policy == "ask" else APPROVAL_NEVER,
            },
        ]
        if s.parent is not None:
            sections += self.fixture.get("childContextSections", [])[3:]
        text = "\n\n".join([CONTEXT_HEAD, *(str(x["text"]) for x in sections)])
        return message(
            [text_block(text)],
            {"kind": "runtime-context", "form": "snapshot", "sections": sections},
        )

    def next_step(self, s: Session) -> None:
        s.step += 1
        s.step_ev("step/start")

    def reply(self, s: Session, content: list[Json], finish: str = "stop") -> None:
        """A model response: delivery-accepted, then one ``assistant/message``."""
        with self.lock:
            s.ev(
                "session-log-deepseek/delivery-accepted",
                {"sessionId": s.id, "sessionFormatVersion": 4, "throughSeq": s.seq - 1},
            )
        out = max(1, sum(len(b.get("text") or b.get("arguments") or "") for b in content) // 4)
        usage = {"inputTokens": 1000 + 40 * s.turn, "outputTokens": out}
        usage["totalTokens"] = usage["inputTokens"] + out
        replay = {
            "response": {"kind": "deepseek-messages", "version": 1, "model": s.route.model},
            "blocks": [
                {"type": "reasoning", "signature": "fake-sig"}
                if b["type"] == "reasoning"
                else {"type": b["type"]}
                for b in content
            ],
        }
        msg = {
            "role": "assistant",
            "content": content,
            "source": {
                "kind": "model",
                "provider": PROVIDER,
                "model": s.route.model,
                "replayState": replay,
            },
            "id": new_id(),
        }
        s.ev(
            "assistant/message",
            {
                "turn": s.turn,
                "step": s.step,
                "message": msg,
                "usage": usage,
                "stream": stream_records(content, finish, replay, usage),
            },
            surfaceOp="append",
        )
        texts = [b["text"] for b in content if b["type"] == "text"]
        if texts:
            s.last_text = "".join(texts)

    def tool_call(self, s: Session, name: str, arguments: Json) -> tuple[str, int]:
        """A model step asking for one tool, and its ``tool/call`` event."""
        cid, args = call_id(), dumps(arguments)
        self.reply(
            s, [{"type": "tool-call", "id": cid, "name": name, "arguments": args}], "tool-calls"
        )
        return cid, s.ev(
            "tool/call",
            {"turn": s.turn, "step": s.step, "callId": cid, "name": name, "arguments": args},
        )

    def tool_result(
        self,
        s: Session,
        cid: str,
        call_seq: int,
        text: str,
        is_error: bool = False,
        error: Json | None = None,
        meta: Json | None = None,
    ) -> None:
        data: Json = {
            "turn": s.turn,
            "step": s.step,
            "message": {
                "role": "tool",
                "source": {"kind": "tool", "callId": cid},
                "toolCallId": cid,
                "content": [text_block(text)],
                "isError": is_error or error is not None,
                "id": new_id(),
            },
        }
        if error is not None:
            data["error"] = error
        if meta is not None:
            data["meta"] = meta
        s.ev("tool/result", data, sourceEventSeqs=[call_seq], surfaceOp="append")

    def final_answer(self, s: Session, text: str) -> Json:
        """Close a tool step, then one more step with the final text; the turn's end reason."""
        s.step_ev("step/end")
        self.next_step(s)
        self.reply(s, [text_block(text)])
        s.step_ev("step/end")
        return {"kind": "completed"}
