"""Names instead of raw ids in the renderings' tool results.

The runtime's tool results name what they started by id: ``started background job
bash-4f536804ba2a46ab``, ``started subagent c4af6878-3138-…``. A reader knows those things by
what they do: the bash call's description (or its command), the subagent's label. The
renderings (markdown and plain text) show such results with each id that the snapshot itself
names replaced by ``“that name”``.

Guarantees:

- Only ids the snapshot knows are replaced (a job attached to a tool call, a subagent's child
  session id), anywhere in any tool result of the snapshot (a later ``job_output`` result too).
  Nothing else in a result changes; agent text, arguments and code are left as written.
- Pure: the snapshot passed in is never modified (a copy is returned when anything changes);
  the full, raw results stay in the snapshot, ``_dsh`` and ``%dsh export --format json``.
"""

from __future__ import annotations

import re
from typing import TypeVar

from .display import tool_code
from .schema import Item, Snapshot, SubagentItem, ToolItem

__all__ = ["NAME_MAX", "id_names", "with_names"]

NAME_MAX = 60
"""Characters of a name (a command's first line, a label) before it is cut with ``…``."""

_MIN_ID = 6  # shorter "ids" could match ordinary words

_Holder = TypeVar("_Holder", Snapshot, SubagentItem)


def _short(text: str) -> str:
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= NAME_MAX else line[: NAME_MAX - 1].rstrip() + "…"


def _job_name(tool: ToolItem) -> str:
    code = tool_code(tool)
    for candidate in (tool["description"], code.code if code else None, tool["summary"]):
        if candidate and candidate.strip():
            return _short(candidate)
    return ""


def _subagent_name(item: SubagentItem) -> str:
    for candidate in (item["label"], item["description"]):
        if candidate and candidate.strip() and candidate != item["child_id"]:
            return _short(candidate)
    return ""


def id_names(items: list[Item]) -> dict[str, str]:
    """Every job id and subagent session id in ``items`` (nested ones too) → its display name.

    Ids with no name worth showing (nothing but the id itself) are left out.
    """
    names: dict[str, str] = {}

    def visit(items: list[Item]) -> None:
        for item in items:
            if item["kind"] == "tool":
                job = item["job"]
                if job and job["job_id"] and (name := _job_name(item)):
                    names[job["job_id"]] = name
                if item["subagent"] is not None:
                    visit([item["subagent"]])
            elif item["kind"] == "subagent":
                if item["child_id"] and (name := _subagent_name(item)):
                    names[item["child_id"]] = name
                visit(item["items"])

    visit(items)
    return {k: v for k, v in names.items() if len(k) >= _MIN_ID}


def _renamed(items: list[Item], pattern: re.Pattern[str], names: dict[str, str]) -> list[Item]:
    out: list[Item] = []
    for item in items:
        if item["kind"] == "tool":
            result, sub = item["result"], item["subagent"]
            new_result = (
                pattern.sub(lambda m: f"“{names[m.group(0)]}”", result) if result else result
            )
            new_sub = _with_items_renamed(sub, pattern, names) if sub is not None else None
            if new_result != result or new_sub is not sub:
                tool = item.copy()
                tool["result"] = new_result
                tool["subagent"] = new_sub
                item = tool
        elif item["kind"] == "subagent":
            item = _with_items_renamed(item, pattern, names)
        out.append(item)
    return out


def _with_items_renamed(
    holder: _Holder, pattern: re.Pattern[str], names: dict[str, str]
) -> _Holder:
    """``holder`` itself when none of its items changed, else a copy with the renamed items."""
    items = _renamed(holder["items"], pattern, names)
    if all(a is b for a, b in zip(items, holder["items"], strict=True)):
        return holder
    view = holder.copy()
    view["items"] = items
    return view


def with_names(snapshot: Snapshot) -> Snapshot:
    """``snapshot`` with the known ids in its tool results replaced by ``“name”`` (see above)."""
    names = id_names(snapshot["items"])
    if not names:
        return snapshot
    pattern = re.compile(
        r"(?<![\w-])(?:"
        + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
        + r")(?![\w-])"
    )
    return _with_items_renamed(snapshot, pattern, names)
