"""The items of a transcript (and the cards nested in tool calls), with their snapshot form.

Each node's :meth:`to_dict` is its part of the snapshot, typed by :mod:`.schema` (schema 1).

Every node (item, or a card nested in a tool call) has an ``id`` (``"i1"``, ``"i2"``, … in order of
creation, deterministic for a given input) and a ``rev``: the transcript ``seq`` at which the node,
or anything nested in it, last changed. A view can re-render only the nodes whose ``rev`` moved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast

from . import schema
from .bounds import (
    ARGS_MAX,
    ARGS_PARSED_MAX,
    ASSISTANT_MAX,
    LABEL_MAX,
    LINE_MAX,
    MAX_ITEMS,
    cap,
    json_copy,
    jsonable,
    truncation_mark,
)
from .plan import PlanState

__all__ = [
    "ApprovalNode",
    "ErrorNode",
    "Item",
    "ItemList",
    "Node",
    "NoteNode",
    "QuestionNode",
    "SubagentNode",
    "TextNode",
    "ToolNode",
    "UsageTotals",
    "UserNode",
]

_USAGE_WIRE_NAMES = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadTokens": "cache_read_tokens",
    "cacheWriteTokens": "cache_write_tokens",
    "reasoningTokens": "reasoning_tokens",
}
_TOTAL_PARTS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _snapshot_fields(cls: type[Node]) -> tuple[str, ...]:
    """The fields of ``cls`` that are snapshot keys: all but identity, links and private ones."""
    names = _FIELDS.get(cls)
    if names is None:
        skip = {"id", "rev", "parent", "kind"}
        names = tuple(f.name for f in fields(cls) if f.name not in skip and f.name[0] != "_")
        _FIELDS[cls] = names
    return names


_LEAVES = (str, int, float, bool, type(None))


def _snapshot_value(value: Any) -> Any:
    if type(value) in _LEAVES:
        return value
    if isinstance(value, (Node, UsageTotals, PlanState)):
        return value.to_dict()
    if isinstance(value, ItemList):
        return value.to_list()
    if isinstance(value, (list, dict)):
        return json_copy(value)
    return value


@dataclass(eq=False, kw_only=True)
class Node:
    """Anything with an identity in the snapshot. ``parent`` links nested nodes to their host."""

    id: str
    rev: int = 0
    parent: Node | None = field(default=None, repr=False)

    def to_dict(self) -> schema.Item:
        """This node's part of the snapshot (a fresh JSON value, not shared with the node)."""
        raise NotImplementedError

    def _snapshot(self, kind: str) -> dict[str, Any]:
        """``kind``, ``id``, ``rev``, then every public field in declaration order (nested nodes,
        usage and item lists as their snapshots; lists and dicts copied). The fields are the one
        declaration of an item's keys; ``tests/test_transcript_nodes.py`` holds them to
        :mod:`.schema`."""
        item: dict[str, Any] = {"kind": kind, "id": self.id, "rev": self.rev}
        values = self.__dict__
        for name in _snapshot_fields(type(self)):
            item[name] = _snapshot_value(values[name])
        return item


class ItemList:
    """An ordered, bounded list of items; keeps at most :data:`MAX_ITEMS` (drops the oldest)."""

    def __init__(self, owner: Node | None) -> None:
        self.owner = owner
        self.items: list[Item] = []
        self.omitted = 0

    def append(self, item: Item) -> None:
        self.insert(len(self.items), item)

    def insert(self, index: int, item: Item) -> None:
        """Insert ``item`` (now owned by :attr:`owner`); the oldest items beyond the cap go."""
        item.parent = self.owner
        self.items.insert(index, item)
        while len(self.items) > MAX_ITEMS:
            self.items.pop(0)
            self.omitted += 1

    def to_list(self) -> list[schema.Item]:
        return [item.to_dict() for item in self.items]


@dataclass(eq=False, kw_only=True)
class UsageTotals:
    """Token counts summed over ``usage`` objects (wire names in, snapshot names out)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, usage: dict[str, Any]) -> bool:
        """Add one ``usage`` object (wire names); ``totalTokens`` is derived when absent.

        Negative, boolean and non-integer counts are ignored. ``True`` when a total changed.
        """
        before = self.to_dict()
        for wire, attr in _USAGE_WIRE_NAMES.items():
            value = _count(usage.get(wire))
            if value is not None and value > 0:
                setattr(self, attr, getattr(self, attr) + value)
        total = _count(usage.get("totalTokens"))
        if total is None:
            total = sum(_count(usage.get(k)) or 0 for k in _TOTAL_PARTS)
        self.total_tokens += max(total, 0)
        return self.to_dict() != before

    def to_dict(self) -> schema.Usage:
        return cast(schema.Usage, {f.name: getattr(self, f.name) for f in fields(self)})


@dataclass(eq=False, kw_only=True)
class TextNode(Node):
    """Assistant text or reasoning. Grows from live deltas, then is replaced by the final text."""

    kind: Literal["text", "reasoning"] = "text"
    streaming: bool = False
    truncated: bool = False
    _parts: list[str] = field(default_factory=list, repr=False)
    _size: int = 0

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def set_text(self, text: str) -> None:
        self.truncated = len(text) > ASSISTANT_MAX
        text = cap(text, ASSISTANT_MAX)
        self._parts = [text]
        self._size = len(text)

    def append(self, delta: str) -> bool:
        """Append a live delta; ``False`` (nothing stored) once the cap is reached."""
        if not delta or self.truncated:
            return False
        if self._size + len(delta) > ASSISTANT_MAX:
            self.truncated = True
            delta = delta[: ASSISTANT_MAX - self._size] + "\n" + truncation_mark(None)
        self._parts.append(delta)
        self._size += len(delta)
        return True

    def to_dict(self) -> schema.TextItem:
        item = cast(schema.TextItem, {**self._snapshot(self.kind), "text": self.text})
        if self.kind == "reasoning":
            item["collapsed"] = True
        return item


@dataclass(eq=False, kw_only=True)
class UserNode(Node):
    """A later human message in the same run (a queued prompt)."""

    text: str = ""

    def to_dict(self) -> schema.UserItem:
        return cast(schema.UserItem, self._snapshot("user"))


@dataclass(eq=False, kw_only=True)
class ApprovalNode(Node):
    """An approval: the runtime's ``approval/asked``/``decided`` merged with the client's facts."""

    session_id: str = ""
    approval_id: str | None = None  # the runtime's id (approval/asked)
    request_id: str | None = None  # the client-side request (bridge id)
    call_id: str | None = None
    tool_name: str = ""
    reason: str | None = None
    state: schema.ApprovalState = "pending"
    outcome: str | None = None  # allowed-once | rejected | cancelled | unavailable
    decided_by: schema.DecidedBy | None = None  # None when unknown
    # cell-editing tools (docs/cell-editing.md): the new whole source (edit/replace/insert; after
    # "Edit, then apply" the person's), and the full id of the cell the change targets
    proposed: str | None = None
    target: str | None = None
    note: str | None = None  # the person's note with a rejection
    changes: list[schema.ChangeLine] | None = None  # what the code will change (code cards)

    def to_dict(self) -> schema.ApprovalItem:
        return cast(schema.ApprovalItem, self._snapshot("approval"))


@dataclass(eq=False, kw_only=True)
class QuestionNode(Node):
    """Questions to the user (``ask_user_question``) and their answers."""

    session_id: str = ""
    request_id: str | None = None
    call_id: str | None = None
    questions: list[schema.Question] = field(default_factory=list)
    answers: list[schema.Answer] | None = None
    state: schema.QuestionState = "pending"

    def to_dict(self) -> schema.QuestionItem:
        return cast(schema.QuestionItem, self._snapshot("question"))


@dataclass(eq=False, kw_only=True)
class SubagentNode(Node):
    """A child session: its own items, nested under the tool call that started it when known."""

    child_id: str = ""
    label: str | None = None
    description: str | None = None
    mode: str | None = None
    prompt: str | None = None
    state: schema.SubagentState = "running"
    status: str | None = None  # subagent.finished status ("ok" | "error")
    stop_reason: str | None = None
    result: str | None = None
    turns: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    plan: PlanState | None = None  # its todo_write plan, nested under the subagent
    items: ItemList = field(default_factory=lambda: ItemList(None))

    def __post_init__(self) -> None:
        self.items.owner = self

    def to_dict(self) -> schema.SubagentItem:
        item = cast(schema.SubagentItem, self._snapshot("subagent"))
        item["items_omitted"] = self.items.omitted
        return item


@dataclass(eq=False, kw_only=True)
class ToolNode(Node):
    """A tool call and what became of it. Approval, question and subagent cards nest here."""

    call_id: str = ""
    name: str = ""
    arguments: str = ""
    args: Any = None
    description: str | None = None
    summary: str | None = None
    state: schema.ToolState = "pending"
    result: str | None = None
    is_error: bool | None = None
    error_code: str | None = None
    job: schema.Job | None = None
    approval: ApprovalNode | None = None
    question: QuestionNode | None = None
    subagent: SubagentNode | None = None
    figures: list[str] = field(default_factory=list)
    """Base64 PNGs the call's approved code showed (``run_python``), in display order."""

    def set_arguments(self, raw: str) -> None:
        """Store the raw argument text (capped) and derive ``args``/``description``/``summary``."""
        self.arguments = cap(raw, ARGS_MAX)
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except ValueError:
            parsed = None
        self.args = jsonable(parsed, limit=LINE_MAX) if len(raw) <= ARGS_PARSED_MAX else None
        self.description = self.summary = None
        if isinstance(parsed, dict):
            desc = parsed.get("description")
            if isinstance(desc, str) and desc.strip():
                self.description = cap(" ".join(desc.split()), LINE_MAX)
            for key in ("description", "command", "path", "file_path", "pattern", "query", "url"):
                value = parsed.get(key)
                if isinstance(value, str) and value.strip():
                    self.summary = cap(" ".join(value.split()), LABEL_MAX)
                    break

    def to_dict(self) -> schema.ToolItem:
        return cast(schema.ToolItem, self._snapshot("tool"))


@dataclass(eq=False, kw_only=True)
class ErrorNode(Node):
    """A failed turn (``source="turn"``) or a client-side failure (``source="client"``)."""

    source: str = "turn"
    message: str = ""
    code: str | None = None
    status: int | None = None
    hint: str | None = None
    detail: str | None = None

    def to_dict(self) -> schema.ErrorItem:
        return cast(schema.ErrorItem, self._snapshot("error"))


@dataclass(eq=False, kw_only=True)
class NoteNode(Node):
    """A small marker: ``retry``, ``compaction``, ``turn-end`` (non-error endings), ``subagent``."""

    note: str = ""
    text: str = ""
    count: int = 1
    cell: str | None = None
    """The cell the note is about (``NoteItem.cell``); the snapshot omits it when None."""

    def to_dict(self) -> schema.NoteItem:
        item = self._snapshot("note")
        if item["cell"] is None:
            del item["cell"]
        return cast(schema.NoteItem, item)


Item = (
    TextNode
    | UserNode
    | ToolNode
    | ApprovalNode
    | QuestionNode
    | SubagentNode
    | ErrorNode
    | NoteNode
)
