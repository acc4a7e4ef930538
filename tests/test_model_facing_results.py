"""What the model is told by the notebook tools' side (issue 25, points 1, 5, 6, 8, 9, 10), as pure
pieces: the MCP instructions, ``run_python``'s result under its cap, the refusal texts and who
gets which, the person's rejection note (``%dsh reject --note``, the widget's ``note``), the
kernel facts of ``notebook_variables`` and which model routes take images. What the model really
receives through the runtime is checked in ``tests/test_mcp_real_runtime.py``."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from IPython.core.error import UsageError

from dsh_notebook.client.config import takes_images
from dsh_notebook.kernel.entry.commands import COMMANDS
from dsh_notebook.kernel.registry.broker import Broker, RunPolicy
from dsh_notebook.kernel.registry.runs import Runs
from dsh_notebook.kernel.tools.tool_calls import CallOrigins
from dsh_notebook.notebook_tools import refusals
from dsh_notebook.notebook_tools.edits import Refusal
from dsh_notebook.notebook_tools.refusals import (
    CANCELLED_MESSAGE,
    CONNECTION_LOST_MESSAGE,
    NO_APPROVER_MESSAGE,
    NO_RUN_MESSAGE,
    REJECTED_MESSAGE,
    UNMATCHED_MESSAGE,
    refusal_text,
)
from dsh_notebook.notebook_tools.run_python import RunPythonResult
from dsh_notebook.notebook_tools.schemas import INSTRUCTIONS, instructions, tool_definitions
from dsh_notebook.notebook_tools.variables import kernel_facts, notebook_variables
from dsh_notebook.transcript.bounds import clip, truncation_mark
from dsh_notebook.widget import actions

from .helpers.loop_host import LoopHost, approve, tool_call, tools
from .run_registry import hold

# -- 1: the instructions ------------------------------------------------------------------------


def test_the_instructions_teach_the_notebook_and_stay_short() -> None:
    text = INSTRUCTIONS
    for taught in (
        "%%dsh cell",  # the user's message, the reply under it
        "Never read, write or edit the open .ipynb with file tools",
        "never analyse notebook data with bash python",
        "kept as a cell below the prompt",
        "Results are capped at 8,000 characters",
        '"cell N" (position) or "In [k]"',
        # said once here, not in each tool's description (issue 49 item 5)
        "name cells by the id notebook_cells shows; read a cell before changing it",
        "shown to the user as a card (a diff for edits) and waits for their click",
        "refused, nothing changed and the result says why: do not retry the same call",
    ):
        assert taught in text
    assert len(text) <= 1000  # ≈ 240 tokens; today's size is in bench/model_facing_sizes.py
    off = instructions(run_python=False, max_chars=3000)
    assert "run_python" not in off and "3,000 characters" in off


def test_the_run_python_description_says_the_code_becomes_a_cell() -> None:
    (tool,) = [
        t for t in tool_definitions(run_python=True, max_chars=8000) if t.name == "run_python"
    ]
    assert "kept as a cell below the prompt" in (tool.description or "")
    assert "the error always kept" in (tool.description or "")
    assert "The user approves each call" in (tool.description or "")


# -- 5: the error survives the cap ----------------------------------------------------------------

TRACEBACK = (
    "Traceback (most recent call last):\n"
    + "".join(f'  File "<cell>", line {i}, in deep\n    return deep(n - 1)\n' for i in range(80))
    + "KeyError: 'the real cause'"
)


def chatty_failure() -> RunPythonResult:
    stdout = "\n".join(f"row {i:04d} ok" for i in range(400))  # 5,599 characters
    return RunPythonResult(
        stdout=stdout,
        stderr="w" * 2000,
        error=TRACEBACK,
        error_line="KeyError: 'the real cause'",
    )


@pytest.mark.parametrize("cap", [400, 1500, 8000])
def test_a_chatty_failure_keeps_its_error_and_both_ends_of_stdout(cap: int) -> None:
    text = chatty_failure().as_text(cap)
    assert len(text) <= cap
    assert text.endswith("KeyError: 'the real cause'")
    assert "row 0000 ok" in text and "row 0399 ok" in text  # head and tail of stdout
    assert "characters omitted …]" in text  # the one marker spelling
    assert "earlier chars cut" not in text and "[truncated," not in text


def test_an_exception_line_longer_than_the_room_still_leads_the_error() -> None:
    message = "ValueError: " + "x" * 5000 + " the end"
    result = RunPythonResult(
        stdout="y" * 3000,
        error="Traceback (most recent call last):\n  File x\n" + message,
        error_line=clip(message, 500, head_share=0.5),
    )
    text = result.as_text(1500)
    assert len(text) <= 1500 and "ValueError: xxx" in text and text.endswith(" the end")


def test_clip_is_bounded_and_uses_the_transcript_marker() -> None:
    for limit in (60, 100, 1000):
        for head in (0.0, 0.5, 1.0):
            assert len(clip("z" * 5000, limit, head_share=head)) <= limit
    assert clip("short", 10) == "short"
    assert truncation_mark(10).split("10")[0] in clip("a" * 500, 100)


# -- 10: figures only for a route that takes images ---------------------------------------------


def test_figures_are_said_not_sent_to_a_text_only_route() -> None:
    result = RunPythonResult(figures=[b"\x89PNG"], figure_texts=["Figure (1 axes)"])
    assert result.sends_images(True) and not result.sends_images(False)
    assert "1 figure(s) attached as PNG." in result.as_text(images=True)
    text = result.as_text(images=False)
    assert "1 figure(s) not sent as images: this model route takes no image input" in text
    assert "attached" not in text
    failed = RunPythonResult(figures=[b"\x89PNG"], error="Boom", error_line="Boom")
    assert not failed.sends_images(True) and "not sent as images: the code raised" in (
        failed.as_text()
    )


def test_only_catalogued_image_models_take_images() -> None:
    assert takes_images("deepseek-official", "deepseek-flash")
    assert not takes_images("deepseek-official", "deepseek-v4-pro")
    assert not takes_images("deepseek-official", "some-new-model")
    assert not takes_images("other", "deepseek-flash")


# -- 9: kernel facts ------------------------------------------------------------------------------


def test_notebook_variables_names_the_imports_their_aliases_and_versions() -> None:
    fake = types.ModuleType("fakepandas")
    fake.__version__ = "2.2.3"  # type: ignore[attr-defined]
    sub = types.ModuleType("fakeplot.pyplot")
    top = types.ModuleType("fakeplot")
    top.__version__ = "3.9.2"  # type: ignore[attr-defined]
    sys.modules["fakeplot"] = top
    try:
        ns: dict[str, Any] = {"pd": fake, "plt": sub, "json": __import__("json"), "x": 1}
        text = notebook_variables(ns, max_chars=2000)
    finally:
        del sys.modules["fakeplot"]
    python = ".".join(map(str, sys.version_info[:2]))
    assert text.startswith(f"Kernel: Python {python}.")
    assert "pd = fakepandas 2.2.3" in text and "plt = fakeplot.pyplot (fakeplot 3.9.2)" in text
    assert ", json," in text or "json." in text  # the standard library: no version
    assert "x | int |" in text  # the table follows, unchanged


def test_kernel_facts_are_bounded() -> None:
    ns = {f"m{i}": types.ModuleType(f"module_{i}") for i in range(300)}
    facts = kernel_facts(ns)
    assert "… 260 more" in facts and len(facts) < 1200
    assert len(notebook_variables(ns, max_chars=500)) <= 500


# -- 6: honest refusals ---------------------------------------------------------------------------


def test_each_cause_has_its_own_text_and_only_the_person_rejects() -> None:
    texts = {
        "you": refusal_text("rejected", "you"),
        "policy": refusal_text("rejected", "policy"),
        "runtime": refusal_text("cancelled", "runtime"),
        "timeout": refusal_text("rejected", "timeout"),
        "connection-lost": refusal_text("rejected", "connection-lost"),
    }
    assert texts == {
        "you": REJECTED_MESSAGE,
        "policy": NO_APPROVER_MESSAGE,
        "runtime": CANCELLED_MESSAGE,
        "timeout": CANCELLED_MESSAGE,
        "connection-lost": CONNECTION_LOST_MESSAGE,
    }
    every = [REJECTED_MESSAGE, NO_APPROVER_MESSAGE, CANCELLED_MESSAGE, CONNECTION_LOST_MESSAGE,
             NO_RUN_MESSAGE, UNMATCHED_MESSAGE]  # fmt: skip
    assert len(set(every)) == len(every)
    assert [t for t in every if "user rejected" in t] == [REJECTED_MESSAGE]
    assert "Do not call run_python again in this run" in NO_APPROVER_MESSAGE
    note = refusal_text("rejected", "you", '  use the "2024" sheet  ')
    assert note == f'{REJECTED_MESSAGE} The user\'s note: "use the "2024" sheet"'


@pytest.fixture
def loop_host() -> Iterator[LoopHost]:
    h = LoopHost()
    yield h
    h.stop()


async def decided(
    host: LoopHost, policy: RunPolicy, decide: Any = None
) -> Refusal | Any:  # the verdict the tools host hands the server
    runs = Runs()
    hold(runs, "nb", policy)
    origins = CallOrigins()
    origins.observe(tool_call("nb", "1", "work()"))
    tools_host, broker = tools(host, runs, origins)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            verdict: list[Any] = []

            async def call() -> None:
                verdict.append(await approve(tools_host, "work()"))

            tg.start_soon(call)
            if decide is not None:
                while not broker.pending:
                    await anyio.sleep(0.01)
                (pending,) = broker.pending.values()
                decide(broker, pending.key)
    return verdict[0]


@pytest.mark.anyio
@pytest.mark.asyncio_only
@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (RunPolicy(on_approval="reject"), NO_APPROVER_MESSAGE),
        (RunPolicy(wait_mode=True), NO_APPROVER_MESSAGE),  # headless: no stdin, default reject
    ],
)
async def test_a_policy_refusal_says_nobody_can_approve(
    loop_host: LoopHost, policy: RunPolicy, expected: str
) -> None:
    assert await decided(loop_host, policy) == Refusal(expected)


@pytest.mark.anyio
@pytest.mark.asyncio_only
async def test_the_persons_note_and_a_lost_connection_reach_the_verdict(
    loop_host: LoopHost,
) -> None:
    def reject(broker: Broker, key: str) -> None:
        assert not broker.decide(key, "rejected", note="x" * (refusals.NOTE_MAX + 1))
        assert not broker.decide(key, "allowed-once", note="why")  # only a rejection has one
        assert broker.decide(key, "rejected", note="Use the cleaned frame `sales2`.")

    verdict = await decided(loop_host, RunPolicy(), reject)
    assert verdict == Refusal(
        f'{REJECTED_MESSAGE} The user\'s note: "Use the cleaned frame `sales2`."'
    )
    lost = await decided(loop_host, RunPolicy(), lambda b, k: b.reject_all("connection-lost"))
    assert lost == Refusal(CONNECTION_LOST_MESSAGE)


def test_the_widget_accepts_a_bounded_note_on_a_rejection_only() -> None:
    assert actions.NOTE_MAX == refusals.NOTE_MAX
    card = {"kind": "approval", "request_id": "a1", "tool_name": "run_python"}
    snapshot: Any = {
        "header": {"state": "waiting"},
        "items": [card],
        "pending": [{"kind": "approval", "request_id": "a1"}],
    }
    base = {"type": "approval", "request_id": "a1"}
    ok = actions.check_action(snapshot, {**base, "decision": "rejected", "note": " not now "})
    assert ok == {**base, "decision": "rejected", "note": "not now"}
    too_long = "n" * (actions.NOTE_MAX + 1)
    for bad in (
        {**base, "decision": "allowed-once", "note": "x"},
        {**base, "decision": "rejected", "note": "   "},
        {**base, "decision": "rejected", "note": too_long},
        {**base, "decision": "rejected", "note": 3},
    ):
        assert isinstance(actions.check_action(snapshot, bad), str)


def test_dsh_reject_takes_a_note() -> None:
    calls: list[tuple[Any, ...]] = []

    class FakeBroker:
        def decide(self, key: str, outcome: str, by: str, **kw: Any) -> bool:
            calls.append((key, outcome, by, kw))
            return True

    agent: Any = SimpleNamespace(broker=FakeBroker())
    COMMANDS["reject"](agent, ["a3", "--note", "wrong table, use sales"])
    assert calls == [
        ("a3", "rejected", "you", {"for_run": False, "note": "wrong table, use sales"})
    ]
    with pytest.raises(UsageError):
        COMMANDS["reject"](agent, ["a3", "--note"])
    with pytest.raises(UsageError):
        COMMANDS["reject"](agent, ["a3", "--note", "n" * (refusals.NOTE_MAX + 1)])
