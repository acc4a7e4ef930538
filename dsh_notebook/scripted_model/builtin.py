"""The built-in scripts: what the demo model and the integration tests answer, by scenario name.

Tags understood here: ``target``, ``chunks``, ``chunk-delay``, ``fail-times``, ``var``, ``by``,
``column`` (see each script's description in :data:`BUILTIN_SCRIPTS`).
"""

from __future__ import annotations

import re
import shlex
import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .notebook_calls import notebook_calls_step
from .registry import ScriptRegistry
from .steps import AfterReply, HttpError, Script, ScriptContext, Step, StepFactory, ToolCall

__all__ = [
    "BASH_COMMAND",
    "BUILTIN_SCRIPTS",
    "CHILD_ANSWER",
    "CHILD_PROMPT",
    "DEFAULT_SCENARIO",
    "AGENT_CELLS_CODE",
    "ESCALATE_DEFAULT_PREFIX",
    "LONG_DEFAULT_CHUNKS",
    "PLAIN_ANSWER",
    "PLAN_REVIEW",
    "PLAN_REVIEW_DONE",
    "PLAN_STEPS",
    "SLOW_DEFAULT_CHUNKS",
    "SLOW_DEFAULT_CHUNK_DELAY",
    "SUBAGENT_FINAL",
    "SUBAGENT_INTERIM",
    "WRITE_CONTENT",
    "default_registry",
    "long_text_chunks",
]

#: Scenario used for requests without a ``[[scenario:...]]`` tag.
DEFAULT_SCENARIO: Final = "plain"

BASH_COMMAND: Final = "echo hello-from-bash > bash-out.txt && cat bash-out.txt"
CHILD_PROMPT: Final = "[[scenario:child]] Say hello from the child."
SUBAGENT_INTERIM: Final = "Started the subagent; waiting for it."
SUBAGENT_FINAL: Final = "The child said hello."
CHILD_ANSWER: Final = "Hello from the child subagent."
PLAIN_ANSWER: Final = "Hello from the fake model!"
WRITE_CONTENT: Final = "written by the scripted model\n"
PLAN_STEPS: Final = ("Load sales.csv", "Plot monthly revenue", "Name the region that fell behind")
"""The steps of the ``plan`` scenario's ``todo_write`` calls."""
PLAN_REVIEW: Final = (
    "# Plot the sales\n\n1. Read **sales.csv**\n2. Plot revenue by month\n\n"
    "| step | tool |\n| --- | --- |\n| read | `pandas` |"
)
"""The plan the ``plan-review`` scenario presents with ``exit_plan_mode`` (markdown)."""
PLAN_REVIEW_DONE: Final = "The plan is approved; carrying it out."
LONG_DEFAULT_CHUNKS: Final = 2000
SLOW_DEFAULT_CHUNKS: Final = 20
SLOW_DEFAULT_CHUNK_DELAY: Final = 0.1
ESCALATE_DEFAULT_PREFIX: Final = "/tmp/dsh-escalated-"
AGENT_CELLS_CODE: Final = (
    "agent_rows = [3, 1, 2]\nprint('rows:', len(agent_rows))",
    "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
    "agent_total = sum(agent_rows)\nplt.figure()\nplt.plot(agent_rows, label='rows')\n"
    "plt.title('agent rows')\nagent_total * 10",
)
"""The two ``run_python`` calls of the ``notebook-two-calls`` scenario, in order."""


def long_text_chunks(count: int) -> list[str]:
    """The deltas of the ``long`` script: ``["w0 ", "w1 ", ..., "w<count-1>"]``."""
    if count < 1:
        raise ValueError("count must be >= 1")
    return [f"w{i} " for i in range(count - 1)] + [f"w{count - 1}"]


def _final(text: str) -> Step:
    return Step(text=text)


def _bash(description: str, command: str, **extra: str) -> ToolCall:
    return ToolCall("bash", {"description": description, "command": command, **extra})


def _escalate_step(ctx: ScriptContext) -> Step:
    target = ctx.tags.get("target") or f"{ESCALATE_DEFAULT_PREFIX}{uuid.uuid4().hex[:12]}"
    return Step(
        text="This needs a write outside the workspace.",
        tool_calls=(
            _bash(
                "Touch a file outside the workspace",
                f"touch {shlex.quote(target)} && echo touched",
                sandbox_permissions="danger-full-access",
                justification="The integration test must write outside the workspace.",
            ),
        ),
    )


def _subagent_interim(ctx: ScriptContext) -> Step:
    # The child's reply is held until this reply has been sent (see _child_answer), so the
    # settled notice arrives after this turn and starts the next one. Should it ever arrive with
    # the tool result anyway, answer with the final text right away.
    if any(n.startswith("Background subagent ") for n in ctx.notices):
        return _final(SUBAGENT_FINAL)
    return _final(SUBAGENT_INTERIM)


_PARENT_ID_RE: Final = re.compile(r'Your parent agent id is "([^"]+)"')


def _child_answer(ctx: ScriptContext) -> Step:
    """The subagent child's answer, sent only after the parent's turn has ended.

    The runtime delivers a child's settled notice by the parent's status at that moment
    (``sendWaking``: *steer* into the running turn, or *queue* a new turn when the parent is
    idle), so without an order the parent's turn count depends on which of the two sessions
    the runtime happens to finish first. Holding the child's reply until the parent's reply to
    the request that carries this child's id (the ``started subagent <id>`` tool result) has
    been sent, plus a grace for the runtime to end that turn, makes the order fixed: the
    parent's first turn ends with the interim text, the notice starts turn 2.
    """
    match = next((m for n in ctx.notices if (m := _PARENT_ID_RE.search(n))), None)
    if match is None or not ctx.session_id:
        return _final(CHILD_ANSWER)
    return Step(text=CHILD_ANSWER, after_reply=AfterReply(match.group(1), mention=ctx.session_id))


def _notebook_inspect(ctx: ScriptContext) -> Step:
    name = ctx.tags.get("var", "df")
    return Step(
        text=f"Let me look at `{name}` in your kernel.",
        tool_calls=(ToolCall("mcp__notebook__describe_variable", {"name": name}),),
    )


def _notebook_analyze(ctx: ScriptContext) -> Step:
    name = ctx.tags.get("var", "df")
    by = ctx.tags.get("by", "region")
    column = ctx.tags.get("column", "revenue")
    code = (
        f"region_totals = {name}.groupby({by!r})[{column!r}].sum().sort_values(ascending=False)\n"
        "region_totals"
    )
    return Step(
        text="I will compute the totals in your kernel (this asks for your approval).",
        tool_calls=(ToolCall("mcp__notebook__run_python", {"code": code}),),
    )


def _run_python_step(text: str, code: str) -> Step:
    return Step(text=text, tool_calls=(ToolCall("mcp__notebook__run_python", {"code": code}),))


def _long_step(ctx: ScriptContext) -> Step:
    count = ctx.int_tag("chunks", LONG_DEFAULT_CHUNKS, minimum=1)
    return Step(text_chunks=tuple(long_text_chunks(count)))


def _plan_write(done: int) -> StepFactory:
    """A ``todo_write`` of :data:`PLAN_STEPS` with ``done`` steps completed and the next in
    progress, after ``[[plan-delay:S]]`` seconds (default 0) so a view can watch each state."""

    def factory(ctx: ScriptContext) -> Step:
        todos = [
            {"content": step, "status": "completed" if i < done else
             "in_progress" if i == done else "pending"}
            for i, step in enumerate(PLAN_STEPS)
        ]  # fmt: skip
        text = "Here is my plan." if done == 0 else ""
        delay = ctx.float_tag("plan-delay", 0.0) if done else 0.0
        return Step(text=text, tool_calls=(ToolCall("todo_write", {"todos": todos}),), delay=delay)

    return factory


def _plan_final(ctx: ScriptContext) -> Step:
    return Step(text="All steps done.", delay=ctx.float_tag("plan-delay", 0.0))


def _slow_step(ctx: ScriptContext) -> Step:
    count = ctx.int_tag("chunks", SLOW_DEFAULT_CHUNKS, minimum=1)
    delay = ctx.float_tag("chunk-delay", SLOW_DEFAULT_CHUNK_DELAY)
    return Step(
        text_chunks=(*(f"slow{i} " for i in range(count - 1)), f"slow{count - 1}"),
        chunk_delay=delay,
    )


def _failing(error: HttpError, recovered: str, default_times: int | None) -> StepFactory:
    def factory(ctx: ScriptContext) -> Step:
        times: int | None = default_times
        if "fail-times" in ctx.tags:
            times = ctx.int_tag("fail-times", default_times or 0)
        return Step(text=recovered, error=error, fail_times=times)

    return factory


_E400 = HttpError(400, "invalid_request_error", "scripted invalid request")
_E429 = HttpError(429, "rate_limit_error", "scripted rate limit", retry_after="0")
_E500 = HttpError(500, "api_error", "scripted server error")

_BUILTINS: dict[str, Script] = {
    "plain": Script(
        steps=(Step(thinking="The user wants a greeting.", text=PLAIN_ANSWER),),
        description="one text answer (with a thinking block); also used for untagged requests",
    ),
    "bash": Script(
        steps=(
            Step(
                text="I will run a command.",
                tool_calls=(_bash("Write and print a file", BASH_COMMAND),),
            ),
            _final("The command printed hello-from-bash."),
        ),
        description="bash tool call writing and printing bash-out.txt, then an answer",
    ),
    "parallel": Script(
        steps=(
            Step(
                text="Running two commands in parallel.",
                tool_calls=(
                    _bash("First command", "echo parallel-one"),
                    _bash("Second command", "echo parallel-two"),
                ),
            ),
            _final("Both commands ran."),
        ),
        description="two bash calls in one reply, then an answer",
    ),
    "write": Script(
        steps=(
            Step(
                text="Writing the file.",
                tool_calls=(
                    ToolCall("write", {"file_path": "written.txt", "content": WRITE_CONTENT}),
                ),
            ),
            _final("Wrote written.txt."),
        ),
        description="write tool creating written.txt, then an answer",
    ),
    "escalate": Script(
        steps=(_escalate_step, _final("The escalation attempt is finished.")),
        description="bash call asking for danger-full-access to touch [[target:/abs/path]] "
        f"(default {ESCALATE_DEFAULT_PREFIX}<hex>), then an answer",
    ),
    "readonly-write": Script(
        steps=(
            Step(
                text="Writing with a wider sandbox.",
                tool_calls=(
                    ToolCall(
                        "write",
                        {
                            "file_path": "readonly-written.txt",
                            "content": WRITE_CONTENT,
                            "sandbox_permissions": "workspace-write",
                            "justification": "The test must write into the workspace.",
                        },
                    ),
                ),
            ),
            _final("The write attempt is finished."),
        ),
        description="write tool asking for workspace-write (for read-only mode), then an answer",
    ),
    "ask": Script(
        steps=(
            Step(
                tool_calls=(
                    ToolCall(
                        "ask_user_question",
                        {
                            "questions": [
                                {
                                    "id": "color",
                                    "question": "Which color?",
                                    "header": "Color",
                                    "options": [{"label": "Red"}, {"label": "Blue"}],
                                }
                            ]
                        },
                    ),
                ),
            ),
            _final("Thanks for answering."),
        ),
        description="ask_user_question call (unknown tool in the stock profile), then an answer",
    ),
    "subagent": Script(
        steps=(
            Step(
                tool_calls=(
                    ToolCall("subagent", {"description": "child task", "prompt": CHILD_PROMPT}),
                ),
            ),
            _subagent_interim,
            _final(SUBAGENT_FINAL),
        ),
        description="subagent call (child scenario 'child'), interim text, final text after "
        "the subagent-settled notice",
    ),
    "child": Script(
        steps=(_child_answer,),
        description="the subagent child's answer, sent after its parent's turn has ended",
    ),
    "long": Script(
        steps=(_long_step,),
        description=f"one answer in [[chunks:N]] text deltas (default {LONG_DEFAULT_CHUNKS})",
    ),
    "slow": Script(
        steps=(_slow_step,),
        description=f"one answer in [[chunks:N]] deltas (default {SLOW_DEFAULT_CHUNKS}), "
        f"[[chunk-delay:S]] apart (default {SLOW_DEFAULT_CHUNK_DELAY} s)",
    ),
    "http400": Script(
        steps=(_failing(_E400, "Recovered after an invalid request.", None),),
        description="HTTP 400 invalid_request_error on every attempt ([[fail-times:N]])",
    ),
    "http429": Script(
        steps=(_failing(_E429, "Recovered after a rate limit.", 1),),
        description="HTTP 429 (retry-after: 0) on the first attempt ([[fail-times:N]]), "
        "then an answer",
    ),
    "http429-always": Script(
        steps=(_failing(_E429, "Recovered after a rate limit.", None),),
        description="HTTP 429 (retry-after: 0) on every attempt",
    ),
    "http500": Script(
        steps=(_failing(_E500, "Recovered after a server error.", 1),),
        description="HTTP 500 api_error on the first attempt ([[fail-times:N]]), then an answer",
    ),
    "http500-always": Script(
        steps=(_failing(_E500, "Recovered after a server error.", None),),
        description="HTTP 500 api_error on every attempt (the runtime gives up after ~17 s)",
    ),
    "notebook-inspect": Script(
        steps=(
            _notebook_inspect,
            _final("I described the variable from your kernel (see the tool result)."),
        ),
        description="the notebook MCP tool describe_variable on [[var:NAME]] (default df), then an answer",
    ),
    "notebook-analyze": Script(
        steps=(
            _notebook_analyze,
            _final(
                "`region_totals` now holds the total per region, largest first, in your kernel."
            ),
        ),
        description="the notebook MCP tool run_python: region_totals = [[var:NAME]].groupby([[by:]])"
        "[[[column:]]].sum(), then an answer",
    ),
    "notebook-two-calls": Script(
        steps=(
            _run_python_step(
                "First I make the rows (asks for your approval).", AGENT_CELLS_CODE[0]
            ),
            _run_python_step("Now the total and a plot.", AGENT_CELLS_CODE[1]),
            _final("`agent_rows` and `agent_total` are in your kernel."),
        ),
        description="two notebook run_python calls (agent_rows, then agent_total and a "
        "figure), then an answer",
    ),
    "notebook-calls": Script(
        steps=(notebook_calls_step,),
        description="notebook_cells, then each notebook tool call of the JSON list after the "
        'marker ([{"tool": "edit_cell", "args": {"cell_id": "@2", ...}}], "@N": the id of cell '
        "N), one per step, then the first line of every result",
        repeat_last=True,
    ),
    "plan": Script(
        steps=(_plan_write(0), _plan_write(1), _plan_final),
        description="todo_write of three steps (the first in progress), then the first done and "
        "the second in progress, then an answer; [[plan-delay:S]] waits S seconds before each "
        "later reply",
    ),
    "plan-review": Script(
        steps=(
            Step(tool_calls=(ToolCall("exit_plan_mode", {"plan": PLAN_REVIEW}),)),
            Step(text=PLAN_REVIEW_DONE),
        ),
        description="exit_plan_mode presenting a markdown plan for review (in a %%dsh --plan "
        "run), then an answer",
    ),
    "unknown-tool": Script(
        steps=(
            Step(
                text="Calling a tool that does not exist.",
                tool_calls=(ToolCall("no_such_tool", {}),),
            ),
            _final("That tool does not exist."),
        ),
        description="call of a tool named no_such_tool, then an answer",
    ),
}

#: The built-in scripts by name (read-only).
BUILTIN_SCRIPTS: Final[Mapping[str, Script]] = MappingProxyType(_BUILTINS)


def default_registry() -> ScriptRegistry:
    """A new registry holding the built-in scripts (changes to it affect only itself)."""
    return ScriptRegistry(BUILTIN_SCRIPTS)
