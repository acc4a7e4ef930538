"""A scripted fake model endpoint for the DeepSeek Harness runtime (Anthropic Messages + SSE).

The runtime calls ``POST $DEEPSEEK_BASE_URL/v1/messages`` once per agent step and reads an
Anthropic-Messages server-sent-event stream. :class:`ScriptedModelServer` answers those calls
from scripts (:mod:`dsh_notebook.scripted_model.scripts`), chosen by a ``[[scenario:NAME]]`` tag
in the prompt::

    with ScriptedModelServer() as server:
        env["DEEPSEEK_BASE_URL"] = server.base_url      # "http://127.0.0.1:<port>"
        env["DEEPSEEK_API_KEY"] = "dummy"
        ...  # prompt the runtime with "[[scenario:bash]] do it"
        assert server.requests[0].scenario == "bash"

Guarantees:

* **Loopback only.** The server binds ``127.0.0.1`` (port 0 = a free port by default).
* **Stateless replies.** The reply depends only on the request (see
  :func:`~dsh_notebook.scripted_model.scripts.analyze_request`): parent and subagent requests may
  arrive concurrently and in any order; retries of one step are told apart by the attempts the
  runtime logs in the request. The only state is the request log and the script registry.
* **Recording.** Every request is recorded before its reply is sent, so a client holding a reply
  finds its request in :attr:`ScriptedModelServer.requests`.
* **Thread-safety.** Requests are served by :class:`http.server.ThreadingHTTPServer` (one daemon
  thread per connection). Recording, :attr:`ScriptedModelServer.requests`,
  :meth:`~ScriptedModelServer.clear_requests` and :meth:`~ScriptedModelServer.register` are
  guarded by locks and may be called from any thread while requests are served.
* **Secrets.** ``x-api-key`` and ``authorization`` header values are replaced by
  ``"<redacted>"`` before anything is recorded or logged.
* **Stopping.** :meth:`~ScriptedModelServer.stop` (also called on leaving the ``with`` block) is
  idempotent: it stops accepting connections, closes the listening socket, aborts replies that
  are still streaming or waiting out a delay, closes idle keep-alive connections and joins the
  serving threads (bounded wait). All threads are daemon threads, so a forgotten server never
  keeps the interpreter alive.

Replies: ``200`` ``text/event-stream`` with chunked transfer encoding (``message_start``,
content blocks, ``message_delta`` with ``stop_reason`` ``tool_use``/``end_turn``,
``message_stop``), or a JSON error reply ``{"type":"error","error":{...}}``. Unknown scenario
names get HTTP 400 (``invalid_request_error``) naming the known scenarios; the runtime does not
retry that. Other paths than ``.../v1/messages`` get 404; ``GET /`` returns a JSON health record
with the scenario names. (When the history holds an image, runtime 0.2.1-rc.2 first tries a Files
API upload, ``POST /v1/files`` multipart, once per model call; the 404 makes it fall back to an
inline base64 image. Such requests are recorded with ``body=None``.)

Command line::

    python -m dsh_notebook.scripted_model.server [--port N] [--exit-on-stdin-eof] [--verbose]

prints the base URL as its first stdout line and serves until SIGTERM/SIGINT (or stdin EOF with
``--exit-on-stdin-eof``), then exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType, TracebackType
from typing import Any, Final

from .scripts import (
    DEFAULT_SCENARIO,
    AfterReply,
    HttpError,
    Script,
    ScriptContext,
    ScriptRegistry,
    Step,
    StepFactory,
    analyze_request,
    default_registry,
)

__all__ = [
    "REDACTED",
    "RecordedRequest",
    "ScriptedModelServer",
    "iter_sse_events",
    "main",
    "redact_headers",
]

#: Replacement for secret header values in recorded requests.
REDACTED: Final = "<redacted>"
_SECRET_HEADERS: Final = frozenset({"x-api-key", "authorization", "proxy-authorization"})
_HOST: Final = "127.0.0.1"
_STOP_JOIN_TIMEOUT: Final = 5.0
_MAX_BODY: Final = 64 * 1024 * 1024


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received.

    Attributes:
        method: HTTP method (``POST`` for model calls).
        path: request path (``/v1/messages``).
        headers: lower-cased header names -> values; secrets are ``"<redacted>"``.
        body: parsed JSON body (``None`` if absent or not JSON).
        scenario: selected script name (``"plain"`` for untagged requests; the unknown name
            for requests answered with the unknown-scenario error; ``None`` for other errors
            and non-model paths).
        step_index: selected step (``-1`` when no script was run).
        attempt: attempt number of that step as derived from the request.
        status: HTTP status of the reply.
        time: ``time.time()`` when the request was received.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    scenario: str | None
    step_index: int
    attempt: int
    status: int
    time: float

    @property
    def session_id(self) -> str | None:
        """The ``x-deepseek-harness-session-id`` header (the child's id for subagent calls)."""
        return self.headers.get("x-deepseek-harness-session-id")


def redact_headers(headers: Mapping[str, str] | Sequence[tuple[str, str]]) -> dict[str, str]:
    """Lower-case header names and replace secret values by :data:`REDACTED`."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        out[key] = REDACTED if key in _SECRET_HEADERS else value
    return out


def _sse(event: dict[str, Any]) -> bytes:
    payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"event: {event['type']}\ndata: {payload}\n\n".encode()


def iter_sse_events(step: Step, *, model: str = "deepseek-flash") -> Iterator[dict[str, Any]]:
    """The SSE event payloads (``data:`` objects, in order) of a successful reply to ``step``.

    Tool-use ids are generated fresh (``toolu_<hex>``) unless the :class:`ToolCall` sets one.
    """
    yield {
        "type": "message_start",
        "message": {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": 0},
        },
    }
    index = 0
    if step.thinking is not None:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "thinking", "thinking": ""},
        }
        if step.thinking:
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "thinking_delta", "thinking": step.thinking},
            }
        yield {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "signature_delta", "signature": step.signature},
        }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    deltas = step.text_deltas()
    if deltas or step.text_chunks is not None:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
        for piece in deltas:
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": piece},
            }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    for call in step.tool_calls:
        call_id = call.id or f"toolu_{uuid.uuid4().hex[:24]}"
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": call_id, "name": call.name, "input": {}},
        }
        raw = json.dumps(dict(call.input), ensure_ascii=False)
        n = max(1, min(call.json_chunks, len(raw)))
        size = -(-len(raw) // n)
        for pos in range(0, len(raw), size):
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": raw[pos : pos + size]},
            }
        yield {"type": "content_block_stop", "index": index}
        index += 1
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": step.effective_stop_reason, "stop_sequence": None},
        "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
    }
    yield {"type": "message_stop"}


class _Aborted(Exception):
    """The server is stopping; abandon the reply."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = False
    request_queue_size = 128  # listen backlog; the default 5 drops bursts of connections

    def __init__(self, owner: ScriptedModelServer, port: int) -> None:
        self.owner = owner
        super().__init__((_HOST, port), _Handler)

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
        if isinstance(sys.exc_info()[1], (OSError, _Aborted)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dsh-scripted-model/1"
    sys_version = ""
    server: _HTTPServer

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
            raise _Aborted

    # ---- verbs -------------------------------------------------------------------------------

    def do_GET(self) -> None:
        owner = self.server.owner
        received = time.time()
        if self.path.split("?", 1)[0] in ("/", "/health"):
            owner._record(self, None, None, -1, 0, 200, received)
            self._send_json(200, {"ok": True, "scenarios": owner.scenarios()})
        else:
            owner._record(self, None, None, -1, 0, 404, received)
            self._send_json(404, HttpError(404, "not_found_error", "not found").body())

    def _reject(
        self, error: HttpError, body: Any, received: float, scenario: str | None = None
    ) -> None:
        # Record first: a client that has its reply must find the request recorded.
        self.server.owner._record(self, body, scenario, -1, 0, error.status, received)
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
            scenario=name,
            step_index=analysis.step_index,
            attempt=analysis.attempt,
            tags=analysis.tags,
            prompt_text=analysis.prompt_text,
            notices=analysis.notices,
            latest_user_kind=analysis.latest_user_kind,
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
        entry = owner._record(
            self, body, name, analysis.step_index, analysis.attempt, status, received
        )
        try:
            if step.after_reply is not None:
                owner._await_reply(step.after_reply)
            self._wait(step.delay)
            if step.error is not None and fails:
                self._send_error_reply(step.error)
            else:
                self._stream(step, str(body.get("model") or "deepseek-flash"))
        except _Aborted:
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
                raise _Aborted
            self._write_chunk(_sse(event))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class ScriptedModelServer:
    """Anthropic-Messages SSE endpoint on ``127.0.0.1`` answering from scripts.

    Args:
        port: TCP port; 0 (default) picks a free one.
        scripts: extra scripts (name -> :class:`Script` or list of steps) registered on top of
            the built-ins; this server's registry is its own copy.
        default_scenario: script for requests without a scenario tag (``"plain"``).
        verbose: log one line per request to stderr.

    Start with :meth:`start` or a ``with`` block. See the module docstring for guarantees.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        scripts: Mapping[str, Script | Sequence[Step | StepFactory]] | None = None,
        default_scenario: str = DEFAULT_SCENARIO,
        verbose: bool = False,
    ) -> None:
        self._port = port
        self._registry: ScriptRegistry = default_registry()
        for name, script in (scripts or {}).items():
            self._registry.register(name, script)
        self.default_scenario = default_scenario
        self.verbose = verbose
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._replied = threading.Condition(self._lock)
        self._sent: list[RecordedRequest] = []  # model requests whose reply was sent
        self._connections: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        """Bind and start serving in a daemon thread; returns ``self``. Not restartable."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("a stopped ScriptedModelServer cannot be restarted")
            if self._httpd is not None:
                return self
            httpd = _HTTPServer(self, self._port)
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": 0.02},
                name=f"scripted-model-server:{httpd.server_address[1]}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release everything; idempotent, callable from any thread.

        Stops accepting, closes the listening socket, aborts in-flight replies (streams and
        delays) and idle keep-alive connections, then joins the serving threads (at most ~5 s).
        Recorded requests stay readable.
        """
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            httpd, thread = self._httpd, self._thread
        self._stopping.set()
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if thread is not None:
            thread.join(_STOP_JOIN_TIMEOUT)
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + _STOP_JOIN_TIMEOUT
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            if worker is not threading.current_thread():
                worker.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ---- properties --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: the value for ``DEEPSEEK_BASE_URL``."""
        return f"http://{_HOST}:{self.port}"

    @property
    def messages_url(self) -> str:
        """The full endpoint URL (``<base_url>/v1/messages``)."""
        return f"{self.base_url}/v1/messages"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot (copy) of the recorded requests, oldest first."""
        with self._lock:
            return list(self._requests)

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self._requests.clear()

    # ---- scripts -----------------------------------------------------------------------------

    def register(self, name: str, script: Script | Sequence[Step | StepFactory]) -> None:
        """Add or replace scenario ``name`` on this server (thread-safe; takes effect for the
        next request)."""
        self._registry.register(name, script)

    def unregister(self, name: str) -> None:
        """Remove scenario ``name`` from this server (missing names are ignored)."""
        self._registry.unregister(name)

    def scenarios(self) -> list[str]:
        """Sorted names of the scenarios this server knows."""
        return self._registry.names()

    # ---- internals ---------------------------------------------------------------------------

    def _add_worker(self, worker: threading.Thread) -> None:
        with self._lock:
            self._workers.add(worker)

    def _remove_worker(self, worker: threading.Thread) -> None:
        with self._lock:
            self._workers.discard(worker)

    def _track(self, conn: Any, *, add: bool) -> None:
        if not isinstance(conn, socket.socket):
            return
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _reply_sent(self, entry: RecordedRequest) -> None:
        with self._replied:
            self._sent.append(entry)
            self._replied.notify_all()

    def _await_reply(self, hold: AfterReply) -> None:
        """Block (a serving thread) until ``hold``'s reply was sent, plus its grace."""
        deadline = time.monotonic() + hold.timeout

        def sent() -> bool:
            return any(
                e.session_id == hold.session_id
                and (not hold.mention or hold.mention in json.dumps(e.body))
                for e in self._sent
            )

        with self._replied:
            while not sent() and not self._stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._replied.wait(min(left, 0.1))
        grace = min(hold.grace, max(0.0, deadline - time.monotonic()))
        if grace > 0 and self._stopping.wait(grace):
            raise _Aborted

    def _record(
        self,
        handler: BaseHTTPRequestHandler,
        body: Any,
        scenario: str | None,
        step_index: int,
        attempt: int,
        status: int,
        received: float,
    ) -> RecordedRequest:
        entry = RecordedRequest(
            method=handler.command,
            path=handler.path,
            headers=redact_headers(list(handler.headers.items())),
            body=body,
            scenario=scenario,
            step_index=step_index,
            attempt=attempt,
            status=status,
            time=received,
        )
        with self._lock:
            self._requests.append(entry)
        if self.verbose:
            sys.stderr.write(
                f"model-server: {entry.method} {entry.path} scenario={scenario} "
                f"step={step_index} attempt={attempt} status={status} "
                f"session={entry.session_id}\n"
            )
            sys.stderr.flush()
        return entry


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server from the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m dsh_notebook.scripted_model.server",
        description="Scripted Anthropic-Messages SSE model endpoint on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: a free port)")
    parser.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="also exit when stdin reaches EOF (so a parent that dies takes the server down)",
    )
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args(argv)

    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    server = ScriptedModelServer(port=args.port, verbose=args.verbose).start()
    try:
        sys.stdout.write(server.base_url + "\n")
        sys.stdout.flush()
        if args.exit_on_stdin_eof:

            def watch_stdin() -> None:
                with contextlib.suppress(OSError, ValueError):
                    while os.read(sys.stdin.fileno(), 65536):
                        pass
                done.set()

            threading.Thread(target=watch_stdin, name="stdin-eof-watch", daemon=True).start()
        while not done.wait(0.2):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
