"""The API key never reaches the model through the notebook tools, end to end: a real ipykernel
whose cells printed ``DEEPSEEK_API_KEY``, hold it in variables and raised with it; the real
runtime calls every notebook tool for the scripted model; neither the tool results the runtime
reports nor the requests the scripted model received hold the key or a piece of it. A key typed
later with ``%dsh key`` is masked too. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

KEY = "sk-test-secret-123"
TYPED = "sk-later-key-7890"  # no 8-character piece in common with KEY

CELLS = (
    "import os\nprint(os.environ['DEEPSEEK_API_KEY'])\nos.environ['DEEPSEEK_API_KEY']",
    "token = os.environ['DEEPSEEK_API_KEY']\nsettings = {'api_key': token, 'model': 'flash'}\n"
    "padded = 'x' * 70 + token",
    "raise ValueError('the provider refused ' + token)",
)


def call(tool: str, **arguments: Any) -> Step:
    return Step(tool_calls=(ToolCall(public_tool_name(tool), arguments),))


SCRIPTS = {
    "mask-all": Script(
        steps=(
            call("notebook_history", n=10),
            call("notebook_variables"),
            call("describe_variable", name="token"),
            call("describe_variable", name="settings"),
            call("notebook_cells"),  # no page (no stdin): the history instead, saying so
            call(
                "run_python", code="import sys\nprint(token)\nprint(token, file=sys.stderr)\ntoken"
            ),
            call("run_python", code="def check(k):\n    raise KeyError(k)\ncheck(token)"),
            Step(text="done"),
        )
    ),
    "typed-key": Script(
        steps=(call("notebook_variables"), call("notebook_history", n=10), Step(text="done"))
    ),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(
        tmp_path,
        scripted_model.base_url,
        setup="%load_ext dsh_notebook\n%config DshMagics.default_format = 'text'",
        api_key=KEY,
    ) as k:
        yield k


def assert_no_key(text: str, key: str) -> None:
    """Neither ``key`` nor any 8-character piece of it is in ``text``."""
    assert key not in text
    for i in range(len(key) - 7):
        assert key[i : i + 8] not in text, (key[i : i + 8], text[:2000])


def tool_results(k: Kernel) -> list[str]:
    """Each tool result's text of the last run, as the runtime reported it to the kernel."""
    listed = k.value(
        "__import__('json').dumps([''.join(b.get('text', '') for b in e.data['message']['content'])"
        " for e in _dsh.result(30).events if e.type == 'tool/result'])"
    )
    texts: list[str] = json.loads(ast.literal_eval(listed))  # the repr of the kernel's JSON
    return texts


def model_received(scripted_model: ScriptedModelServer, scenario: str) -> str:
    """Every request body the scripted model received for ``scenario``, as JSON text."""
    bodies = [r.body for r in scripted_model.requests if r.scenario == scenario]
    assert bodies, f"the model never got a {scenario} request"
    return "\n".join(json.dumps(body, ensure_ascii=False) for body in bodies)


def test_no_notebook_tool_result_carries_the_key_to_the_model(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    first = kernel.execute(CELLS[0])
    assert KEY in first.stdout  # the person's own cell shows it: that is their business
    assert kernel.execute(CELLS[1]).error is None
    assert kernel.execute(CELLS[2]).error is not None
    run = kernel.execute("%%dsh --wait --on-approval allow\n[[scenario:mask-all]] go")
    assert run.error is None, run.error
    results = tool_results(kernel)
    assert len(results) == 7, results
    history, variables, token, settings, cells, printed, raised = results
    for name, text in zip(
        ("history", "variables", "token", "settings", "cells", "printed", "raised"),
        results,
        strict=True,
    ):
        assert "[masked: DEEPSEEK_API_KEY]" in text, (name, text)
        assert_no_key(text, KEY)
    assert "Out [2]: [masked: DEEPSEEK_API_KEY]" in history and "ValueError: the provider refused [masked: DEEPSEEK_API_KEY]" in history
    assert "token | str | len 18 |" in variables and "| [masked: DEEPSEEK_API_KEY]\n" in variables
    assert "x" * 70 + "[masked: DEEPSEEK_API_KEY]…" in variables  # the preview's cut left a piece of the key: masked
    assert token == "token: str: 18 chars\n[masked: DEEPSEEK_API_KEY]" and "'api_key': '[masked: DEEPSEEK_API_KEY]'" in settings
    assert "the kernel's execution history instead" in cells
    assert printed.count("[masked: DEEPSEEK_API_KEY]") >= 3  # stdout, stderr and the value
    assert "KeyError: '[masked: DEEPSEEK_API_KEY]'" in raised
    received = model_received(scripted_model, "mask-all")
    assert received.count("[masked: DEEPSEEK_API_KEY]") >= 10
    assert_no_key(received, KEY)


def test_a_key_typed_later_is_masked_too(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """The secrets are asked for at each call: a key typed with ``%dsh key`` while the tools'
    server is already serving is masked from then on."""
    # the person pastes a string into a cell (the tools read the namespace and the history)
    assert kernel.execute(f"mine = {TYPED!r}\nmine").error is None
    before = kernel.execute("%%dsh --wait -s before\n[[scenario:typed-key]] go")
    assert before.error is None, before.error
    assert all(TYPED in text for text in tool_results(kernel))  # not a secret: shown as it is
    typed = kernel.execute("%dsh key", allow_stdin=True, stdin_answers=[TYPED])
    assert typed.error is None and "key set" in typed.stdout, typed.stdout
    scripted_model.clear_requests()
    after = kernel.execute("%%dsh --wait -s after\n[[scenario:typed-key]] go")
    assert after.error is None, after.error
    variables, history = tool_results(kernel)
    assert "mine | str | len 17 | 66 B | [masked: DEEPSEEK_API_KEY]" in variables
    assert "mine = '[masked: DEEPSEEK_API_KEY]'" in history
    for text in (variables, history):
        assert_no_key(text, TYPED)
    assert_no_key(model_received(scripted_model, "typed-key"), TYPED)
