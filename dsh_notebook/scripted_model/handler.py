"""The HTTP side of the scripted model: one thread per connection, one handler per request.

:class:`ModelHTTPServer` lets its owner (:class:`~.server.ScriptedModelServer`) track every
connection and worker thread, so that stopping can abort and join exactly its own work.
:class:`ModelRequestHandler` turns a request into a recorded entry and a reply: an SSE stream, an
error body, a health record or a 404.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, Protocol

from .analysis import analyze_request
from .recording import RecordedRequest, redact_headers
from .registry import ScriptRegistry
from .sse import encode_sse, iter_sse_events
from .steps import AfterReply, HttpError, ScriptContext, Step


class ModelServerOwner(Protocol):
    """What the handler needs of its owner (:class:`~.server.ScriptedModelServer`)."""

    default_scenario: str
    _registry: ScriptRegistry
    _stopping: threading.Event

    def scenarios(self) -> list[str]: ...

    def _track(self, conn: Any, *, add: bool) -> None: ...

    def _add_worker(self, worker: threading.Thread) -> None: ...

    def _remove_worker(self, worker: threading.Thread) -> None: ...

    def _await_reply(self, hold: AfterReply) -> None: ...

    def _reply_sent(self, entry: RecordedRequest) -> None: ...

    def _record(self, entry: RecordedRequest) -> None: ...


__all__ = ["HOST", "Aborted", "ModelHTTPServer", "ModelRequestHandler"]

#: The only address the scripted model binds.
HOST: Final = "127.0.0.1"
_MAX_BODY: Final = 64 * 1024 * 1024


class Aborted(Exception):
    """The server is stopping; abandon the reply."""


class ModelHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = False
    request_queue_size = 128  # listen backlog; the default 5 drops bursts of connections

    def __init__(self, owner: ModelServerOwner, port: int) -> None:
        self.owner = owner
        super().__init__((HOST, port), ModelRequestHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Like ThreadingMixIn.process_request, but the owner tracks the thread and the socket so
        # that stop() can abort and join exactly its own workers.
        self.owner._track(request, add=True)
        worker = threading.Thread(
            target=self._work,
            args=(request, client_address),
            name=f"scripted-model-server:{self.server_address[1]}:conn",
            daemon=True,
        )
        self.owner._add_worker(worker)
        worker.start()

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            self.owner._remove_worker(threading.current_thread())

    def shutdown_request(self, request: Any) -> None:
        self.owner._track(request, add=False)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Broken pipes from clients that went away are expected; keep stderr quiet.
        if isinstance(sys.exc_info()[1], (OSError, Aborted)):
            return
        super().handle_error(request, client_address)


class ModelRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dsh-scripted-model/1"
    sys_version = ""
    server: ModelHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the owner logs one line per request itself when verbose

    # ---- plumbing ----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            parts: list[bytes] = []
            total = 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > _MAX_BODY:
                    raise ValueError("request body too large")
                parts.append(self.rfile.read(size))
                self.rfile.readline(1024)
            return b"".join(parts)
        length = int(self.headers.get("content-length") or 0)
        if length > _MAX_BODY:
            raise ValueError("request body too large")
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, body: Any, extra: Mapping[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_reply(self, error: HttpError) -> None:
        extra = {"retry-after": error.retry_after} if error.retry_after is not None else None
        self._send_json(error.status, error.body(), extra)

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _wait(self, seconds: float) -> None:
        if seconds > 0 and self.server.owner._stopping.wait(seconds):
            raise Aborted

    def _record(
        self,
        body: Any,
        scenario: str | None,
        step_index: int,
        attempt: int,
        status: int,
        received: float,
    ) -> RecordedRequest:
        """Record this request (secret headers redacted) with the owner, and return the entry."""
        entry = RecordedRequest(
            method=self.command,
            path=self.path,
            headers=redact_headers(list(self.headers.items())),
            body=body,
            scenario=scenario,
            step_index=step_index,
            attempt=attempt,
            status=status,
            time=received,
        )
        self.server.owner._record(entry)
        return entry

    # ---- verbs -------------------------------------------------------------------------------

    def do_GET(self) -> None:
        owner = self.server.owner
        received = time.time()
        if self.path.split("?", 1)[0] in ("/", "/health"):
            self._record(None, None, -1, 0, 200, received)
            self._send_json(200, {"ok": True, "scenarios": owner.scenarios()})
        else:
            self._record(None, None, -1, 0, 404, received)
            self._send_json(404, HttpError(404, "not_found_error", "not found").body())

    def _reject(
        self, error: HttpError, body: Any, received: float, scenario: str | None = None
    ) -> None:
        # Record first: a client that has its reply must find the request recorded.
        self._record(body, scenario, -1, 0, error.status, received)
        self._send_error_reply(error)

    def do_POST(self) -> None:
        owner = self.server.owner
        received = time.time()
        try:
            raw = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            self._reject(HttpError(400, "invalid_request_error", "bad body"), None, received)
            return
        body: Any
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = self.path.split("?", 1)[0].rstrip("/")
        if not path.endswith("/v1/messages"):
            self._reject(HttpError(404, "not_found_error", f"no route {path}"), body, received)
            return
        if not isinstance(body, dict):
            error = HttpError(400, "invalid_request_error", "request body must be a JSON object")
            self._reject(error, body, received)
            return

        analysis = analyze_request(body)
        name = analysis.scenario or owner.default_scenario
        script = owner._registry.get(name)
        if script is None:
            known = ", ".join(owner.scenarios())
            message = f"unknown scenario {name!r}; known scenarios: {known}"
            self._reject(HttpError(400, "invalid_request_error", message), body, received, name)
            return
        context = ScriptContext(
            **{**vars(analysis), "scenario": name},
            body=body,
            session_id=self.headers.get("x-deepseek-harness-session-id"),
        )
        try:
            step = script.step_for(context)
        except Exception as exc:  # a user step factory failed: report it, keep serving
            error = HttpError(500, "api_error", f"script {name!r} failed: {exc!r}")
            self._reject(error, body, received, name)
            return

        fails = step.fails(analysis.attempt)
        status = step.error.status if step.error is not None and fails else 200
        entry = self._record(body, name, analysis.step_index, analysis.attempt, status, received)
        try:
            if step.after_reply is not None:
                owner._await_reply(step.after_reply)
            self._wait(step.delay)
            if step.error is not None and fails:
                self._send_error_reply(step.error)
            else:
                self._stream(step, str(body.get("model") or "deepseek-flash"))
        except Aborted:
            self.close_connection = True
        finally:
            owner._reply_sent(entry)

    def _stream(self, step: Step, model: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        self.end_headers()
        first_text = True
        for event in iter_sse_events(step, model=model):
            if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
                if not first_text:
                    self._wait(step.chunk_delay)
                first_text = False
            if self.server.owner._stopping.is_set():
                raise Aborted
            self._write_chunk(encode_sse(event))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
