"""The notebook tools a card decides are declared once (``transcript.tool_table``): every Python
home reads the table, and the widget's lists (``js/src/cards/celledit.ts``, the editable rule of
``js/src/cards/approval.ts``) say the same."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import dsh_notebook
from dsh_notebook.kernel.registry.broker import EDITS_SCOPE, scope_key
from dsh_notebook.notebook_tools.schemas import cell_tool_definitions
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.display import has_long_reason, is_cell_edit
from dsh_notebook.transcript.facts import ApprovalRequested
from dsh_notebook.transcript.tool_table import (
    CARD_TOOLS,
    CELL_TOOL_NAMES,
    EDIT_TOOL_NAMES,
    EDITABLE_TOOL_NAMES,
    LONG_REASON_TOOL_NAMES,
    CardTool,
)
from dsh_notebook.widget.actions import check_action

PACKAGE = Path(dsh_notebook.__file__).resolve().parent
CARDS = PACKAGE.parent / "js" / "src" / "cards"
NAMES = [tool.name for tool in CARD_TOOLS]


def _strings(source: str) -> list[str]:
    return re.findall(r'"(\w+)"', source)


def test_the_table_is_consistent() -> None:
    assert len(set(NAMES)) == len(NAMES)
    for tool in CARD_TOOLS:
        if tool.edits:  # an edit acts on a cell and its reason is a diff
            assert tool.on_cells and tool.long_reason, tool.name
    assert EDITS_SCOPE == "notebook-edits"
    assert EDIT_TOOL_NAMES == ("edit_cell", "replace_cell", "insert_cell", "delete_cell")
    assert set(EDITABLE_TOOL_NAMES) == {"run_python", "edit_cell", "replace_cell", "insert_cell"}
    assert set(LONG_REASON_TOOL_NAMES) == {*EDIT_TOOL_NAMES, "run_cells"}


def test_the_server_lists_exactly_the_cell_tools_of_the_table() -> None:
    assert [tool.name for tool in cell_tool_definitions()] == list(CELL_TOOL_NAMES)


@pytest.mark.parametrize("tool", CARD_TOOLS, ids=NAMES)
def test_every_python_home_reads_the_table(tool: CardTool) -> None:
    assert (scope_key(tool.name) == EDITS_SCOPE) is tool.edits
    for name in (tool.name, f"mcp__notebook__{tool.name}"):
        assert is_cell_edit(name) is tool.edits, name
        assert has_long_reason(name) is tool.long_reason, name
    transcript = Transcript("s", prompt="p")
    transcript.apply_local(ApprovalRequested("a1", "s", tool.name, reason="x = 1"))
    edit = {"type": "approval", "request_id": "a1", "decision": "allowed-once", "code": "x = 2"}
    checked = check_action(transcript.snapshot(), edit)
    assert (checked == edit) is tool.editable, checked


def test_celledit_ts_names_the_editing_tools_of_the_table() -> None:
    source = (CARDS / "celledit.ts").read_text(encoding="utf-8")
    listed = re.search(r"export const CELL_EDIT_TOOLS = \[(.*?)\] as const;", source, re.S)
    assert listed is not None, "celledit.ts declares CELL_EDIT_TOOLS"
    assert tuple(_strings(listed.group(1))) == EDIT_TOOL_NAMES
    verbs = re.search(r"const VERBS: Record<CellEditTool, string> = \{(.*?)\};", source, re.S)
    assert verbs is not None
    assert re.findall(r"^\s*(\w+):", verbs.group(1), re.M) == list(EDIT_TOOL_NAMES)
    run_cells = re.search(r"export function isRunCells\(.*?\{(.*?)\n\}", source, re.S)
    assert run_cells is not None
    long_not_edits = [t.name for t in CARD_TOOLS if t.long_reason and not t.edits]
    assert _strings(run_cells.group(1)) == long_not_edits  # run_cells: the card lists cells


def test_approval_ts_offers_an_edit_on_the_editable_tools_of_the_table() -> None:
    """``approval.ts``: ``code`` (what "Edit, then …" opens on) is null for ``delete_cell`` and
    for any tool neither a cell edit nor ``run_python``."""
    source = (CARDS / "approval.ts").read_text(encoding="utf-8")
    run_python = re.search(r'const runPython = isTool\(tool, "(\w+)"\);', source)
    rule = re.search(
        r'const code = editTool === "(\w+)" \|\| !\(editTool \|\| runPython\) \? null', source
    )
    assert run_python is not None and rule is not None, "approval.ts's editable rule moved"
    editable = (set(EDIT_TOOL_NAMES) - {rule.group(1)}) | {run_python.group(1)}
    assert editable == set(EDITABLE_TOOL_NAMES)


def test_no_other_module_declares_a_list_of_the_card_tools() -> None:
    """A module-level name bound to a tuple, list or set of two or more of the table's names
    anywhere else in the package is a second home (derive it from ``transcript.tool_table``)."""
    homes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "tool_table.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        values = [s.value for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))]
        for node in (n for value in values if value is not None for n in ast.walk(value)):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                names = [
                    e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in NAMES
                ]
                if len(names) >= 2:
                    homes.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {names}")
    assert homes == []
