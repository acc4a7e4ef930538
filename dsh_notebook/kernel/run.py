"""One ``%%dsh`` cell, from plan to settle.

1. **Plan** (:func:`plan_run`, pure apart from evaluating the person's ``--image`` expressions):
   interpolation, image blocks, validation of the prompt, the rerun guard, the mode (background or
   wait), the display choice and the context chips. Testable without a shell or a runtime.
2. **Start** (:func:`start_run`): display the view, add the run to the run registry (queued),
   which it holds from the moment its turn on the session comes, send the prompt through the
   runtime host; bind ``_dsh`` (and ``-o NAME``).
3. **Settle** (:func:`settle_run`, host thread): the run releases its session (its scopes end),
   keep the result, hand the final state to the pump, which publishes the static transcript.
4. **Wait** (:func:`wait_for_run`, the cell's thread): ``--wait`` and ``%dsh wait`` share this
   loop; it pumps approved ``run_python`` calls and asks stdin prompts until the run settled.

A prompt is recorded in the Run-All ledger only once the runtime accepted it (its run started),
so a prompt that failed at once is not "already answered" after a restart. From then on the
ledger holds a transcript for it too: the live one, kept by the pump thread at most every
:data:`~.pump.KEEP_EVERY` seconds and at once when a card starts waiting, marked interrupted
(the last copy if the kernel stops first); the static one once the run settled, however it ended.
A settle caused by the kernel (or the extension) shutting down keeps nothing: the live copy
stays, and a skipped cell shows it as interrupted.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..client import RunResult
from ..client.prompt import normalize_input
from ..context import interpolate, to_image_block
from ..context.notebook_context import NotebookFacts, notebook_context_block
from ..context.private import interpolation_refusal, is_private, private_names
from ..errors import DshError, TransportClosed
from ..runtime import redact
from ..runtime.secret import Secrets
from ..transcript import Transcript
from ..transcript.facts import Note, RunError, Status
from ..transcript.pricing import DEFAULT_PRICES, Price, prices_setting
from .lifecycle import Frontend, RunContext, RunLifecycle
from .options.cell_options import RunOptions
from .options.choices import Format
from .options.settings import KernelSettings
from .persistence.kept import NOT_KEPT, skipped_bundle
from .registry.broker import ApprovalMode, MainThreadPrompt, RunPolicy
from .registry.budget import BudgetMeter, RunBudget, run_budget
from .registry.handle import RunHandle
from .registry.runs import ActiveRun
from .registry.terminal import answer_on_stdin
from .showing.display import DisplayChoice, open_view, show_bundle
from .showing.pump import LiveView

__all__ = [
    "ALLOW_WARNING",
    "ActiveRun",
    "Frontend",
    "PlanError",
    "PromptSkipped",
    "RunContext",
    "RunOptions",
    "RunPlan",
    "plan_run",
    "settle_run",
    "start_run",
    "wait_for_run",
]

log = logging.getLogger(__name__)

ALLOW_WARNING = (
    "--on-approval allow: every approval of this run is granted without asking: run_python "
    "code, and the cell tools' edits, whole-cell rewrites, inserts, deletes and runs (edit_cell, "
    "replace_cell, insert_cell, delete_cell, run_cells). Undo this run (or %dsh undo) takes back "
    "the cell changes, not what ran."
)
"""What ``--on-approval allow`` grants, said when a cell asks for it (README: "What a grant
covers")."""


class PromptSkipped(DshError):
    """The prompt was not sent: it was answered in this session before (Run All after a restart)."""


class PlanError(DshError):
    """The cell cannot be sent as it is (one line that says what to change)."""


@dataclass(frozen=True)
class RunPlan:
    """Everything decided about a cell before anything is shown or sent."""

    session_id: str
    prompt: str
    blocks: list[dict[str, Any]]
    context: list[dict[str, Any]]
    wait: bool
    display: DisplayChoice
    on_approval: ApprovalMode
    read_only: bool = False
    """``--read-only`` (or the ``read_only`` setting): no tool may change the notebook, the
    kernel or files; wins over ``on_approval`` and every scope (:class:`RunPolicy`)."""
    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES)
    """The cost estimate's price table (the ``prices`` setting over the default one)."""
    skipped: str | None = None
    """Why the prompt is not sent (answered before), or None."""
    warnings: list[str] = field(default_factory=list)
    context_block: str | None = None
    """The notebook context block, sent as the second text block (after the person's text),
    or ``None`` (``context_block`` off, or no facts given). Never part of ``prompt``: the
    Run-All ledger and ``_dsh.prompt`` keep the person's text alone."""
    cwd: str | None = None
    """``--cwd``: the session's working directory, set by the host at the run's turn (the
    kernel never waits for a runtime to start for it)."""
    plan: bool = False
    """``--plan``: the runtime's plan mode from the prompt's first step (through the bridge)."""
    budget: RunBudget = field(default_factory=RunBudget)
    """``--max-tokens`` / ``--max-time`` over the ``max_run_tokens`` / ``max_run_seconds``
    settings: the run is stopped at the first step boundary past it."""


def plan_run(
    cell: str,
    options: RunOptions,
    *,
    session_id: str,
    settings: KernelSettings,
    frontend: Frontend,
    namespace: Mapping[str, Any],
    errors: Mapping[int, str],
    execution_count: int | None,
    answered_before: Callable[[str, str], bool],
    notebook: NotebookFacts | None = None,
    secrets: Secrets = (),
    kernel_spent: int = 0,
) -> RunPlan:
    """Decide what one cell sends and how it is shown. Raises :class:`PlanError` or
    :class:`~dsh_notebook.errors.PromptError` (one line each) when it cannot be sent.

    Values are named and fenced (``interpolate(named=True)``). With ``notebook`` facts and the
    ``context_block`` setting on, the user message is ``[person's text, context block,
    images…]``; the block lists the referenced values' names and summaries and is masked
    with ``secrets`` (:func:`~dsh_notebook.runtime.redact`). ``kernel_spent``: the tokens this
    kernel's runs spent, checked against the ``max_kernel_tokens`` setting."""
    interpolation = interpolate(
        cell,
        namespace,
        errors=errors,
        current_cell=execution_count,
        max_chars_per_value=settings.max_chars_per_value,
        max_total_chars=settings.max_context_chars,
        named=True,
    )
    for chunk in interpolation.chunks:  # a private value is never sent: the cell is refused
        if chunk.kind in ("variable", "attribute") and is_private(chunk.name, settings.private):
            raise PlanError(interpolation_refusal(chunk.name))
    blocks: list[dict[str, Any]] = []
    if interpolation.text.strip():
        blocks.append({"type": "text", "text": interpolation.text})
    context_block = None
    if notebook is not None and settings.context_block:
        values = {c.name: c.detail for c in interpolation.chunks}
        private = tuple(private_names(namespace, settings.private))
        facts = replace(
            notebook, values=tuple(values.items()), images=len(options.images), private=private
        )
        context_block = redact(notebook_context_block(facts), secrets)
    for expression in options.images:
        try:
            value = eval(expression, dict(namespace))  # the person's own expression
        except Exception as exc:
            raise PlanError(f"--image {expression!r}: {type(exc).__name__}: {exc}") from None
        blocks.append(to_image_block(value))
    if not blocks:
        raise PlanError(
            "the %%dsh cell is empty: write the prompt in the cell below the %%dsh line"
        )
    if context_block is not None:
        blocks.insert(
            1 if blocks[0]["type"] == "text" else 0, {"type": "text", "text": context_block}
        )
    blocks = normalize_input(blocks)
    context = [
        {"token": c.token, "kind": c.kind, "summary": c.summary, "chars": c.chars,
         "truncated": c.truncated}
        for c in interpolation.chunks
    ] + [
        {"token": f"--image {e}", "kind": "image", "summary": "image", "chars": 0,
         "truncated": False}
        for e in options.images
    ]  # fmt: skip
    if context_block is not None:
        context.append({"kind": "notebook", "label": "context sent",
                        "summary": f"{len(context_block):,} characters", "text": context_block})  # fmt: skip
    skipped = None
    if (
        settings.rerun == "skip-answered"
        and not options.force
        and answered_before(session_id, interpolation.text)
    ):
        skipped = (
            f"skipped — this prompt was already answered in session {session_id!r} by an "
            "earlier kernel; it was not sent again. Re-run with --force to send it again, or "
            "%config DshMagics.rerun = 'always'."
        )
    wait = (
        options.wait
        or settings.mode == "wait"
        or (settings.mode == "auto" and not frontend.stdin)
        or frontend.terminal
    )
    auto: Format = "widget" if frontend.stdin else "markdown"
    fmt: Format = options.format or (
        settings.default_format if settings.default_format != "auto" else auto
    )
    display = DisplayChoice(
        fmt="text" if frontend.terminal else fmt,
        interactive=not wait,
        keep_widget=options.keep_widget,
        deferred=wait and not frontend.stdin and options.format is None,
    )
    warnings = list(interpolation.warnings)
    read_only = options.read_only or settings.read_only
    try:
        prices = prices_setting(settings.prices)
        budget = run_budget(
            options.max_tokens,
            options.max_time,
            default_tokens=settings.max_run_tokens,
            default_seconds=settings.max_run_seconds,
            kernel_tokens=settings.max_kernel_tokens,
            kernel_spent=kernel_spent,
        )
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    if options.plan and not settings.bridge:
        raise PlanError(
            "--plan needs the bridge plugin (DshMagics.bridge = True): it is what puts the "
            "runtime in plan mode"
        )
    if options.on_approval == "allow" and not read_only:
        warnings.append(ALLOW_WARNING)
    return RunPlan(
        session_id=session_id,
        prompt=interpolation.text,
        blocks=blocks,
        context=context,
        wait=wait,
        display=display,
        on_approval=options.on_approval,
        read_only=read_only,
        prices=prices,
        skipped=skipped,
        warnings=warnings,
        context_block=context_block,
        cwd=options.cwd or None,
        budget=budget,
        plan=options.plan,
    )


def start_run(
    agent: RunContext, plan: RunPlan, out: str | None, cell_id: str | None = None
) -> ActiveRun | None:
    """Show and send a planned cell; returns at once (None when the prompt is skipped).

    Raises :class:`~dsh_notebook.kernel.persistence.session_lock.SessionInUse` (before anything is shown)
    when another kernel writes the session."""
    shell = agent.shell
    if plan.skipped is not None:
        _show_skipped(agent, plan)
        skipped: concurrent.futures.Future[RunResult] = concurrent.futures.Future()
        skipped.set_exception(PromptSkipped(plan.skipped))
        _bind(shell, RunHandle(skipped, session=plan.session_id, prompt=plan.prompt), out)
        return None
    agent.claim(plan.session_id)
    for warning in plan.warnings:
        print(f"dsh: {warning}", file=sys.stderr)
    transcript = Transcript(
        plan.session_id,
        prompt=plan.prompt,
        context=plan.context,
        model=agent.model_label(),
        full_prompt_at=f"{out or '_dsh'}.prompt",
        read_only=plan.read_only,
        prices=plan.prices,
    )
    widget = None
    if plan.display.fmt == "widget":
        widget = agent.make_widget(transcript, plan.display.interactive)
    view = open_view(
        shell,
        transcript,
        plan.display,
        widget,
        agent.secrets(),
        link=agent.frontend_link,  # the page extension's comm (a no-op without one)
        cell_id=cell_id,
    )
    agent.pump.add(view)
    prompts: queue.Queue[MainThreadPrompt] = queue.Queue()
    settings = agent.settings()
    policy = RunPolicy(
        on_approval=plan.on_approval,
        read_only=plan.read_only,
        wait_mode=plan.wait,
        stdin=agent.frontend().stdin,
        headless_approval=settings.headless_approval,
        notify=lambda fact: agent.pump.local(view, fact),
        prompts=prompts,
    )
    future: concurrent.futures.Future[RunResult] = concurrent.futures.Future()
    handle = RunHandle(
        future,
        session=plan.session_id,
        prompt=plan.prompt,
        context=plan.context,
        context_block=plan.context_block,
    )
    run = ActiveRun(handle, view, policy, prompts, cell_id)
    _count_when_cell_ends(shell, run)
    ahead = [r for r in agent.runs.in_progress() if r.session == plan.session_id]
    agent.runs.add(run)  # queued: it owns nothing until its turn on the session comes
    if ahead:  # say what it waits for and where: "running · 0 turns" alone reads as a hang
        first = agent.runs.holder_of(plan.session_id) or ahead[0]
        agent.pump.local(view, Status("queued"))
        agent.pump.local(view, Note(queued_note(plan.session_id, first, len(ahead)), first.cell_id))
    else:  # a runtime that still has to start takes seconds: say so (the cell returns at once)
        agent.pump.local(view, Status("running" if agent.host.alive() else "starting"))

    meter = BudgetMeter(plan.budget, kernel=agent.spend)  # every run counts for the kernel
    life = RunLifecycle(
        agent,
        run,
        view,
        session_id=plan.session_id,
        prompt=plan.prompt,
        meter=meter,
        queued=bool(ahead),
    )
    view.keep = life.keep_live
    run.record = life.record
    agent.host.run(
        plan.session_id,
        plan.blocks,
        life.on_notification,
        on_start=life.on_start,
        on_note=life.on_note,
        outcome=future,
        cwd=plan.cwd,
        plan=plan.plan,
    )
    future.add_done_callback(lambda f: settle_run(agent, run, f))
    _bind(shell, handle, out)
    return run


def _count_when_cell_ends(shell: Any, run: ActiveRun) -> None:
    """Set ``run.execution_count`` to the ``In [k]`` of the cell execution that started it, from
    that execution's result (``post_run_cell``, once): the shell's own counter reads ``k`` or
    ``k + 1`` during the cell, depending on the IPython version, so it is never read."""
    events = getattr(shell, "events", None)
    if events is None:
        return

    def ended(result: Any) -> None:
        events.unregister("post_run_cell", ended)
        count = getattr(result, "execution_count", None)
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            run.execution_count = count

    events.register("post_run_cell", ended)


def queued_note(session_id: str, first: ActiveRun, ahead: int) -> str:
    """The note of a run queued behind ``ahead`` earlier runs of its session, ``first`` the one
    holding it (or next to): its cell by the ``In [k]`` the kernel gave that cell's execution,
    never a guess (no count, no name); the widget offers "Show" for ``first.cell_id``."""
    more = f" (and {ahead - 1} more queued)" if ahead > 1 else ""
    if first.execution_count:
        where = f"the run of cell In [{first.execution_count}]{more}"
    else:
        where = f"an earlier run{more}"
    return (
        f"queued behind {where} on session {session_id!r}: this prompt is sent when it ends. "
        "If that run waits for your decision, its card is in that cell (`%dsh pending` lists it)."
    )


def _show_skipped(agent: RunContext, plan: RunPlan) -> None:
    """A skipped cell shows the transcript it had (kept with the ledger; marked interrupted
    when it was kept while the run was in progress), else a note that none was kept."""
    kept = agent.ledger.kept(plan.session_id, plan.prompt)
    if kept is None or not kept.bundle.get("text/plain"):
        print(f"dsh: {plan.skipped} {NOT_KEPT}", file=sys.stderr)
        return
    as_text = plan.display.fmt == "text" or agent.frontend().terminal
    shown = skipped_bundle(
        kept.bundle,
        kept.variables,
        plan.session_id,
        agent_cells=kept.agent_cells,
        plain_transcript=as_text,
        interrupted=kept.interrupted,
        kept_at=kept.time,
    )
    if as_text:
        print(shown["text/plain"])
        return
    show_bundle(shown)


def _bind(shell: Any, handle: RunHandle, out: str | None) -> None:
    shell.user_ns["_dsh"] = handle
    if out:
        shell.user_ns[out] = handle


def settle_run(
    agent: RunContext, run: ActiveRun, future: concurrent.futures.Future[RunResult]
) -> None:
    """The run's future completed (host thread): it releases its session, its scopes end, what
    still waits under its policy is cancelled, the final state is published and then kept for
    Run All, replacing the live copy (unless the kernel is shutting down: then the live copy
    stays, marked interrupted)."""
    agent.runs.settle(run)
    agent.broker.cancel_waiting_for(run.policy)  # a guessed call's card under it: never clickable
    error = None
    finish_reason = None
    try:
        result = future.result()
    except TransportClosed as exc:
        error = RunError("the runtime exited", detail=exc.stderr_tail or None,
                         hint="run `%dsh restart`; the session's history is kept")  # fmt: skip
    except BaseException as exc:
        error = RunError(f"{type(exc).__name__}: {exc}")
    else:
        agent.results[run.handle.session] = result
        finish_reason = result.finish_reason
    ending = agent.ending  # read now: the shutdown that ended the run may be under way
    agent.pump.settle(run.view, finish_reason, error)
    if run.accepted:  # kept and recorded from the rendering the settle published
        agent.pump.after(run.view, lambda view: _after_settle(agent, run, view, keep=not ending))


def _after_settle(agent: RunContext, run: ActiveRun, view: LiveView, *, keep: bool) -> None:
    """The settle is published (pump thread): with ``keep``, keep its rendering (masked, the
    plain text too) for Restart & Run All; then :attr:`ActiveRun.record` the run's context use
    and tokens from it. A failing keep is logged and does not stop the record."""
    if keep:
        try:
            rendering, prompt = view.rendering(), run.handle.prompt
            agent.ledger.keep_rendering(run.session, prompt, rendering, agent_cells=run.agent_cells)
        except Exception:
            log.exception("dsh: keeping the settled transcript failed")
    if run.record is not None:
        run.record(view)


WaitOutcome = Literal["settled", "interrupted"]


def wait_for_run(agent: RunContext, run: ActiveRun, *, interrupt_stops: bool) -> WaitOutcome:
    """Block the calling (main) thread until ``run`` settled and its output is published.

    Meanwhile it runs approved ``run_python`` calls (they would wait for this cell) and asks the
    run's stdin prompts. "Interrupt kernel" ends the waiting; with ``interrupt_stops`` (a
    ``--wait`` cell: what a Jupyter user presses first) it also stops the run, in the
    background, and the output says "stopped by you". Without it (``%dsh wait``) the run goes
    on, and requests it asks from now on are decided by the headless policy (nobody answers
    stdin any more), so nothing waits for a cell that has returned.
    """
    try:
        while not run.handle.done():
            agent.tools.pump()
            try:
                prompt = run.prompts.get(timeout=0.05)
            except queue.Empty:
                continue
            try:
                prompt.answer = answer_on_stdin(prompt)
            finally:
                prompt.done.set()
    except KeyboardInterrupt:
        _release_prompts(run)
        if interrupt_stops:
            threading.Thread(target=agent.stop, name="dsh-stop", daemon=True).start()
            print("dsh: stopped by you (Interrupt) — the runtime restarts, history is kept.",
                  file=sys.stderr)  # fmt: skip
        else:
            print(
                "dsh: stopped waiting — the run goes on and its output keeps updating; "
                "`await _dsh` or `%dsh wait` to wait again, `%dsh stop` to stop it.",
                file=sys.stderr,
            )
        return "interrupted"
    # the settle callback runs on the host thread right after the future completes: wait
    # until the pump has published the settled output, so it belongs to this cell
    run.view.done.wait(timeout=10)
    return "settled"


def _release_prompts(run: ActiveRun) -> None:
    """Nobody answers stdin any more: later requests go to the headless policy, and a prompt
    already queued is answered as nobody would (rejected / dismissed)."""
    run.policy.stdin = False
    while True:
        try:
            prompt = run.prompts.get_nowait()
        except queue.Empty:
            return
        prompt.answer = "rejected" if prompt.kind == "approval" else None
        prompt.done.set()
