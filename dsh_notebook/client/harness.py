"""``DeepSeekHarness``: the high-level async API — a runtime, its sessions, your handlers.

::

    async with DeepSeekHarness(cwd="project", on_approval=ask_me) as harness:
        session = harness.start_session()
        result = await session.run("Summarize data.csv")

Start is eager: entering resolves the runtime and home, spawns the process, and completes the
``initialize`` handshake (bounded by ``initialize_timeout``); any failure closes the child before
the error propagates. Leaving runs the close ladder. Enter and leave in the same task.

Handlers: ``on_approval`` and ``on_user_question`` (constructor arguments or attributes, changeable
at any time) are async callables receiving the typed request. They serve the seed's server→client
requests whether the runtime sends them natively or through the notebook bridge. When a handler is
set at start, the client opts in on ``initialize`` (``approvalRequests`` /
``capabilities.userQuestions``). Approvals fail closed: see :mod:`dsh_notebook.client.handlers`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..protocol import (
    APPROVAL_CANCELLED,
    APPROVAL_REQUEST,
    BRIDGE_READY,
    USER_QUESTION_ASK,
    USER_QUESTION_CANCELLED,
    InitializeResult,
    Notification,
)
from .config import HarnessConfig
from .handlers import (
    ApprovalHandler,
    PendingRequests,
    QuestionHandler,
    make_approval_handler,
    make_question_handler,
)
from .low_level import HarnessClient
from .session import Session

__all__ = ["DeepSeekHarness"]

log = logging.getLogger(__name__)


class DeepSeekHarness:
    """A running runtime and the sessions you drive on it."""

    def __init__(
        self,
        config: HarnessConfig | None = None,
        *,
        on_approval: ApprovalHandler | None = None,
        on_user_question: QuestionHandler | None = None,
        client: HarnessClient | None = None,
        **fields: Any,
    ) -> None:
        if client is not None:
            self.client = client
            if config is not None or fields:
                self.client.config = HarnessConfig.from_fields(config or client.config, **fields)
        else:
            self.client = HarnessClient(config, **fields)
        self.on_approval = on_approval
        self.on_user_question = on_user_question
        self.pending = PendingRequests()
        self.bridge_info: dict[str, Any] | None = None
        """The bridge's announcement (``version``, ``features``) once it loaded, else ``None``."""
        self._sessions: dict[str, Session] = {}
        self._install_handlers()

    @property
    def config(self) -> HarnessConfig:
        return self.client.config

    def _install_handlers(self) -> None:
        self.client.set_request_handler(
            APPROVAL_REQUEST,
            make_approval_handler(
                lambda: self.on_approval, self.pending, lambda: self.client.config.approval_timeout
            ),
        )
        self.client.set_request_handler(
            USER_QUESTION_ASK,
            make_question_handler(
                lambda: self.on_user_question,
                self.pending,
                lambda: self.client.config.question_timeout,
            ),
        )
        self.client.router.add_tap(self._on_withdrawal)
        self.client.router.add_tap(self._on_bridge_ready)

    def _on_bridge_ready(self, notification: Notification) -> None:
        if notification.method == BRIDGE_READY:
            self.bridge_info = dict(notification.params)

    def _on_withdrawal(self, notification: Notification) -> None:
        """The peer stopped waiting for a request: cancel its running callback, answer nothing."""
        if notification.method in (USER_QUESTION_CANCELLED, APPROVAL_CANCELLED):
            request_id = notification.params.get("requestId")
            if isinstance(request_id, str):
                self.pending.withdraw(request_id)

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> DeepSeekHarness:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> InitializeResult:
        """Spawn and initialize. On any failure the child is closed and the error re-raised.

        A harness starts once: after a failed start (or a close) create a new one; a second
        ``start()`` raises :class:`~dsh_notebook.errors.ConfigError` and spawns nothing. The
        failed start's close ladder is bounded (about a second), so e.g. an
        ``initialize_timeout=0.1`` surfaces after about 0.1 s plus that bound.
        """
        try:
            await self.client.start()
            result = await self.client.initialize(
                approval_requests=self.on_approval is not None,
                user_questions=self.on_user_question is not None,
            )
        except BaseException:
            await self.client.aclose(fast=True)  # bounded: the error surfaces within ~1 s
            raise
        spec = self.client.launch_spec
        bridge_requested = spec is not None and any("notebook-bridge" in a for a in spec.argv)
        if bridge_requested and self.bridge_info is None:
            # The runtime announces the bridge before it answers initialize; silence means its
            # hooks differ from what the bridge expects. Say so once and go on without it.
            log.warning(
                "the dsh_notebook bridge did not load in this runtime: approvals and questions "
                "cannot be answered from here (the runtime fails them closed) and text arrives "
                "message by message instead of live"
            )
        return result

    async def close(self) -> None:
        """Close ladder (bounded ``shutdown`` → stdin close → SIGTERM → SIGKILL). Idempotent."""
        await self.client.aclose()

    # -- sessions ------------------------------------------------------------------------------

    def start_session(self, session_id: str | None = None) -> Session:
        """A session handle; the runtime creates the session on its first request."""
        session = Session(self.client, session_id)
        self._sessions[session.id] = session
        return session

    async def resume_session(self, session_id: str) -> Session:
        """Open a session persisted in this ``DSH_HOME`` (by an earlier runtime process)."""
        await self.client.session_resume(session_id)
        session = Session(self.client, session_id)
        self._sessions[session_id] = session
        return session

    @property
    def sessions(self) -> dict[str, Session]:
        """Sessions started or resumed through this harness, by id."""
        return dict(self._sessions)

    # -- facts ---------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self.client.pid

    @property
    def dsh_home(self) -> Path | None:
        return self.client.dsh_home

    @property
    def server_info(self) -> InitializeResult | None:
        return self.client.server_info

    def __repr__(self) -> str:
        return f"DeepSeekHarness(pid={self.pid}, dsh_home={str(self.dsh_home)!r}, profile={self.config.profile!r})"
