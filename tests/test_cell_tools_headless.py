"""The cell tools headless, as nbconvert / papermill run a notebook: nbclient executes a small
notebook (no page, no stdin) on a real ipykernel; its ``%%dsh`` cell drives the real runtime and
the scripted model (``notebook-calls``), which asks ``edit_cell``, ``insert_cell`` and
``run_cells``. Each answers the one honest line (it needs JupyterLab 4 / Notebook 7 with the
extension), nobody is asked (no approval in the transcript, not the headless "nobody can
approve" refusal either), nothing is applied or run, and the notebook's cells are unchanged."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from dsh_notebook.notebook_tools.cell_texts import no_page_text
from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import _spec_manager, ipc_channels, scripted_model_env

pytestmark = pytest.mark.timeout(300)

CALLS = [
    {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "x = 1", "new_text": "x = 2"}},
    {"tool": "insert_cell", "args": {"after_cell_id": "@2", "source": "y = 3"}},
    {"tool": "run_cells", "args": {"cell_ids": ["@2"]}},
]
SOURCES = [
    "%load_ext dsh_notebook\n%config DshMagics.default_format = 'text'",
    "x = 1\nprint(x)",
    "%%dsh\n[[scenario:notebook-calls]] " + json.dumps(CALLS),
]


def tool_results(scripted_model: ScriptedModelServer) -> list[str]:
    """Every tool result's text in the last request the model received for the scenario."""
    bodies = [r.body for r in scripted_model.requests if r.scenario == "notebook-calls" and r.body]
    assert bodies, "the model was never asked"
    texts: list[str] = []
    for message in bodies[-1]["messages"]:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                parts = inner if isinstance(inner, list) else [{"type": "text", "text": inner}]
                texts.append("".join(str(p.get("text", "")) for p in parts))
    return texts


def output_text(cell: Any) -> str:
    texts: list[str] = []
    for output in cell.get("outputs", []):
        texts.append(str(output.get("text", "")))
        texts += [str(v) for v in output.get("data", {}).values() if isinstance(v, str)]
    return "\n".join(texts)


def test_cell_tools_under_nbclient_answer_the_one_line_reason_and_change_nothing(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in SOURCES]
    before = copy.deepcopy(notebook)
    manager = KernelManager(
        kernel_name="dshtest", kernel_spec_manager=_spec_manager(sys.executable), **ipc_channels()
    )
    client = NotebookClient(notebook, km=manager, timeout=240, allow_errors=False)
    scripted_model.clear_requests()
    client.execute(env=scripted_model_env(tmp_path, scripted_model.base_url), cwd=str(tmp_path))

    found = tool_results(scripted_model)
    assert len(found) == 4, found  # notebook_cells, then the three writing tools
    # (the runtime marks an error result "Error: ")
    expected = [f"Error: {no_page_text(t)}" for t in ("edit_cell", "insert_cell", "run_cells")]
    assert found[1:] == expected, found
    assert all("\n" not in text for text in found[1:])  # one line
    transcript = output_text(notebook.cells[2])
    assert "Notebook calls done" in transcript, transcript  # the run finished
    assert "approval for" not in transcript, transcript  # nobody was asked, not even headless
    assert "Nobody can approve" not in json.dumps(found)
    assert [c.source for c in notebook.cells] == [c.source for c in before.cells]
    assert len(notebook.cells) == 3  # no cell was inserted
    assert output_text(notebook.cells[1]).strip() == "1"  # run once, by nbclient
