"""A scripted fake model endpoint for the DeepSeek Harness runtime (Anthropic Messages + SSE).

The runtime calls ``POST $DEEPSEEK_BASE_URL/v1/messages`` once per agent step and reads an
Anthropic-Messages server-sent-event stream. :class:`ScriptedModelServer` answers those calls
from scripts (:mod:`.steps`, :mod:`.builtin`), chosen by a ``[[scenario:NAME]]`` tag
in the prompt::

    with ScriptedModelServer() as server:
        env["DEEPSEEK_BASE_URL"] = server.base_url      # "http://127.0.0.1:<port>"
        env["DEEPSEEK_API_KEY"] = "dummy"
        ...  # prompt the runtime with "[[scenario:bash]] do it"
        assert server.requests[0].scenario == "bash"

Guarantees:

* **Loopback only.** The server binds ``127.0.0.1`` (port 0 = a free port by default).
* **Stateless replies.** The reply depends only on the request (see
  :func:`~.analysis.analyze_request`): parent and subagent requests may
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

Command line: see :mod:`.__main__`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Final

from .builtin import DEFAULT_SCENARIO, default_registry
from .handler import HOST, Aborted, ModelHTTPServer
from .recording import RecordedRequest
from .registry import ScriptRegistry
from .steps import AfterReply, Script, Step, StepFactory

__all__ = ["ScriptedModelServer"]

_STOP_JOIN_TIMEOUT: Final = 5.0


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
        self._idle_at: dict[str, float] = {}  # session id -> time.time() of its latest idle
        self._reported: set[str] = set()  # sessions whose statuses are reported to us
        self.idle_releases = 0
        """Held replies released by their session's reported idle (tests read it)."""
        self._connections: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()
        self._stopping = threading.Event()
        self._httpd: ModelHTTPServer | None = None
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
            httpd = ModelHTTPServer(self, self._port)
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
        return f"http://{HOST}:{self.port}"

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

    def report_session_status(self, session_id: str, status: str) -> None:
        """Tell the server a session's status as the runtime announced it (``session.status``).

        Thread-safe and cheap: call it for every ``session.status`` notification of the runtime
        this server answers (:meth:`observe` does). An :class:`AfterReply` hold on a session
        whose status was reported waits for it to be reported ``idle`` after the awaited request
        instead of waiting out a grace (see :class:`AfterReply`).
        """
        with self._replied:
            self._reported.add(session_id)
            if status == "idle":
                self._idle_at[session_id] = time.time()
                self._replied.notify_all()

    def observe(self, method: str, params: Mapping[str, Any]) -> None:
        """Feed one runtime notification (``method``, ``params``); only ``session.status``
        ones are used (see :meth:`report_session_status`). Never raises on odd params."""
        if method != "session.status":
            return
        session_id, status = params.get("sessionId"), params.get("status")
        if isinstance(session_id, str) and isinstance(status, str):
            self.report_session_status(session_id, status)

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
        """Block (a serving thread) until ``hold``'s reply was sent and its session has ended
        that turn: reported idle since the awaited request when statuses are reported
        (:meth:`report_session_status`), else after the hold's grace."""
        deadline = time.monotonic() + hold.timeout

        def awaited() -> RecordedRequest | None:
            return next(
                (
                    e
                    for e in self._sent
                    if e.session_id == hold.session_id
                    and (not hold.mention or hold.mention in json.dumps(e.body))
                ),
                None,
            )

        def turn_ended(entry: RecordedRequest) -> bool:
            # the session asked with this request while running: an idle reported after it
            # was received is the end of that turn (the runtime sets the status, then says so)
            return self._idle_at.get(hold.session_id, float("-inf")) >= entry.time

        with self._replied:
            entry = awaited()
            while (
                entry is None or (hold.session_id in self._reported and not turn_ended(entry))
            ) and not self._stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._replied.wait(min(left, 0.1))
                entry = awaited()
            if entry is not None and hold.session_id in self._reported and turn_ended(entry):
                self.idle_releases += 1
                return
        grace = min(hold.grace, max(0.0, deadline - time.monotonic()))
        if grace > 0 and self._stopping.wait(grace):
            raise Aborted

    def _record(self, entry: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(entry)
        if self.verbose:
            sys.stderr.write(
                f"model-server: {entry.method} {entry.path} scenario={entry.scenario} "
                f"step={entry.step_index} attempt={entry.attempt} status={entry.status} "
                f"session={entry.session_id}\n"
            )
            sys.stderr.flush()
