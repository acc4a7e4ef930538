"""The machinery behind ``%%dsh`` and ``%dsh``: the kernel's agent and the sending of one cell's
prompt. Built on first use by :class:`~.magics.DshMagics` (the first prompt or command, or the
background prewarm): ``%load_ext`` does not import this module nor anything it needs (the runtime
client, the protocol models, the transcript, anyio).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from IPython.core.error import UsageError

from ...context.instructions import instructions_line
from ...frontend import current_identity
from ...runtime import ensure_dsh_home, sandbox_problem
from ..agent import NotebookAgent
from ..notebook.cell_record import CellRecord
from ..notebook.naming import validate_session_name
from ..notebook.prompt_context import current_execution_count, gather_facts, read_page_now
from ..options.cell_options import RunOptions
from ..options.settings import KernelSettings
from ..run import plan_run, start_run, wait_for_run
from ..showing.command_output import masked_output
from ..showing.display import kernel_of
from .commands import run_line_command

__all__ = ["EFFORTS", "Prompting"]

EFFORTS = ("off", "low", "high", "max")
PAGE_HELLO_WAIT = 2.0
"""Seconds the first prompt from the extension's page waits, once per comm, for the page's
``hello_reply`` (a fresh kernel's Run All: it comes on the page's subshell within a fraction of
a second; :meth:`~dsh_notebook.frontend.FrontendLink.wait_for_page`)."""


class Prompting:
    """One kernel's agent and what a ``%%dsh`` cell does with it (main thread, except the
    construction, which the prewarm may do on its own thread)."""

    def __init__(
        self,
        shell: Any,
        settings: Callable[[], KernelSettings],
        set_trait: Callable[[str, Any], Any],
        record: CellRecord,
        kernel_loop: asyncio.AbstractEventLoop | None,
    ) -> None:
        """``settings``/``set_trait``: the magic's configuration (read, and the route set by
        ``--model``/``--effort``); ``record``: the cells since ``%load_ext``; ``kernel_loop``:
        the kernel's loop (the build may run on the prewarm's thread)."""
        self.shell = shell
        self.settings = settings
        self._set_trait = set_trait
        self.agent = NotebookAgent(shell, settings, record=record, kernel_loop=kernel_loop)
        self._sandbox_checked = False
        self._prompted: dict[str, int] = {}  # session -> execution count of its last prompt

    def masked_output(self) -> AbstractContextManager[None]:
        """The magic's call, its prints and its ``UsageError`` masked with this kernel's
        secrets (:func:`~.command_output.masked_output`): the one place ``%dsh`` and ``%%dsh``
        output is masked."""
        return masked_output(self.agent.secrets)

    def run_line(self, line: str) -> object:
        """``%dsh …``: a line command."""
        return run_line_command(self.agent, line)

    def check_host(self) -> None:
        """Before each run: the harness home must be writable (else a ``ConfigError`` that says
        to configure ``DSH_HOME``, before anything is written); once per kernel, a one-line
        warning on stderr when the runtime's bash sandbox cannot work on this host."""
        ensure_dsh_home(self.agent.resolved_home())
        if not self._sandbox_checked:
            self._sandbox_checked = True
            problem = sandbox_problem(self.settings().permission_mode, os.environ)
            if problem is not None:
                print(problem, file=sys.stderr)

    def run_cell(self, options: RunOptions, cell: str) -> None:
        """``%%dsh``: send the cell as a prompt (or print its context block)."""
        self.check_host()
        agent = self.agent
        cell_id = agent.adopt_notebook()  # the notebook's own session, when the frontend says
        agent.discard_stale_prewarm()  # a %config after %load_ext applies to the first run
        if not options.show_context:  # printing the block changes nothing
            self.apply_route_overrides(options)
            self.apply_read_only(options.read_only or self.settings().read_only)
        if options.new and not options.show_context:
            agent.sessions.fresh()
        session_id = validate_session_name(options.session) if options.session else agent.session_id
        shell = self.shell
        assert shell is not None
        prompt_count = current_execution_count(shell, cell)  # IPython 9 counts ahead
        link = agent.frontend_link  # the page's cells, for the block's edited cells
        if not link.present and current_identity(kernel_of(shell)) is not None:
            link.wait_for_page(PAGE_HELLO_WAIT)  # sent by the extension's page: it is there
        asks = self.settings().context_block and "read_notebook" in link.capabilities
        page = read_page_now(link.read_notebook, shell) if asks else None
        facts = gather_facts(
            shell, agent.errors, execution_count=prompt_count,
            since=self._prompted.get(session_id), page=page, ran=agent.ran_cells.lookup,
        )  # fmt: skip
        if not options.show_context:  # what was undone since: told once, to the next prompt
            facts = dataclasses.replace(facts, undone=agent.undo.take_note())
        files = agent.instruction_files()  # named in the block only when there are some
        rules = instructions_line(files)
        facts = dataclasses.replace(facts, instructions=rules if files else None)
        # without a confirmed count (no history), interpolation counts from the shell's
        execution_count = prompt_count or getattr(shell, "execution_count", None)
        plan = plan_run(
            cell,
            options,
            session_id=session_id,
            settings=self.settings(),
            frontend=agent.frontend(),
            namespace=shell.user_ns,
            errors=agent.errors,
            execution_count=execution_count,
            answered_before=agent.ledger.answered_elsewhere,
            notebook=facts,
            secrets=agent.secrets(),
            kernel_spent=agent.spend.tokens,
        )
        if options.show_context:
            print(plan.context_block or "dsh: no notebook context block is sent "
                  "(%config DshMagics.context_block = True turns it on)")  # fmt: skip
            if plan.context_block is None or not files:
                print(rules)
            return
        run = start_run(agent, plan, options.out, cell_id)
        if run is not None and prompt_count is not None:
            self._prompted[session_id] = prompt_count  # "cells run since" counts from here
        if run is not None and plan.wait:
            wait_for_run(agent, run, interrupt_stops=True)

    def apply_route_overrides(self, options: RunOptions) -> None:
        """``--model`` / ``--effort``: the route is fixed per runtime process (initialize), so a
        change restarts a running runtime. A route that is refused (an unknown effort, or a
        runtime that does not start with it) does not stick: the last working one is kept."""
        current = self.settings()
        if options.effort and options.effort not in EFFORTS:
            raise UsageError(
                f"--effort must be one of {', '.join(EFFORTS)} (got {options.effort!r}); the "
                f"route stays {current.reasoning_effort or 'the default'}"
            )
        before = (current.model, current.reasoning_effort)
        route = (options.model or current.model, options.effort or current.reasoning_effort)
        if route == before:
            return
        self._set_route(*route)
        if not self.agent.host.running:
            return
        try:
            self.agent.host.restart()
        except Exception as exc:
            self._set_route(*before)
            raise UsageError(
                f"the runtime did not start with that route ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}); kept model "
                f"{before[0] or 'default'} and effort {before[1] or 'default'}: `%dsh restart` "
                "to start again"
            ) from None

    def apply_read_only(self, read_only: bool) -> None:
        """A read-only run needs the runtime in its ``read-only`` permission mode (its sandbox
        denies every file write and ``bash`` change), fixed per process: a change of mode
        restarts a running runtime (sessions resume). Never under runs in progress: the restart
        would stop them, so that is a one-line usage error."""
        agent = self.agent
        if agent.runtime_read_only == read_only:
            return
        if agent.runs.in_progress():
            mode = "read-only" if read_only else "writable"
            raise UsageError(
                f"a {mode} run needs the runtime restarted in that mode, and runs are in "
                "progress: `%dsh wait` (or `%dsh stop`) first"
            )
        agent.runtime_read_only = read_only
        if agent.host.running:
            agent.host.restart()

    def _set_route(self, model: str | None, effort: str | None) -> None:
        self._set_trait("model", model)
        self._set_trait("reasoning_effort", effort)
