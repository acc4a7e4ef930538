"""The demo analyst's reading contract end to end (issue 47): a real ipykernel without an API key
(the kernel's own demo model), the real runtime, its sandbox and tools, approvals allowed.

The frames are the question set's (:mod:`tests.frame_questions`), made in the kernel from the same
functions; every answer is judged against pandas by the set's own judge.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.kernel.demo import DEMO_LABEL

from . import frame_questions
from .frame_questions import QUESTIONS, judge
from .kernels import Kernel

pytestmark = [pytest.mark.real_runtime]


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    root = Path(tempfile.mkdtemp(prefix="dsh-reading-"))
    (root / "ws").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPSEEK_", "DSH_"))}
    if os.environ.get("DSH_RUNTIME_BIN"):
        env["DSH_RUNTIME_BIN"] = os.environ["DSH_RUNTIME_BIN"]
    env.update(DSH_HOME=str(root / "home"), DSH_AGENTS_HOME=str(root / "agents"),
               DSH_TELEMETRY_MODE="DISABLED", MPLBACKEND="agg")  # fmt: skip
    k = Kernel(env=env, cwd=str(root / "ws"))
    try:
        makers = "".join(
            inspect.getsource(make) for make in (frame_questions.trips, frame_questions.orders)
        )
        setup = k.execute(
            f"%load_ext dsh_notebook\nfrom typing import Any\n{makers}\n"
            "trips, orders = trips(), orders()"
        )
        assert setup.error is None, setup.error
        yield k
    finally:
        k.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def ask(k: Kernel, prompt: str) -> tuple[str, str]:
    """(the run's transcript as text, the final answer) for ``prompt``."""
    cell = k.execute(f"%%dsh --wait --format text --on-approval allow\n{prompt}", timeout=120)
    assert cell.error is None, cell.error
    shown = [m for m in cell.outputs if m["msg_type"] in ("display_data", "update_display_data")]
    text = str(shown[-1]["content"]["data"]["text/plain"])
    assert DEMO_LABEL in text and "finish reason: completed" in text, text[-2000:]
    final = k.execute("print(_dsh.result().final_response)")
    assert final.error is None, final.error
    return text, final.stdout


@pytest.mark.parametrize(
    "prompt",
    [
        "How many trips were longer than 30 minutes?",  # a numeric condition, never dropped
        "Which month had the fewest trips?",  # a grain of a datetime, the group and the next
        "How is the number of orders per region changing per month?",  # slopes over a date text
        "Plot the number of trips per month",  # the aggregate drawn, axes named
    ],
)
def test_a_question_is_answered_as_read(kernel: Kernel, prompt: str) -> None:
    question = next(q for q in QUESTIONS if q.prompt == prompt)
    transcript, answer = ask(kernel, prompt)
    verdict, why = judge(question, answer, [transcript])
    assert verdict == "right", f"{why}\n\n{answer}\n\n{transcript[-3000:]}"
    assert "run_python" in transcript


def test_a_part_it_cannot_read_is_named_and_nothing_runs(kernel: Kernel) -> None:
    transcript, answer = ask(kernel, "How many trips happened during rush hour?")
    assert "I could not use 'rush', 'hour'" in answer, answer
    assert "so I computed nothing" in answer and "**" not in answer
    assert "run_python" not in transcript.split("Prompt:")[-1]
