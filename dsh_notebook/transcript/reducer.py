"""The transcript reducer: notifications (and the client's own facts) → one transcript state.

Guarantees:

- Pure: no IO, no clocks, no threads. Given the same notifications and facts in the same order, the
  state, ids, snapshot and renderings are identical.
- Order: notifications are applied in the order given (transport order); items appear in the order
  the runtime committed them, live nodes are replaced in place by the committed message.
- Scope: only the session tree of ``session_id`` is read; children are learnt from
  ``subagent.started`` (and ``subagent/catalog``), recursively. Everything else is ignored
  (``apply`` returns ``False``).
- Robust: unknown methods, event types and content blocks are counted (``snapshot()["unknown"]``),
  never raised; a malformed payload is skipped and counted too.
- ``seq`` increases by one on every :meth:`Transcript.apply` / :meth:`Transcript.apply_local` that
  changed the snapshot, and only then; each changed node carries the new ``seq`` as its ``rev``.
- Bounded: see :mod:`dsh_notebook.transcript.bounds` for every cap.
- Not thread-safe: one owner applies notifications; read ``snapshot()`` from the same thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from dsh_notebook.protocol import (
    APPROVAL_CANCELLED,
    ASSISTANT_STREAM,
    SESSION_EVENT,
    SESSION_STATUS,
    SUBAGENT_FINISHED,
    SUBAGENT_STARTED,
    USER_QUESTION_CANCELLED,
    Notification,
    SessionEvent,
)

from . import interactions as inter
from . import schema
from .bounds import (
    FIGURE_MAX,
    FIGURES_MAX,
    LABEL_MAX,
    LINE_MAX,
    PROMPT_MAX,
    RESULT_MAX,
    SCHEMA_VERSION,
    cap,
    json_copy,
    jsonable,
)
from .core import Core, Header, SessionCtx
from .events import handle_event, text_of_blocks
from .facts import (
    LOCAL_KINDS,
    ApprovalDecided,
    ApprovalRequested,
    ContextCarried,
    Figures,
    LocalFact,
    Note,
    QuestionAnswered,
    QuestionAsked,
    QuestionCancelled,
    RunError,
    Settled,
    Status,
    Stopped,
)
from .hints import hint_for
from .markdown import render_markdown
from .nodes import (
    ApprovalNode,
    ErrorNode,
    Node,
    NoteNode,
    QuestionNode,
    SubagentNode,
    TextNode,
    ToolNode,
)
from .pricing import Price, estimate_cost
from .stream import handle_frame
from .text import markdown_companion, render_text, summary_line

__all__ = ["APPROVAL_CANCELLED", "LOCAL_KINDS", "Transcript"]

_STOPPED_NOTE = "Stopped by you."


class Transcript:
    """The live and static transcript of one run on ``session_id`` (and its subagents).

    ``prompt`` and ``context`` (chips, JSON-like dicts) are shown as given, within the bounds of
    :mod:`.bounds`; when ``prompt`` is empty, the session's first human message is used. A prompt
    longer than ``PROMPT_MAX`` is shown as its head and tail around the omission marker, which
    names ``full_prompt_at`` (an expression the user can evaluate, e.g. ``_dsh.prompt``) when
    given. ``title`` and ``model``, when given, win over what the runtime reports.
    ``read_only`` marks a run started read-only (shown in the header); ``prices``, when given, is the
    price table of the header's cost estimate (:mod:`.pricing`; ``None``: no estimate).
    """

    def __init__(
        self,
        session_id: str,
        *,
        prompt: str = "",
        context: list[dict[str, Any]] | None = None,
        title: str | None = None,
        model: str | None = None,
        full_prompt_at: str | None = None,
        read_only: bool = False,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self._prices = prices
        header = Header(
            read_only=read_only,
            session_id=session_id,
            title=cap(title, LABEL_MAX) if title is not None else None,
            model=cap(model, LABEL_MAX) if model is not None else None,
        )
        chips = jsonable(list(context or []))
        rest = f"the full prompt is in `{full_prompt_at}`" if full_prompt_at else None
        shown = cap(prompt, PROMPT_MAX, rest=rest)
        self._core = Core(session_id, header, prompt=shown, context=chips)
        self._seq = 0

    # -- public API --------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self._core.header.session_id

    @property
    def seq(self) -> int:
        """Increases by one on every change of the snapshot (starts at 0)."""
        return self._seq

    def apply(self, notification: Notification) -> bool:
        """Apply one server notification; ``True`` when the state changed.

        Notifications about sessions outside this transcript's tree are ignored.
        """
        core = self._core
        params = notification.params if isinstance(notification.params, dict) else {}
        method = notification.method
        try:
            self._dispatch(method, params)
        except (ValidationError, KeyError, TypeError, ValueError, AttributeError):
            if self._in_tree(params):
                core.count_unknown(f"malformed {method}")
        return self._commit()

    def apply_local(self, fact: LocalFact) -> bool:
        """Apply a client-side fact (one of :mod:`.facts`); ``True`` when the state changed.

        The fact was checked when it was built (see :mod:`.facts`): applying it never raises
        for a field or a value.
        """
        if isinstance(fact, ApprovalRequested):
            inter.local_approval_requested(
                self._core, self._session(fact.session_id), request_id=fact.request_id,
                tool_name=fact.tool_name, call_id=fact.call_id, reason=fact.reason,
                proposed=fact.proposed, target=fact.target, changes=fact.changes,
            )  # fmt: skip
        elif isinstance(fact, ApprovalDecided):
            inter.local_approval_decided(
                self._core, request_id=fact.request_id, outcome=fact.outcome,
                decided_by=fact.decided_by, code=fact.code, note=fact.note, changes=fact.changes,
            )  # fmt: skip
        elif isinstance(fact, ContextCarried):
            self._context_carried(fact)
        elif isinstance(fact, Figures):
            self._figures(fact)
        elif isinstance(fact, QuestionAsked):
            inter.local_question_asked(
                self._core, self._session(fact.session_id), request_id=fact.request_id,
                questions=fact.questions, call_id=fact.call_id,
            )  # fmt: skip
        elif isinstance(fact, QuestionAnswered):
            inter.local_question_answered(
                self._core, request_id=fact.request_id, answers=fact.answers
            )
        elif isinstance(fact, QuestionCancelled):
            inter.local_question_cancelled(self._core, request_id=fact.request_id)
        elif isinstance(fact, RunError):
            self._error(fact)
        elif isinstance(fact, Note):
            self._note(fact.text, fact.cell)
        elif isinstance(fact, Settled):
            self._settled(fact.finish_reason)
        elif isinstance(fact, Status):
            self._core.set_header("state", fact.state)
        elif isinstance(fact, Stopped):
            self._stopped(fact.reason)
        else:
            raise TypeError(f"not a local fact: {fact!r} (see dsh_notebook.transcript.facts)")
        return self._commit()

    def snapshot(self) -> schema.Snapshot:
        """The whole state as a fresh JSON-serialisable dict (schema 1, typed by :mod:`.schema`).

        Nothing in it is shared with the transcript: the caller may keep or mutate it.
        """
        core = self._core
        h = core.header
        nodes = core.all_nodes()
        pending = self._pending(nodes)
        state = "waiting" if pending and h.state in ("starting", "running") else h.state
        return {
            "schema": SCHEMA_VERSION,
            "seq": self._seq,
            "header": {
                "session_id": h.session_id,
                "title": h.title,
                "model": h.model,
                "state": state,
                "turns": h.turns,
                "finish_reason": h.finish_reason,
                "usage": h.usage.to_dict(),
                "tool_calls": sum(isinstance(n, ToolNode) for n in nodes),
                "subagents": sum(isinstance(n, SubagentNode) for n in nodes),
                "errors": sum(isinstance(n, ErrorNode) for n in nodes),
                "started_at": h.started_at,
                "ended_at": h.ended_at,
                "stopped": h.stopped,
                "context_use": h.context_use.to_dict(),
                "goal": dict(h.goal) if h.goal is not None else None,  # type: ignore[typeddict-item]
                "read_only": h.read_only,
                "cost": (
                    estimate_cost(h.usage.to_dict(), h.model, self._prices)
                    if self._prices is not None
                    else None
                ),
            },
            "prompt": core.prompt,
            "context": json_copy(core.context),
            "plan": core.plan.to_dict() if core.plan is not None else None,
            "items": core.items.to_list(),
            "items_omitted": core.items.omitted,
            "pending": pending,
            "unknown": dict(core.unknown),
        }

    def to_markdown(self) -> str:
        """The static transcript as sanitized markdown (safe to display as trusted output)."""
        return render_markdown(self.snapshot())

    def to_text(self) -> str:
        """The static transcript as plain text; the first line is :meth:`summary_line`."""
        return render_text(self.snapshot())

    def to_markdown_companion(self) -> str:
        """The ``text/plain`` kept beside :meth:`to_markdown`: the summary line and where the
        transcript is (see :func:`~dsh_notebook.transcript.text.markdown_companion`)."""
        return markdown_companion(self.summary_line())

    def summary_line(self) -> str:
        """One line, e.g. ``dsh · session abc · settled · 2 turns · 3 tool calls · 1.2k tokens``."""
        return summary_line(self.snapshot())

    def __repr__(self) -> str:
        return f"<Transcript {self.summary_line()}>"

    # -- dispatch ----------------------------------------------------------------------------

    def _in_tree(self, params: dict[str, Any]) -> bool:
        for key in ("sessionId", "parentSessionId", "childSessionId"):
            if isinstance(params.get(key), str) and params[key] in self._core.sessions:
                return True
        return False

    def _dispatch(self, method: str, params: dict[str, Any]) -> None:
        core = self._core
        ctx = (
            core.ctx(params.get("sessionId")) if isinstance(params.get("sessionId"), str) else None
        )
        if method == SESSION_EVENT:
            if ctx is not None and isinstance(params.get("event"), dict):
                event = SessionEvent.model_validate(params["event"])
                handle_event(core, ctx, event)
                if ctx is core.root and event.time is not None:
                    self._note_event_time(event.time)
        elif method == ASSISTANT_STREAM:
            if ctx is not None and isinstance(params.get("frame"), dict):
                handle_frame(core, ctx, params["frame"])
        elif method == SESSION_STATUS:
            if (
                ctx is core.root
                and params.get("status") == "running"
                and core.header.state != "running"
            ):
                core.set_header("state", "running")
        elif method == SUBAGENT_STARTED:
            parent = core.ctx(params.get("parentSessionId"))
            child_id = params.get("childSessionId")
            if parent is not None and isinstance(child_id, str) and child_id not in core.sessions:
                core.add_child(parent, cap(child_id, LABEL_MAX))
        elif method == SUBAGENT_FINISHED:
            self._subagent_finished(params)
        elif method == APPROVAL_CANCELLED:
            request_id = params.get("requestId")
            if isinstance(request_id, str):
                reason = params.get("reason")
                inter.approval_cancelled(
                    core, request_id, reason if isinstance(reason, str) else None
                )
        elif method == USER_QUESTION_CANCELLED:
            request_id = params.get("requestId")
            if isinstance(request_id, str):
                inter.local_question_cancelled(core, request_id=request_id)
        elif self._in_tree(params):
            core.count_unknown(f"notification {method}")

    def _subagent_finished(self, params: dict[str, Any]) -> None:
        core = self._core
        child_id = params.get("childSessionId")
        parent = core.ctx(params.get("parentSessionId"))
        child = core.ctx(child_id) if isinstance(child_id, str) else None
        if child is None and parent is not None and isinstance(child_id, str):
            child = core.add_child(parent, cap(child_id, LABEL_MAX))
        if child is None or child.owner is None:
            return
        node = child.owner
        status = params.get("status")
        stop = params.get("stopReason")
        core.set(node, "status", cap(status, LABEL_MAX) if isinstance(status, str) else None)
        core.set(node, "stop_reason", cap(stop, LABEL_MAX) if isinstance(stop, str) else None)
        core.set(node, "state", "done" if status == "ok" else "failed")
        last = params.get("lastAssistantMessage")
        if isinstance(last, list):
            text = text_of_blocks(last)
            core.set(node, "result", cap(text, RESULT_MAX) if text else None)

    def _note_event_time(self, time: float) -> None:
        """The run's span from event times (the reducer has no clock of its own).

        Only events that changed the transcript anyway count, so ``seq`` still moves only on a
        visible change.
        """
        core = self._core
        if not core.changes.changed:
            return
        if core.header.started_at is None:
            core.set_header("started_at", time)
        core.set_header("ended_at", time)

    def _commit(self) -> bool:
        changes = self._core.changes
        if not changes.changed:
            return False
        self._seq += 1
        changes.commit(self._seq)
        return True

    def _pending(self, nodes: list[Node]) -> list[schema.Pending]:
        if self._core.header.state in ("settled", "error"):
            return []
        return [
            {
                "kind": "approval" if isinstance(n, ApprovalNode) else "question",
                "id": n.id,
                "request_id": n.request_id,
                "session_id": n.session_id,
            }
            for n in nodes
            if isinstance(n, (ApprovalNode, QuestionNode)) and n.state == "pending"
        ]

    # -- local facts -------------------------------------------------------------------------

    def _figures(self, fact: Figures) -> None:
        """Figures go under their call's tool card (any session of the tree); at most
        :data:`FIGURES_MAX` per call, each at most :data:`FIGURE_MAX` characters. A call the
        transcript does not know (not of this tree) is ignored."""
        ctx = self._core.ctx(fact.session_id)
        tool = ctx.tools.get(fact.call_id) if ctx is not None else None
        if tool is None:
            return
        kept = [png for png in fact.pngs if len(png) <= FIGURE_MAX]
        self._core.set(tool, "figures", (tool.figures + kept)[:FIGURES_MAX])

    def _context_carried(self, fact: ContextCarried) -> None:
        """The session's context use as its last run left it fills what this run has not
        reported yet (the runtime reports a window once per session, not per run)."""
        core = self._core
        now = core.header.context_use
        carried = replace(
            now,
            tokens=now.tokens if now.tokens is not None else fact.tokens,
            window=now.window if now.window is not None else fact.window,
        )
        core.set_header("context_use", carried)

    def _session(self, session_id: str | None) -> SessionCtx:
        return self._core.ctx(session_id) or self._core.root

    def _error(self, fact: RunError) -> None:
        message, detail, hint, code = fact.message, fact.detail, fact.hint, fact.code
        core = self._core
        if core.header.stopped:
            return  # the runtime exiting because the person stopped it is no error
        node = ErrorNode(
            id=core.new_id(),
            source="client",
            message=cap(message, LINE_MAX),
            code=cap(code, LABEL_MAX) if code else None,
            detail=cap(detail, RESULT_MAX) if detail else None,
            hint=cap(hint, LINE_MAX) if hint else hint_for(code),
        )
        core.add_item(core.root, node)
        core.set_header("state", "error")

    def _settled(self, finish_reason: str | None = None) -> None:
        core = self._core
        if finish_reason is not None:
            core.set_header("finish_reason", cap(finish_reason, LABEL_MAX))
        for node in core.all_nodes():
            if isinstance(node, TextNode) and node.streaming:
                core.set(node, "streaming", False)
        if core.header.state != "error":
            core.set_header("state", "error" if core.header.finish_reason == "error" else "settled")

    def _note(self, text: str, cell: str | None = None) -> None:
        """A one-line note of the client (e.g. a dead runtime was replaced), not an error;
        ``cell``: the cell it is about (an id longer than a label is dropped, never cut)."""
        core = self._core
        about = cell if cell and len(cell) <= LABEL_MAX else None
        core.add_item(
            core.root,
            NoteNode(id=core.new_id(), note="client", text=cap(text, LINE_MAX), cell=about),
        )

    def _stopped(self, reason: str = "") -> None:
        """The run was stopped (Stop, ``%dsh stop``, its budget): settled, said so (``reason``,
        bounded, else "Stopped by you."), not an error.

        Send it before the runtime is restarted: a client ``error`` fact after it (the runtime
        exited because of the stop) is then ignored.
        """
        core = self._core
        if core.header.stopped:
            return
        core.set_header("stopped", True)
        text = cap(reason, LINE_MAX) if reason else _STOPPED_NOTE
        core.add_item(core.root, NoteNode(id=core.new_id(), note="stopped", text=text))
        self._settled()
