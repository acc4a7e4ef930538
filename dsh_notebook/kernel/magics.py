"""``%%dsh`` (the cell is the prompt) and ``%dsh`` (everything else), with traitlets configuration.

Configuration: ``%config DshMagics.model = "deepseek-v4-pro"`` or ``c.DshMagics.model = …`` in
``ipython_config.py``; unset options fall back to the environment (``DEEPSEEK_API_KEY``,
``DEEPSEEK_BASE_URL``, ``DSH_HOME``, ``DSH_PERMISSION_MODE`` …). The API key is never echoed.

Modes: **background** (default in a live frontend, i.e. one that offers stdin): the cell returns
at once and the output keeps updating. **wait** (``--wait``, and automatically under nbclient /
nbconvert / papermill / terminal IPython): the cell returns when the run has settled; approvals are
asked on stdin when offered, else decided by ``headless_approval``; "Interrupt kernel" stops the
waiting, not the run.

Notebook tools (``notebook_tools``, on by default): see :mod:`.tools_host`.

This module only declares the configuration and parses arguments: the state shared by all cells
lives in :class:`~dsh_notebook.kernel.agent.NotebookAgent` (``DshMagics.agent``), one cell's life
in :mod:`.run`, the line commands in :mod:`.commands`.
"""

from __future__ import annotations

import os
import sys
from typing import Any, cast

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from traitlets import Bool, Enum, Int, Unicode

from ..client import HarnessConfig
from ..errors import DshError, PromptError
from ..runtime import Secret, ensure_dsh_home, sandbox_problem
from .agent import NotebookAgent
from .commands import run_line_command
from .naming import validate_session_name
from .prompt_context import current_execution_count, gather_facts
from .run import PromptSkipped, RunOptions, plan_run, start_run, wait_for_run
from .settings import DemoChoice, FormatChoice, HeadlessAnswer, KernelSettings, Mode, Rerun

__all__ = ["DshMagics", "PromptSkipped"]

EFFORTS = ("off", "low", "high", "max")


class SecretUnicode(Unicode):  # type: ignore[type-arg]
    """A string trait held as a :class:`~dsh_notebook.runtime.Secret`: ``%config DshMagics``,
    ``%config DshMagics.api_key`` and tracebacks show ``***``, never the value."""

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        return Secret(value) if isinstance(value, str) and value else value


@magics_class
class DshMagics(Magics):
    """The agent in the notebook. See ``%%dsh?`` and ``%dsh help``."""

    dsh_bin = Unicode(None, allow_none=True, help="Runtime executable (default: resolved).").tag(
        config=True
    )
    dsh_home = Unicode(
        None, allow_none=True, help="Harness home (default: $DSH_HOME or ~/.dsh; never a temp dir)."
    ).tag(config=True)
    cwd = Unicode(
        None, allow_none=True, help="Agent workspace (default: the notebook's directory)."
    ).tag(config=True)
    provider = Unicode("deepseek-official", help="Model provider.").tag(config=True)
    model = Unicode(
        None, allow_none=True, help="Model (default: $DSH_MODEL or deepseek-flash)."
    ).tag(config=True)
    reasoning_effort = Unicode(None, allow_none=True, help="off, low, high or max.").tag(
        config=True
    )
    max_tokens = Int(None, allow_none=True, help="Output cap per model call.").tag(config=True)
    permission_mode = Enum(
        ["read-only", "workspace-write", "danger-full-access"], None, allow_none=True,
        help="Sandbox and approval mode (default: $DSH_PERMISSION_MODE or workspace-write).",
    ).tag(config=True)  # fmt: skip
    base_url = Unicode(
        None, allow_none=True, help="Model endpoint (default: $DEEPSEEK_BASE_URL)."
    ).tag(config=True)
    api_key = SecretUnicode(
        None,
        allow_none=True,
        help="API key (default: $DEEPSEEK_API_KEY). Never echoed; prefer the environment or "
        "%dsh key, since cells are saved.",
    ).tag(config=True)
    prewarm = Bool(
        None, allow_none=True,
        help="When to start the runtime ahead of the first prompt. None (default): in the "
        "background as soon as the dsh-notebook frontend extension answers (a live JupyterLab or "
        "Notebook 7 page), never under nbclient or in a terminal; True: at %load_ext, everywhere; "
        "False: only on the first prompt.",
    ).tag(config=True)  # fmt: skip
    bridge = Bool(True, help="Load the bridge plugin (approvals, questions, live text).").tag(
        config=True
    )
    mode = Enum(["auto", "background", "wait"], "auto", help="Default execution mode.").tag(
        config=True
    )
    default_format = Enum(
        ["auto", "widget", "markdown", "text"], "auto", help="How runs are shown."
    ).tag(config=True)
    headless_approval = Enum(
        ["reject", "allow"], "reject", help="Answer to approvals when nobody can click or type."
    ).tag(config=True)
    rerun = Enum(
        ["skip-answered", "always"], "skip-answered",
        help="Run All after a restart: skip prompts already answered in this session, or resend.",
    ).tag(config=True)  # fmt: skip
    demo_model = Enum(
        ["auto", "on", "off"], "auto",
        help="Use the demo model (the rule-based demo analyst, on 127.0.0.1): 'auto' = when no API key "
        "and no base URL is configured.",
    ).tag(config=True)  # fmt: skip
    notebook_tools = Bool(
        True,
        help="Give the agent tools that see this kernel (variables, history, and run_python behind "
        "an approval) through an MCP server on 127.0.0.1. Read when the runtime starts.",
    ).tag(config=True)
    notebook_run_python = Bool(
        True, help="Offer run_python to the agent (every call asks for your approval)."
    ).tag(config=True)
    agent_cells = Bool(
        True,
        help="Insert each approved run_python call as a code cell (tag dsh-agent) with its "
        "outputs below the %%dsh cell; needs the dsh-notebook JupyterLab/Notebook 7 extension.",
    ).tag(config=True)
    notebook_tools_max_chars = Int(8000, help="Cap for one notebook tool result.").tag(config=True)
    max_chars_per_value = Int(4000, help="Cap for one interpolated value.").tag(config=True)
    max_context_chars = Int(40000, help="Cap for all interpolated values of a prompt.").tag(
        config=True
    )
    context_block = Bool(
        True,
        help="Send a notebook context block with every prompt (a second text block: notebook "
        "path, this cell, Python and data library versions, cells run since the previous "
        "prompt, the referenced values' names and types; at most 2,000 characters). "
        "`%%dsh --show-context` prints it without sending.",
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.agent = NotebookAgent(shell, self.settings)
        self._sandbox_checked = False
        self._prompted: dict[str, int] = {}  # session -> execution count of its last prompt

    def settings(self) -> KernelSettings:
        """The current configuration, as the agent reads it (the key only in a masked repr)."""
        return KernelSettings(
            dsh_bin=self.dsh_bin, dsh_home=self.dsh_home, cwd=self.cwd, provider=self.provider,
            model=self.model, reasoning_effort=self.reasoning_effort, max_tokens=self.max_tokens,
            permission_mode=self.permission_mode, base_url=self.base_url, api_key=self.api_key,
            prewarm=self.prewarm, bridge=self.bridge, mode=cast(Mode, self.mode),
            default_format=cast(FormatChoice, self.default_format),
            headless_approval=cast(HeadlessAnswer, self.headless_approval),
            rerun=cast(Rerun, self.rerun), demo_model=cast(DemoChoice, self.demo_model),
            notebook_tools=self.notebook_tools,
            notebook_run_python=self.notebook_run_python,
            agent_cells=self.agent_cells,
            notebook_tools_max_chars=self.notebook_tools_max_chars,
            max_chars_per_value=self.max_chars_per_value,
            max_context_chars=self.max_context_chars,
            context_block=self.context_block,
        )  # fmt: skip

    # kept for ``%config``-era callers and tests: the agent is the source of truth
    def demo_active(self) -> bool:
        return self.agent.demo_active()

    def harness_config(self) -> HarnessConfig:
        return self.agent.harness_config()

    # -- the magic -----------------------------------------------------------------------------

    @magic_arguments()
    @argument("-s", "--session", help="Session name (default: one session per notebook).")
    @argument("--new", action="store_true", help="Start a fresh session and make it current.")
    @argument("--wait", action="store_true", help="Return only when the run has settled.")
    @argument("-o", "--out", help="Bind the run handle to this variable (also always `_dsh`).")
    @argument("--image", action="append", default=[], help="Attach an image: a matplotlib Figure, "
              "a PIL image, PNG/JPEG bytes or a path (an expression; repeatable).")  # fmt: skip
    @argument("--model", help="Model for this kernel's runtime (restarts it when it changes).")
    @argument("--effort", help="Reasoning effort (off, low, high, max).")
    @argument("--cwd", help="Set the session's working directory before sending.")
    @argument("--on-approval", choices=["ask", "reject", "allow"], default="ask",
              help="Who decides approvals for this run (allow prints a warning).")  # fmt: skip
    @argument("--format", choices=["widget", "markdown", "text"], help="How the live run is shown.")
    @argument(
        "--keep-widget", action="store_true", help="Keep the live view instead of freezing it."
    )
    @argument("--force", action="store_true", help="Send even if this prompt was answered before.")
    @argument("--show-context", action="store_true",
              help="Print the notebook context block this prompt would send; send nothing.")  # fmt: skip
    @line_cell_magic
    def dsh(self, line: str, cell: str | None = None) -> Any:
        """Send the cell to the DeepSeek Harness agent; ``%dsh help`` lists the line commands."""
        if cell is None:
            return run_line_command(self.agent, line)
        try:
            args = parse_argstring(self.dsh, line)
        except ValueError as exc:  # e.g. an unterminated quote in the options
            raise UsageError(f"cannot parse the %%dsh options {line!r}: {exc}") from None
        try:
            self._run_cell(args, cell)
        except (PromptError, DshError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        return None

    def _check_host(self) -> None:
        """Before each run: the harness home must be writable (else a ``ConfigError`` that says
        to configure ``DSH_HOME``, before anything is written); once per kernel, a one-line
        warning on stderr when the runtime's bash sandbox cannot work on this host."""
        ensure_dsh_home(self.agent.resolved_home())
        if not self._sandbox_checked:
            self._sandbox_checked = True
            problem = sandbox_problem(self.permission_mode, os.environ)
            if problem is not None:
                print(problem, file=sys.stderr)

    def _run_cell(self, args: Any, cell: str) -> None:
        self._check_host()
        agent = self.agent
        cell_id = agent.adopt_notebook()  # the notebook's own session, when the frontend says
        agent.discard_stale_prewarm()  # a %config after %load_ext applies to the first run
        if not args.show_context:  # printing the block changes nothing
            self._apply_route_overrides(args)
        if args.new and not args.show_context:
            agent.sessions.fresh()
        session_id = validate_session_name(args.session) if args.session else agent.session_id
        shell = self.shell
        assert shell is not None
        options = RunOptions(
            session=args.session, new=args.new, wait=args.wait, out=args.out,
            images=tuple(args.image), model=args.model, effort=args.effort, cwd=args.cwd,
            on_approval=args.on_approval, format=args.format, keep_widget=args.keep_widget,
            force=args.force, show_context=args.show_context,
        )  # fmt: skip
        prompt_count = current_execution_count(shell, cell)  # IPython 9 counts ahead
        facts = gather_facts(
            shell, agent.errors, execution_count=prompt_count,
            since=self._prompted.get(session_id),
        )  # fmt: skip
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
        )
        if options.show_context:
            print(plan.context_block or "dsh: no notebook context block is sent "
                  "(%config DshMagics.context_block = True turns it on)")  # fmt: skip
            return
        if args.cwd:
            agent.claim(session_id)
            session = agent.host.open_session(session_id)
            agent.host.call(session.set_working_directory, args.cwd)
        run = start_run(agent, plan, args.out, cell_id)
        if run is not None and prompt_count is not None:
            self._prompted[session_id] = prompt_count  # "cells run since" counts from here
        if run is not None and plan.wait:
            wait_for_run(agent, run, interrupt_stops=True)

    def _apply_route_overrides(self, args: Any) -> None:
        """``--model`` / ``--effort``: the route is fixed per runtime process (initialize), so a
        change restarts a running runtime. A route that is refused (an unknown effort, or a
        runtime that does not start with it) does not stick: the last working one is kept."""
        if args.effort and args.effort not in EFFORTS:
            raise UsageError(
                f"--effort must be one of {', '.join(EFFORTS)} (got {args.effort!r}); the route "
                f"stays {self.reasoning_effort or 'the default'}"
            )
        before = (self.model, self.reasoning_effort)
        changed = False
        if args.model and args.model != self.model:
            self.model = args.model
            changed = True
        if args.effort and args.effort != self.reasoning_effort:
            self.reasoning_effort = args.effort
            changed = True
        if not (changed and self.agent.host.running):
            return
        try:
            self.agent.host.restart()
        except Exception as exc:
            self.model, self.reasoning_effort = before
            raise UsageError(
                f"the runtime did not start with that route ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}); kept model "
                f"{before[0] or 'default'} and effort {before[1] or 'default'}: `%dsh restart` "
                "to start again"
            ) from None

    # -- hooks (registered by the extension) ---------------------------------------------------

    def post_run_cell(self, result: Any) -> None:
        self.agent.post_run_cell(result)

    def cell_started(self, *_: Any) -> None:
        self.agent.cell_started()

    def cell_finished(self, *_: Any) -> None:
        self.agent.cell_finished()

    def close(self) -> None:
        """Fail pending requests closed, close the runtime, stop the pump. Idempotent."""
        self.agent.close()
