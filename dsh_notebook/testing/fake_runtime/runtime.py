"""The fake runtime's core: the read loop, dispatch and the failure rules, the session store,
and the period loop (inbox -> turns -> idle -> a child settles into its parent).

Threads: the main thread reads stdin and dispatches; each running session has a worker thread;
``session/wait`` waits on :attr:`RuntimeCore.cond`. All session state is guarded by
:attr:`RuntimeCore.lock` (an ``RLock``; ``cond`` is built on it). What a turn does is left to
subclasses (:meth:`RuntimeCore.run_turn`); the scenario table is handed in by the caller.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from .admission import admit_block
from .records import (
    GARBAGE,
    MISSING,
    PERMISSION_MODES,
    escape_id,
    js_str,
    message,
    reply_tag,
    text_block,
)
from .sessions import Item, Route, Session
from .wire import Json, RpcError, Wire, dumps, log

Handler = Callable[[Any, Json], Json | None]
Turn = Callable[[Session, list[Item]], Json]

DATA_FILE = Path(__file__).resolve().parent / "data" / "captured_0.2.1rc2.json"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


class RuntimeCore:
    """State, the read loop, dispatch, the session store and the period loop.

    ``scenarios`` maps each scenario name to the turn kind a root prompt gets by default.
    """

    def __init__(self, scenario: str, args: dict[str, str], scenarios: Mapping[str, str]) -> None:
        self.scenario, self.args = scenario, args
        self.scenario_kinds = scenarios
        self.seed = scenario == "serve-seed" or self.flag("seed")
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.wire = Wire()
        self.sessions: dict[str, Session] = {}
        self.route: Route | None = None
        self.approvals = self.questions = self.shutting_down = False
        home = os.environ.get("DSH_HOME", "").strip()
        self.store = Path(home) / "fake-sessions" if home else None
        mode = os.environ.get("DSH_PERMISSION_MODE", "").strip()
        self.mode = mode if mode in PERMISSION_MODES else "workspace-write"
        try:
            self.fixture: Json = json.loads(DATA_FILE.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.fixture = {}
        self.handlers: dict[str, Handler] = {}  # filled by ServedRuntime
        self.turns: dict[str, Turn] = {}  # filled by FakeRuntime

    # -- configuration -------------------------------------------------------------------------
    def arg(self, name: str, default: str) -> str:
        return self.args.get(name, default)

    def num(self, name: str, default: float) -> float:
        try:
            return float(self.args[name])
        except (KeyError, ValueError):
            return default

    def flag(self, name: str) -> bool:
        return self.args.get(name, "").lower() in ("1", "true", "yes", "on")

    # -- process -------------------------------------------------------------------------------
    def serve(self) -> NoReturn:
        passive = self.scenario == "no-initialize" or (
            self.scenario == "ignore-sigterm" and not self.flag("serve")
        )
        for raw in sys.stdin.buffer:
            if not passive:
                self.handle_line(raw)
        if self.scenario == "ignore-sigterm":
            log("stdin closed; ignoring it (ignore-sigterm)")
            threading.Event().wait()
        self.exit(0)

    def exit(self, code: int) -> NoReturn:
        self.wire.flush()
        os._exit(code)

    def crash(self) -> NoReturn:
        self.wire.flush()
        for line in (
            "fake-runtime: simulating a fatal runtime failure",
            "fatal: simulated crash",
            "    at FakeRuntime.crash (fake_runtime.py)",
        ):
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        os._exit(int(self.num("exit_code", 3)))

    def m_shutdown(self, rid: Any) -> None:
        if self.scenario == "ignore-sigterm":
            return  # never answered
        self.wire.result(rid, {})
        with self.lock:
            if self.shutting_down:
                return
            self.shutting_down = True
        threading.Timer(self.num("shutdown_delay", 0.05), self.exit, args=(0,)).start()

    def handle_line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            return
        try:
            frame = json.loads(line, parse_constant=_reject_constant)
        except ValueError:
            return
        if not isinstance(frame, dict):
            return
        rid = frame.get("id")
        if isinstance(rid, bool) or not isinstance(rid, (str, int, float)):
            return  # a notification (or junk): dropped
        if frame.get("method") is not None:
            self.dispatch(rid, frame["method"], frame.get("params"))
        else:
            self.wire.deliver(frame)

    def dispatch(self, rid: Any, method: Any, params: Any) -> None:
        p: Json = params if isinstance(params, dict) else {}
        try:
            if method == "shutdown":
                self.m_shutdown(rid)
                return
            if self.shutting_down:
                raise RpcError("SDK server is shutting down")
            handler = self.handlers.get(method) if isinstance(method, str) else None
            if handler is None:
                raise RpcError(f"unknown DeepSeek Harness SDK runtime method: {js_str(method)}")
            if method != "initialize" and self.route is None:
                raise RpcError("SDK server is not initialized")
            result = handler(rid, p)
            if result is not None:
                self.wire.result(rid, result)
        except RpcError as exc:
            self.wire.error(rid, str(exc))
        except Exception as exc:  # the runtime answers its own TypeErrors with -32603 too
            traceback.print_exc(file=sys.stderr)
            self.wire.error(rid, str(exc) or type(exc).__name__)

    # -- sessions ------------------------------------------------------------------------------
    def session_id(self, p: Json, what: str) -> str:
        sid = p.get("sessionId")
        if not isinstance(sid, str) or not sid:
            if what == "working-directory":
                raise RpcError("working-directory requests require a non-empty sessionId")
            raise RpcError(f"{what} requires a non-empty sessionId string")
        return sid

    def store_path(self, sid: str) -> Path | None:
        return self.store / f"{escape_id(sid)}.json" if self.store else None

    def load(self, sid: str) -> Json | None:
        path = self.store_path(sid)
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path else None
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save(self, s: Session) -> None:
        path = self.store_path(s.id)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(dumps(s.to_json()), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            log(f"cannot persist session {s.id!r}: {exc}")

    def open_session(self, sid: str) -> Session:
        """The live session, or a new one (creation events); lock held."""
        s = self.sessions.get(sid)
        if s is not None:
            return s
        path = self.store_path(sid)
        if path is not None and path.exists():
            raise RpcError(f'session "{sid}" already exists')
        assert self.route is not None
        s = self.sessions[sid] = Session(self, sid, self.route, self.route.cwd, self.route.cwd)
        s.ev("permission/preset", {"preset": self.mode})
        s.ev("sandbox/mode", {"mode": self.mode})
        s.ev("approval/policy", {"policy": s.policy})
        self.save(s)
        return s

    def submit(self, rid: Any, p: Json, method: str, wrap: Callable[[str], Json]) -> None:
        sid = self.session_id(p, method)
        blocks = p.get("contentBlocks", MISSING)
        with self.lock:
            s = self.open_session(sid)
            if blocks is MISSING or blocks is None:
                raise RpcError(f"Cannot read properties of {js_str(blocks)} (reading 'filter')")
            if not isinstance(blocks, list):
                raise RpcError("contentBlocks.filter is not a function")
            content = [admit_block(b) for b in blocks]
            text = "\n".join(
                str(b.get("text"))
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            )
            match = re.search(r"\[\[turn:([a-z-]+)\]\]", text)
            kind = (
                match.group(1)
                if match and match.group(1) in self.turns
                else ("normal" if s.parent else self.scenario_kinds[self.scenario])
            )
            bad_text = any(
                isinstance(b, dict)
                and b.get("type") == "text"
                and not isinstance(b.get("text"), str)
                for b in content
            )
            for b in content:
                btype = b.get("type") if isinstance(b, dict) else None
                if btype not in ("text", "image") and s.poison is None:
                    s.poison = js_str(btype if btype is not None else MISSING)
            item = Item(message(content, {"kind": "user"}), kind, reply_tag(text), bad_text)
            started = self.enqueue(s, item)
            if kind == "crash" and self.arg("crash_point", "turn") == "before-response":
                self.crash()
            if kind == "malformed":
                self.wire.write_line(GARBAGE[0])
            self.wire.result(rid, wrap(item.message["id"]))
            if started:
                self.start_worker(s)

    def enqueue(self, s: Session, item: Item) -> bool:
        """Receipt splice; starts a turn when idle (returns True: start a worker). Lock held."""
        s.ev(
            "agent/inbox/spliced",
            {"target": "next-turn", "start": len(s.inbox), "inserted": [item.message]},
        )
        s.inbox.append(item)
        if s.running:
            return False
        s.running = True
        s.status("running")
        self.begin_turn(s)
        return True

    def begin_turn(self, s: Session) -> None:
        s.turn, s.open_turn = s.turn + 1, True
        s.ev("turn/start", {"turn": s.turn})
        if s.notices:
            s.ev(
                "agent/inbox/spliced",
                {"target": "next-step", "start": 0, "removedCount": len(s.notices), "inserted": []},
            )
            s.claimed_notices, s.notices = s.notices, []
        s.ev(
            "agent/inbox/spliced",
            {"target": "next-turn", "start": 0, "removedCount": len(s.inbox), "inserted": []},
        )
        s.current, s.inbox = s.inbox, []
        self.save(s)

    def start_worker(self, s: Session) -> None:
        threading.Thread(target=self.run_period, args=(s,), daemon=True).start()

    def run_period(self, s: Session) -> None:
        """Run turns until the inbox is empty, then go idle (and settle a subagent child)."""
        if s.parent is not None and not s.gate.is_set():
            s.gate.wait()  # the parent goes idle first, as observed
            time.sleep(self.num("child_delay", 0.05))
        while True:
            reason = self.run_turn(s, s.current)
            with self.lock:
                s.ev("turn/end", {"turn": s.turn, "reason": reason})
                s.open_turn = False
                if s.inbox:
                    self.begin_turn(s)
                    continue
                s.running = False
                s.status("idle")
                self.save(s)
                for child in s.children:
                    child.gate.set()
                if s.parent is not None and not s.settled:
                    self.settle(s)
                self.cond.notify_all()
                return

    def settle(self, child: Session) -> None:
        parent = child.parent
        assert parent is not None
        summary = (
            f"Background subagent {child.id} finished and will do no further work "
            "unless you send it more."
        )
        notice = message(
            [text_block(summary), text_block("Its closing message:"), text_block(child.last_text)],
            {
                "kind": "subagent-settled",
                "form": "notice",
                "summary": summary,
                "senderSessionId": child.id,
            },
        )
        started = self.enqueue(parent, Item(notice, "settled", child.current[0].reply))
        child.settled = True
        self.wire.notify(
            "subagent.finished",
            {
                "provider": "spawn",
                "agentId": child.id,
                "parentSessionId": parent.id,
                "childSessionId": child.id,
                "status": "ok",
                "stopReason": "completed",
                "lastAssistantMessage": [text_block(child.last_text)],
            },
        )
        if started:
            self.start_worker(parent)

    def tree_idle(self, s: Session) -> bool:
        return (
            not s.running
            and not s.inbox
            and all(c.settled and self.tree_idle(c) for c in s.children)
        )

    def run_turn(self, s: Session, items: list[Item]) -> Json:
        """Run one turn of ``s`` claiming ``items``; its ``turn/end`` reason (subclasses)."""
        raise NotImplementedError
