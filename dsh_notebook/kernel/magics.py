"""``%%dsh`` (the cell is the prompt) and ``%dsh`` (everything else), with traitlets configuration.

Configuration: ``%config DshMagics.model = "deepseek-v4-pro"`` or ``c.DshMagics.model = …`` in
``ipython_config.py``; unset options fall back to the environment (``DEEPSEEK_API_KEY``,
``DEEPSEEK_BASE_URL``, ``DSH_HOME``, ``DSH_PERMISSION_MODE`` …). The API key is never echoed.

Modes: **background** (default in a live frontend, i.e. one that offers stdin): the cell returns
at once and the output keeps updating. **wait** (``--wait``, and automatically under nbclient /
nbconvert / papermill / terminal IPython): the cell returns when the run has settled; approvals are
asked on stdin when offered, else decided by ``headless_approval``; "Interrupt kernel" stops the
waiting, not the run.

Notebook tools (``notebook_tools``, on by default): when the runtime starts, an MCP server on
127.0.0.1 (:mod:`.mcp_server`) gives the agent ``notebook_variables``, ``describe_variable``,
``notebook_history`` and ``run_python``. Every ``run_python`` call is an approval of the run in
progress (same card, same policies: ``--on-approval``, stdin in wait mode, else
``headless_approval``). Approved code runs on the kernel's main thread while no cell executes,
or inside a waiting ``%%dsh --wait`` cell, which pumps it; "Interrupt kernel" stops it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import os
import queue
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from traitlets import Bool, Enum, Int, Unicode

from ..client import HarnessConfig, RunResult
from ..client.prompt import normalize_input
from ..errors import DshError, PromptError, TransportClosed
from ..protocol import ApprovalRequest
from ..runtime import resolve_dsh_home
from ..transcript import Transcript
from .broker import Broker, MainThreadPrompt, RunPolicy
from .commands import run_line_command
from .context import interpolate
from .handle import RunHandle
from .host import RuntimeHost
from .images import to_image_block
from .ledger import PromptLedger
from .live import LiveView, UiPump
from .naming import default_session_id
from .terminal import answer_on_stdin

__all__ = ["DshMagics", "PromptSkipped"]


class PromptSkipped(DshError):
    """The prompt was not sent: it was answered in this session before (Run All after a restart)."""


log = logging.getLogger(__name__)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running on this thread (ipykernel's, inside a cell), else None (terminal)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value else None


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
    api_key = Unicode(
        None, allow_none=True, help="API key (default: $DEEPSEEK_API_KEY). Never echoed."
    ).tag(config=True)
    prewarm = Bool(False, help="Start the runtime when the extension loads.").tag(config=True)
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
        help="Use the scripted demo model (canned answers, on 127.0.0.1): 'auto' = when no API key "
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
    notebook_tools_max_chars = Int(8000, help="Cap for one notebook tool result.").tag(config=True)
    max_chars_per_value = Int(4000, help="Cap for one interpolated value.").tag(config=True)
    max_context_chars = Int(40000, help="Cap for all interpolated values of a prompt.").tag(
        config=True
    )

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.host = RuntimeHost(self.harness_config)
        self.broker = Broker(self.host.call_soon)
        self.host.on_approval = self.broker.approve
        self.host.on_user_question = self.broker.ask
        self.pump = UiPump()
        self.session_id = default_session_id(shell.user_ns if shell is not None else {})
        self.errors: dict[int, str] = {}
        self.results: dict[str, RunResult] = {}
        self.handles: list[RunHandle] = []
        self._ledger: PromptLedger | None = None
        self._demo_server: Any = None
        self._kernel_loop = _running_loop()  # the kernel's loop: __init__ runs in %load_ext
        self._tools_lock = threading.Lock()
        self._tools: Any = None  # (NotebookMcpServer, McpMount) while the tools are served

    # -- configuration -------------------------------------------------------------------------

    def demo_active(self) -> bool:
        """Whether runs go to the scripted demo model instead of DeepSeek."""
        if self.demo_model != "auto":
            return self.demo_model == "on"
        return not (
            self.api_key or _env("DEEPSEEK_API_KEY") or self.base_url or _env("DEEPSEEK_BASE_URL")
        )

    def _demo_endpoint(self) -> str:
        if self._demo_server is None:
            from ..testing.model_server import ScriptedModelServer

            self._demo_server = ScriptedModelServer().start()
            print(
                "dsh: no DEEPSEEK_API_KEY is set, so runs use the scripted demo model (canned "
                "answers, served on 127.0.0.1). Set DEEPSEEK_API_KEY and restart the kernel to "
                "use DeepSeek.",
                file=sys.stderr,
            )
        return str(self._demo_server.base_url)

    def model_label(self) -> str:
        if self.demo_active():
            return "scripted demo model, no API key set"
        return self.model or _env("DSH_MODEL") or "deepseek-flash"

    def harness_config(self) -> HarnessConfig:
        """The client configuration these settings describe (read when the runtime starts)."""
        demo = self.demo_active()
        mount = self._notebook_tools_mount()
        return HarnessConfig(
            dsh_bin=self.dsh_bin or None,
            dsh_home=self.resolved_home(),
            cwd=self.cwd or os.getcwd(),
            provider=self.provider,
            model=self.model or _env("DSH_MODEL") or "deepseek-flash",
            reasoning_effort=self.reasoning_effort,
            max_tokens=self.max_tokens,
            permission_mode=self.permission_mode,
            base_url=self._demo_endpoint() if demo else (self.base_url or None),
            api_key="demo-no-key" if demo else (self.api_key or None),
            bridge=self.bridge,
            patches=[mount.patch_path] if mount is not None else [],
            env=dict(mount.env) if mount is not None else {},
        )

    # -- notebook tools (MCP) ------------------------------------------------------------------

    def _notebook_tools_mount(self) -> Any:
        """Start (or reuse) the notebook tools server; the patch mounting it, or None when off.

        Called with the config on every runtime start, so ``%dsh restart`` applies changed
        settings. Missing ``mcp`` (the ``jupyter`` extra) turns the tools off with a warning.
        """
        if not self.notebook_tools or self.shell is None:
            self._stop_notebook_tools()
            return None
        try:
            from .mcp_patch import write_mcp_patch
            from .mcp_server import MainThreadExecutor, NotebookMcpServer, NotebookToolsSettings
        except ImportError as exc:
            log.warning(
                "dsh: notebook tools are off (%s); pip install 'dsh-notebook[jupyter]'", exc
            )
            return None
        settings = NotebookToolsSettings(
            run_python=self.notebook_run_python, max_chars=self.notebook_tools_max_chars
        )
        with self._tools_lock:
            if self._tools is not None and self._tools[0].settings == settings:
                return self._tools[1]
        self._stop_notebook_tools()
        executor = MainThreadExecutor(max_pending=settings.max_pending, loop=self._kernel_loop)
        server = NotebookMcpServer(
            self.shell,
            approve=self._approve_notebook_tool,
            executor=executor,
            errors=self.errors,
            settings=settings,
        ).start()
        mount = write_mcp_patch(server.url, server.token)
        atexit.register(mount.remove)
        with self._tools_lock:
            self._tools = (server, mount)
        return mount

    def _stop_notebook_tools(self) -> None:
        with self._tools_lock:
            tools, self._tools = self._tools, None
        if tools is not None:
            tools[0].stop()
            tools[1].remove()

    async def _approve_notebook_tool(self, *, tool_name: str, reason: str) -> bool:
        """A notebook tool call asks the person (MCP server loop -> broker on the host loop).

        It belongs to the newest run still in progress; with none, the broker rejects it.
        """
        session_id = next(
            (h.session for h in reversed(self.handles) if not h.done()), self.session_id
        )
        request = ApprovalRequest(session_id=session_id, tool_name=tool_name, reason=reason)
        try:
            outcome = await asyncio.wrap_future(self.host.submit(self.broker.approve, request))
        except Exception as exc:
            log.warning("dsh: %s approval failed closed: %s", tool_name, exc)
            return False
        return outcome == "allowed-once"

    def _pump_notebook_tools(self) -> None:
        """Run approved ``run_python`` calls here (main thread; a waiting ``--wait`` cell)."""
        tools = self._tools
        if tools is not None:
            tools[0].executor.pump()

    def cell_started(self, *_: Any) -> None:
        """``pre_execute`` hook: ``run_python`` waits while a cell runs."""
        tools = self._tools
        if tools is not None:
            tools[0].executor.cell_started()

    def cell_finished(self, *_: Any) -> None:
        """``post_execute`` hook: queued ``run_python`` calls run once the kernel is idle."""
        tools = self._tools
        if tools is not None:
            tools[0].executor.cell_finished()

    def resolved_home(self) -> Path:
        return resolve_dsh_home(self.dsh_home or None)

    @property
    def ledger(self) -> PromptLedger:
        if self._ledger is None:
            self._ledger = PromptLedger(self.resolved_home())
        return self._ledger

    # -- frontend facts ------------------------------------------------------------------------

    def _kernel(self) -> Any:
        return getattr(self.shell, "kernel", None)

    def stdin_available(self) -> bool:
        kernel = self._kernel()
        return bool(kernel is not None and getattr(kernel, "_allow_stdin", False))

    def live_frontend(self) -> bool:
        """A frontend that can click: a kernel whose current request allows stdin (nbclient and
        nbconvert send ``allow_stdin: false``; terminal IPython has no kernel)."""
        return self.stdin_available()

    def _current_parent(self) -> dict[str, Any] | None:
        kernel = self._kernel()
        if kernel is None:
            return None
        try:
            parent = kernel.get_parent("shell")
        except Exception:
            return None
        return parent if isinstance(parent, dict) and parent else None

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
    @line_cell_magic
    def dsh(self, line: str, cell: str | None = None) -> Any:
        """Send the cell to the DeepSeek Harness agent; ``%dsh help`` lists the line commands."""
        if cell is None:
            return run_line_command(self, line)
        try:
            args = parse_argstring(self.dsh, line)
        except UsageError:
            raise
        try:
            return self._run_cell(args, cell)
        except (PromptError, DshError) as exc:
            raise UsageError(str(exc)) from None

    def _run_cell(self, args: Any, cell: str) -> Any:
        shell = self.shell
        assert shell is not None
        self._apply_route_overrides(args)
        session_id = self._session_for(args)
        interpolation = interpolate(
            cell,
            shell.user_ns,
            errors=self.errors,
            current_cell=getattr(shell, "execution_count", None),
            max_chars_per_value=self.max_chars_per_value,
            max_total_chars=self.max_context_chars,
        )
        blocks: list[dict[str, Any]] = []
        if interpolation.text.strip():
            blocks.append({"type": "text", "text": interpolation.text})
        for expression in args.image:
            try:
                value = eval(expression, shell.user_ns)  # the person's own expression
            except Exception as exc:
                raise UsageError(f"--image {expression!r}: {type(exc).__name__}: {exc}") from None
            blocks.append(to_image_block(value))
        if not blocks:
            raise UsageError(
                "the %%dsh cell is empty: write the prompt in the cell below the %%dsh line"
            )
        blocks = normalize_input(blocks)
        if (
            self.rerun == "skip-answered"
            and not args.force
            and self.ledger.answered_elsewhere(session_id, interpolation.text)
        ):
            message = (
                f"dsh: skipped — this prompt was already answered in session {session_id!r} (its "
                "transcript is in the saved notebook). Re-run with --force to send it again, or "
                "%config DshMagics.rerun = 'always'."
            )
            print(message, file=sys.stderr)
            skipped: concurrent.futures.Future[RunResult] = concurrent.futures.Future()
            skipped.set_exception(PromptSkipped(message.removeprefix("dsh: ")))
            handle = RunHandle(skipped, session=session_id, prompt=interpolation.text)
            shell.user_ns["_dsh"] = handle
            if args.out:
                shell.user_ns[args.out] = handle
            return None
        wait = (
            args.wait or self.mode == "wait" or (self.mode == "auto" and not self.live_frontend())
        )
        if self._kernel() is None:
            wait = True
        if args.on_approval == "allow":
            print(
                "dsh: --on-approval allow: every approval of this run is granted without asking.",
                file=sys.stderr,
            )

        context_chips = [
            {
                "token": c.token,
                "kind": c.kind,
                "summary": c.summary,
                "chars": c.chars,
                "truncated": c.truncated,
            }
            for c in interpolation.chunks
        ] + [
            {
                "token": f"--image {e}",
                "kind": "image",
                "summary": "image",
                "chars": 0,
                "truncated": False,
            }
            for e in args.image
        ]
        transcript = Transcript(
            session_id, prompt=interpolation.text, context=context_chips, model=self.model_label()
        )
        view = self._open_view(
            transcript,
            args.format,
            interactive=not wait,
            keep_widget=args.keep_widget,
            deferred=wait and not self.live_frontend() and args.format is None,
        )
        prompts: queue.Queue[MainThreadPrompt] = queue.Queue()
        policy = RunPolicy(
            on_approval=args.on_approval,
            wait_mode=wait,
            stdin=self.stdin_available(),
            headless_approval="allow" if self.headless_approval == "allow" else "reject",
            notify=lambda kind, data: self.pump.local(view, kind, data),
            prompts=prompts,
        )
        if args.cwd:
            session = self.host.open_session(session_id)
            self.host.call(session.set_working_directory, args.cwd)
        self.ledger.record(session_id, interpolation.text)
        self.pump.local(view, "status", {"state": "running"})
        future = self.host.run(
            session_id,
            blocks,
            lambda n: self.pump.notification(view, n),
            on_start=lambda: self.broker.attach(session_id, policy),
        )
        handle = RunHandle(
            future, session=session_id, prompt=interpolation.text, context=context_chips
        )
        future.add_done_callback(lambda f: self._settled(session_id, view, f, policy))
        self.handles.append(handle)
        shell.user_ns["_dsh"] = handle
        if args.out:
            shell.user_ns[args.out] = handle
        if wait:
            self._wait(handle, prompts, view)
        return None

    def _apply_route_overrides(self, args: Any) -> None:
        changed = False
        if args.model and args.model != self.model:
            self.model = args.model
            changed = True
        if args.effort and args.effort != self.reasoning_effort:
            self.reasoning_effort = args.effort
            changed = True
        if changed and self.host.running:
            self.host.restart()  # the route is fixed per runtime process (initialize)

    def _session_for(self, args: Any) -> str:
        if args.new:
            self.session_id = f"{default_session_id(self.shell.user_ns if self.shell else {})}-{uuid.uuid4().hex[:6]}"
        if args.session:
            return str(args.session)
        return self.session_id

    def _open_view(
        self,
        transcript: Transcript,
        fmt: str | None,
        *,
        interactive: bool = True,
        keep_widget: bool = False,
        deferred: bool = False,
    ) -> LiveView:
        """Display the run's live output: the widget (default in a live frontend) or markdown.

        A widget view is updated by the UI pump with snapshots; when the run settles it is replaced
        by the static transcript (markdown + text, which survives reopening) and closed, unless
        ``keep_widget``. ``interactive=False`` (``--wait``): the widget shows approvals and
        questions without buttons, since they are asked on stdin or decided by policy.
        ``deferred`` (waiting with nobody watching: nbclient, nbconvert, papermill): nothing is
        shown until the run settles, then the static transcript once, as one ``display_data``.
        """
        from IPython.display import display

        terminal = self._kernel() is None
        auto = "widget" if self.live_frontend() else "markdown"
        chosen = fmt or (self.default_format if self.default_format != "auto" else auto)
        widget = None
        if chosen == "widget" and not terminal:
            widget = self._make_widget(transcript, interactive)
            if widget is None:
                chosen = "markdown"
        if terminal:
            chosen = "text"
        holder: dict[str, Any] = {}

        def publish(bundle: dict[str, Any]) -> None:
            view = holder["view"]
            if terminal:  # no display updates there: print the transcript once, when settled
                if view.settled:
                    print(bundle["text/plain"])
                return
            handle = holder.get("handle")
            if widget is not None:
                if not view.settled:
                    widget.update(bundle["snapshot"])
                    return
                if keep_widget:
                    widget.update(view.transcript.snapshot(), final=True)
                    return
                if handle is not None:  # freeze: the static transcript replaces the widget
                    self._send_update(handle, bundle, view.parent)
                widget.close()
                return
            if deferred:
                if view.settled:
                    self._send_display(bundle, view.parent)
                return
            if handle is not None:
                self._send_update(handle, bundle, view.parent)

        view = LiveView(transcript, chosen, publish, parent=self._current_parent())
        holder["view"] = view
        if not terminal and not deferred:
            if widget is not None:
                holder["handle"] = display(widget, display_id=True)
            else:
                holder["handle"] = display(view.bundle(), raw=True, display_id=True)
        self.pump.add(view)
        return view

    def _make_widget(self, transcript: Transcript, interactive: bool) -> Any:
        """A live run widget, or None when anywidget (the ``jupyter`` extra) is missing."""
        try:
            from ..widget import RunWidget
        except (ImportError, OSError) as exc:
            log.info("dsh: no live widget (%s); showing markdown", exc)
            return None
        return RunWidget(
            transcript.snapshot(), on_action=self._widget_action, interactive=interactive
        )

    def _widget_action(self, action: dict[str, Any]) -> str | None:
        """A click in a run widget (comm thread), already checked against its snapshot.

        Resolves the pending request on the broker (thread-safe); returns the text the card
        shows when the request is gone. Stop restarts the runtime off the comm thread.
        """
        kind = action.get("type")
        if kind == "stop":
            threading.Thread(target=self._stop_from_widget, name="dsh-stop", daemon=True).start()
            return None
        if kind == "approval":
            answer: Any = action.get("decision") == "allow"
        elif kind == "answer":
            answer = action.get("answers")
        elif kind == "dismiss":
            answer = None
        else:
            return f"unknown action {kind!r}"
        if self.broker.resolve(str(action.get("request_id")), answer, "you"):
            return None
        return (
            "this request is no longer pending (run stopped, kernel restarted, notebook reopened)"
        )

    def _stop_from_widget(self) -> None:
        """The Stop button: what ``%dsh stop`` does (there is no cancel on the wire)."""
        try:
            self.broker.reject_all("you")
            self.host.restart()
        except Exception:
            log.exception("dsh: stopping the run from the widget failed")

    def _send_update(
        self, handle: Any, bundle: dict[str, Any], parent: dict[str, Any] | None
    ) -> None:
        """``update_display_data`` with the parent of the cell that started the run.

        Sent through the kernel's session directly: ipykernel 6 has no per-thread parent, and the
        display publisher would also file the update under whatever cell runs now.
        """
        pub = getattr(self.shell, "display_pub", None)
        session = getattr(pub, "session", None)
        socket = getattr(pub, "pub_socket", None)
        if session is None or socket is None or parent is None:
            handle.update(bundle, raw=True)
            return
        content = {"data": bundle, "metadata": {}, "transient": {"display_id": handle.display_id}}
        message = session.msg("update_display_data", content, parent=parent)
        session.send(socket, message, ident=getattr(pub, "topic", None))

    def _send_display(self, bundle: dict[str, Any], parent: dict[str, Any] | None) -> None:
        """A plain ``display_data`` under ``parent`` (from the pump thread)."""
        pub = getattr(self.shell, "display_pub", None)
        session = getattr(pub, "session", None)
        socket = getattr(pub, "pub_socket", None)
        if session is None or socket is None or parent is None:
            from IPython.display import display

            display(bundle, raw=True)
            return
        message = session.msg(
            "display_data", {"data": bundle, "metadata": {}, "transient": {}}, parent=parent
        )
        session.send(socket, message, ident=getattr(pub, "topic", None))

    def _settled(self, session_id: str, view: LiveView, future: Any, policy: RunPolicy) -> None:
        self.broker.detach(session_id, policy)
        error = None
        finish_reason = None
        try:
            result = future.result()
        except TransportClosed as exc:
            error = {"message": "the runtime exited", "detail": exc.stderr_tail or None,
                     "hint": "run `%dsh restart`; the session's history is kept"}  # fmt: skip
        except BaseException as exc:
            error = {"message": f"{type(exc).__name__}: {exc}", "detail": None, "hint": None}
        else:
            self.results[session_id] = result
            finish_reason = result.finish_reason
        self.pump.settle(view, finish_reason, error)

    def _wait(
        self, handle: RunHandle, prompts: queue.Queue[MainThreadPrompt], view: LiveView
    ) -> None:
        try:
            while not handle.done():
                self._pump_notebook_tools()  # the agent's run_python would wait for this cell
                try:
                    prompt = prompts.get(timeout=0.05)
                except queue.Empty:
                    continue
                try:
                    prompt.answer = answer_on_stdin(prompt)
                finally:
                    prompt.done.set()
        except KeyboardInterrupt:
            print(
                "dsh: stopped waiting — the run goes on and its output keeps updating; "
                "`await _dsh` or `%dsh wait` to wait again, `%dsh stop` to stop it.",
                file=sys.stderr,
            )
            return
        # the settle callback runs on the host thread right after the future completes: wait
        # until the pump has published the settled output, so it belongs to this cell
        view.done.wait(timeout=10)

    # -- hooks ---------------------------------------------------------------------------------

    def post_run_cell(self, result: Any) -> None:
        """Record cell errors for ``{Err[n]}``."""
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        execution_count = getattr(result, "execution_count", None)
        if error is not None and isinstance(execution_count, int):
            self.errors[execution_count] = f"{type(error).__name__}: {error}"

    def close(self) -> None:
        """Fail pending requests closed, close the runtime, stop the pump. Idempotent."""
        self.broker.reject_all("connection-lost")
        self.host.close()
        self._stop_notebook_tools()
        if self._demo_server is not None:
            self._demo_server.stop()
            self._demo_server = None
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not self.pump.flush(timeout=0.5):
            pass
        self.pump.stop()
