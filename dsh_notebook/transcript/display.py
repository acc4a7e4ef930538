"""What the renderings show beyond a snapshot's raw fields (shared by markdown and plain text).

- The code of a tool call (``run_python``'s ``code``, ``bash``'s ``command``) and of a
  ``run_python`` approval (its reason is the code), so it is shown as code: exact text, line
  breaks kept, with its language.
- The diff of a cell-editing approval (``edit_cell``, ``replace_cell``, ``insert_cell``,
  ``delete_cell``: its reason is a unified diff, docs/cell-editing.md), shown as a diff; and
  ``run_cells``' (its reason lists the cells, each that changed since it ran whole, its lines
  marked ``+`` / ``-`` / `` `` as in a diff), shown the same way.
- The run's state word (``stopped`` when the person stopped it) and its elapsed time (from the
  header's event times; empty when unknown).
- The tool calls that wait for the person (an approval or a question still open).
- Long output folded after its first lines (:func:`fold_text`).

Everything here is a pure function of the snapshot: the renderings stay deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from .schema import ApprovalItem, Header, Item, ToolItem
from .tool_table import EDIT_TOOL_NAMES, LONG_REASON_TOOL_NAMES

__all__ = [
    "DIFF_CHARS",
    "DIFF_LINES",
    "RESULT_LINES",
    "ToolCode",
    "approval_code",
    "approval_diff",
    "has_long_reason",
    "is_cell_edit",
    "elapsed_words",
    "Fold",
    "fold_text",
    "mark_waiting_tools",
    "is_interrupted",
    "mark_interrupted",
    "run_state_word",
    "tool_code",
    "tool_label",
    "folds_whole",
]

RESULT_LINES = 20
"""Lines of a tool result the static markdown transcript shows unfolded; the rest is folded."""
RESULT_CHARS = 3_000
"""Characters of a tool result shown unfolded, at most (long lines fold too)."""
DIFF_LINES = 40
"""Lines of a cell edit's diff shown unfolded (the widget's card folds after as many)."""
DIFF_CHARS = 6_000
"""Characters of a cell edit's diff shown unfolded, at most."""

# (tool, argument holding the code, language of the code)
_CODE_ARGUMENTS = (("run_python", "code", "python"), ("bash", "command", "bash"))
_OPEN_TOOL_STATES = ("pending", "running")


@dataclass(frozen=True)
class ToolCode:
    code: str
    argument: str
    """The argument that holds the code (``code``, ``command``)."""
    language: str
    other_args: dict[str, Any]
    """The call's remaining arguments (without the code, and without a description that the
    heading already shows)."""


def tool_label(name: str) -> str:
    """A tool's name in words: an MCP tool ``mcp__<server>__<tool>`` reads ``<tool> (<server>)``
    (``run_python (notebook)``); other names as they are. The wire name stays in the snapshot,
    the widget's hover and every export."""
    if name.startswith("mcp__"):
        server, sep, tool = name[len("mcp__") :].partition("__")
        if sep and server and tool:
            return f"{tool} ({server})"
    return name


_LISTING_TOOLS = ("notebook_variables", "describe_variable", "notebook_history", "notebook_cells")
"""The notebook's read tools: their results are listings the agent reads, folded whole."""


def folds_whole(item: ToolItem) -> bool:
    """Whether the saved transcript folds the call's whole result (a listing of the notebook's
    variables, a description, the history), as the widget keeps it behind a click."""
    name = item["name"] or ""
    return any(_is_tool(name, tool) for tool in _LISTING_TOOLS)


def _is_tool(name: str, tool: str) -> bool:
    """``run_python`` is also ``mcp__notebook__run_python`` (an MCP server's tool)."""
    return name == tool or name.endswith("__" + tool)


def tool_code(item: ToolItem) -> ToolCode | None:
    """The code a tool call runs, when it is one of the code tools and its code is a string."""
    name = item["name"] or ""
    args = item["args"]
    if not isinstance(args, dict):
        return None
    for tool, key, language in _CODE_ARGUMENTS:
        code = args.get(key)
        if _is_tool(name, tool) and isinstance(code, str):
            shown = (item["description"], item["summary"])
            rest = {
                k: v
                for k, v in args.items()
                if k != key and not (k == "description" and v in shown)
            }
            return ToolCode(code, key, language, rest)
    return None


def approval_code(item: ApprovalItem) -> str | None:
    """The code of a ``run_python`` approval: the notebook server sends the code as the reason."""
    reason = item["reason"]
    if _is_tool(item["tool_name"] or "", "run_python") and isinstance(reason, str):
        return reason if reason.strip() else None
    return None


def is_cell_edit(tool_name: str) -> bool:
    """``edit_cell`` & co. (also as ``mcp__notebook__edit_cell``; the tools that edit the
    notebook, :data:`.tool_table.EDIT_TOOL_NAMES`): the approval shows a diff."""
    return any(_is_tool(tool_name, tool) for tool in EDIT_TOOL_NAMES)


def has_long_reason(tool_name: str) -> bool:
    """A cell edit or ``run_cells`` (also as ``mcp__notebook__run_cells``): the reason is what
    the card shows of the cells (a diff; the sources to run), kept up to ``DIFF_MAX``
    (:data:`.tool_table.LONG_REASON_TOOL_NAMES`)."""
    return any(_is_tool(tool_name, tool) for tool in LONG_REASON_TOOL_NAMES)


def approval_diff(item: ApprovalItem) -> str | None:
    """The unified diff of a cell-editing approval (its reason), ``run_cells``' list of cells
    with their marked sources, or ``None`` for other tools."""
    reason = item["reason"]
    if has_long_reason(item["tool_name"] or "") and isinstance(reason, str) and reason.strip():
        return reason
    return None


_INTERRUPTED = "_interrupted"
"""A rendering-only mark on a view's header (:func:`mark_interrupted`); never in a snapshot."""


def mark_interrupted(header: Header) -> None:
    """Mark the header of a rendering's own copy: its run was in progress when this copy was
    made and is shown where it can no longer go on (kept for the next kernel, saved with the
    notebook). :func:`run_state_word` then reads ``interrupted``."""
    cast("dict[str, object]", header)[_INTERRUPTED] = True


def is_interrupted(header: Header) -> bool:
    return cast("dict[str, object]", header).get(_INTERRUPTED) is True


def run_state_word(header: Header) -> str:
    """``stopped`` for a run the person stopped, ``interrupted`` for a copy marked so
    (:func:`mark_interrupted`), else the header's state."""
    if header.get("stopped"):
        return "stopped"
    return "interrupted" if is_interrupted(header) else header["state"]


def elapsed_words(header: Header) -> str:
    """``12 s``, ``3 min 05 s``, ``1 h 02 min`` between the header's event times; ``""`` if unknown."""
    start, end = header.get("started_at"), header.get("ended_at")
    if not isinstance(start, (int, float)) or not isinstance(end, (int, float)):
        return ""
    seconds = max(0, int((end - start) // 1000))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min {seconds % 60:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


@dataclass(frozen=True)
class Fold:
    """A long text cut in two: ``shown`` stays open, ``rest`` goes behind a fold."""

    shown: str
    rest: str
    """Empty when nothing is folded."""
    hidden_lines: int
    """Lines of ``rest`` (a cut inside a line counts that line's remainder as one)."""

    @property
    def summary(self) -> str:
        """``880 more lines`` / ``1 more line`` / ``4,000 more characters``."""
        if self.hidden_lines > 1:
            return f"{self.hidden_lines:,} more lines"
        if "\n" in self.rest.rstrip("\n"):
            return "1 more line"
        return f"{len(self.rest):,} more characters"


def fold_text(text: str, keep: int = RESULT_LINES, chars: int = RESULT_CHARS) -> Fold:
    """``text`` split after its first ``keep`` lines, or earlier so that at most about
    ``chars`` characters stay open (at a line break when there is one, else mid-line).

    ``shown + rest`` is ``text`` (without trailing newlines) with the cut's line break removed.
    """
    body = text.rstrip("\n")
    end = -1
    for _ in range(keep):  # the end of the first ``keep`` lines, without splitting them all
        end = body.find("\n", end + 1)
        if end < 0:
            break
    cut = len(body) if end < 0 else end
    if cut > chars:
        line_break = body.rfind("\n", 0, chars)
        cut = line_break if line_break > 0 else chars
    if cut >= len(body):
        return Fold(text, "", 0)
    shown = body[:cut]
    rest = body[cut + 1 :] if body[cut] == "\n" else body[cut:]
    return Fold(shown, rest, rest.count("\n") + 1)


def _waits_on_own_card(tool: ToolItem) -> bool:
    cards = (tool["approval"], tool["question"])
    return any(c is not None and c["state"] == "pending" for c in cards)


def mark_waiting_tools(items: list[Item]) -> list[Item]:
    """``items`` with each open tool call that waits for the person in state ``waiting``.

    A call waits when its own approval or question is pending, or when a pending approval of
    the same tool stands next to it (``run_python``'s approval is a card of its own).
    """
    asked = [
        i["tool_name"] or "" for i in items if i["kind"] == "approval" and i["state"] == "pending"
    ]
    out: list[Item] = []
    for item in items:
        if item["kind"] == "tool" and item["state"] in _OPEN_TOOL_STATES:
            name = item["name"] or ""
            if _waits_on_own_card(item) or any(_is_tool(name, tool) for tool in asked if tool):
                waiting = item.copy()
                waiting["state"] = "waiting"
                item = waiting
        out.append(item)
    return out
