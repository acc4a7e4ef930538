"""The ``notebook-calls`` scripted scenario: notebook_cells first, then each listed call in order
with ``@N`` resolved to cell N's short id, then the first line of every result."""

from __future__ import annotations

import json
from typing import Any

from dsh_notebook.scripted_model.analysis import analyze_request
from dsh_notebook.scripted_model.builtin import default_registry
from dsh_notebook.scripted_model.notebook_calls import planned_calls, resolve_args
from dsh_notebook.scripted_model.steps import ScriptContext, Step

CALLS = [
    {"tool": "edit_cell", "args": {"cell_id": "@2", "old_text": "a", "new_text": "b"}},
    {"tool": "run_cells", "args": {"cell_ids": ["@1", "@2", "@9"]}},
]
PROMPT = "[[scenario:notebook-calls]] " + json.dumps(CALLS) + "\nplease"
CELLS = (
    "a.ipynb as the user sees it now: 2 cell(s).\n\n## cell 1 · id 1a2b3c4d · code · In [1]\n"
    "x = 1\n\n## cell 2 · id 9f8e7d6c · code · not run\n%%dsh\n" + PROMPT
)


def step(*messages: dict[str, Any]) -> Step:
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": PROMPT}]},
                         *messages]}  # fmt: skip
    analysis = analyze_request(body)
    script = default_registry().get("notebook-calls")
    assert script is not None and analysis.scenario == "notebook-calls"
    context = ScriptContext(
        scenario="notebook-calls", step_index=analysis.step_index, attempt=0,
        tags=analysis.tags, prompt_text=analysis.prompt_text, notices=(),
        latest_user_kind=analysis.latest_user_kind, body=body,
    )  # fmt: skip
    return script.step_for(context)


def turn(call_id: str, result: str) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "x",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                      "content": [{"type": "text", "text": result}]}]},
    ]  # fmt: skip


def test_the_calls_come_in_order_with_cell_positions_resolved() -> None:
    first = step()
    assert [(c.name, dict(c.input)) for c in first.tool_calls] == [
        ("mcp__notebook__notebook_cells", {})
    ]
    after_read = turn("t1", CELLS)  # the result quotes the prompt: still the first result
    second = step(*after_read)
    assert [(c.name, dict(c.input)) for c in second.tool_calls] == [
        ("mcp__notebook__edit_cell", {"cell_id": "9f8e7d6c", "old_text": "a", "new_text": "b"})
    ]
    after_edit = [*after_read, *turn("t2", "Applied: Edited cell 2 · id 9f8e7d6c\nmore")]
    third = step(*after_edit)
    assert dict(third.tool_calls[0].input) == {"cell_ids": ["1a2b3c4d", "9f8e7d6c", "@9"]}
    final = step(*after_edit, *turn("t3", "\nRan 2 cell(s) in the notebook (ok, ok)."))
    assert final.tool_calls == () and final.text == (
        "Notebook calls done. First lines of the results:\n"
        "1. a.ipynb as the user sees it now: 2 cell(s).\n"
        "2. Applied: Edited cell 2 · id 9f8e7d6c\n"
        "3. Ran 2 cell(s) in the notebook (ok, ok)."
    )


def test_a_malformed_list_calls_nothing() -> None:
    assert isinstance(planned_calls("[[scenario:notebook-calls]] [{oops"), str)
    assert isinstance(planned_calls('[[scenario:notebook-calls]] [{"args": {}}]'), str)
    assert planned_calls("[[scenario:notebook-calls]]") == []
    assert resolve_args({"cell_id": "@3"}, CELLS) == {"cell_id": "@3"}
