"""The notebook tools a person approves on a card, declared once: one row per tool.

Every Python home of this vocabulary derives from :data:`CARD_TOOLS`: the notebook server's cell
tools (``notebook_tools.schemas.CELL_TOOL_NAMES``, ``notebook_tools.cell_tools.EDIT_TOOL_NAMES``),
the broker's scope rule (``kernel.broker.scope_key``: the tools that edit the notebook share
:data:`EDITS_SCOPE`), the widget's check of an edited proposal
(``widget.actions.check_action``) and the renderings' diff cards
(:func:`.display.is_cell_edit`, :func:`.display.has_long_reason`). The widget's own list
(``js/src/cards/celledit.ts`` ``CELL_EDIT_TOOLS``, and the editable rule in
``js/src/cards/approval.ts``) is pinned against this table by ``tests/test_tool_table.py``.

Names here are the server's own (``edit_cell``); the model sees ``mcp__notebook__edit_cell``.
Pure data: no imports of the package, so every layer from ``transcript`` up may read it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CARD_TOOLS",
    "CELL_TOOL_NAMES",
    "EDITABLE_TOOL_NAMES",
    "EDITS_SCOPE",
    "EDIT_TOOL_NAMES",
    "LONG_REASON_TOOL_NAMES",
    "CardTool",
]


@dataclass(frozen=True)
class CardTool:
    """One notebook tool whose call waits for the person's decision on a card."""

    name: str
    """The tool's name on the notebook server (``edit_cell``)."""
    on_cells: bool
    """A cell tool: it names the person's cells by id and needs a page that can edit or run
    them (``docs/cell-editing.md``); ``run_python`` runs its own code instead."""
    edits: bool
    """It changes the notebook's cells: "Apply edits for this run" covers every such tool (one
    scope, :data:`EDITS_SCOPE`), and its card's reason is a unified diff."""
    editable: bool
    """The person may edit its proposal on the card before it runs or is applied ("Edit, then
    run" on ``run_python``'s code, "Edit, then apply" on a cell's new source)."""
    long_reason: bool
    """Its card's reason is what the card shows of the cells (a diff, the cells to run), kept up
    to ``bounds.DIFF_MAX`` rather than ``bounds.LINE_MAX``."""


CARD_TOOLS: tuple[CardTool, ...] = (
    CardTool("edit_cell", on_cells=True, edits=True, editable=True, long_reason=True),
    CardTool("replace_cell", on_cells=True, edits=True, editable=True, long_reason=True),
    CardTool("insert_cell", on_cells=True, edits=True, editable=True, long_reason=True),
    CardTool("delete_cell", on_cells=True, edits=True, editable=False, long_reason=True),
    CardTool("run_cells", on_cells=True, edits=False, editable=False, long_reason=True),
    CardTool("run_python", on_cells=False, edits=False, editable=True, long_reason=False),
)
"""Every notebook tool a card decides, in the order the server lists the cell tools."""

EDITS_SCOPE = "notebook-edits"
"""The one "for this run" scope the tools that edit the notebook share (:attr:`CardTool.edits`);
every other tool is its own scope."""

CELL_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in CARD_TOOLS if t.on_cells)
"""The cell tools: ``edit_cell``, ``replace_cell``, ``insert_cell``, ``delete_cell``,
``run_cells``."""
EDIT_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in CARD_TOOLS if t.edits)
"""The tools that change a cell of the open notebook (their card's reason is a diff)."""
EDITABLE_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in CARD_TOOLS if t.editable)
"""The tools whose proposal the person may edit on the card."""
LONG_REASON_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in CARD_TOOLS if t.long_reason)
"""The tools whose card's reason is long (a diff; the cells to run)."""
