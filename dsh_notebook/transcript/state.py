"""The transcript state: bounds, change tracking, the header, and the ordered item lists.

The item node classes live in :mod:`.nodes`; the snapshot (schema 1) is assembled by
:meth:`dsh_notebook.transcript.Transcript.snapshot` from their ``to_dict`` forms.

Every node (item, or a card nested in a tool call) has an ``id`` (``"i1"``, ``"i2"``, … in order of
creation, deterministic for a given input) and a ``rev``: the transcript ``seq`` at which the node,
or anything nested in it, last changed. A view can re-render only the nodes whose ``rev`` moved.

Bounds (so that a snapshot stays small whatever the agent does):

=============================  ==========================================================
text                           cap
=============================  ==========================================================
tool result, subagent result   :data:`RESULT_MAX` characters (head + tail kept, marker)
tool arguments (raw JSON)      :data:`ARGS_MAX` characters; parsed ``args`` only when the
                               raw text is at most :data:`ARGS_PARSED_MAX` characters
prompt, user messages          :data:`PROMPT_MAX` characters
assistant text / reasoning     :data:`ASSISTANT_MAX` characters (a safety net only; the
                               snapshot never holds the runtime's ``data.stream`` records)
reasons, messages, questions   :data:`LINE_MAX` characters (at most 20 questions of 50
                               options each); every string in the context chips too
names, labels, titles          :data:`LABEL_MAX` characters
items per list                 :data:`MAX_ITEMS` (the oldest are dropped and counted in
                               ``items_omitted``)
unknown event types counted    :data:`MAX_UNKNOWN` distinct keys
=============================  ==========================================================

Truncated text carries a visible marker (:data:`TRUNCATION_MARK`), never silently cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .nodes import Item

__all__ = [
    "ARGS_MAX",
    "ARGS_PARSED_MAX",
    "ASSISTANT_MAX",
    "DECIDED_BY",
    "LABEL_MAX",
    "LINE_MAX",
    "MAX_ITEMS",
    "MAX_UNKNOWN",
    "PROMPT_MAX",
    "RESULT_MAX",
    "SCHEMA_VERSION",
    "STATES",
    "TRUNCATION_MARK",
    "Changes",
    "Header",
    "ItemList",
    "Node",
    "UsageTotals",
    "cap",
    "json_copy",
    "jsonable",
]

SCHEMA_VERSION = 1
RESULT_MAX = 20_000
ARGS_MAX = 20_000
ARGS_PARSED_MAX = 8_000
PROMPT_MAX = 20_000
ASSISTANT_MAX = 1_000_000
LINE_MAX = 2_000
LABEL_MAX = 200
MAX_ITEMS = 1_000
MAX_UNKNOWN = 50
TRUNCATION_MARK = "[… {omitted} characters omitted …]"

STATES = ("starting", "running", "waiting", "settled", "error")
DECIDED_BY = ("you", "policy", "timeout", "connection-lost", "runtime", "cancelled-by-agent")


def cap(text: str, limit: int) -> str:
    """``text`` if it fits, else its head and tail (4:1) around a visible omission marker."""
    if len(text) <= limit:
        return text
    head = limit * 4 // 5
    tail = limit - head
    omitted = len(text) - head - tail
    mark = TRUNCATION_MARK.format(omitted=f"{omitted:,}")
    return (
        f"{text[:head]}\n{mark}\n{text[len(text) - tail :]}" if tail else f"{text[:head]}\n{mark}"
    )


def json_copy(value: Any) -> Any:
    """A fresh copy of a JSON-like value (dicts and lists copied, leaves shared)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


def jsonable(value: Any, *, limit: int = LINE_MAX, depth: int = 0) -> Any:
    """A JSON-safe copy of ``value``: strings capped, unknown objects as ``str``, depth ≤ 8."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return cap(value, limit)
    if depth >= 8:
        return cap(str(value), limit)
    if isinstance(value, dict):
        return {str(k): jsonable(v, limit=limit, depth=depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, limit=limit, depth=depth + 1) for v in value]
    return cap(str(value), limit)


@dataclass(eq=False, kw_only=True)
class Node:
    """Anything with an identity in the snapshot. ``parent`` links nested nodes to their host."""

    id: str
    rev: int = 0
    parent: Node | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError


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
        for node in self._dirty:
            node.rev = seq
        self._dirty.clear()
        self.changed = False


@dataclass(eq=False, kw_only=True)
class UsageTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, usage: dict[str, Any]) -> bool:
        """Add one ``usage`` object (wire names); ``totalTokens`` is derived when absent."""
        names = {
            "inputTokens": "input_tokens",
            "outputTokens": "output_tokens",
            "cacheReadTokens": "cache_read_tokens",
            "cacheWriteTokens": "cache_write_tokens",
            "reasoningTokens": "reasoning_tokens",
        }
        before = self.to_dict()
        for wire, attr in names.items():
            value = usage.get(wire)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                setattr(self, attr, getattr(self, attr) + value)
        total = usage.get("totalTokens")
        if not (isinstance(total, int) and not isinstance(total, bool)):
            total = sum(
                v
                for k, v in usage.items()
                if k in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
                and isinstance(v, int)
                and not isinstance(v, bool)
            )
        self.total_tokens += max(int(total), 0)
        return self.to_dict() != before

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }


class ItemList:
    """An ordered, bounded list of items; keeps at most :data:`MAX_ITEMS` (drops the oldest)."""

    def __init__(self, owner: Node | None) -> None:
        self.owner = owner
        self.items: list[Item] = []
        self.omitted = 0

    def append(self, item: Item) -> None:
        self.insert(len(self.items), item)

    def insert(self, index: int, item: Item) -> None:
        item.parent = self.owner
        self.items.insert(index, item)
        while len(self.items) > MAX_ITEMS:
            self.items.pop(0)
            self.omitted += 1

    def to_list(self) -> list[dict[str, Any]]:
        return [item.to_dict() for item in self.items]


@dataclass(eq=False, kw_only=True)
class Header:
    session_id: str
    title: str | None = None
    model: str | None = None
    state: str = "starting"
    turns: int = 0
    finish_reason: str | None = None
    usage: UsageTotals = field(default_factory=UsageTotals)
    started_at: float | None = None
    """Event time (epoch ms) of the root session's first event."""
    ended_at: float | None = None
    """Event time (epoch ms) of the root session's latest event that changed the transcript."""
    stopped: bool = False
    """The person stopped the run (the ``stopped`` local fact)."""
