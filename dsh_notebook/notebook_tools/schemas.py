"""What the model is told about the notebook tools: their names, descriptions and input schemas.

Pure data (``mcp_types`` models only, no server): the server lists exactly
:func:`tool_definitions`, and :mod:`.patch` mounts the server under :data:`MCP_SERVER_NAME`, so
the model sees ``mcp__notebook__<tool>`` (:func:`public_tool_name`).
"""

from __future__ import annotations

import mcp_types as mt

from ..transcript.tool_table import CELL_TOOL_NAMES

__all__ = [
    "CELL_TOOL_NAMES",
    "INSTRUCTIONS",
    "MCP_SERVER_NAME",
    "TOOL_NAMES",
    "instructions",
    "cell_tool_definitions",
    "public_tool_name",
    "tool_definitions",
]

MCP_SERVER_NAME = "notebook"
"""The ``serverName`` in the runtime's patch: model-facing names are ``mcp__notebook__<tool>``."""

TOOL_NAMES = (
    "notebook_variables",
    "describe_variable",
    "notebook_history",
    "notebook_cells",
    "run_python",
)
# CELL_TOOL_NAMES (declared in ``transcript.tool_table``): the cell tools, listed with an edits
# host (the kernel's, see :mod:`.cell_tools`)


def public_tool_name(tool: str, server_name: str = MCP_SERVER_NAME) -> str:
    """The name the model sees (the runtime's ``mcp__<serverName>__<rawName>``, clean case)."""
    return f"mcp__{server_name}__{tool}"


def instructions(*, run_python: bool = True, max_chars: int = 8000, cell_tools: bool = True) -> str:
    """The MCP server's instructions: the runtime puts them in the system prompt (section
    ``### MCP server: notebook``), fixed per runtime start. They teach the notebook: where the
    user's message and the reply are, which tools see the kernel and which must not be used on
    it, how cells are addressed, that results are capped and, with ``run_python``, that approved
    code stays in the notebook. Short on purpose (measured in ``tests/test_model_facing.py``)."""
    text = (
        "You work inside the user's Jupyter notebook: each user message is a %%dsh cell and your "
        "reply is shown under it. These tools see the live kernel: notebook_variables (values, "
        "imported modules, versions), "
        "describe_variable, notebook_history (cells run), notebook_cells (the notebook as "
        "shown, unrun and edited cells too). Never read, write or edit the open .ipynb with "
        "file tools (the page is newer than the file); never analyse notebook data with bash "
        "python (a separate process without the kernel's variables). "
    )
    if run_python:
        text += (
            "run_python runs code in the kernel after the user approves each call; approved "
            "code is kept as a cell below the prompt (the result says when), so send code worth "
            "keeping, not throw-away probes. "
        )
    if cell_tools:
        text += (
            "edit_cell, replace_cell, insert_cell, delete_cell, run_cells: by id, each approved. "
        )
    return text + (
        f"Results are capped at {max_chars:,} characters: print summaries. notebook_cells shows "
        'each cell\'s short id and marks THIS PROMPT; to the user say "cell N" (position) or '
        '"In [k]" (execution count).'
    )


INSTRUCTIONS = instructions()
"""The instructions with the default settings (``run_python`` on, 8,000 characters)."""


def tool_definitions(*, run_python: bool, max_chars: int, cell_tools: bool = True) -> list[mt.Tool]:
    """The tools, in the order they are listed; ``run_python`` only when it is enabled, the five
    cell tools (:func:`cell_tool_definitions`) only with ``cell_tools``.

    ``max_chars`` is the cap the descriptions promise (the server enforces it).
    """
    cap = max_chars
    tools = [
        mt.Tool(
            name="notebook_variables",
            description=(
                "List the variables defined in the user's live Jupyter notebook kernel: name, "
                "type, shape or length, memory size and a one-line preview; first the Python "
                "version and the imported modules with their aliases and versions (pd = pandas "
                "2.2.3). Functions, classes and names starting with _ are left out. Read-only. "
                "Call this first to learn what data the user has loaded, then describe_variable "
                "for details."
            ),
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        ),
        mt.Tool(
            name="describe_variable",
            description=(
                "Describe one variable of the user's live notebook kernel without changing it: "
                "for a pandas/polars DataFrame its shape, column dtypes, first rows, null counts "
                "and numeric summary; for an array its shape, dtype and statistics; for a "
                f"container a sample of items; otherwise its repr. At most {cap} characters. "
                "`name` is a name from notebook_variables; an attribute path such as df.columns "
                "also works (no code is evaluated)."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "Variable name, e.g. df or df.columns",
                    }
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        ),
        mt.Tool(
            name="notebook_history",
            description=(
                "Show the last n cells the user executed in this notebook session, oldest first: "
                "each cell's source, a short text form of its result (Out) and the error it "
                "raised, if any. Read-only. Use it to see how the user's variables were made."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "n": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 50,
                        "default": 10,
                        "description": "How many recent cells (1-50).",
                    }
                },
                "additionalProperties": False,
            },
        ),
        mt.Tool(
            name="notebook_cells",
            description=(
                "Show the user's notebook as they see it now: each cell's position (cell N), "
                "short stable id, type, In [k] ('edited since In [k]' when changed after it ran, "
                "'running', 'not run'), source and an output summary (text, kinds of rich "
                "outputs, errors); marks THIS PROMPT (the %%dsh cell you are answering), cells "
                "the agent wrote and the selected cell. Earlier %%dsh cells show only their "
                "prompt's first line. Long notebooks are cut evenly: then read chosen cells "
                "whole (cell_ids, start-end) or one line per cell (brief). Read-only. Without "
                "the notebook page (no JupyterLab extension, or a busy kernel) it returns the "
                f"kernel's execution history and says so. At most {cap} characters."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "cell_ids": {
                        "type": "array",
                        "items": {"type": "string"},
                        "maxItems": 50,
                        "description": "Ids of cells to read whole (the short ids shown).",
                    },
                    "start": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "First position (cell N) of a range to read whole.",
                    },
                    "end": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Last position of that range, included.",
                    },
                    "brief": {
                        "type": "boolean",
                        "default": False,
                        "description": "One line per cell: position, id, status, first line, "
                        "outputs.",
                    },
                },
                "additionalProperties": False,
            },
        ),
    ]
    if run_python:
        tools.append(
            mt.Tool(
                name="run_python",
                description=(
                    "Run Python code in the user's live notebook kernel, in the notebook's global "
                    "namespace: it can use the user's variables, and variables it assigns stay in "
                    "the notebook. The user sees the code and must approve every call; if it is "
                    "refused, nothing runs and the result says why: do not retry the same code. "
                    "Approved code is kept as a new cell below the user's prompt cell when the "
                    "notebook page allows it (the result then says so): write code worth keeping "
                    "and do not repeat it in your answer. It runs when no notebook cell is "
                    "executing. Returns captured stdout/stderr, the value of the last expression "
                    "(described), the error with its traceback, and matplotlib figures it created "
                    "or showed, each as a text description (titles, axis labels and limits, "
                    "series with point counts and value ranges, legend) and, where the model "
                    "takes images, as a PNG (figures are closed afterwards). Output is capped at "
                    f"{cap} characters, the error always kept: print summaries, not whole "
                    "datasets. "
                    "Keep each call short and quick; never call input(); do not install packages "
                    "or modify files unless the user asked. The user can stop long code with "
                    "Interrupt kernel."
                ),
                input_schema={
                    "type": "object",
                    "properties": {
                        "code": {
                            "type": "string",
                            "description": "Python source; IPython magics such as %timeit work.",
                        }
                    },
                    "required": ["code"],
                    "additionalProperties": False,
                },
            )
        )
    if cell_tools:
        tools.extend(cell_tool_definitions())
    return tools


_ID = "the short id notebook_cells shows (or the full id)"
_APPROVAL = (
    "The user sees a diff and must approve; refused (nothing changed) when the cell changed since "
    "you last read it (the result then holds its current source). Needs the notebook open in "
    "JupyterLab/Notebook 7 with the dsh-notebook extension."
)


def _schema(properties: dict[str, object], required: list[str]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}  # fmt: skip


def cell_tool_definitions() -> list[mt.Tool]:
    """``edit_cell``, ``replace_cell``, ``insert_cell``, ``delete_cell`` and ``run_cells``
    (``docs/cell-editing.md``): each asks the user's approval; cells are named by id."""
    cell_id = {"type": "string", "description": _ID}
    return [
        mt.Tool(
            name="edit_cell",
            description=(
                "Replace one exact occurrence of old_text in a cell of the user's notebook with "
                "new_text (may be empty); refused when old_text occurs 0 or several times. "
                + _APPROVAL
            ),
            input_schema=_schema(
                {
                    "cell_id": cell_id,
                    "old_text": {"type": "string"},
                    "new_text": {"type": "string"},
                },
                ["cell_id", "old_text", "new_text"],
            ),
        ),
        mt.Tool(
            name="replace_cell",
            description="Replace a cell's whole source (for rewrites). " + _APPROVAL,
            input_schema=_schema(
                {"cell_id": cell_id, "source": {"type": "string"}}, ["cell_id", "source"]
            ),
        ),
        mt.Tool(
            name="insert_cell",
            description=(
                "Insert a new cell (not run) below the cell after_cell_id. The user sees it and "
                "must approve. Needs the dsh-notebook extension."
            ),
            input_schema=_schema(
                {
                    "after_cell_id": {"type": "string", "description": _ID},
                    "source": {"type": "string"},
                    "cell_type": {
                        "type": "string",
                        "enum": ["code", "markdown"],
                        "default": "code",
                    },
                },
                ["after_cell_id", "source"],
            ),
        ),
        mt.Tool(
            name="delete_cell",
            description="Delete a cell. " + _APPROVAL,
            input_schema=_schema({"cell_id": cell_id}, ["cell_id"]),
        ),
        mt.Tool(
            name="run_cells",
            description=(
                "Run cells of the user's notebook in the given order, as if the user ran them "
                "(outputs appear in the cells); stops at the first error. The user must approve. "
                "Returns each cell's outputs (errors first, figures as text), or that cells are "
                "still running after timeout_s (they are not interrupted). Refused while a cell "
                "is running. Needs the dsh-notebook extension."
            ),
            input_schema=_schema(
                {
                    "cell_ids": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "maxItems": 20,
                        "description": "ids as notebook_cells shows them",
                    },
                    "timeout_s": {"type": "integer", "minimum": 1, "maximum": 600, "default": 60},
                },
                ["cell_ids"],
            ),
        ),
    ]
