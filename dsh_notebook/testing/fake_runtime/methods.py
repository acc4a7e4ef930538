"""The SDK methods the fake serves: ``initialize``, ``shutdown``, ``session/prompt``, ``session/query``
(with ``seed``), ``session/resume``, ``session/wait``, ``session/working-directory/get|set``.
Each validates like the runtime 0.2.1-rc.2 and fails with its exact ``-32603`` text.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

from .records import MAX_SAFE_INTEGER, MISSING, PROVIDER, SERVER_NAME, js_str, message, text_block
from .runtime import RuntimeCore
from .sessions import Route, Session
from .wire import Json, RpcError, dumps


class ServedRuntime(RuntimeCore):
    """The core plus the method table."""

    def __init__(self, scenario: str, args: dict[str, str], scenarios: Mapping[str, str]) -> None:
        super().__init__(scenario, args, scenarios)
        self.handlers.update(
            {
                "initialize": self.m_initialize,
                "session/prompt": self.m_prompt,
                "session/resume": self.m_resume,
                "session/wait": self.m_wait,
                "session/working-directory/get": self.m_wd_get,
                "session/working-directory/set": self.m_wd_set,
            }
        )
        if self.seed:
            self.handlers["session/query"] = self.m_query

    # -- methods -------------------------------------------------------------------------------
    def m_initialize(self, rid: Any, p: Json) -> Json:
        if self.scenario == "crash" and self.arg("crash_point", "turn") == "initialize":
            self.crash()
        time.sleep(self.num("init_delay", 0.0))
        provider = p.get("provider", MISSING)
        if provider != PROVIDER:
            raise RpcError(f'no adapter registered for provider "{js_str(provider)}"')
        model, cwd = p.get("model"), p.get("cwd")
        if not isinstance(model, str) or not model:
            raise RpcError("initialize model must be a non-empty string")
        if not isinstance(cwd, str):
            raise RpcError("initialize cwd must be a string")
        effort = p.get("reasoningEffort")
        if "reasoningEffort" in p and (not isinstance(effort, str) or not effort):
            raise RpcError("initialize reasoningEffort must be a non-empty string")
        if effort is not None and effort not in ("off", "low", "high", "max"):
            raise RpcError(
                f'provider "{PROVIDER}" model "{model}" does not support reasoning '
                f'effort "{effort}"'
            )
        tokens = p.get("maxTokens")
        if "maxTokens" in p and (
            isinstance(tokens, bool)
            or not isinstance(tokens, (int, float))
            or tokens != int(tokens)
            or not 0 < tokens <= MAX_SAFE_INTEGER
        ):
            raise RpcError("initialize maxTokens must be a positive safe integer")
        caps = p.get("capabilities")
        with self.lock:
            self.route = Route(
                model, effort, None if tokens is None else int(tokens), os.path.abspath(cwd)
            )
            self.approvals = p.get("approvalRequests") is True
            self.questions = isinstance(caps, dict) and caps.get("userQuestions") is True
        info: Json = {"version": self.arg("server_version", "0.0.1")}
        if not self.flag("omit_server_name"):
            info = {"name": self.arg("server_name", SERVER_NAME), **info}
        result: Json = {"serverInfo": info}
        if self.seed:
            result["capabilities"] = {
                "sessionQuery": True,
                "approvalRequests": True,
                "userQuestions": True,
            }
        return result

    def m_prompt(self, rid: Any, p: Json) -> None:
        self.submit(rid, p, "session/prompt", lambda mid: {"messageId": mid})

    def m_query(self, rid: Any, p: Json) -> None:
        blocks = p.get("contentBlocks")
        if (
            not isinstance(blocks, list)
            or not blocks
            or not any(
                isinstance(b, dict)
                and (
                    b.get("type") == "image"
                    or (isinstance(b.get("text"), str) and b["text"].strip())
                )
                for b in blocks
            )
        ):
            raise RpcError("session/query requires non-empty contentBlocks")
        texts = [b for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        first = texts[0].get("text") if texts else None
        if not (isinstance(first, str) and first.strip().startswith("/")):
            self.submit(rid, p, "session/query", lambda mid: {"kind": "prompt", "messageId": mid})
            return
        if len(texts) != 1 or any(b.get("type") not in ("text", "image") for b in blocks):
            raise RpcError("a command needs one complete text block with only images beside it")
        sid = self.session_id(p, "session/query")
        name, _, rest = first.strip()[1:].partition(" ")
        final = (
            f"Commands: /help, /compact. (fake runtime; /{name} ran)"
            if name == "help"
            else f"Command /{name} completed."
        )
        with self.lock:
            self.open_session(sid)
            cid = "cmd_" + uuid.uuid4().hex
            self.wire.notify(
                "session.query.completed",
                {
                    "sessionId": sid,
                    "commandId": cid,
                    "finalResponse": final,
                    "finishReason": "completed",
                },
            )
            self.wire.result(
                rid,
                {
                    "kind": "command",
                    "execution": {
                        "commandId": cid,
                        "command": name,
                        "arguments": rest.strip(),
                        "status": "completed",
                        "finalResponse": final,
                    },
                },
            )

    def m_resume(self, rid: Any, p: Json) -> Json:
        sid = p.get("sessionId")
        if not isinstance(sid, str) or not sid:
            raise RpcError("session/resume requires a non-empty sessionId string")
        with self.lock:
            if sid in self.sessions:
                raise RpcError(f"SDK session is already open or opening: {sid}")
            data = self.load(sid)
            if data is None:
                raise RpcError(f'session "{sid}" not found')
            assert self.route is not None
            s = Session(self, sid, self.route, str(data["origin"]), str(data["cwd"]))
            # Events written while resuming (and the repair of an interrupted turn) are not
            # forwarded, so the wire shows a seq gap, as with the real runtime.
            s.seq = int(data["nextSeq"]) + (2 if data.get("openTurn") else 1)
            s.turn, s.fresh, s.header_reason, s.ctx_cwd = int(data["turn"]), False, "resume", s.cwd
            s.poison, s.last_text = data.get("poison"), str(data.get("lastText", ""))
            s.created_at = int(data.get("createdAt", s.created_at))
            self.sessions[sid] = s
            self.save(s)
        return {}

    def m_wait(self, rid: Any, p: Json) -> None:
        sid = p.get("sessionId")
        with self.lock:
            s = self.sessions.get(sid) if isinstance(sid, str) else None
            if s is None:
                raise RpcError(f"unknown SDK session: {js_str(sid)}")
            if self.tree_idle(s):
                self.wire.result(rid, {})
                return
        threading.Thread(target=self.wait_idle, args=(rid, s), daemon=True).start()

    def wait_idle(self, rid: Any, s: Session) -> None:
        with self.cond:  # the response is written under the state lock, after every event
            while not self.tree_idle(s):
                self.cond.wait()
            self.wire.result(rid, {})

    def m_wd_get(self, rid: Any, p: Json) -> Json:
        sid = self.session_id(p, "working-directory")
        with self.lock:
            s = self.open_session(sid)
            if not os.path.isdir(s.cwd):
                s.cwd = s.origin
            return {"cwd": s.cwd}

    def m_wd_set(self, rid: Any, p: Json) -> Json:
        sid, path = self.session_id(p, "working-directory"), p.get("path")
        if not isinstance(path, str):
            raise RpcError("working-directory set requires a path string")
        with self.lock:
            s = self.open_session(sid)
            target = os.path.normpath(os.path.join(s.cwd, path))
            if not os.path.isdir(target):
                raise RpcError(f"working-directory: directory does not exist: {dumps(path)}")
            if target != s.cwd:
                old, s.cwd = s.cwd, target
                s.ev("working-directory/change", {"cwd": target})
                notice = message(
                    [
                        text_block(
                            f"The working directory changed from {dumps(old)} to {dumps(target)}."
                        )
                    ],
                    {"kind": "working-directory"},
                )
                s.ev(
                    "agent/inbox/spliced",
                    {"target": "next-step", "start": len(s.notices), "inserted": [notice]},
                )
                s.notices.append(notice)
                self.save(s)
            return {"cwd": s.cwd}
