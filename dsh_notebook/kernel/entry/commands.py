"""``%dsh <command>``: everything that is not a prompt.

Each command is declared once in :data:`COMMANDS` (a :class:`~.line_args.Command`: its arguments
as a frozen dataclass, its summary, its handler); ``%dsh help`` and every usage error are made
from those declarations. Expected failures (no runtime, unknown session, a runtime that does not
serve a method, words that do not fit the declaration) print one readable line that says what to
do, never a traceback.
"""

from __future__ import annotations

import json
import shlex
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from IPython.core.error import UsageError

from ...context.instructions import instructions_line, read_instruction
from ...context.sanitize import replace_lone_surrogates
from ...errors import DshError, UnsupportedByRuntime
from ...notebook_tools.refusals import NOTE_MAX, clean_note
from ...page_protocol import UndoReply
from ...runtime import Secret, redact
from ...transcript import Transcript
from ...transcript.changes import bounded_changes, changes_plain
from ...transcript.facts import Settled
from ..agent import NotebookAgent
from ..notebook.naming import validate_session_name
from ..notebook.session_context import context_line, session_columns
from ..options.line_args import Command, NoArgs, option, positional, quoted, switch
from ..run import wait_for_run

__all__ = ["COMMANDS", "help_text", "run_line_command"]

SLASH_HELP = (
    "  /command ...           a runtime slash command (needs a runtime that serves session/query)"
)


@dataclass(frozen=True)
class SessionsArgs:
    all: bool = switch("--all")


@dataclass(frozen=True)
class NewArgs:
    name: str | None = positional("NAME", optional=True)


@dataclass(frozen=True)
class SessionArgs:
    id: str = positional("ID")


@dataclass(frozen=True)
class CwdArgs:
    path: str | None = positional("PATH", optional=True)


@dataclass(frozen=True)
class AllowArgs:
    id: str = positional("ID")
    run: bool = switch("--run")


@dataclass(frozen=True)
class RejectArgs:
    id: str = positional("ID")
    note: str | None = option("--note", '"why"')


@dataclass(frozen=True)
class AnswerArgs:
    id: str = positional("ID")
    choices: tuple[str, ...] = positional("CHOICE")


@dataclass(frozen=True)
class RequestArgs:
    id: str = positional("ID")


@dataclass(frozen=True)
class ExportArgs:
    id: str | None = positional("ID", optional=True)
    format: Literal["md", "text", "json"] = option("--format", "md|text|json", default="md")
    to: str | None = option("--to", "FILE")


@dataclass(frozen=True)
class UndoArgs:
    run: str | None = positional("RUN", optional=True)


UNDO_WAIT = 10.0
"""Seconds ``%dsh undo`` waits for the page's report where the page answers on a subshell."""


def _undo(m: NotebookAgent, args: UndoArgs) -> None:
    ledger = m.undo
    run_id = ledger.find(args.run)
    kept = m.kernel_undo.find(args.run)
    if kept is not None and (run_id is None or args.run is None or kept == run_id):
        # the kernel's part: the values the run's approved code changed (this is the main
        # thread: a magic runs in a cell), newest first; works without a page
        namespace = m.tools.namespace()
        if namespace is not None:
            given = m.kernel_undo.undo(kept, namespace)
            print(f"dsh: undoing run {kept} in the kernel:")
            for line in given.lines():
                print(f"  {line}")
            ledger.note(f"run {kept} — " + "; ".join(given.lines()))
        if run_id != kept:
            return
    if run_id is None:
        which = f"run {quoted(args.run)}" if args.run else "any run of this kernel"
        print(
            f"dsh: nothing to undo: {which} has no changes the kernel knows of (a kernel "
            "restart forgets them; JupyterLab's own undo still works step by step)"
        )
        return
    replies: list[UndoReply] = []
    done = threading.Event()

    def report(reply: UndoReply) -> None:
        replies.append(reply)
        done.set()

    sent = ledger.undo(run_id, report)
    if sent < 0:
        print(
            "dsh: nothing was undone: no notebook page with the dsh-notebook extension is "
            "connected to this kernel"
        )
        return
    print(f"dsh: undoing run {run_id}: {sent} change(s) sent to the notebook page, newest first")
    if m.frontend_link.replies_off_main and done.wait(UNDO_WAIT):
        reply = replies[0]
        print(f"dsh: {reply['reverted']} reverted, {len(reply['skipped'])} skipped")
        for skipped in reply["skipped"]:
            print(f"  skipped cell {skipped['cell_id'][:8]}: {skipped['reason']}")
    else:
        print("dsh: the page reverts them as one step and lists what it skipped; the next "
              "prompt's context says what was undone")  # fmt: skip


def _status(m: NotebookAgent, args: NoArgs) -> None:
    m.adopt_notebook()  # the notebook's own session is the current one, when the page says
    host = m.host
    harness = host.harness
    try:
        version = metadata.version("deepseek-harness-runtime-bin")
    except metadata.PackageNotFoundError:
        version = "unknown (not installed from the wheel)"
    lines = [f"runtime: {'running' if harness else 'not started'} (wheel {version})"]
    if harness is not None:
        uptime = time.time() - (host.started_at or time.time())
        lines.append(
            f"pid: {harness.pid}   uptime: {uptime:.0f} s   profile: {harness.config.profile}"
        )
        lines.append(f"DSH_HOME: {harness.dsh_home}")
        lines.append(f"bridge: {'loaded' if harness.bridge_info else 'not loaded'}")
    else:
        lines.append(f"DSH_HOME: {m.resolved_home()}")
    lines.append(f"current session: {m.session_id}")
    lines.append(f"live sessions: {', '.join(host.open_sessions) or 'none'}")
    lines.append(_context_status(m))
    pending = m.broker.pending
    if pending:
        lines.append(f"waiting for you: {', '.join(sorted(pending))} (%dsh pending)")
    print("\n".join(lines))


def _context_status(m: NotebookAgent) -> str:
    """The current session's context use; before its first run here, the last run's session's."""
    session = m.session_id
    use = m.contexts.get(session)
    last = m.last_run()
    if (use is None or use.tokens is None) and last is not None and last.session != session:
        session, use = last.session, m.contexts.get(last.session)
    if use is None:
        use = m.conversations.context_of(m.notebook_session, session)
    return context_line(session, use)


def _sessions(m: NotebookAgent, args: SessionsArgs) -> None:
    if args.all:
        _persisted_sessions(m)
        return
    m.adopt_notebook()  # the notebook's own conversations, when the frontend says which
    conversations = m.conversations.list(m.notebook_session)
    current = m.session_id
    if not any(c.session_id == current for c in conversations):
        print(f"* {current}  (current; no prompt sent yet)")
    if not conversations:
        print("no conversation in this notebook yet (%dsh sessions --all lists DSH_HOME's)")
        return
    width = max(len(c.session_id) for c in conversations)
    figures = [session_columns(c, m.contexts.get(c.session_id)) for c in conversations]
    shown = max(len(f) for f in figures)
    for c, figure in zip(conversations, figures, strict=True):
        mark = "*" if c.session_id == current else " "
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.started))
        count = f"{c.prompts} prompt{'s' if c.prompts != 1 else ''}"
        column = f"{figure:{shown}s}  " if shown else ""
        print(f"{mark} {c.session_id:{width}s}  {when}  {count:>10s}  {column}{c.first_prompt}")
    print("(* current) %dsh resume NAME continues one; %dsh new [NAME] starts one")


def _persisted(m: NotebookAgent) -> list[tuple[float, str, str]]:
    """(time of last change, session id, workspace slug) of each session in ``DSH_HOME``."""
    rows = []
    for session_dir in (m.resolved_home() / "sessions").glob("*/*"):
        if session_dir.is_dir():
            stamp = max(
                (p.stat().st_mtime for p in session_dir.iterdir()),
                default=session_dir.stat().st_mtime,
            )
            rows.append((stamp, session_dir.name.replace("~002F", "/"), session_dir.parent.name))
    return rows


def _persisted_sessions(m: NotebookAgent) -> None:
    rows = _persisted(m)
    if not rows:
        print(f"no persisted sessions in {m.resolved_home() / 'sessions'}")
        return
    for stamp, session_id, slug in sorted(rows, reverse=True):
        mark = "*" if session_id == m.session_id else " "
        print(
            f"{mark} {session_id:40s} {time.strftime('%Y-%m-%d %H:%M', time.localtime(stamp))}  ({slug})"
        )


def _new(m: NotebookAgent, args: NewArgs) -> None:
    m.adopt_notebook()  # a fresh id is made from the notebook's own default
    if args.name is None:
        print(f"dsh: new session {m.sessions.fresh()}")
        return
    name = validate_session_name(args.name)
    used = {c.session_id for c in m.conversations.list(m.notebook_session)}
    used |= {session_id for _, session_id, _ in _persisted(m)}
    if name in used or name == m.session_id:
        raise UsageError(f"session {name!r} exists already: %dsh resume {name} continues it")
    m.sessions.use(name)
    print(f"dsh: new session {name}; the next %%dsh cells continue it")


def _resume(m: NotebookAgent, args: SessionArgs) -> None:
    m.claim(validate_session_name(args.id))
    m.host.open_session(args.id)
    m.sessions.use(args.id)
    print(f"dsh: session {args.id} resumed; the next %%dsh cells continue it")


def _cwd(m: NotebookAgent, args: CwdArgs) -> None:
    m.claim(m.session_id)
    session = m.host.open_session(m.session_id)
    if args.path is not None:
        print(m.host.call(session.set_working_directory, args.path))
    else:
        print(m.host.call(session.get_working_directory))


def _wait(m: NotebookAgent, args: NoArgs) -> None:
    run = m.last_run()
    if run is None:
        print("dsh: no run to wait for")
        return
    if wait_for_run(m, run, interrupt_stops=False) == "settled":
        print(repr(run.handle))


def _stop(m: NotebookAgent, args: NoArgs) -> None:
    rejected = len(m.broker.pending)
    resumed = m.stop()
    note = f"; {rejected} pending request(s) rejected" if rejected else ""
    print(f"dsh: runtime restarted, sessions kept: {', '.join(resumed) or 'none'}{note}")


def _allow(m: NotebookAgent, args: AllowArgs) -> None:
    done = "allowed for the rest of this run" if args.run else "allowed once"
    _decided(m, args.id, m.broker.decide(args.id, "allowed-once", "you", for_run=args.run), done)


def _reject(m: NotebookAgent, args: RejectArgs) -> None:
    """The note is cleaned as the widget's is (``transcript.notes.clean_note``) before the
    broker keeps it or the model reads it; one that is too long or empty once cleaned is
    refused."""
    note = None
    if args.note is not None:
        if len(args.note) > NOTE_MAX:
            raise UsageError(f"the note is too long (at most {NOTE_MAX} characters)")
        note = clean_note(args.note)
        if note is None:
            raise UsageError("the note is empty: write why, or reject without --note")
    decided = m.broker.decide(args.id, "rejected", "you", for_run=False, note=note)
    _decided(m, args.id, decided, "rejected")


def _decided(m: NotebookAgent, key: str, decided: bool, done: str) -> None:
    if decided:
        print(f"dsh: {key} {done}")
    else:
        print(
            f"dsh: nothing is waiting under {quoted(key)} (answered, withdrawn, or from another "
            "kernel)"
        )


def _answer(m: NotebookAgent, args: AnswerArgs) -> None:
    pending = m.broker.pending.get(args.id)
    if pending is None or pending.kind != "question":
        print(f"dsh: no question is waiting under {quoted(args.id)}")
        return
    questions = pending.request.questions
    reply = " ".join(args.choices)
    answers = []
    for question in questions:
        labels = [o.label for o in question.options or []]
        chosen = [label for label in args.choices if label in labels]
        answers.append(
            {"id": question.id, "selected": chosen}
            if chosen
            else {"id": question.id, "selected": [], "custom": reply}
        )
    m.broker.answer(args.id, answers, "you")


def _dismiss(m: NotebookAgent, args: RequestArgs) -> None:
    """Dismiss a question (answered with nothing) or an approval: a dismissed approval is
    rejected, decided by you (the call does not run), never left pending."""
    pending = m.broker.pending.get(args.id)
    if pending is not None and pending.kind == "approval":
        if m.broker.decide(args.id, "rejected", "you"):
            print(f"dsh: {args.id} rejected (a dismissed approval is rejected)")
            return
    elif m.broker.answer(args.id, None, "you"):
        return
    print("dsh: nothing to dismiss under that id")


def _pending(m: NotebookAgent, args: NoArgs) -> None:
    pending = m.broker.pending
    if not pending:
        print("dsh: nothing is waiting for you")
    for key, item in sorted(pending.items()):
        if item.kind == "approval":
            print(
                f"{key}: approve {item.request.tool_name}? {item.request.reason or ''}  (%dsh allow {key} [--run] / %dsh reject {key})"
            )
            lines = bounded_changes(item.changes or ())
            for line in changes_plain(lines, "    "):  # what the code will change
                print(line)
        else:
            texts = "; ".join(q.question for q in item.request.questions)
            print(f"{key}: {texts}  (%dsh answer {key} ... / %dsh dismiss {key})")


def _export(m: NotebookAgent, args: ExportArgs) -> None:
    session_id = args.id or m.session_id
    result = m.results.get(session_id)
    if result is None:
        raise UsageError(f"no settled run of session {quoted(session_id)} in this kernel")
    # agent output (a provider error, an echoed tool result) may repeat the key or a piece of it
    if (
        args.format == "json"
    ):  # masked before it is dumped: images in the events stay base64, unsearched
        exported = {"session_id": result.session_id, "final_response": result.final_response,
                    "finish_reason": result.finish_reason,
                    "events": [e.to_wire() for e in result.events]}  # fmt: skip
        text = json.dumps(redact(exported, m.secrets()), indent=2, ensure_ascii=False)
    else:
        transcript = Transcript(session_id)
        for notification in result.notifications:
            transcript.apply(notification)
        transcript.apply_local(Settled(result.finish_reason))
        rendered = transcript.to_text() if args.format == "text" else transcript.to_markdown()
        text = redact(rendered, m.secrets())
    text = replace_lone_surrogates(text)  # a file or a print must encode it as UTF-8
    if args.to:
        Path(args.to).write_text(text)
        print(f"dsh: wrote {args.to}")
    else:
        print(text)


def _config(m: NotebookAgent, args: NoArgs) -> None:
    for key, value in m.harness_config(starting=False).describe().items():
        print(f"{key:20s} {value!r}")


def _key(m: NotebookAgent, args: NoArgs) -> None:
    import getpass

    try:
        typed = getpass.getpass("DeepSeek API key (hidden; empty keeps the current one): ")
    except (EOFError, RuntimeError, KeyboardInterrupt) as exc:  # no stdin: nbclient, nbconvert
        raise UsageError(
            "this frontend cannot ask for input; set DEEPSEEK_API_KEY in the environment of "
            "Jupyter instead"
        ) from exc
    if not typed.strip():
        print("dsh: key unchanged")
        return
    m.typed_key = Secret(typed.strip())
    del typed
    if m.host.running:
        m.host.restart()  # the key is read when the runtime starts
    print("dsh: key set for this kernel (in memory only; it is not saved anywhere)")


def _mcp(m: NotebookAgent, args: NoArgs) -> None:
    for line in m.user_mcp.lines():
        print(line)


def _help(m: NotebookAgent, args: NoArgs) -> None:
    print(help_text())


def _slash(m: NotebookAgent, line: str) -> None:
    session = m.host.open_session(m.session_id)
    try:
        result = m.host.call(session.query, line)
    except UnsupportedByRuntime:
        print("dsh: this runtime does not serve slash commands over the SDK (session/query); "
              "send it as a %%dsh prompt if the agent should see it as text")  # fmt: skip
        return
    print(result.final_response)


def _rules(m: NotebookAgent, args: NoArgs) -> None:
    files = m.instruction_files()
    print(instructions_line(files))
    for file in files:
        print(f"\n--- {file.label} ({file.kind}, {file.path}) ---")
        print(read_instruction(file).rstrip("\n"))


_DECLARED: list[Command[NotebookAgent, Any]] = [
    Command("status", NoArgs, _status,
            "runtime pid, version, DSH_HOME, live sessions, uptime, context use"),
    Command(
        "sessions", SessionsArgs, _sessions,
        "this notebook's conversations: name, date, prompts, context use, tokens\n"
        "per run, first prompt (--all: every session persisted in DSH_HOME)",
    ),
    Command("new", NewArgs, _new,
            "start a fresh session (named NAME, if given) for the next %%dsh cells"),
    Command("resume", SessionArgs, _resume,
            "continue a persisted session in the next %%dsh cells", "(see %dsh sessions)"),
    Command("cwd", CwdArgs, _cwd, "show or set the session's working directory"),
    Command("wait", NoArgs, _wait, "wait for the last run (interruptible)"),
    Command("stop", NoArgs, _stop,
            "stop the run in flight: restart the runtime, keep every session's history"),
    Command("restart", NoArgs, _stop, "restart the runtime (same as stop)"),
    Command("allow", AllowArgs, _allow,
            "allow a pending approval\n(--run: and the same tool for the rest of that run)",
            "(see %dsh pending)"),
    Command("reject", RejectArgs, _reject,
            "reject a pending approval\n(--note: tells the agent why; it reaches it as typed)",
            "(see %dsh pending)"),
    Command("answer", AnswerArgs, _answer,
            "answer a pending question (option labels, or free text)",
            "(labels of the options, or free text)"),
    Command("dismiss", RequestArgs, _dismiss,
            "dismiss a pending question (an approval: rejected)", "(see %dsh pending)"),
    Command("pending", NoArgs, _pending, "list pending approvals and questions"),
    Command("undo", UndoArgs, _undo,
            "revert every change a run made to the notebook (default: the newest\n"
            "run with changes; RUN: a run id or its start)"),
    Command("export", ExportArgs, _export, "the last run of a session as markdown, plain text or JSON"),
    Command("config", NoArgs, _config, "the effective settings (the API key shows as <set>)"),
    Command(
        "key", NoArgs, _key,
        "type the API key at a hidden prompt: kept in memory for this kernel\n"
        "only, never in the notebook (the environment works too)",
        "(you are asked at a hidden prompt; never type the key into a cell)",
    ),
    Command("rules", NoArgs, _rules,
            "the instruction files and skills the runtime loads (AGENTS.md, CLAUDE.md,\n"
            "skills, DSH_AGENTS_HOME), with their text"),
    Command("mcp", NoArgs, _mcp,
            "your own MCP servers (DshMagics.mcp_servers, dsh-mcp.json): each with\n"
            "its tools, or why it is left out"),
    Command("help", NoArgs, _help, "this list"),
]  # fmt: skip
COMMANDS = {command.name: command for command in _DECLARED}
"""Every ``%dsh`` command, declared once (name, arguments, summary, usage hint, handler)."""


def help_text() -> str:
    """``%dsh help``: every declared command with its usage and summary, then slash commands."""
    lines = ["%dsh commands:"]
    for command in COMMANDS.values():
        lines += command.help_lines()
    return "\n".join([*lines, SLASH_HELP])


def run_line_command(m: NotebookAgent, line: str) -> Any:
    line = line.strip()
    if not line:
        print(help_text())
        return None
    if line.startswith("/"):
        try:
            _slash(m, line)
        except DshError as exc:
            raise UsageError(str(exc)) from None
        return None
    try:
        name, *args = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot parse {quoted(line)}: {exc}") from None
    command = COMMANDS.get(name)
    if command is None:
        raise UsageError(f"unknown command {quoted(name)}; %dsh help lists them")
    try:
        command(m, args)
    except DshError as exc:
        raise UsageError(str(exc)) from None
    return None
