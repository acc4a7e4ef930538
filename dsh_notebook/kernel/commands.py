"""``%dsh <command>``: everything that is not a prompt.

Expected failures (no runtime, unknown session, a runtime that does not serve a method) print one
readable line that says what to do, never a traceback.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from ..context.sanitize import replace_lone_surrogates
from ..errors import DshError, UnsupportedByRuntime
from ..notebook_tools.refusals import NOTE_MAX
from ..protocol import ApprovalOutcome
from ..runtime import Secret, redact
from ..transcript import Transcript
from .agent import NotebookAgent
from .naming import validate_session_name
from .run import wait_for_run

__all__ = ["COMMANDS", "run_line_command"]

HELP = """%dsh commands:
  status                 runtime pid, version, DSH_HOME, live sessions, uptime
  sessions [--all]       this notebook's conversations: name, date, prompts, first prompt
                         (--all: every session persisted in DSH_HOME)
  new [NAME]             start a fresh session (named NAME, if given) for the next %%dsh cells
  resume ID              continue a persisted session in the next %%dsh cells
  cwd [PATH]             show or set the session's working directory
  wait                   wait for the last run (interruptible)
  stop                   stop the run in flight: restart the runtime, keep every session's history
  restart                restart the runtime (same as stop)
  allow ID | reject ID   answer a pending approval
  allow ID --run         allow it, and the same tool for the rest of that run
  reject ID --note "…"   reject it and tell the agent why (the note reaches it as typed)
  answer ID CHOICE...    answer a pending question (option labels, or free text)
  dismiss ID             dismiss a pending question (an approval: rejected)
  pending                list pending approvals and questions
  export [ID] [--format md|json] [--to FILE]
                         the last run of a session as markdown or JSON
  config                 the effective settings (the API key shows as <set>)
  key                    type the API key at a hidden prompt: kept in memory for this kernel
                         only, never in the notebook (the environment works too)
  /command ...           a runtime slash command (needs a runtime that serves session/query)"""


def _status(m: NotebookAgent, args: list[str]) -> None:
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
    pending = m.broker.pending
    if pending:
        lines.append(f"waiting for you: {', '.join(sorted(pending))} (%dsh pending)")
    print("\n".join(lines))


def _sessions(m: NotebookAgent, args: list[str]) -> None:
    if args == ["--all"]:
        _persisted_sessions(m)
        return
    if args:
        raise UsageError("usage: %dsh sessions [--all]")
    m.adopt_notebook()  # the notebook's own conversations, when the frontend says which
    conversations = m.conversations.list(m.notebook_session)
    current = m.session_id
    if not any(c.session_id == current for c in conversations):
        print(f"* {current}  (current; no prompt sent yet)")
    if not conversations:
        print("no conversation in this notebook yet (%dsh sessions --all lists DSH_HOME's)")
        return
    width = max(len(c.session_id) for c in conversations)
    for c in conversations:
        mark = "*" if c.session_id == current else " "
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.started))
        count = f"{c.prompts} prompt{'s' if c.prompts != 1 else ''}"
        print(f"{mark} {c.session_id:{width}s}  {when}  {count:>10s}  {c.first_prompt}")
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


def _new(m: NotebookAgent, args: list[str]) -> None:
    if len(args) > 1:
        raise UsageError("usage: %dsh new [NAME]")
    m.adopt_notebook()  # a fresh id is made from the notebook's own default
    if not args:
        print(f"dsh: new session {m.sessions.fresh()}")
        return
    name = validate_session_name(args[0])
    used = {c.session_id for c in m.conversations.list(m.notebook_session)}
    used |= {session_id for _, session_id, _ in _persisted(m)}
    if name in used or name == m.session_id:
        raise UsageError(f"session {name!r} exists already: %dsh resume {name} continues it")
    m.sessions.use(name)
    print(f"dsh: new session {name}; the next %%dsh cells continue it")


def _resume(m: NotebookAgent, args: list[str]) -> None:
    if len(args) != 1:
        raise UsageError("usage: %dsh resume ID   (see %dsh sessions)")
    m.claim(validate_session_name(args[0]))
    m.host.open_session(args[0])
    m.sessions.use(args[0])
    print(f"dsh: session {args[0]} resumed; the next %%dsh cells continue it")


def _cwd(m: NotebookAgent, args: list[str]) -> None:
    m.claim(m.session_id)
    session = m.host.open_session(m.session_id)
    if args:
        print(m.host.call(session.set_working_directory, args[0]))
    else:
        print(m.host.call(session.get_working_directory))


def _wait(m: NotebookAgent, args: list[str]) -> None:
    run = m.last_run()
    if run is None:
        print("dsh: no run to wait for")
        return
    if wait_for_run(m, run, interrupt_stops=False) == "settled":
        print(repr(run.handle))


def _stop(m: NotebookAgent, args: list[str]) -> None:
    rejected = len(m.broker.pending)
    resumed = m.stop()
    note = f"; {rejected} pending request(s) rejected" if rejected else ""
    print(f"dsh: runtime restarted, sessions kept: {', '.join(resumed) or 'none'}{note}")


def _decide(command: str, outcome: ApprovalOutcome) -> Callable[[NotebookAgent, list[str]], None]:
    def run(m: NotebookAgent, args: list[str]) -> None:
        for_run = outcome == "allowed-once" and "--run" in args
        rest = [a for a in args if a != "--run"] if for_run else args
        note: str | None = None
        if outcome == "rejected" and "--note" in rest:
            at = rest.index("--note")
            if at + 1 >= len(rest):
                raise UsageError('usage: %dsh reject ID --note "why"')
            note, rest = rest[at + 1], rest[:at] + rest[at + 2 :]
            if len(note) > NOTE_MAX:
                raise UsageError(f"the note is too long (at most {NOTE_MAX} characters)")
        if len(rest) != 1:
            usage = f"%dsh {command} ID" + (
                " [--run]" if outcome == "allowed-once" else ' [--note "why"]'
            )
            raise UsageError(f"usage: {usage}   (see %dsh pending)")
        if m.broker.decide(rest[0], outcome, "you", for_run=for_run, note=note):
            done = "rejected"
            if outcome == "allowed-once":
                done = "allowed for the rest of this run" if for_run else "allowed once"
            print(f"dsh: {rest[0]} {done}")
        else:
            print(
                f"dsh: nothing is waiting under {rest[0]!r} (answered, withdrawn, or from another kernel)"
            )

    return run


def _answer(m: NotebookAgent, args: list[str]) -> None:
    if len(args) < 2:
        raise UsageError("usage: %dsh answer ID CHOICE...   (labels of the options, or free text)")
    pending = m.broker.pending.get(args[0])
    if pending is None or pending.kind != "question":
        print(f"dsh: no question is waiting under {args[0]!r}")
        return
    questions = pending.request.questions
    reply = " ".join(args[1:])
    answers = []
    for question in questions:
        labels = [o.label for o in question.options or []]
        chosen = [label for label in args[1:] if label in labels]
        answers.append(
            {"id": question.id, "selected": chosen}
            if chosen
            else {"id": question.id, "selected": [], "custom": reply}
        )
    m.broker.answer(args[0], answers, "you")


def _dismiss(m: NotebookAgent, args: list[str]) -> None:
    """Dismiss a question (answered with nothing) or an approval: a dismissed approval is
    rejected, decided by you (the call does not run), never left pending."""
    if len(args) != 1:
        raise UsageError("usage: %dsh dismiss ID   (see %dsh pending)")
    pending = m.broker.pending.get(args[0])
    if pending is not None and pending.kind == "approval":
        if m.broker.decide(args[0], "rejected", "you"):
            print(f"dsh: {args[0]} rejected (a dismissed approval is rejected)")
            return
    elif m.broker.answer(args[0], None, "you"):
        return
    print("dsh: nothing to dismiss under that id")


def _pending(m: NotebookAgent, args: list[str]) -> None:
    pending = m.broker.pending
    if not pending:
        print("dsh: nothing is waiting for you")
    for key, item in sorted(pending.items()):
        if item.kind == "approval":
            print(
                f"{key}: approve {item.request.tool_name}? {item.request.reason or ''}  (%dsh allow {key} [--run] / %dsh reject {key})"
            )
        else:
            texts = "; ".join(q.question for q in item.request.questions)
            print(f"{key}: {texts}  (%dsh answer {key} ... / %dsh dismiss {key})")


def _export(m: NotebookAgent, args: list[str]) -> None:
    fmt, target, session_id = "md", None, m.session_id
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if token == "--format" and rest:
            fmt = rest.pop(0)
        elif token == "--to" and rest:
            target = rest.pop(0)
        else:
            session_id = token
    result = m.results.get(session_id)
    if result is None:
        raise UsageError(f"no settled run of session {session_id!r} in this kernel")
    # agent output (a provider error, an echoed tool result) may repeat the key or a piece of it
    if fmt == "json":  # masked before it is dumped: images in the events stay base64, unsearched
        exported = {"session_id": result.session_id, "final_response": result.final_response,
                    "finish_reason": result.finish_reason,
                    "events": [e.to_wire() for e in result.events]}  # fmt: skip
        text = json.dumps(redact(exported, m.secrets()), indent=2, ensure_ascii=False)
    elif fmt == "md":
        transcript = Transcript(session_id)
        for notification in result.notifications:
            transcript.apply(notification)
        transcript.apply_local("settled", finish_reason=result.finish_reason)
        text = redact(transcript.to_markdown(), m.secrets())
    else:
        raise UsageError("--format must be md or json")
    text = replace_lone_surrogates(text)  # a file or a print must encode it as UTF-8
    if target:
        Path(target).write_text(text)
        print(f"dsh: wrote {target}")
    else:
        print(text)


def _config(m: NotebookAgent, args: list[str]) -> None:
    for key, value in m.harness_config().describe().items():
        print(f"{key:20s} {value!r}")


def _key(m: NotebookAgent, args: list[str]) -> None:
    if args:
        raise UsageError(
            "usage: %dsh key   (you are asked at a hidden prompt; never type the key into a cell)"
        )
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


def _help(m: NotebookAgent, args: list[str]) -> None:
    print(HELP)


def _slash(m: NotebookAgent, line: str) -> None:
    session = m.host.open_session(m.session_id)
    try:
        result = m.host.call(session.query, line)
    except UnsupportedByRuntime:
        print("dsh: this runtime does not serve slash commands over the SDK (session/query); "
              "send it as a %%dsh prompt if the agent should see it as text")  # fmt: skip
        return
    print(result.final_response)


COMMANDS: dict[str, Callable[[NotebookAgent, list[str]], None]] = {
    "status": _status, "sessions": _sessions, "new": _new, "resume": _resume, "cwd": _cwd,
    "wait": _wait, "stop": _stop, "restart": _stop, "allow": _decide("allow", "allowed-once"),
    "reject": _decide("reject", "rejected"), "answer": _answer, "dismiss": _dismiss,
    "pending": _pending, "export": _export, "config": _config, "key": _key, "help": _help,
}  # fmt: skip


def run_line_command(m: NotebookAgent, line: str) -> Any:
    line = line.strip()
    if not line:
        _help(m, [])
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
        raise UsageError(f"cannot parse {line!r}: {exc}") from None
    command = COMMANDS.get(name)
    if command is None:
        raise UsageError(f"unknown command {name!r}; %dsh help lists them")
    try:
        command(m, args)
    except DshError as exc:
        raise UsageError(str(exc)) from None
    return None
