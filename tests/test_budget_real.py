"""Run budgets in a real ipykernel against the real runtime and the scripted model (issue 46
item 4): ``--max-tokens`` stops a six-step run after the step that crossed it and ``--max-time``
a slow one, each at a step boundary, with fewer model requests than the script has steps; the
transcript says which budget stopped the run and what it spent; the steps before stay (a later
prompt in the session sends them to the model). There is no cancel on the wire (runtime notes
§4), so the stop is the one ``%dsh stop`` makes: the runtime restarts, sessions resumed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

STEPS = 6


def _six_steps(delay: float) -> Script:
    """Five steps that each say a line and call ``glob``, then an answer; 1,100 tokens each."""
    work = tuple(
        Step(
            text=f"budget step {i} done",
            tool_calls=(ToolCall("glob", {"pattern": f"*.step{i}"}),),
            input_tokens=1000,
            output_tokens=100,
            delay=delay,
        )
        for i in range(1, STEPS)
    )
    return Script(steps=(*work, Step(text="All six steps done.", delay=delay)))


SCRIPTS = {"six-steps": _six_steps(0.0), "slow-six": _six_steps(1.5)}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def _shown(outputs: list[dict[str, object]]) -> str:
    """The last markdown the cell displayed (the settled transcript)."""
    shown = [
        str(m["content"]["data"].get("text/markdown", ""))  # type: ignore[index,union-attr]
        for m in outputs
        if m["msg_type"] in ("display_data", "update_display_data")
    ]
    return shown[-1] if shown else ""


def _requests(model: ScriptedModelServer, scenario: str) -> int:
    return sum(1 for r in model.requests if r.scenario == scenario)


def test_a_token_budget_stops_a_six_step_run_after_the_step_that_crossed_it(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    cell = kernel.execute(
        "%%dsh --max-tokens 2500 --wait --format markdown\n[[scenario:six-steps]] work in steps"
    )
    assert cell.error is None, cell.error
    shown = _shown(cell.outputs)
    spent = re.search(r"Stopped by the token budget: ([\d,]+) tokens spent \(--max-tokens 2,500\)",
                      shown)  # fmt: skip
    assert spent is not None, shown
    # step 3 crossed it (3 x 1,100 tokens); the stop comes before the model is asked again, or
    # at worst while the runtime sends the request of step 4 (its glob takes milliseconds)
    assert 3300 <= int(spent.group(1).replace(",", "")) < 4400, spent.group(0)
    asked = _requests(scripted_model, "six-steps")
    assert 3 <= asked <= 4 < STEPS, asked
    assert "budget step 3 done" in shown  # the partial work stays in the transcript
    assert "All six steps done." not in shown
    assert "the runtime exited" not in shown  # a stop, not an error

    # the steps before the stop stay in the session: the next prompt sends them to the model
    after = kernel.execute("%%dsh --wait --format markdown\nwhat did you do?")
    assert after.error is None, after.error
    last = [r.body for r in scripted_model.requests if r.scenario == "plain" and r.body][-1]
    sent = json.dumps(last)
    assert "budget step 1 done" in sent and "budget step 3 done" in sent


def test_a_time_budget_stops_a_slow_run(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    cell = kernel.execute(
        "%%dsh --max-time 2.5 --wait --format markdown\n[[scenario:slow-six]] slow steps"
    )
    assert cell.error is None, cell.error
    shown = _shown(cell.outputs)
    spent = re.search(r"Stopped by the time budget: ([\d.]+) s spent \(--max-time 2.5 s\), "
                      r"[\d,]+ tokens\.", shown)  # fmt: skip
    assert spent is not None, shown
    assert float(spent.group(1)) >= 2.5
    # each step takes 1.5 s: stopped after the 2nd (the 1st under heavy load), never all six
    asked = _requests(scripted_model, "slow-six")
    assert 1 <= asked <= 3 < STEPS, asked
    assert "budget step 1 done" in shown
    assert "All six steps done." not in shown


def test_a_budget_of_zero_is_a_one_line_usage_error(kernel: Kernel) -> None:
    cell = kernel.execute("%%dsh --max-tokens 0\nhi")
    assert cell.reply["ename"] == "UsageError"  # IPython prints it as one line on stderr
    message = "--max-tokens takes a positive whole number of tokens, not '0'"
    assert cell.stderr == f"UsageError: {message}\n"


def test_the_kernel_budget_stops_the_run_that_crosses_it_then_refuses(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    kernel.execute("%config DshMagics.max_kernel_tokens = 2500")
    since = _requests(scripted_model, "six-steps")
    cell = kernel.execute("%%dsh --wait --format markdown\n[[scenario:six-steps]] work in steps")
    assert cell.error is None, cell.error
    shown = _shown(cell.outputs)
    crossed = re.search(r"Stopped by the kernel's token budget: ([\d,]+) tokens spent by this "
                        r"kernel \(DshMagics\.max\\?_kernel\\?_tokens 2,500\)", shown)  # fmt: skip
    assert crossed is not None, shown  # (the markdown escapes the underscores)
    assert 3 <= _requests(scripted_model, "six-steps") - since <= 4 < STEPS
    later = kernel.execute("%%dsh --wait\nanything else?")
    assert later.reply["ename"] == "UsageError"
    assert later.stderr.startswith("UsageError: this kernel spent its token budget: ")
    assert later.stderr.endswith(
        "(DshMagics.max_kernel_tokens 2,500); raise it or restart the kernel\n"
    )
