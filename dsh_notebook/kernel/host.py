"""The runtime host: one thread per kernel, with its own event loop, owning the ``DeepSeekHarness``.

Why a thread and not the kernel's own loop (DESIGN.md §3): a synchronous cell blocks the kernel's
loop (``--wait`` would deadlock on it), ipykernel 6 and 7 differ, terminal IPython has no running
loop. The host runs an anyio ``BlockingPortal`` in a daemon thread; every call from other threads
goes through the portal, so the harness is only ever touched on its own loop.

Guarantees:

- Thread-safety: every public method may be called from any thread. The host never calls
  ``print``, ``display`` or any IPython API; results reach the UI through callbacks the caller
  supplies (which must themselves be thread-safe).
- Lifecycle: :meth:`ensure_started` starts the runtime lazily (or ahead of time with
  :meth:`prewarm`); :meth:`close` runs the client's close ladder and stops the thread. It is
  idempotent and bounded, and one ``atexit`` hook closes every host still alive, so an
  interpreter exit leaves no runtime. Nothing global holds a host: a closed host that nobody
  references is collected, and it leaves no thread behind (the launcher thread lives only while
  runs wait to be launched).
- Sessions: a persisted session is resumed before its first use in a runtime process; a session
  the runtime does not know is created on first use.
- Runs never block the caller (:meth:`run`): a runtime that still has to start is started on a
  thread of its own, and every failure (no runtime, a refused resume) fails the run's future.
- Recovery: a run that finds the runtime dead (crashed, killed) starts a new one and resumes the
  session from disk by itself, every time, however often it happened before. The one exception
  (:func:`may_replace`) is a crash loop: a runtime that this recovery started by itself and that
  died within ``RECOVERY_GRACE`` seconds without accepting a prompt is left to the person
  (``%dsh restart``) or to a prompt after the grace. A runtime the person started (the first
  start, a prewarm, ``%dsh restart``) or one that accepted a prompt is always replaced.
- Stop (:meth:`restart`): there is no cancel on the wire, so stopping a run means restarting the
  runtime; live sessions are resumed in the new one (history is kept), pending approvals fail
  closed (the old process is gone), and runs in flight end with ``TransportClosed``. That holds
  for every run :meth:`run` was called for before the restart, also one whose prompt was not
  sent yet (still waiting for a runtime start, its launch or its session's turn): its prompt is
  never sent, not to the old runtime and not to the new one, and it is not retried.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import queue
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

from ..client import DeepSeekHarness, HarnessConfig, RunResult, Session
from ..client.handlers import ApprovalHandler, QuestionHandler
from ..errors import SessionAlreadyExists, SessionAlreadyOpen, SessionNotFound, TransportClosed
from ..protocol import Notification

__all__ = ["HarnessFactory", "RuntimeHost", "RuntimeStart", "may_replace"]

log = logging.getLogger(__name__)
T = TypeVar("T")

HarnessFactory = Callable[[HarnessConfig], DeepSeekHarness]
"""Makes the harness of one runtime start from its config (:attr:`RuntimeHost.harness_factory`)."""

STOPPED_BEFORE_SENT = (
    "the runtime restarted (%dsh stop, a new key or route) before this prompt was sent: nothing "
    "was sent; run the cell again to send it"
)
"""The error of a run that a restart cut off before its prompt went out (:meth:`RuntimeHost.run`)."""

PLAN_NOTIFICATION = "dsh_notebook/bridge.plan"
"""The client notification the bridge reads to start a session's next step in plan mode."""

RECOVERY_GRACE = 10.0
"""Seconds after an automatic replacement's start within which, dead before it accepted a
prompt, it is not replaced again by itself (see :func:`may_replace`)."""


@dataclass
class RuntimeStart:
    """One runtime process the host started: when, by whom, and whether it served."""

    at: float
    """``time.time()`` when it was ready."""
    automatic: bool
    """Started by recovery, not by the person (first start, prewarm, ``%dsh restart``)."""
    served: bool = False
    """It accepted a prompt (a run received its first notification from it)."""


def may_replace(start: RuntimeStart, now: float) -> bool:
    """Whether the dead runtime of ``start`` may be replaced by recovery, without the person.

    Always, except for a crash loop: an automatic replacement that died within
    :data:`RECOVERY_GRACE` seconds of its start without accepting a prompt."""
    return start.served or not start.automatic or now - start.at >= RECOVERY_GRACE


_LIVE: weakref.WeakSet[RuntimeHost] = weakref.WeakSet()
"""Every host not yet collected; closed at interpreter exit (weakly held: no host is kept)."""


@atexit.register
def _close_all() -> None:
    for host in list(_LIVE):
        host.close()


class RuntimeHost:
    """Owns the runtime for one kernel. Cheap to construct; nothing starts until needed."""

    def __init__(
        self,
        config_factory: Callable[[], HarnessConfig],
        *,
        on_approval: ApprovalHandler | None = None,
        on_user_question: QuestionHandler | None = None,
        taps: Sequence[Callable[[Notification], None]] = (),
        harness_factory: HarnessFactory = DeepSeekHarness,
    ) -> None:
        """``on_approval`` / ``on_user_question`` answer the runtime's requests on the host
        loop (the kernel passes its broker's ``approve`` and ``ask``); without them approvals
        are rejected and questions dismissed. Each of ``taps`` sees every notification of
        every runtime this host starts, on the host loop, before routing (it must not block).
        ``harness_factory`` makes the harness of each start from the config (see
        :attr:`harness_factory`)."""
        self._config_factory = config_factory
        self.harness_factory: HarnessFactory = harness_factory
        """Makes each start's (not yet entered) harness from ``config_factory()``; read at every
        start. The default spawns the runtime process; tests give a harness on in-process
        streams (:mod:`dsh_notebook.testing.kernel`). The host sets the harness's approval and
        question handlers and taps, and enters it on the host loop."""
        self._on_approval = on_approval
        self._on_user_question = on_user_question
        self._taps = tuple(taps)
        self._lock = threading.RLock()
        self._portal_cm: Any = None
        self._portal: BlockingPortal | None = None
        self._harness_cm: Any = None
        self.harness: DeepSeekHarness | None = None
        self._opened: set[str] = set()
        self._session_locks: dict[str, anyio.Lock] = {}
        self._starting: concurrent.futures.Future[None] | None = None
        self._restarts = 0
        """Restarts so far: a run started before the latest one is never sent (:meth:`run`)."""
        self.started_at: float | None = None
        self._closed = False
        self.last_start: RuntimeStart | None = None
        """The runtime started last (still running or dead); None before the first start."""
        self._launches: queue.Queue[Callable[[], None]] = queue.Queue()
        self._launcher: threading.Thread | None = None
        self._launcher_lock = threading.Lock()  # not ``_lock``: a start holds that for seconds
        _LIVE.add(self)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.harness is not None

    def prewarm(self) -> concurrent.futures.Future[None]:
        """Start the runtime in the background; the returned future settles when it is ready."""
        return self._begin(automatic=False)

    def _begin(self, automatic: bool) -> concurrent.futures.Future[None]:
        """The start under way, or a new one recorded as ``automatic`` (by recovery)."""
        with self._lock:
            if self._starting is None:
                self._starting = concurrent.futures.Future()
                threading.Thread(
                    target=self._start_into, args=(self._starting, automatic), daemon=True
                ).start()
            return self._starting

    def _start_into(self, future: concurrent.futures.Future[None], automatic: bool) -> None:
        try:
            self._start(automatic)
        except BaseException as exc:
            future.set_exception(exc)
        else:
            future.set_result(None)

    @property
    def starting(self) -> bool:
        """A start is under way (a prewarm or a first run), not finished yet."""
        starting = self._starting
        return starting is not None and not starting.done()

    def ensure_started(self, timeout: float | None = None) -> DeepSeekHarness:
        """The running harness, starting the runtime first when needed (blocking).

        A failed start (also one begun by a prewarm, in the background) is raised here, to the
        first caller that needs the runtime, and then forgotten: the next call starts afresh."""
        return self._await_start(self._begin(automatic=False), timeout)

    def _await_start(
        self, future: concurrent.futures.Future[None], timeout: float | None
    ) -> DeepSeekHarness:
        try:
            future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise
        except BaseException:
            with self._lock:
                if self._starting is future:
                    self._starting = None
            raise
        assert self.harness is not None
        return self.harness

    def _start(self, automatic: bool) -> None:
        with self._lock:
            if self.harness is not None:
                return
            self._closed = False
            harness = self.harness_factory(self._config_factory())
            harness.on_approval = self._on_approval
            harness.on_user_question = self._on_user_question
            for tap in self._taps:
                harness.client.router.add_tap(tap)
            portal_cm = start_blocking_portal("asyncio", name="dsh-runtime-host")
            portal = portal_cm.__enter__()
            harness_cm = portal.wrap_async_context_manager(harness)
            try:
                harness_cm.__enter__()
            except BaseException:
                with contextlib.suppress(Exception):
                    portal_cm.__exit__(None, None, None)
                raise
            self._portal_cm, self._portal = portal_cm, portal
            self._harness_cm, self.harness = harness_cm, harness
            self._opened = set()
            self._session_locks = {}
            self.started_at = time.time()
            self.last_start = RuntimeStart(self.started_at, automatic)

    def close(self) -> None:
        """Close ladder, then stop the host thread. Idempotent; safe at interpreter exit."""
        with self._lock:
            harness_cm, portal_cm = self._harness_cm, self._portal_cm
            self._harness_cm = self._portal_cm = self._portal = None
            self.harness = None
            self._starting = None
            self._closed = True
        if harness_cm is not None:
            try:
                harness_cm.__exit__(None, None, None)
            except Exception as exc:  # the ladder already did its best
                log.debug("closing the runtime: %s", exc)
        if portal_cm is not None:
            with contextlib.suppress(Exception):
                portal_cm.__exit__(None, None, None)

    def restart(self) -> list[str]:
        """Restart the runtime and resume every session opened in it; returns their ids.

        Every run started before this call ends (``TransportClosed``) without its prompt being
        sent from now on, to either runtime (see :meth:`run`)."""
        with self._lock:
            self._restarts += 1  # first: a launch that reads it from now on sends nothing
            live = sorted(self._opened)
        self.close()
        self.ensure_started()  # not under the lock: the start runs on another thread
        for session_id in live:
            with contextlib.suppress(SessionNotFound):
                self.open_session(session_id)
        return live

    # -- calls into the host loop ----------------------------------------------------------------

    def _require_portal(self) -> BlockingPortal:
        self.ensure_started()
        portal = self._portal
        assert portal is not None
        return portal

    def call(self, func: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        """Run ``func(*args)`` on the host loop and wait for its result (blocking)."""
        result: T = self._require_portal().call(func, *args)
        return result

    def submit(
        self, func: Callable[..., Coroutine[Any, Any, T]], *args: Any
    ) -> concurrent.futures.Future[T]:
        """Schedule ``func(*args)`` on the host loop; a future for its result (non-blocking)."""
        return self._require_portal().start_task_soon(func, *args)

    def barrier(self, timeout: float) -> concurrent.futures.Future[None]:
        """An ordering barrier on the running runtime's stdio channel (scheduled on the host
        loop; :meth:`~dsh_notebook.client.low_level.HarnessClient.barrier`): the future settles
        once every frame that runtime wrote before reading it has been seen by the taps. Never
        starts a runtime and never blocks (callable from any loop): with none running the
        future fails with :class:`TransportClosed`."""
        portal, harness = self._portal, self.harness  # no lock: a start holds it for seconds
        if portal is not None and harness is not None:
            with contextlib.suppress(RuntimeError):  # the portal closed meanwhile
                return portal.start_task_soon(harness.client.barrier, timeout)
        failed: concurrent.futures.Future[None] = concurrent.futures.Future()
        failed.set_exception(TransportClosed("the runtime is not running"))
        return failed

    # -- sessions --------------------------------------------------------------------------------

    def open_session(self, session_id: str) -> Session:
        """A session usable in this runtime: resumed from disk when persisted, else new."""
        self.ensure_started()
        return self.call(self._open, session_id)

    def parent_of(self, session_id: str) -> str | None:
        """The parent of a session in the running runtime's tree (learned from
        ``subagent.started``), or None. Read from any thread (a dict lookup)."""
        harness = self.harness
        return harness.client.router.parent_of(session_id) if harness is not None else None

    @property
    def open_sessions(self) -> list[str]:
        return sorted(self._opened)

    def alive(self) -> bool:
        """Whether a runtime is running and its transport still open."""
        harness = self.harness
        if harness is None:
            return False
        client = harness.client
        process, transport = client.process, client.transport
        if process is not None and process.returncode is not None:
            return False
        return transport is not None and transport.closed is None

    def _recover(self) -> str | None:
        """Start a new runtime when the last one died; a one-line note when it did.

        Sessions are resumed lazily (on their next use, from disk), so history is kept. A dead
        runtime is replaced whenever :func:`may_replace` allows it; otherwise (a replacement that
        died at once, before serving) nothing starts and the run fails with ``TransportClosed``.
        """
        with self._lock:
            if self.harness is None or self.alive():
                return None
            start = self.last_start
        if start is not None and not may_replace(start, time.time()):
            return None
        self.close()
        self._await_start(self._begin(automatic=True), None)
        return "the runtime had exited; a new one was started and the session resumed"

    def run(
        self,
        session_id: str,
        blocks: list[dict[str, Any]],
        on_notification: Callable[[Notification], None] | None = None,
        on_start: Callable[[], None] | None = None,
        on_note: Callable[[str], None] | None = None,
        outcome: concurrent.futures.Future[RunResult] | None = None,
        cwd: str | None = None,
        plan: bool = False,
    ) -> concurrent.futures.Future[RunResult]:
        """Start a run; returns at once, also when the runtime still has to start.

        ``on_notification`` runs on the host thread, in order. Runs on one session are
        serialized: a second prompt waits until the first run settled (else the runtime would
        merge it into the running period and both cells would show both turns). Runs on
        different sessions proceed concurrently. ``on_start`` runs on the host loop when this
        run's turn comes, before its prompt is sent. ``on_note`` gets one-line notes (e.g. that
        a dead runtime was replaced). A failure to start the runtime or to open the session
        fails the returned future (never raised here). ``outcome``: the future to complete and
        return (a new one by default), so a caller can know it before any callback runs.
        ``cwd``: the session's working directory, set on the host loop at this run's turn,
        before its prompt; a directory the runtime refuses fails the run and sends nothing.
        ``plan``: the bridge puts the session in the runtime's plan mode at the prompt's first
        step (``dsh_notebook/bridge.plan``, sent right before the prompt; without the bridge
        it is ignored).
        A :meth:`restart` after this call and before the prompt is sent (the person stopped)
        fails the run with ``TransportClosed`` and sends nothing: the restart is checked when the
        run is launched and again on the host loop right before the prompt goes out, and a run
        the restart cut off is never retried on the new runtime.
        """
        result: concurrent.futures.Future[RunResult] = (
            outcome if outcome is not None else concurrent.futures.Future()
        )
        generation = self._restarts
        accepted = False
        sent_to: RuntimeStart | None = None  # the runtime the prompt goes to

        def starting() -> None:
            nonlocal sent_to
            sent_to = self.last_start  # on that runtime's own loop, before the prompt
            if on_start is not None:
                on_start()

        def deliver(notification: Notification) -> None:
            nonlocal accepted
            if not accepted:
                accepted = True
                if sent_to is not None:
                    sent_to.served = True  # it accepted a prompt: never a crash loop
            if on_notification is not None:
                on_notification(notification)

        def launch(retry: bool) -> None:
            try:
                self._check_not_restarted(generation)
                note = self._recover()
                if note is not None and on_note is not None:
                    on_note(note)
                inner = self.submit(
                    self._run, session_id, blocks, deliver, starting, cwd, generation, plan
                )
            except BaseException as exc:
                if not result.done():
                    result.set_exception(exc)
                return

            def finished(done: concurrent.futures.Future[RunResult]) -> None:
                error = None if done.cancelled() else done.exception()
                restarted = self._restarts != generation  # stopped: never sent again
                if retry and isinstance(error, TransportClosed) and not accepted and not restarted:
                    # the runtime died before it took the prompt (it was dead already and we
                    # had not noticed yet): replace it and send the prompt once more
                    self._launch(lambda: launch(False))
                    return
                _copy(done, result)

            inner.add_done_callback(finished)

        self._launch(lambda: launch(True))
        return result

    def _launch(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the launcher thread: in submission order, never on the caller's
        thread (starting a runtime takes seconds), so runs on one session start in the order
        their cells ran. The launcher thread ends when no job is left (a later job starts a
        new one), so a host never keeps a thread, nor a thread the host."""
        with self._launcher_lock:
            self._launches.put(job)
            if self._launcher is None:
                self._launcher = threading.Thread(
                    target=self._launch_loop, name="dsh-runtime-launcher", daemon=True
                )
                self._launcher.start()

    def _launch_loop(self) -> None:
        while True:
            with self._launcher_lock:
                try:
                    job = self._launches.get_nowait()
                except queue.Empty:
                    self._launcher = None
                    return
            try:
                job()
            except Exception:  # a job reports its own failures; never stop the launcher
                log.exception("dsh: launching a run failed")

    def _check_not_restarted(self, generation: int) -> None:
        """Raise ``TransportClosed`` when the runtime was restarted (stopped) since the run of
        ``generation`` was started: that run's prompt must not be sent any more."""
        if self._restarts != generation:
            raise TransportClosed(STOPPED_BEFORE_SENT)

    async def _open(self, session_id: str) -> Session:
        """The one rule for a session's first use in this runtime (host loop): resume it from
        disk when persisted, else start it; later uses get the open session."""
        harness = self.harness
        assert harness is not None
        if session_id in self._opened:
            return harness.sessions.get(session_id) or harness.start_session(session_id)
        try:
            session = await harness.resume_session(session_id)
        except (SessionNotFound, SessionAlreadyOpen):
            session = harness.start_session(session_id)
        self._opened.add(session_id)
        return session

    async def _run(
        self,
        session_id: str,
        blocks: list[dict[str, Any]],
        on_notification: Callable[[Notification], None] | None,
        on_start: Callable[[], None] | None,
        cwd: str | None,
        generation: int,
        plan: bool = False,
    ) -> RunResult:
        lock = self._session_locks.setdefault(session_id, anyio.Lock())
        async with lock:
            self._check_not_restarted(generation)
            session = await self._open(session_id)
            if on_start is not None:
                on_start()  # the run now owns the session (e.g. its approval policy)
            if cwd is not None:
                await session.set_working_directory(cwd)
            if plan and self.harness is not None:  # read by the bridge, before the prompt line
                await self.harness.client.notify(PLAN_NOTIFICATION, {"sessionId": session_id})
            self._check_not_restarted(generation)  # no await from here to the prompt
            try:
                return await session.run(blocks, on_notification)
            except SessionAlreadyExists:
                # persisted by another process since we looked: resume, then retry once
                self._opened.discard(session_id)
                assert self.harness is not None
                await self.harness.resume_session(session_id)
                self._opened.add(session_id)
                return await session.run(blocks, on_notification)


def _copy(
    done: concurrent.futures.Future[RunResult], outer: concurrent.futures.Future[RunResult]
) -> None:
    if outer.done():
        return
    if done.cancelled():
        outer.cancel()
    elif (error := done.exception()) is not None:
        outer.set_exception(error)
    else:
        outer.set_result(done.result())
