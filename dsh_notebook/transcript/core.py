"""The reducer's working state: the header, the session tree, indexes, ids and change tracking.

One :class:`Core` per transcript. The handler modules (``events``, ``stream``, ``interactions``)
mutate it only through these helpers, so that every change is recorded in :attr:`Core.changes`
and ``seq`` moves exactly when the snapshot changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from . import schema
from .bounds import LABEL_MAX, MAX_UNKNOWN, cap
from .context_use import ContextUse
from .nodes import (
    ApprovalNode,
    Item,
    ItemList,
    Node,
    QuestionNode,
    SubagentNode,
    TextNode,
    ToolNode,
    UsageTotals,
)
from .plan import PlanState
from .schema import RunState

__all__ = ["Changes", "Core", "Header", "LiveAttempt", "SessionCtx"]


class Changes:
    """Collects what one ``apply`` touched; :meth:`commit` stamps the new ``seq`` on it."""

    def __init__(self) -> None:
        self.changed = False
        self._dirty: list[Node] = []

    def touch(self, node: Node | None = None) -> None:
        """Mark a change; ``node`` and every ancestor get the next ``rev``."""
        self.changed = True
        while node is not None:
            self._dirty.append(node)
            node = node.parent

    def commit(self, seq: int) -> None:
        """Give every touched node ``rev = seq`` and start collecting afresh."""
        for node in self._dirty:
            node.rev = seq
        self._dirty.clear()
        self.changed = False


@dataclass(eq=False, kw_only=True)
class Header:
    """The run's header facts; :meth:`Transcript.snapshot` adds the counts (``schema.Header``)."""

    session_id: str
    title: str | None = None
    model: str | None = None
    state: RunState = "starting"
    turns: int = 0
    finish_reason: str | None = None
    usage: UsageTotals = field(default_factory=UsageTotals)
    started_at: float | None = None
    """Event time (epoch ms) of the root session's first event."""
    ended_at: float | None = None
    """Event time (epoch ms) of the root session's latest event that changed the transcript."""
    stopped: bool = False
    """The person stopped the run (the ``stopped`` local fact)."""
    context_use: ContextUse = field(default_factory=ContextUse)
    """The root session's context use (reported in this run, or carried from the last one)."""
    goal: schema.Goal | None = None
    """The root session's goal (its latest ``goal/change``)."""
    read_only: bool = False
    """The run was started read-only (given by the caller)."""


@dataclass(eq=False)
class LiveAttempt:
    """The live items of one model attempt, by content-block index."""

    attempt_id: str
    blocks: dict[int, Item] = field(default_factory=dict)
    nodes: list[Item] = field(default_factory=list)  # every live node, in creation order


@dataclass(eq=False)
class SessionCtx:
    """One session of the tree: where its items go and what is open in it."""

    session_id: str
    items: ItemList
    owner: SubagentNode | None  # None for the root session
    parent: SessionCtx | None = None
    tools: dict[str, ToolNode] = field(default_factory=dict)
    approvals: dict[str, ApprovalNode] = field(default_factory=dict)  # by runtime approval id
    approval_list: list[ApprovalNode] = field(default_factory=list)  # every approval, in order
    attempts: dict[str, LiveAttempt] = field(default_factory=dict)
    policy: str | None = None
    seen_user_message: bool = False


class Core:
    """Mutable reducer state. Not thread-safe: one owner applies notifications in order."""

    def __init__(self, session_id: str, header: Header, *, prompt: str, context: list[Any]) -> None:
        self.header = header
        self.prompt = prompt
        self.context = context
        self.title_given = header.title is not None
        self.model_given = header.model is not None
        self.changes = Changes()
        self.items = ItemList(None)
        self.root = SessionCtx(session_id, self.items, None)
        self.sessions: dict[str, SessionCtx] = {session_id: self.root}
        self.approvals_by_request: dict[str, ApprovalNode] = {}
        self.questions_by_request: dict[str, QuestionNode] = {}
        self.questions: list[QuestionNode] = []
        self.unknown: dict[str, int] = {}
        self.plan: PlanState | None = None  # the root session's plan (todo/write)
        self._next_id = 0

    # ids and changes -------------------------------------------------------------------------

    def new_id(self) -> str:
        self._next_id += 1
        return f"i{self._next_id}"

    def touch(self, node: Node | None = None) -> None:
        self.changes.touch(node)

    def set(self, node: Node, attr: str, value: Any) -> bool:
        """Set ``node.attr`` and record the change, if the value differs."""
        if getattr(node, attr) == value:
            return False
        setattr(node, attr, value)
        self.touch(node)
        return True

    def set_header(self, attr: str, value: Any) -> bool:
        if getattr(self.header, attr) == value:
            return False
        setattr(self.header, attr, value)
        self.touch()
        return True

    def first_prompt(self, text: str) -> None:
        """The root's first human message: the prompt, unless the caller supplied one."""
        if not self.prompt and text:
            self.prompt = text
            self.touch()

    def count_unknown(self, key: str) -> None:
        key = cap(key, LABEL_MAX)
        if key in self.unknown or len(self.unknown) < MAX_UNKNOWN:
            self.unknown[key] = self.unknown.get(key, 0) + 1
            self.touch()

    # items -----------------------------------------------------------------------------------

    def add_item(self, ctx: SessionCtx, item: Item, index: int | None = None) -> Item:
        if index is None:
            ctx.items.append(item)
        else:
            ctx.items.insert(index, item)
        self.touch(item)
        return item

    def remove_item(self, ctx: SessionCtx, item: Item) -> None:
        try:
            ctx.items.items.remove(item)
        except ValueError:
            return
        self.touch(ctx.owner)

    # the session tree ------------------------------------------------------------------------

    def ctx(self, session_id: str | None) -> SessionCtx | None:
        return self.sessions.get(session_id) if session_id is not None else None

    def add_child(self, parent: SessionCtx, child_id: str) -> SessionCtx:
        """Register a child session of ``parent`` (idempotent) with its subagent card."""
        existing = self.sessions.get(child_id)
        if existing is not None:
            return existing
        node = SubagentNode(id=self.new_id(), child_id=child_id)
        host = self._host_tool(parent)
        if host is not None:
            host.subagent = node
            node.parent = host
            if host.description and node.description is None:
                node.description = host.description
            self.touch(node)
        else:
            self.add_item(parent, node)
        ctx = SessionCtx(child_id, node.items, node, parent=parent, policy="never")
        self.sessions[child_id] = ctx
        return ctx

    @staticmethod
    def _host_tool(parent: SessionCtx) -> ToolNode | None:
        """The tool call that started a child: the latest open ``subagent*`` call of the parent."""
        for tool in reversed(list(parent.tools.values())):
            if (
                tool.name.startswith("subagent")
                and tool.subagent is None
                and tool.state in ("streaming", "pending", "running")
            ):
                return tool
        return None

    def owners(self, ctx: SessionCtx) -> list[SubagentNode]:
        """The subagent cards of ``ctx`` and of its ancestors (innermost first)."""
        out: list[SubagentNode] = []
        current: SessionCtx | None = ctx
        while current is not None:
            if current.owner is not None:
                out.append(current.owner)
            current = current.parent
        return out

    def all_nodes(self) -> list[Node]:
        """Every node, depth first (for counting and pending detection)."""
        out: list[Node] = []

        def walk(items: list[Item]) -> None:
            for item in items:
                out.append(item)
                if isinstance(item, ToolNode):
                    for nested in (item.approval, item.question):
                        if nested is not None:
                            out.append(nested)
                    if item.subagent is not None:
                        out.append(item.subagent)
                        walk(item.subagent.items.items)
                elif isinstance(item, SubagentNode):
                    walk(item.items.items)

        walk(self.items.items)
        return out

    @staticmethod
    def attempt(ctx: SessionCtx, attempt_id: str) -> LiveAttempt:
        attempt = ctx.attempts.get(attempt_id)
        if attempt is None:
            attempt = ctx.attempts[attempt_id] = LiveAttempt(attempt_id)
        return attempt

    def open_text(
        self, ctx: SessionCtx, attempt_id: str, index: int, kind: Literal["text", "reasoning"]
    ) -> TextNode:
        """The live text node of (attempt, block index), created at the end of ``ctx``."""
        attempt = self.attempt(ctx, attempt_id)
        item = attempt.blocks.get(index)
        if isinstance(item, TextNode) and item.kind == kind:
            return item
        node = TextNode(id=self.new_id(), kind=kind, streaming=True)
        attempt.blocks[index] = node
        attempt.nodes.append(node)
        self.add_item(ctx, node)
        return node
