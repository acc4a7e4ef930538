"""What the model is told about the notebook tools: their names, descriptions and input schemas.

Pure data (:class:`~.mcp_shapes.Tool` values, no server): the server lists exactly
:func:`tool_definitions`, and :mod:`.patch` mounts the server under :data:`MCP_SERVER_NAME`, so
the model sees ``mcp__notebook__<tool>`` (:func:`public_tool_name`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..transcript.tool_table import CELL_TOOL_NAMES
from .mcp_shapes import Tool

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
    user's message and the reply are, which tools must not be used on it, how cells are
    addressed, and the rules every tool shares, said once here rather than in each description
    (results are capped; a call that runs or changes something waits for the user's click and,
    refused, changes nothing; with ``run_python``, approved code stays in the notebook; the cell
    tools name cells by id and need the cell read first). Short on purpose (measured in
    ``tests/test_model_facing_results.py`` and ``bench/model_facing_sizes.py``)."""
    text = (
        "You work inside the user's Jupyter notebook: each user message is a %%dsh cell and your "
        "reply is shown under it. Never read, write or edit the open .ipynb with file tools "
        "(the page is newer than the file); never analyse notebook data with bash python (a "
        "separate process without the kernel's variables). "
    )
    if run_python:
        text += (
            "run_python runs code in the kernel; approved code is kept as a cell below the "
            "prompt (the result says when), so send code worth keeping, not throw-away probes. "
        )
    if cell_tools:
        text += (
            "edit_cell, replace_cell, insert_cell, delete_cell, run_cells name cells by the id "
            "notebook_cells shows; read a cell before changing it. "
        )
    if run_python or cell_tools:
        text += (
            "Each call that runs or changes something is shown to the user as a card (a diff "
            "for edits) and waits for their click; refused, nothing changed and the result says "
            "why: do not retry the same call. "
        )
    return text + (
        f"Results are capped at {max_chars:,} characters: print summaries. notebook_cells marks "
        'THIS PROMPT; to the user say "cell N" (position) or "In [k]" (execution count).'
    )


INSTRUCTIONS = instructions()
"""The instructions with the default settings (``run_python`` on, 8,000 characters)."""


def _schema(properties: Mapping[str, object], required: tuple[str, ...] = ()) -> dict[str, object]:
    """An input schema: an object of exactly these ``properties``. Argument descriptions only
    where the name and the tool's description leave a doubt (each is sent on every request)."""
    schema: dict[str, object] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return schema | {"additionalProperties": False}


_STRING = {"type": "string"}
_IDS = {"type": "array", "items": _STRING}


def tool_definitions(*, run_python: bool, max_chars: int, cell_tools: bool = True) -> list[Tool]:
    """The tools, in the order they are listed; ``run_python`` only when it is enabled, the five
    cell tools (:func:`cell_tool_definitions`) only with ``cell_tools``.

    ``max_chars``, the cap the server enforces, is stated once in :func:`instructions`; the
    descriptions say what each tool does and returns, and what is special to it (the rules all
    share are in the instructions). The ten stay under 4,500 characters as ``tools/list``
    sends them, measured where the model receives them (``tests/test_cell_tools_real.py``).
    """
    del max_chars  # stated in the instructions
    tools = [
        Tool(
            name="notebook_variables",
            description=(
                "The Python version and imported modules (pd = pandas 2.2.3), then the kernel's "
                "variables: name, type, shape or length, size, preview (not functions, classes "
                "or _names). Read-only; call it first."
            ),
            input_schema=_schema({}),
        ),
        Tool(
            name="describe_variable",
            description=(
                "One variable in detail, read-only: a DataFrame's dtypes, first rows, null counts "
                "and numeric summary; an array's shape, dtype and statistics; a container's "
                "sample; else its repr. name: a variable or an attribute path (df.columns); no "
                "code is evaluated."
            ),
            input_schema=_schema({"name": _STRING}, ("name",)),
        ),
        Tool(
            name="notebook_history",
            description=(
                "The last n cells the user ran this session, oldest first: source, Out and "
                "error. Read-only."
            ),
            input_schema=_schema(
                {"n": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}}
            ),
        ),
        Tool(
            name="notebook_cells",
            description=(
                "The notebook as the user sees it, unrun and edited cells too: per cell its "
                "position (cell N), short id, type, In [k], source and an output summary; marks "
                "THIS PROMPT (the %%dsh cell you answer), cells the agent wrote and the selected "
                "one. A long notebook is cut (the result says how): then read cells whole by "
                "cell_ids or start-end (positions, inclusive), or brief: one line per cell. "
                "Read-only."
            ),
            input_schema=_schema(
                {
                    "cell_ids": _IDS | {"maxItems": 50},
                    "start": {"type": "integer", "minimum": 1},
                    "end": {"type": "integer", "minimum": 1},
                    "brief": {"type": "boolean"},
                }
            ),
        ),
    ]
    if run_python:
        tools.append(
            Tool(
                name="run_python",
                description=(
                    "Run Python in the user's kernel, in the notebook's namespace: it sees the "
                    "user's variables and what it assigns stays. The user approves each call; "
                    "approved code is kept as a cell below the prompt: do not repeat it in your "
                    "answer. Waits while a notebook cell runs. Returns stdout/stderr, the last "
                    "expression's value, the error with its traceback, and matplotlib figures as "
                    "text and, where the model takes images, PNG. Output is capped, the error "
                    "always kept. Keep calls short; never input(); no installs or file changes "
                    "unless asked."
                ),
                input_schema=_schema(
                    {"code": _STRING | {"description": "IPython magics work."}}, ("code",)
                ),
            )
        )
    if cell_tools:
        tools.extend(cell_tool_definitions())
    return tools


_APPROVAL = " The user approves it on a card."


def cell_tool_definitions() -> list[Tool]:
    """``edit_cell``, ``replace_cell``, ``insert_cell``, ``delete_cell`` and ``run_cells``
    (``docs/cell-editing.md``): each asks the user's approval; cells are named by id (what they
    share, ids, the diff card and a stale refusal, is said once in :func:`instructions`)."""
    cell = {"cell_id": _STRING}
    return [
        Tool(
            name="edit_cell",
            description=(
                "Replace the one exact occurrence of old_text in a cell with new_text (may be "
                "empty)." + _APPROVAL
            ),
            input_schema=_schema(
                cell | {"old_text": _STRING, "new_text": _STRING},
                ("cell_id", "old_text", "new_text"),
            ),
        ),
        Tool(
            name="replace_cell",
            description="Replace a cell's whole source." + _APPROVAL,
            input_schema=_schema(cell | {"source": _STRING}, ("cell_id", "source")),
        ),
        Tool(
            name="insert_cell",
            description="Insert a new cell (not run) below after_cell_id." + _APPROVAL,
            input_schema=_schema(
                {
                    "after_cell_id": _STRING,
                    "source": _STRING,
                    "cell_type": {"enum": ["code", "markdown"], "default": "code"},
                },
                ("after_cell_id", "source"),
            ),
        ),
        Tool(
            name="delete_cell",
            description="Delete a cell." + _APPROVAL,
            input_schema=_schema(cell, ("cell_id",)),
        ),
        Tool(
            name="run_cells",
            description=(
                "Run cells in the given order as the user would (outputs land in the cells), "
                "stopping at the first error; refused while a cell runs." + _APPROVAL + " Returns "
                "their outputs; cells still running after timeout_s go on."
            ),
            input_schema=_schema(
                {
                    "cell_ids": _IDS | {"minItems": 1, "maxItems": 20},
                    "timeout_s": {"type": "integer", "minimum": 1, "maximum": 600, "default": 60},
                },
                ("cell_ids",),
            ),
        ),
    ]
