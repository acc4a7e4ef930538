"""The agent in one kernel: the state and lifecycle that ``%%dsh`` cells and ``%dsh`` commands share.

One :class:`NotebookAgent` per kernel, built on first use (the first prompt or command, or the
background prewarm) by :class:`~.magics.DshMagics`. It owns the runtime
host (the runtime's thread and process), the broker (the one registry of requests waiting for the
person), the UI pump (the one thread that updates outputs), the notebook tools server, the demo
model, the notebook's current session, the runs started in this kernel and their results.

Wiring: the run registry (:class:`~.runs.Runs`) is the one answer to "which run is this?": it
learns the session tree from the host, and the broker (policies, scopes), the notebook tools
(whose call is this), the waiting signal and ``%dsh wait``/``stop`` ask it. The broker answers the
runtime's approval and question requests (handed to the host at construction); clicks in a run widget arrive at
:meth:`NotebookAgent.on_widget_action` (comm thread) and resolve the broker's pending items with
the same decision values the wire carries.

Thread-safety: the methods are called on the kernel's main thread, except ``on_widget_action``
(a comm thread) and the callbacks the host and the pump run on their own threads; everything they
touch is thread-safe (the broker, the pump's queue, the host's portal).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..client import HarnessConfig, RunResult
from ..client.config import takes_images
from ..context.instructions import InstructionFile, agents_home, instruction_files
from ..context.private import private_values
from ..context.sanitize import encodable
from ..frontend import current_identity
from ..runtime import Masking, Secret, redact, resolve_dsh_home
from ..transcript import Transcript
from ..transcript.facts import Stopped
from .demo import DEMO_API_KEY, DEMO_LABEL, DemoModel, demo_active
from .host import RuntimeHost
from .notebook.cell_record import CellRecord
from .notebook.naming import SessionNames, default_session_id
from .notebook.session_context import SessionContexts
from .options.settings import KernelSettings
from .persistence.conversations import ConversationIndex
from .persistence.ledger import PromptLedger
from .persistence.session_lock import SessionLocks
from .registry.broker import Broker
from .registry.budget import OTHER_RUN_BUDGET, KernelSpend
from .registry.runs import ActiveRun, Runs
from .registry.waiting import WaitingSignal
from .run import Frontend
from .showing.kernel_facts import kernel_of, stdin_available
from .showing.pump import UiPump
from .tools.agent_cells import AgentCells
from .tools.kernel_undo import KernelUndo, UndoRecorder
from .tools.notebook_edits import NotebookEdits
from .tools.tool_calls import CallOrigins
from .tools.tools_host import NotebookToolsHost
from .tools.undo import UndoLedger
from .tools.user_mcp import UserMcp, default_where

if TYPE_CHECKING:  # the widget needs the jupyter extra; only its click type is used here
    from ..widget._messages import WidgetAction

__all__ = ["NotebookAgent"]

log = logging.getLogger(__name__)


_EXITING = threading.Event()
"""Set at interpreter exit, before the runtime hosts close: this module imports :mod:`.host`
first, so this hook is registered after the host's and, ``atexit`` running hooks last-in
first-out, runs before it."""
atexit.register(_EXITING.set)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running on this thread (ipykernel's, inside a cell), else None (terminal)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class NotebookAgent:
    """Everything one kernel's ``%%dsh`` cells share. Cheap to make: nothing starts until used."""

    def __init__(
        self,
        shell: Any,
        settings: Callable[[], KernelSettings],
        *,
        record: CellRecord | None = None,
        kernel_loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        """``record``: what the kernel kept of its cells since ``%load_ext`` (a new one when
        omitted). ``kernel_loop``: the kernel's event loop, for an agent built off the main
        thread (the prewarm's); by default the loop running on this thread, if any."""
        self.shell = shell
        self.record = record if record is not None else CellRecord(shell)
        self._settings = settings
        self.typed_key: Secret | None = None
        """A key typed with ``%dsh key``: in memory only, for this kernel's life."""
        self.runtime_read_only = False
        """The runtime runs (or will start) with its ``read-only`` permission mode: the last run
        was read-only (``%%dsh --read-only``). Wins over the ``permission_mode`` setting."""
        self.runs = Runs()
        self.broker = Broker(self.runs)
        self.demo = DemoModel()
        self.call_origins = CallOrigins()  # which session made a notebook tool call
        self.host = RuntimeHost(
            self.harness_config,
            on_approval=self.broker.approve,
            on_user_question=self.broker.ask,
            # the demo model orders subagent reports by status; tool/call events name the
            # session of each notebook tool call
            taps=(self.demo.observe, self.call_origins.observe),
        )
        self.runs.tree = self.host  # requests from child sessions find their root's run
        self.pump = UiPump()
        self.sessions = SessionNames(default_session_id())
        self.frontend_link = self.record.frontend_link
        self.broker.on_change = WaitingSignal(self.runs, self.frontend_link)
        self._locks: SessionLocks | None = None
        self.errors = self.record.errors
        self.results: dict[str, RunResult] = {}
        self.contexts = SessionContexts()  # how full each session's context is (issue 29)
        self.spend = KernelSpend()  # the tokens every run of this kernel spent (its budget)
        self.figure_notes = self.record.figure_notes  # figures of the person's cells
        self.ran_cells = self.record.ran_cells  # what ran as In [k]: "edited since In [k]"
        self.undo = UndoLedger(self.frontend_link)  # what each run changed in the notebook
        self.kernel_undo = KernelUndo(  # what each run's approved code changed in the kernel
            memory=lambda: self.settings().undo_memory_mb * 2**20,
            value_limit=lambda: self.settings().undo_value_mb * 2**20,
        )
        self.user_mcp = UserMcp(  # the person's own MCP servers, mounted at each runtime start
            default_where(
                lambda: self.settings().mcp_servers, lambda: self.settings().cwd,
                self.resolved_home,
            )
        )  # fmt: skip
        self.tools = NotebookToolsHost(
            shell,
            self.host,
            self.broker,
            errors=self.errors,
            runs=self.runs,
            origins=self.call_origins,
            kernel_loop=kernel_loop or _running_loop(),  # the kernel's loop
            record=UndoRecorder(  # the values each call changes, kept for undo
                AgentCells(  # figures under the call in the transcript, and agent cells
                    self.frontend_link,
                    enabled=lambda: self.settings().agent_cells,
                    secrets=self.secrets,
                    undo=self.undo,
                    figures=self.pump.local,
                ),
                self.kernel_undo,
                shell,
            ),
            read_notebook=self.frontend_link.read_notebook,
            figure_notes=self.figure_notes.lookup,
            figure_images=self.figure_notes.images,
            ran_cells=self.ran_cells.lookup,
            secrets=self.secrets,  # asked at every tool call: a key typed later counts
            edits=lambda tools: NotebookEdits(  # the cell tools, matched and decided by `tools`
                tools, self.frontend_link, self.undo, self.kernel_undo, secrets=self.secrets
            ),
            undo_limit=lambda: self.settings().undo_value_mb * 2**20,
        )
        self._ledger: PromptLedger | None = None
        self._conversations: ConversationIndex | None = None
        self._prewarmed: KernelSettings | None = None
        """The settings a prewarm started the runtime with, until a run uses that runtime."""
        self._closing = False

    # -- configuration -------------------------------------------------------------------------

    def settings(self) -> KernelSettings:
        """The effective settings: ``%config DshMagics``, and a key typed with ``%dsh key``."""
        current = self._settings()
        return replace(current, api_key=self.typed_key) if self.typed_key else current

    def secrets(self) -> Masking:
        """What must never be shown, at this moment (one policy,
        :mod:`~dsh_notebook.runtime.mask_policy`): the key (configured, typed, or in the
        environment), the values of the environment's secret-looking variables
        (``secret_env_names``), the credential shapes, the person's ``mask_patterns`` and the values
        of the person's private variables (``private``)."""
        s = self.settings()
        keys = [s.api_key, os.environ.get("DEEPSEEK_API_KEY")]
        named: list[tuple[str | None, str]] = [
            (k, "DEEPSEEK_API_KEY") for k in keys if k and k != DEMO_API_KEY
        ]
        if s.private:  # the person's private values, as text (context.private)
            named += private_values(getattr(self.shell, "user_ns", {}) or {}, s.private)
        named += self.user_mcp.secret_values()  # their MCP servers' env and headers
        env = {k: v for k, v in os.environ.items() if v != DEMO_API_KEY}
        return Masking.build(
            named, env_names=s.secret_env_names, environ=env, patterns=s.mask_patterns,
            private=s.private,
        )  # fmt: skip

    def demo_active(self) -> bool:
        """Whether runs go to the scripted demo model instead of DeepSeek."""
        return demo_active(self.settings())

    def model_label(self) -> str:
        """The model as the run's header names it."""
        if self.demo_active():
            return DEMO_LABEL
        return self.settings().model or os.environ.get("DSH_MODEL") or "deepseek-flash"

    def instruction_files(self) -> list[InstructionFile]:
        """The instruction files and skills the runtime loads (its workspace: the ``cwd``
        setting, else the kernel's working directory; the user's: ``DSH_AGENTS_HOME``)."""
        return instruction_files(Path(self.settings().cwd or os.getcwd()), agents_home())

    def resolved_home(self) -> Path:
        return resolve_dsh_home(self.settings().dsh_home or None)

    def harness_config(self, *, starting: bool = True) -> HarnessConfig:
        """The client configuration the settings describe (read when the runtime starts).
        ``starting=False`` (``%dsh config``) describes it without starting the person's MCP
        servers again: their current mount is named."""
        s = self.settings()
        demo = demo_active(s)
        model = s.model or os.environ.get("DSH_MODEL") or "deepseek-flash"
        mount = self.tools.mount(
            enabled=s.notebook_tools,
            run_python=s.notebook_run_python,
            max_chars=s.notebook_tools_max_chars,
            images=takes_images(s.provider, model),
        )
        read_only = self.runtime_read_only or s.permission_mode == "read-only"
        user = self.user_mcp.mount(read_only=read_only) if starting else self.user_mcp.current()
        mounts = [m for m in (mount, user) if m is not None]
        return HarnessConfig(
            dsh_bin=s.dsh_bin or None,
            dsh_home=self.resolved_home(),
            cwd=s.cwd or os.getcwd(),
            provider=s.provider,
            model=model,
            reasoning_effort=s.reasoning_effort,
            max_tokens=s.max_tokens,
            permission_mode="read-only" if self.runtime_read_only else s.permission_mode,
            base_url=self.demo.endpoint() if demo else (s.base_url or None),
            api_key=DEMO_API_KEY if demo else (s.api_key or None),
            bridge=s.bridge,
            patches=[m.patch_path for m in mounts],
            env={k: v for m in mounts for k, v in m.env.items()},
        )

    @property
    def ledger(self) -> PromptLedger:
        """The Run-All ledger of this kernel's ``DSH_HOME``."""
        if self._ledger is None:
            self._ledger = PromptLedger(self.resolved_home())
        return self._ledger

    @property
    def conversations(self) -> ConversationIndex:
        """This notebook's conversations (``%dsh sessions``), in this kernel's ``DSH_HOME``."""
        if self._conversations is None:
            self._conversations = ConversationIndex(self.resolved_home())
        return self._conversations

    @property
    def notebook_session(self) -> str:
        """The notebook's default session name: the key of its conversation index."""
        return self.sessions.default

    @property
    def session_id(self) -> str:
        """The notebook's current session (what ``%%dsh`` without ``-s`` continues)."""
        return self.sessions.current

    def adopt_notebook(self) -> str | None:
        """Learn which notebook the executing cell belongs to (main thread, inside the cell):
        its identity makes the notebook's own session the default. Returns the cell's id."""
        if stdin_available(self.shell):  # a live frontend (nbclient has no extension to answer)
            self.frontend_link.open()  # the waiting signal; a no-op without the extension
        identity = current_identity(kernel_of(self.shell))
        if identity is None:
            return None
        self.sessions.adopt(identity.session_name)
        return identity.cell_id

    # -- prewarm -------------------------------------------------------------------------------

    def start_in_background(self) -> None:
        """Start the runtime in the background (any thread) unless ``prewarm = False`` or it
        runs or starts already; the settings it starts with are kept, so a change before the
        first run restarts it (:meth:`discard_stale_prewarm`)."""
        settings = self.settings()
        if settings.prewarm is False or self.host.running or self.host.starting:
            return
        self._prewarmed = settings
        self.host.prewarm()

    def discard_stale_prewarm(self) -> None:
        """Before a run (main thread): a runtime prewarmed with settings changed since (a
        ``%config DshMagics.model = …`` after ``%load_ext``) and not used yet is closed, so the
        run starts one with the current settings. A used or lazily started runtime is kept."""
        prewarmed, self._prewarmed = self._prewarmed, None
        if prewarmed is not None and prewarmed != self.settings():
            self.host.close()

    def claim(self, session_id: str) -> None:
        """This kernel writes ``session_id`` from now on; :class:`SessionInUse` when another
        kernel does."""
        if self._locks is None:
            self._locks = SessionLocks(self.resolved_home(), owner=f"kernel pid {os.getpid()}")
        self._locks.claim(session_id)

    def last_run(self) -> ActiveRun | None:
        """The newest run started in this kernel (what ``%dsh wait`` and ``%dsh stop`` name)."""
        return self.runs.last()

    def frontend(self) -> Frontend:
        """Who is watching this cell: a terminal, a live frontend (stdin), or nobody."""
        return Frontend(terminal=kernel_of(self.shell) is None, stdin=stdin_available(self.shell))

    # -- the run widget ------------------------------------------------------------------------

    def make_widget(self, transcript: Transcript, interactive: bool) -> Any:
        """A live run widget, or None when anywidget (the ``jupyter`` extra) is missing."""
        try:
            from ..widget import RunWidget
        except (ImportError, OSError) as exc:
            log.info("dsh: no live widget (%s); showing markdown", exc)
            return None
        from ..widget.bundle import CAPABILITY  # the page serves this very bundle: a loader
        from ..widget.run_widget import FULL_SYNC_FOR

        return RunWidget(
            encodable(redact(transcript.snapshot(), self.secrets())),  # the prompt may hold a piece
            on_action=self.on_widget_action,
            interactive=interactive,
            light=CAPABILITY in self.frontend_link.capabilities,
            full_sync_for=FULL_SYNC_FOR,  # a new view starts from the state, not a resync
        )

    def on_widget_action(self, action: WidgetAction) -> str | None:
        """A click in a run widget (comm thread), checked against its snapshot and normalized at
        the widget's edge (:func:`~dsh_notebook.widget.actions.check_action`).

        Resolves the broker's pending item (the broker keeps its own checks of the decision);
        returns the text the card shows when the request is gone. Stop restarts the runtime off
        the comm thread.
        """
        from ..widget.actions import GONE  # a click means the widget is loaded

        if action["type"] == "stop":
            threading.Thread(target=self.stop, name="dsh-stop", daemon=True).start()
            return None
        if action["type"] == "approval":
            done = self.broker.decide(
                action["request_id"],
                action["decision"],
                for_run=action.get("scope") == "run",
                code=action.get("code"),
                note=action.get("note"),
            )
        elif action["type"] == "answer":
            done = self.broker.answer(action["request_id"], [dict(a) for a in action["answers"]])
        else:  # dismiss
            done = self.broker.answer(action["request_id"], None)
        return None if done else GONE

    # -- lifecycle -----------------------------------------------------------------------------

    def stop(self, budget: tuple[ActiveRun, str] | None = None) -> list[str]:
        """Stop the runs in flight: there is no cancel on the wire, so the runtime restarts and
        every live session is resumed with its history; pending requests are rejected. Each
        stopped run's output says "stopped by you" (not an error); with ``budget`` (a run and
        the reason its budget stopped it) that run says the reason and the others that its
        budget stopped the runtime."""
        for run in self.runs.in_progress():
            reason = ""
            if budget is not None:
                reason = budget[1] if run is budget[0] else OTHER_RUN_BUDGET
            self.pump.local(run.view, Stopped(reason))
        self.broker.reject_all("you")
        self.call_origins.forget_all()  # the old runtime's calls can never arrive now
        return self.host.restart()

    @property
    def ending(self) -> bool:
        """The kernel is exiting or this extension is being unloaded: a run that ends from now
        on was cut off by that, its transcript is not its end (any thread)."""
        return self._closing or _EXITING.is_set()

    def close(self) -> None:
        """Fail pending requests closed, close the runtime, stop the pump. Idempotent."""
        self._closing = True  # first: what closing does to runs is not kept as their end
        self.broker.reject_all("connection-lost")
        self.host.close()
        self.tools.stop()
        self.user_mcp.stop()
        self.record.close()
        self.demo.stop()
        if self._locks is not None:
            self._locks.release_all()
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not self.pump.flush(timeout=0.5):
            pass
        self.pump.stop()

    # -- IPython hooks -------------------------------------------------------------------------

    def post_run_cell(self, result: Any) -> None:
        """Record the cell (errors for ``{Err[n]}``, figures, code): :class:`CellRecord`."""
        self.record.post_run_cell(result)

    def cell_started(self, info: Any = None) -> None:
        """``pre_run_cell`` (a cell's run; not ``pre_execute``, which every comm message's
        callback also fires): the agent's ``run_python`` waits while a cell runs; a cell an
        approved ``run_cells`` runs has its values kept for undo (``info``: IPython's
        ``ExecutionInfo``)."""
        self.record.cell_started()
        self.tools.cell_started()
        namespace = self.tools.namespace()
        if info is not None and namespace is not None:
            self.kernel_undo.cell_started(info, namespace)

    def cell_finished(self, result: Any = None) -> None:
        """``post_run_cell``: queued ``run_python`` calls run once the kernel is idle."""
        namespace = self.tools.namespace()
        if namespace is not None:
            self.kernel_undo.cell_finished(namespace)
        self.tools.cell_finished()
