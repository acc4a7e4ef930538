#!/usr/bin/env python3
"""Protocol-exact fake of the DeepSeek Harness SDK runtime 0.2.1-rc.2 (``dsh --profile sdk``).

Standard library only; it runs as a module or as a plain script, so an uninstalled checkout works::

    python -m dsh_notebook.testing.fake_runtime --scenario NAME [--scenario-arg K=V ...]
    python .../dsh_notebook/testing/fake_runtime.py [--profile sdk] [--patch FILE ...]

Launcher flags (``--profile``, ``--patch``, ``--from-default-profile``) and unknown tokens are accepted
and ignored; ``--version`` prints ``0.2.1-rc.2``. When ``--scenario`` is absent the scenario comes
from ``$DSH_FAKE_SCENARIO`` (default ``normal``); ``$DSH_FAKE_SCENARIO_ARGS`` holds ``K=V`` pairs
separated by spaces or commas, and ``--scenario-arg`` wins per key. ``$DSH_HOME`` enables
persistence in ``$DSH_HOME/fake-sessions/<escaped id>.json`` (unset: in memory only), so a second
process with the same home can ``session/resume``. ``$DSH_PERMISSION_MODE`` picks the preset.

Wire (as the real runtime): newline-delimited compact JSON-RPC 2.0; stdout carries only frames,
each written whole under one lock; diagnostics go to stderr. Invalid JSON, non-objects and client
notifications are ignored; responses are matched to the fake's own server requests. Every failure
is ``-32603`` with the runtime's message text. Notifications of a prompt (receipt
``agent/inbox/spliced`` with the ``messageId``, ``running``, ``turn/start``, claim splice) precede
its ``{messageId}`` response; ``session/wait`` answers after the last notification of the whole
session tree (subagents included). ``shutdown`` -> ``{}`` then exit 0 (calls in between fail with
``SDK server is shutting down``); stdin EOF and SIGTERM -> exit 0.

Scenarios (scenario args in brackets; every scenario also takes ``server_name=X``,
``omit_server_name=1``, ``server_version=V``, ``init_delay=S``, ``shutdown_delay=S`` (0.05) and
``seed=1``, which adds what ``serve-seed`` adds):

* ``normal``: each prompt is one turn answering "Hello from the fake runtime." or TEXT for a
  ``[[reply:TEXT]]`` tag. Prompts to a busy session queue as the next turn.
* ``serve-seed``: ``initialize`` returns ``capabilities``; ``session/query`` is served
  (``{kind:"prompt", messageId}``, or for "/..." text ``{kind:"command", execution}`` preceded by
  ``session.query.completed``).
* ``subagent``: the parent starts a background child (own UUID session, forwarded seq from 3); the
  parent's turn 1 ends and it goes idle while the child still runs; the child's settle starts
  parent turn 2 (``subagent-settled`` splice, ``subagent.finished``), final "The child said hello."
  [``child_delay=S`` (0.05) after the parent's first idle].
* ``approval``: a ``bash`` escalation: ``approval/asked``, then, only if ``initialize`` had
  ``approvalRequests: true``, a server request ``approval/request``; only a result exactly
  ``{"outcome":"allowed-once"}`` runs the command ("ran"). ``rejected``/``cancelled`` are kept; any
  other result or an error response counts as ``rejected``; no opt-in -> ``unavailable``.
  [``approval_timeout=S``: stop waiting, outcome ``cancelled``, a late answer is ignored]
* ``question``: ``ask_user_question``; with ``capabilities.userQuestions: true`` a server request
  ``user-question/ask``; the tool result is the answer JSON, or an error naming ``ASK_CANCELLED``,
  ``BAD_ANSWER``, ``PROVIDER_ERROR`` (error response), ``ASK_TIMED_OUT`` or ``NO_PROVIDER``.
  [``question_timeout=S``: send ``user-question.cancelled`` and ignore a late answer]
* ``malformed``: garbage stdout lines (non-JSON, array, scalars, empty line, truncated JSON, a
  response with an unknown id, an unknown notification, an unknown server request, a session.event
  of unknown type with an unknown block type and extra fields) around an otherwise normal turn.
* ``crash``: after a few events of the first turn, stderr lines and exit status 3 without answering
  pending requests [``crash_point=turn|before-response|initialize``, ``exit_code=N``].
* ``flood``: ``count`` (10000) ``plugin:flood`` events in the turn, as fast as possible.
* ``slow``: the model step takes ``seconds`` (2). ``big-frame``: ~``size`` (300000) chars of text.
* ``error-turn``: ``assistant/attempt`` then ``turn/end`` kind error [``error_code``
  (INVALID_REQUEST), ``error_message``, ``error_status`` (400)].
* ``no-initialize``: reads and ignores everything, exits on EOF or SIGTERM. ``ignore-sigterm``: the
  same but also ignores SIGTERM/SIGINT and EOF (only SIGKILL ends it) [``serve=1``: serve
  normally but never answer ``shutdown``].

A ``[[turn:KIND]]`` tag (normal, subagent, approval, question, malformed, crash, flood, slow, error,
big) overrides the scenario's turn for one prompt.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import io
import json
import os
import re
import signal
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

Json = dict[str, Any]

RUNTIME_VERSION = "0.2.1-rc.2"
SERVER_NAME = "deepseek-harness-sdk-runtime"
PROVIDER = "deepseek-official"
DEFAULT_REPLY = "Hello from the fake runtime."
MAX_SAFE_INTEGER = 2**53 - 1
DATA_FILE = Path(__file__).resolve().parent / "fake_runtime_data" / "captured_0.2.1rc2.json"
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
PERMISSION_MODES = ("workspace-write", "read-only", "danger-full-access")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
ESCALATION = 'escalating this command to "danger-full-access"'
APPROVAL_TEXTS = {
    "unavailable": 'Error: sandbox escalation to "danger-full-access" requires approval, '
    "but no approval channel is available",
    "rejected": f"Error: the user rejected {ESCALATION}; it stays denied, so stop and explain "
    "instead of working around it",
    "cancelled": f"Error: approval for {ESCALATION} was cancelled",
}
QUESTIONS: list[Json] = [
    {
        "id": "color",
        "question": "Which color?",
        "header": "Color",
        "options": [{"label": "Red"}, {"label": "Blue"}],
        "multiSelect": False,
    }
]
CONTEXT_HEAD = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
)
APPROVAL_ASK = (
    "Approval policy: ask. Operations that require approval may ask through the "
    "configured answerers; without an available answerer, the request fails closed."
)
APPROVAL_NEVER = (
    "Approval prompts are disabled in this session: actions that require approval "
    "are rejected automatically \u2014 do not request sandbox escalation (do not set "
    "`sandbox_permissions`)."
)
FALLBACK_TOOLS: list[Json] = [
    {
        "name": "bash",
        "description": "Execute a bash command.",
        "parameters": {"type": "object", "properties": {}},
    }
]
GARBAGE = (
    "this line is not JSON (fake runtime, malformed scenario)",
    "[1,2,3]",
    "42",
    "",
    '"a bare JSON string"',
    "null",
    '{"jsonrpc":"2.0","method":"session.event",',
)


class RpcError(Exception):
    """A handler failure, answered as ``-32603`` with this message."""


_MISSING: Any = object()


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id() -> str:
    return str(uuid.uuid4())


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def js_str(value: Any) -> str:
    """``String(value)`` as JavaScript renders it in the runtime's error texts."""
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else js_str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def escape_id(session_id: str) -> str:
    """On-disk session id escaping of the runtime (``a/b`` -> ``a~002Fb``)."""
    return "".join(
        c if (c.isascii() and c.isalnum()) or c in "-_." else f"~{ord(c):04X}" for c in session_id
    )


def text_block(text: str) -> Json:
    return {"type": "text", "text": text}


def message(content: list[Any], source: Json, role: str = "user") -> Json:
    return {"content": content, "source": source, "role": role, "id": new_id()}


def call_id(index: int = 0) -> str:
    return f"toolu_{time.time_ns() // 1000}_{index}"


def reply_tag(text: str) -> str | None:
    match = re.search(r"\[\[reply:(.*?)\]\]", text, re.S)
    return match.group(1) if match else None


def stream_records(content: list[Json], finish: str, replay: Json, usage: Json) -> list[Json]:
    """The compact ``data.stream`` record of one model attempt (notes §13)."""
    records: list[Json] = []
    for index, block in enumerate(content):
        kind, start = block["type"], now_ms()
        records.append(
            {
                "type": "chunk",
                "time": start,
                "chunk": {"type": "block-start", "index": index, "blockType": kind},
            }
        )
        run: Json = {"time0": start, "index": index, "dt": []}
        if kind == "tool-call":
            run.update(
                type="tool-call-chunks",
                id=block["id"],
                name=block["name"],
                args=[block["arguments"]],
            )
        else:
            run.update(type=f"{kind}-chunks", texts=[block["text"]])
        records.append(run)
        records.append(
            {
                "type": "chunk",
                "time": now_ms(),
                "chunk": {"type": "block-end", "index": index, "block": block},
            }
        )
    end = now_ms()
    records.append({"type": "chunk", "time": end, "chunk": {"type": "usage", "usage": usage}})
    records.append(
        {
            "type": "chunk",
            "time": end,
            "chunk": {"type": "finish", "reason": {"kind": finish}, "replayState": replay},
        }
    )
    return records


def sniff_image(raw: bytes) -> tuple[str, int, int] | None:
    """Media type and pixel size of PNG, GIF, JPEG or WebP bytes (0 when not parsed)."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and len(raw) >= 24:
        return "image/png", int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return "image/gif", int.from_bytes(raw[6:8], "little"), int.from_bytes(raw[8:10], "little")
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        if raw[12:16] == b"VP8X" and len(raw) >= 30:
            return (
                "image/webp",
                int.from_bytes(raw[24:27], "little") + 1,
                int.from_bytes(raw[27:30], "little") + 1,
            )
        return "image/webp", 0, 0
    if raw.startswith(b"\xff\xd8\xff"):
        pos = 2
        while pos + 9 <= len(raw) and raw[pos] == 0xFF:
            marker, size = raw[pos + 1], int.from_bytes(raw[pos + 2 : pos + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                return (
                    "image/jpeg",
                    int.from_bytes(raw[pos + 7 : pos + 9], "big"),
                    int.from_bytes(raw[pos + 5 : pos + 7], "big"),
                )
            pos += 2 + size
        return "image/jpeg", 0, 0
    return None


def admit_block(block: Any) -> Any:
    """Inline images become attachment references; everything else is stored verbatim (§10)."""
    if not (isinstance(block, dict) and block.get("type") == "image" and "data" in block):
        return block
    data, mime = block.get("data"), block.get("mimeType")
    try:
        raw = base64.b64decode(data, validate=True) if isinstance(data, str) else b""
    except (binascii.Error, ValueError):
        raise RpcError("Image upload is not canonical base64.") from None
    if raw and base64.b64encode(raw).decode("ascii") != data:
        raise RpcError("Image upload is not canonical base64.")
    sniffed = sniff_image(raw)
    if sniffed is None:
        raise RpcError("Unsupported or malformed image data.")
    if mime not in IMAGE_TYPES or mime != sniffed[0]:
        raise RpcError(
            f"IMAGE_TYPE_MISMATCH: declared {js_str(mime)} but the bytes are {sniffed[0]}"
        )
    return {
        "type": "image",
        "attachment": {
            "attachmentId": "sha256:" + hashlib.sha256(raw).hexdigest(),
            "mediaType": sniffed[0],
            "width": sniffed[1],
            "height": sniffed[2],
            "bytes": len(raw),
        },
    }


def validate_answers(result: Any) -> Json | None:
    """A well-formed ``{answers:[{id, selected, custom?}]}`` naming every question once, or None."""
    if not isinstance(result, dict) or set(result) != {"answers"}:
        return None
    answers = result["answers"]
    if not isinstance(answers, list):
        return None
    ids: list[str] = []
    for item in answers:
        if (
            not isinstance(item, dict)
            or not {"id", "selected"} <= set(item)
            or not set(item) <= {"id", "selected", "custom"}
            or not isinstance(item["id"], str)
            or not isinstance(item["selected"], list)
            or not all(isinstance(label, str) for label in item["selected"])
            or ("custom" in item and not isinstance(item["custom"], str))
        ):
            return None
        ids.append(item["id"])
    if sorted(ids) != sorted(q["id"] for q in QUESTIONS):
        return None
    return {"answers": answers}


@dataclass(frozen=True)
class Route:
    """What ``initialize`` captured (provider, model, effort, maxTokens, cwd)."""

    model: str
    effort: str | None
    max_tokens: int | None
    cwd: str

    def header(self) -> Json:
        config = {
            "provider": PROVIDER,
            "model": self.model,
            "maxTokens": self.max_tokens or 256000,
            "reasoningEffort": self.effort or "high",
        }
        defaults = {
            key: True
            for key, given in (("reasoningEffort", self.effort), ("maxTokens", self.max_tokens))
            if given is None
        }
        return {"config": config, "adapterDefaults": defaults}


@dataclass
class Item:
    """One queued inbox message and how the turn that claims it behaves."""

    message: Json
    kind: str
    reply: str | None = None
    bad_text: bool = False


@dataclass(eq=False)
class Session:
    rt: FakeRuntime
    id: str
    route: Route
    origin: str
    cwd: str
    parent: Session | None = None
    seq: int = 0
    turn: int = 0
    step: int = 0
    running: bool = False
    open_turn: bool = False
    fresh: bool = True
    header_reason: str | None = "initial"
    ctx_cwd: str | None = None
    poison: str | None = None
    settled: bool = False
    last_text: str = ""
    created_at: int = field(default_factory=now_ms)
    inbox: list[Item] = field(default_factory=list)
    current: list[Item] = field(default_factory=list)
    notices: list[Json] = field(default_factory=list)
    claimed_notices: list[Json] = field(default_factory=list)
    children: list[Session] = field(default_factory=list)
    gate: threading.Event = field(default_factory=threading.Event)

    @property
    def policy(self) -> str:
        return "never" if self.parent or self.rt.mode == "danger-full-access" else "ask"

    def ev(self, etype: str, data: Json, **extra: Any) -> int:
        """Append one durable event and forward it as ``session.event``; returns its seq."""
        with self.rt.lock:
            seq, self.seq = self.seq, self.seq + 1
            event = {"type": etype, "seq": seq, "time": now_ms(), "data": data, **extra}
            self.rt.wire.notify("session.event", {"sessionId": self.id, "event": event})
            return seq

    def step_ev(self, etype: str) -> None:
        self.ev(etype, {"turn": self.turn, "step": self.step})

    def status(self, status: str) -> None:
        self.rt.wire.notify("session.status", {"sessionId": self.id, "status": status})

    def to_json(self) -> Json:
        return {
            "version": 1,
            "id": self.id,
            "nextSeq": self.seq,
            "turn": self.turn,
            "origin": self.origin,
            "cwd": self.cwd,
            "createdAt": self.created_at,
            "openTurn": self.open_turn,
            "poison": self.poison,
            "lastText": self.last_text,
            "parentSessionId": self.parent.id if self.parent else None,
        }


class Wire:
    """stdout frames (one write + flush under a lock) and the fake's own server requests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[threading.Event, list[Json]]] = {}

    def write_line(self, line: str) -> None:
        with self._lock:
            try:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            except (OSError, ValueError):  # the client closed our stdout
                os._exit(0)

    def send(self, frame: Json) -> None:
        self.write_line(dumps(frame))

    def result(self, rid: Any, result: Json) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Any, text: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": text}})

    def notify(self, method: str, params: Json) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Json, timeout: float | None) -> Json | None:
        """Send a server->client request; the response frame, or None after ``timeout``."""
        rid, done, box = "req_" + uuid.uuid4().hex, threading.Event(), list[Json]()
        with self._lock:
            self._pending[rid] = (done, box)
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        done.wait(timeout)
        with self._lock:
            self._pending.pop(rid, None)
            return box[0] if box else None

    def deliver(self, frame: Json) -> None:
        rid = frame.get("id")
        with self._lock:  # atomic with request()'s timeout: an answer is taken or dropped
            pending = self._pending.pop(rid, None) if isinstance(rid, str) else None
            if pending is not None:
                pending[1].append(frame)
                pending[0].set()
        if pending is None:
            log(f"dropped a response with unknown id: {dumps(frame)[:300]}")

    def flush(self) -> None:
        if self._lock.acquire(timeout=1.0):
            try:
                sys.stdout.flush()
            except (OSError, ValueError):
                pass
            finally:
                self._lock.release()


def log(text: str) -> None:
    try:
        sys.stderr.write(f"fake-runtime: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


Handler = Callable[[Any, Json], Json | None]
Turn = Callable[[Session, list[Item]], Json]


class FakeRuntime:
    def __init__(self, scenario: str, args: dict[str, str]) -> None:
        self.scenario, self.args = scenario, args
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
        self.handlers: dict[str, Handler] = {
            "initialize": self.m_initialize,
            "session/prompt": self.m_prompt,
            "session/resume": self.m_resume,
            "session/wait": self.m_wait,
            "session/working-directory/get": self.m_wd_get,
            "session/working-directory/set": self.m_wd_set,
        }
        if self.seed:
            self.handlers["session/query"] = self.m_query
        answer = self.turn_answer
        self.turns: dict[str, Turn] = {
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

    # -- methods -------------------------------------------------------------------------------
    def m_shutdown(self, rid: Any) -> None:
        if self.scenario == "ignore-sigterm":
            return  # never answered
        self.wire.result(rid, {})
        with self.lock:
            if self.shutting_down:
                return
            self.shutting_down = True
        threading.Timer(self.num("shutdown_delay", 0.05), self.exit, args=(0,)).start()

    def m_initialize(self, rid: Any, p: Json) -> Json:
        if self.scenario == "crash" and self.arg("crash_point", "turn") == "initialize":
            self.crash()
        time.sleep(self.num("init_delay", 0.0))
        provider = p.get("provider", _MISSING)
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
        blocks = p.get("contentBlocks", _MISSING)
        with self.lock:
            s = self.open_session(sid)
            if blocks is _MISSING or blocks is None:
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
                else ("normal" if s.parent else SCENARIOS[self.scenario])
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
                    s.poison = js_str(btype if btype is not None else _MISSING)
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

    # -- turn building blocks ------------------------------------------------------------------
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def parse_args(argv: list[str]) -> tuple[str, dict[str, str]]:
    parser = argparse.ArgumentParser(
        prog="fake_runtime",
        allow_abbrev=False,
        description="Fake DeepSeek Harness SDK runtime for tests.",
    )
    parser.add_argument("--scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--scenario-arg", action="append", default=[], metavar="K=V")
    parser.add_argument("--profile")  # launcher flags, accepted and ignored
    parser.add_argument("--patch", action="append", default=[])
    parser.add_argument("--from-default-profile", action="store_true")
    parser.add_argument("--version", action="version", version=RUNTIME_VERSION)
    ns, extra = parser.parse_known_args(argv)
    if extra:
        log(f"ignoring application arguments {extra!r}")
    scenario = ns.scenario or os.environ.get("DSH_FAKE_SCENARIO", "").strip() or "normal"
    pairs = re.split(r"[\s,]+", os.environ.get("DSH_FAKE_SCENARIO_ARGS", "").strip())
    args: dict[str, str] = {}
    for pair in [p for p in pairs if p] + list(ns.scenario_arg):
        key, sep, value = pair.partition("=")
        args[key.strip()] = value if sep else "1"
    return scenario, args


def main(argv: list[str] | None = None) -> int:
    scenario, args = parse_args(sys.argv[1:] if argv is None else argv)
    if scenario not in SCENARIOS:
        log(f"unknown scenario {scenario!r}; known: {', '.join(sorted(SCENARIOS))}")
        return 2
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    if scenario == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda _sig, _frame: os._exit(0))
        signal.signal(signal.SIGINT, lambda _sig, _frame: os._exit(0))
    FakeRuntime(scenario, args).serve()


if __name__ == "__main__":
    sys.exit(main())
