"""The life of one started ``%%dsh`` run, as the threads that drive it see it.

:class:`RunLifecycle` is what :func:`~.run.start_run` hands the threads once the run is shown
and queued: the host loop calls :meth:`~RunLifecycle.on_start` when the run's turn on its
session comes, then :meth:`~RunLifecycle.on_notification` for each notification **in order**
and :meth:`~RunLifecycle.on_note` for the host's own notes; the UI pump calls
:meth:`~RunLifecycle.keep_live` (at most every few seconds, see :mod:`.showing.pump`); the
settle calls :meth:`~RunLifecycle.record` once. What it reads of the notebook (its session, the
keys to mask, the conversation index) is read once, on the main thread, when it is built.

Guarantees: the prompt counts as answered (the Run-All ledger, the conversation index) from the
first notification the runtime sent for it, before that notification is shown, so a kept live
transcript always belongs to an answered prompt; nothing is kept for a run the runtime never
accepted, nor while the kernel or the extension is shutting down.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Protocol

from ..client import RunResult
from ..frontend import FrontendLink
from ..protocol import Notification
from ..runtime.secret import Secrets
from ..transcript import Transcript
from ..transcript.facts import ContextCarried, Note, Status
from .host import RuntimeHost
from .notebook.session_context import SessionContexts, record_settled
from .options.settings import KernelSettings
from .persistence.conversations import ConversationIndex
from .persistence.ledger import PromptLedger
from .registry.broker import Broker
from .registry.budget import BudgetMeter, KernelSpend
from .registry.runs import ActiveRun, Runs
from .showing.pump import LiveView, UiPump
from .tools.tools_host import NotebookToolsHost
from .tools.user_mcp import UserMcp

__all__ = ["Frontend", "RunContext", "RunLifecycle"]


@dataclass(frozen=True)
class Frontend:
    """What the kernel knows about who is watching."""

    terminal: bool
    """No kernel (terminal IPython)."""
    stdin: bool
    """The current request allows stdin: a live frontend that can click and type."""


class RunContext(Protocol):
    """What a run needs of the kernel's agent (:class:`~dsh_notebook.kernel.agent.NotebookAgent`)."""

    shell: Any
    broker: Broker
    host: RuntimeHost
    pump: UiPump
    tools: NotebookToolsHost
    user_mcp: UserMcp
    results: dict[str, RunResult]
    runs: Runs
    contexts: SessionContexts
    frontend_link: FrontendLink
    spend: KernelSpend
    """The tokens this kernel's runs spent (the ``max_kernel_tokens`` budget)."""

    @property
    def ledger(self) -> PromptLedger: ...

    @property
    def conversations(self) -> ConversationIndex: ...

    @property
    def notebook_session(self) -> str:
        """The notebook's default session name: the key of its conversation index."""
        ...

    def settings(self) -> KernelSettings: ...

    def frontend(self) -> Frontend: ...

    def model_label(self) -> str: ...

    def make_widget(self, transcript: Transcript, interactive: bool) -> Any: ...

    def secrets(self) -> Secrets: ...

    @property
    def ending(self) -> bool:
        """The kernel or the extension is shutting down (runs ending now were cut off)."""
        ...

    def stop(self, budget: tuple[ActiveRun, str] | None = None) -> list[str]: ...

    def claim(self, session_id: str) -> None: ...


class RunLifecycle:
    """One started run's callbacks (see the module doc for who calls which, on which thread).
    Built on the main thread, after the run was shown and added to the registry."""

    def __init__(
        self,
        agent: RunContext,
        run: ActiveRun,
        view: LiveView,
        *,
        session_id: str,
        prompt: str,
        meter: BudgetMeter | None = None,
        queued: bool = False,
    ) -> None:
        """``meter``: the run's budget (``--max-tokens``, ``--max-time``), checked at each step
        boundary; the first one crossed stops the run (:meth:`on_notification`). ``queued``: the
        run waits behind an earlier run of its session (its view reads "queued" until its turn)."""
        self._agent = agent
        self._meter = meter
        self._queued = queued
        self._run = run
        self._view = view
        self._session_id = session_id
        self._prompt = prompt
        # read here, on the main thread: the notebook, the keys to mask, the conversation index
        self._notebook = agent.notebook_session
        self._secrets = agent.secrets()
        self._conversations = agent.conversations

    def on_start(self) -> None:
        """Host loop: the run's turn on its session came; it holds the session from now on and
        the context it carries over (once per session) is shown."""
        agent = self._agent
        agent.runs.hold(self._run)
        if self._queued:  # its turn came: no longer "queued"
            agent.pump.local(self._view, Status("running"))
        for line in agent.user_mcp.take_notes():  # the person's servers the start left out
            agent.pump.local(self._view, Note(line))
        if self._meter is not None:  # the time budget counts from the run's turn
            self._meter.start()
        carried = agent.contexts.carried(
            self._session_id,
            lambda: self._conversations.context_of(self._notebook, self._session_id),
        )
        if carried is not None:  # a window is reported once per session (session_context.py)
            agent.pump.local(self._view, ContextCarried(carried.tokens, carried.window))

    def on_notification(self, notification: Notification) -> None:
        """Host loop, in order: the first one marks the prompt answered, then it is shown; at
        the first step boundary past the run's budget the run is stopped like ``%dsh stop``
        (there is no cancel on the wire: the runtime restarts, on a thread of its own since the
        host loop cannot close itself), its transcript saying which budget and what was spent;
        the steps before stay in the session and the transcript."""
        agent, run = self._agent, self._run
        if not run.accepted:  # the runtime took the prompt: from now on it counts as answered
            agent.ledger.record(self._session_id, self._prompt)
            run.accepted = True  # before the notification is posted: the pump may keep it
            self._conversations.note(self._notebook, self._session_id, self._prompt, self._secrets)
        agent.contexts.observe(self._session_id, notification)
        agent.pump.notification(self._view, notification)
        reason = None if self._meter is None else self._meter.observe(notification)
        if reason is not None:
            budget = (run, reason)
            threading.Thread(
                target=lambda: agent.stop(budget), name="dsh-budget-stop", daemon=True
            ).start()

    def on_note(self, text: str) -> None:
        """Host loop: a note of the host's own (a restart, a retry) under the run."""
        self._agent.pump.local(self._view, Note(text))

    def keep_live(self, view: LiveView) -> bool:
        """Pump thread: keep the live transcript for a restart; False until the runtime
        accepted the prompt (nothing to keep yet)."""
        if not self._run.accepted:
            return False
        if not self._agent.ending:  # what a shutdown does to the run is not its last live state
            self._agent.ledger.keep_rendering(
                self._session_id, self._prompt, view.rendering(),
                agent_cells=self._run.agent_cells, interrupted=True,
            )  # fmt: skip
        return True

    def record(self, view: LiveView) -> None:
        """The settle (host thread), once: the conversation index learns how the run ended."""
        record_settled(self._conversations, self._notebook, view.rendering().snapshot)
