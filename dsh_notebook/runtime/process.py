"""The runtime child process: spawn, stderr tail, close ladder, no orphans.

Guarantees:

- The child runs in its own session and process group (``start_new_session=True``), so a terminal
  or kernel interrupt (SIGINT to the foreground group) never reaches it; we signal it ourselves.
- stderr is drained continuously (the pipe never fills and blocks the runtime) into a bounded
  :class:`StderrTail` holding the newest lines (8 KiB by default).
- :meth:`RuntimeProcess.close` runs the seed's close ladder — bounded ``shutdown`` request, close
  stdin, grace, SIGTERM to the group, grace, SIGKILL to the group, reap — shielded from
  cancellation, idempotent, and concurrent-safe (a second caller waits for the first).
- If the owner forgets to close (garbage collection, interpreter exit), a ``weakref.finalize``
  hook terminates then kills the process group synchronously.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from ..errors import ConfigError, TransportClosed
from .gather import GatheringReceiveStream, pausable_pipe
from .secret import Secret, redact

__all__ = ["LaunchSpec", "RuntimeProcess", "StderrTail"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LaunchSpec:
    """Everything needed to start the runtime. ``env`` holds secrets: it is left out of ``repr``."""

    argv: tuple[str, ...]
    cwd: Path
    dsh_home: Path
    env: Mapping[str, str] = field(repr=False, default_factory=dict)


class StderrTail:
    """The newest stderr lines, at most ``max_bytes`` in total (older lines are dropped).

    :meth:`text` replaces every occurrence of the given ``secrets`` (the configured key) by ``***``.
    """

    def __init__(self, max_bytes: int = 8192, secrets: tuple[str, ...] = ()) -> None:
        self._max = max_bytes
        self._secrets = secrets
        self._lines: deque[str] = deque()
        self._size = 0
        self._partial = ""

    def feed(self, data: bytes) -> None:
        text = self._partial + data.decode("utf-8", errors="replace")
        *complete, self._partial = text.split("\n")
        for line in complete:
            self._push(line)
        if len(self._partial) > self._max:
            self._push(self._partial)
            self._partial = ""

    def _push(self, line: str) -> None:
        line = line[-self._max :]
        self._lines.append(line)
        self._size += len(line) + 1
        while self._size > self._max and len(self._lines) > 1:
            self._size -= len(self._lines.popleft()) + 1

    def text(self) -> str:
        lines = list(self._lines)
        if self._partial:
            lines.append(self._partial)
        return redact("\n".join(lines), self._secrets)


def _signal_group(pid: int, sig: int) -> bool:
    """Signal the process group led by ``pid``; False when it no longer exists."""
    try:
        if sys.platform == "win32":  # pragma: no cover - no process groups there
            os.kill(pid, sig)
        else:
            os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _emergency_kill(pid: int) -> None:
    """Synchronous last resort (GC, interpreter exit): SIGTERM, a short grace, SIGKILL, reap."""
    if not _signal_group(pid, signal.SIGTERM):
        return
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid  # reaped elsewhere (the event loop's child watcher)
        if done == pid:
            break
        time.sleep(0.02)
    if sys.platform != "win32":
        _signal_group(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


class RuntimeProcess:
    """A running runtime child. Create with :meth:`spawn`; call :meth:`drain_stderr` in a task."""

    def __init__(self, process: Process, spec: LaunchSpec, stderr_tail_bytes: int = 8192) -> None:
        self._process = process
        self.spec = spec
        secrets = tuple(v for v in spec.env.values() if isinstance(v, Secret))
        self.stderr_tail = StderrTail(stderr_tail_bytes, secrets)
        self._stderr_done = anyio.Event()
        self._closing: anyio.Event | None = None
        self._finalizer = weakref.finalize(self, _emergency_kill, process.pid)
        assert process.stdout is not None
        self._stdout = GatheringReceiveStream(process.stdout, pausable_pipe(process, 1))

    @classmethod
    async def spawn(cls, spec: LaunchSpec) -> RuntimeProcess:
        if not spec.argv:
            raise ConfigError("empty runtime argv")
        failure: ConfigError | None = None
        try:
            process = await anyio.open_process(
                list(spec.argv),
                cwd=spec.cwd,
                env=dict(spec.env),  # Secret values: masked in any frame, encoded for real
                start_new_session=True,
            )
        except FileNotFoundError:
            failure = ConfigError(
                f"cannot start the runtime {spec.argv[0]!r}: not found. Check dsh_bin / "
                "DSH_RUNTIME_BIN, or install the runtime wheel."
            )
        except OSError as exc:  # permissions, a missing cwd, ...
            failure = ConfigError(
                f"cannot start the runtime {spec.argv[0]!r}: {exc.strerror or type(exc).__name__}"
            )
        if failure is not None:
            # raised outside the handler: no __context__ keeps subprocess's frames (whose locals
            # hold the encoded environment, key included) alive in the traceback
            raise failure
        return cls(process, spec)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    @property
    def stdin(self) -> ByteSendStream:
        assert self._process.stdin is not None
        return self._process.stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        """The runtime's stdout, read a few frames per wake-up (see :mod:`.gather`)."""
        return self._stdout

    async def drain_stderr(self) -> None:
        """Read stderr into the tail until EOF. Run it as a task for the process's lifetime."""
        stream = self._process.stderr
        try:
            if stream is None:
                return
            with contextlib.suppress(
                anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError
            ):
                while True:
                    self.stderr_tail.feed(await stream.receive())
        finally:
            self._stderr_done.set()

    async def wait(self, timeout: float | None = None) -> int | None:
        """The exit status, waiting up to ``timeout`` seconds (``None``: forever)."""
        if self._process.returncode is not None:
            return self._process.returncode
        with anyio.move_on_after(timeout):
            await self._process.wait()
        return self._process.returncode

    async def closed_error(self, message: str, *, wait: float = 2.0) -> TransportClosed:
        """A :class:`TransportClosed` with the exit status (waiting briefly for it) and stderr."""
        status = await self.wait(wait)
        with anyio.move_on_after(0.5):
            await self._stderr_done.wait()
        return TransportClosed(message, exit_status=status, stderr_tail=self.stderr_tail.text())

    async def close(
        self,
        shutdown: Callable[[], Awaitable[object]] | None = None,
        *,
        shutdown_timeout: float = 1.0,
        grace: float = 2.0,
    ) -> int | None:
        """Run the close ladder; return the exit status. Shielded, idempotent, bounded in time."""
        if self._closing is not None:
            await self._closing.wait()
            return self._process.returncode
        self._closing = anyio.Event()
        try:
            with anyio.CancelScope(shield=True):
                status = await self._ladder(shutdown, shutdown_timeout, grace)
            return status
        finally:
            self._finalizer.detach()
            self._closing.set()

    async def _ladder(
        self,
        shutdown: Callable[[], Awaitable[object]] | None,
        shutdown_timeout: float,
        grace: float,
    ) -> int | None:
        pid = self._process.pid
        if shutdown is not None and self._process.returncode is None:
            with anyio.move_on_after(shutdown_timeout):
                try:
                    await shutdown()
                except Exception as exc:  # the ladder goes on whatever the request did
                    log.debug("shutdown request failed: %s", exc)
        with contextlib.suppress(Exception):
            await self.stdin.aclose()
        status = await self.wait(grace)
        if status is None:
            log.debug("runtime %s still running after stdin close: SIGTERM", pid)
            _signal_group(pid, signal.SIGTERM)
            status = await self.wait(grace)
        if status is None:
            log.warning("runtime %s ignored SIGTERM: SIGKILL", pid)
            _signal_group(pid, signal.SIGKILL if sys.platform != "win32" else signal.SIGTERM)
            status = await self.wait(None)
        # Stragglers of the runtime's own process group (e.g. background jobs) go with it.
        if sys.platform != "win32" and _signal_group(pid, 0):
            _signal_group(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await self._process.aclose()
        return status


def argv_for(prefix: Sequence[str], profile: str, patches: Sequence[Path]) -> tuple[str, ...]:
    """``<prefix> --profile <profile> [--patch <abs path>]...`` exactly as the seed specifies."""
    if not profile.strip():
        raise ConfigError("profile must be a non-empty name (default: 'sdk')")
    argv = [*prefix, "--profile", profile]
    for patch in patches:
        argv += ["--patch", str(Path(patch).expanduser().resolve())]
    return tuple(argv)
