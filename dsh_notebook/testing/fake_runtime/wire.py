"""The fake runtime's stdout: whole frames under one lock, and its own server->client requests.

Stdout carries only frames (each one ``write`` + ``flush`` under a lock, so frames never
interleave); diagnostics go to stderr (:func:`log`). A closed stdout ends the process (exit 0).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import uuid
from typing import Any

Json = dict[str, Any]


class RpcError(Exception):
    """A handler failure, answered as ``-32603`` with this message."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
