"""Run the demo analyst through whole turns without the runtime: its tool calls are served by
the real notebook tool functions (``notebook_variables``, ``describe_variable``, ``run_python``
over a bare IPython shell), every approval is granted, and a question card is never answered
(the measured questions are unambiguous; a card counts as no answer).

This is the same text the runtime hands the analyst in a kernel, so a question answered here is
answered the same way in JupyterLab.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dsh_notebook.analyst import analyst_script
from dsh_notebook.scripted_model import ScriptContext, Step

TOOLS = [
    {"name": n}
    for n in (
        "bash", "write", "ask_user_question", "mcp__notebook__notebook_variables",
        "mcp__notebook__describe_variable", "mcp__notebook__run_python",
    )
]  # fmt: skip


@dataclass
class Outcome:
    """A finished turn: the final answer, the tools called (bare names) and the code run."""

    answer: str
    tools: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)


def _shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


def _serve(tool: str, args: dict[str, Any], ns: dict[str, Any]) -> tuple[str, bool]:
    from dsh_notebook.notebook_tools.run_python import run_python
    from dsh_notebook.notebook_tools.variables import describe_variable, notebook_variables

    if tool == "notebook_variables":
        return notebook_variables(ns), False
    if tool == "describe_variable":
        found, text = describe_variable(ns, str(args.get("name", "")))
        return text, not found
    if tool == "run_python":
        result = run_python(_shell(), str(args.get("code", "")))
        return result.as_text(), False
    return f"Error: the tool {tool} is not served in this harness", True


def run_turn(prompt: str | list[str], data: dict[str, Any], max_steps: int = 8) -> Outcome:
    """The analyst's whole turn for ``prompt`` (one text block, or several: the person's text
    first) with ``data`` as the kernel's variables."""
    import matplotlib

    matplotlib.use("agg")
    shell = _shell()
    saved = dict(shell.user_ns)
    shell.user_ns.update(data)
    blocks = [prompt] if isinstance(prompt, str) else prompt
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": b} for b in blocks]}
    ]
    outcome = Outcome(answer="")
    try:
        for index in range(max_steps):
            ctx = ScriptContext(
                scenario="analyst", step_index=index, attempt=0, tags={}, prompt_text="",
                notices=(), latest_user_kind="human", body={"messages": messages, "tools": TOOLS},
            )  # fmt: skip
            step: Step = analyst_script().step_for(ctx)
            if not step.tool_calls:
                outcome.answer = step.text
                return outcome
            call = step.tool_calls[0]
            tool = call.name.rsplit("__", 1)[-1]
            outcome.tools.append(tool)
            if tool == "run_python":
                outcome.code.append(str(call.input.get("code", "")))
            if tool == "ask_user_question":
                outcome.answer = "(asked a question: " + step.text + ")"
                return outcome
            result, is_error = _serve(tool, dict(call.input), shell.user_ns)
            outcome.results.append(result)
            messages.append({"role": "assistant", "content": [
                {"type": "text", "text": step.text},
                {"type": "tool_use", "id": f"t{index}", "name": call.name,
                 "input": dict(call.input)},
            ]})  # fmt: skip
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{index}",
                 "content": [{"type": "text", "text": result}], "is_error": is_error},
            ]})  # fmt: skip
        outcome.answer = "(no answer within the step budget)"
        return outcome
    finally:
        for key in list(shell.user_ns):
            if key not in saved:
                del shell.user_ns[key]
        shell.user_ns.update(saved)
        import matplotlib.pyplot as plt

        plt.close("all")
