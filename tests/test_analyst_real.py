"""The demo analyst end to end: a real ipykernel without an API key (so the kernel's own demo
model), the real runtime, its sandbox and tools, approvals and questions answered on stdin.

The data is made here and unlike the shipped notebooks' (other frame, column and group names,
groups of different sizes, missing weeks); every expected answer is computed here independently,
in plain Python, and the analyst's answer must contain it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.analyst import HELP, REJECTED
from dsh_notebook.analyst.compose import REFUSED, fmt
from dsh_notebook.kernel.demo import DEMO_LABEL
from dsh_notebook.notebook_tools.refusals import NO_APPROVER_MESSAGE

from .kernels import Execution, Kernel

pytestmark = [pytest.mark.real_runtime]

WARDS = {"Amber": range(1, 7), "Birch": range(1, 5), "Cedar": range(2, 7), "Dune": range(1, 7)}


def _admissions(ward: str, week: int, copy: int) -> int:
    base = {"Amber": 10 + 3 * week, "Birch": 40 - 2 * week, "Cedar": 5 + (week * week) % 7,
            "Dune": 20 + (week % 2) * 5}[ward]  # fmt: skip
    return base + copy


ROWS = [
    {"ward": ward, "week": week, "admissions": _admissions(ward, week, copy), "beds": 30 + (i % 11)}
    for i, (ward, week, copy) in enumerate(
        (w, k, c) for w, weeks in WARDS.items() for k in weeks for c in range(1 + k % 2)
    )
]


def totals(column: str, rows: list[dict[str, object]] = ROWS) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for row in rows:
        out[str(row["ward"])] += int(row[column])  # type: ignore[call-overload]
    return dict(out)


def slopes() -> dict[str, float]:
    """Least-squares slope of weekly admissions per ward, x = position among all weeks."""
    weeks = sorted({int(r["week"]) for r in ROWS})  # type: ignore[call-overload]
    out = {}
    for ward in WARDS:
        sums: dict[int, int] = defaultdict(int)
        for r in ROWS:
            if r["ward"] == ward:
                sums[int(r["week"])] += int(r["admissions"])  # type: ignore[call-overload]
        xs = [float(weeks.index(w)) for w in sorted(sums)]
        ys = [float(sums[w]) for w in sorted(sums)]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        out[ward] = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
            (x - mx) ** 2 for x in xs
        )
    return out


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    root = Path(tempfile.mkdtemp(prefix="dsh-analyst-"))
    (root / "ws").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPSEEK_", "DSH_"))}
    if os.environ.get("DSH_RUNTIME_BIN"):
        env["DSH_RUNTIME_BIN"] = os.environ["DSH_RUNTIME_BIN"]
    env.update(DSH_HOME=str(root / "home"), DSH_AGENTS_HOME=str(root / "agents"),
               DSH_TELEMETRY_MODE="DISABLED", MPLBACKEND="agg")  # fmt: skip
    k = Kernel(env=env, cwd=str(root / "ws"))
    try:
        setup = k.execute(
            "%load_ext dsh_notebook\nimport pandas as pd\n"
            f"wardlog = pd.DataFrame({ROWS!r})\nwardlog.to_csv('wards.csv', index=False)"
        )
        assert setup.error is None, setup.error
        yield k
    finally:
        k.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def ask(k: Kernel, prompt: str, *, options: str = "", answers: list[str] | None = None) -> tuple[Execution, str]:  # fmt: skip
    cell = k.execute(
        f"%%dsh --wait --format text {options}\n{prompt}",
        allow_stdin=answers is not None,
        stdin_answers=answers,
        timeout=120,
    )
    assert cell.error is None, cell.error
    shown = [m for m in cell.outputs if m["msg_type"] in ("display_data", "update_display_data")]
    text = str(shown[-1]["content"]["data"]["text/plain"])
    assert DEMO_LABEL in text and "finish reason: completed" in text, text[-2000:]
    final = k.execute("print(_dsh.result().final_response)")
    assert final.error is None, final.error
    return cell, final.stdout


def test_totals_per_group_are_the_data_s(kernel: Kernel) -> None:
    _, answer = ask(kernel, "What are the total beds per ward?", options="--on-approval allow")
    expected = totals("beds")
    best = max(expected, key=lambda w: expected[w])
    assert f"**{best}** with {expected[best]:,}" in answer, answer
    for ward, total in expected.items():
        assert f"- {ward}: {total:,}" in answer, answer


@pytest.mark.parametrize(
    ("prompt", "agg"),
    [
        ("What is the max admissions per ward?", "max"),
        ("What is the min admissions per ward?", "min"),
        ("Average beds by ward", "mean"),
        ("What's the median admissions for each ward?", "median"),
        ("Can you give me the total number of admissions for each ward?", "sum"),
        ("How many rows per ward?", "count"),
    ],
)
def test_each_statistic_per_group_is_the_one_pandas_computes(
    kernel: Kernel, prompt: str, agg: str
) -> None:
    import pandas as pd

    cell, answer = ask(kernel, prompt, options="--on-approval allow")
    frame = pd.DataFrame(ROWS)
    grouped = frame.groupby("ward")
    expected = (
        grouped.size()
        if agg == "count"
        else getattr(grouped["beds" if agg == "mean" else "admissions"], agg)()
    )
    for ward, value in expected.items():
        assert f"- {ward}: {fmt(round(float(value), 2))}" in answer, answer
    pick = max if agg != "min" else min
    best = pick(expected.index, key=lambda w: expected[w])
    assert f"**{best}** with {fmt(round(float(expected[best]), 2))}" in answer, answer
    code = cell.outputs[-1]["content"]["data"]["text/plain"]
    assert 'wardlog.groupby("ward")' in code or 'wardlog["ward"].value_counts()' in code
    assert "_dsh_analyst" not in code and "DSH-ANALYST" not in code


def test_the_fastest_growing_and_the_shrinking_group(kernel: Kernel) -> None:
    _, answer = ask(
        kernel,
        "Which ward grows fastest in admissions, and which one is shrinking?",
        options="--on-approval allow",
    )
    expected = {w: round(s, 2) for w, s in slopes().items()}

    def signed(slope: float) -> str:
        return ("+" if slope > 0 else "") + fmt(slope)

    fastest = max(expected, key=lambda w: expected[w])
    assert f"**{fastest}** grows fastest ({signed(expected[fastest])} per week)" in answer, answer
    for ward, slope in expected.items():
        word = "growing" if slope > 0 else "declining"
        assert f"**{ward}**: {word}, {signed(slope)} per week" in answer, answer
    shrinking = sorted((s, w) for w, s in expected.items() if s < 0)
    assert shrinking, "the test data must have a shrinking ward"
    named = ", ".join(f"**{w}** ({signed(s)} per week)" for s, w in sorted(shrinking, reverse=True))
    assert f"Declining: {named}." in answer, answer


def test_top_n_within_a_subset_the_question_names(kernel: Kernel) -> None:
    _, answer = ask(kernel, "Top 3 rows by admissions in week 5", options="--on-approval allow")
    values = sorted((int(r["admissions"]) for r in ROWS if r["week"] == 5), reverse=True)  # type: ignore[call-overload]
    assert "(rows where `week` = 5)" in answer, answer
    lines = [line for line in answer.splitlines() if line.startswith("- ")]
    assert [int(line[2:].split(" ")[0]) for line in lines] == values[:3], answer


def test_an_ambiguous_column_becomes_a_question_then_the_answer(kernel: Kernel) -> None:
    # wardlog has two value columns: "which ward had most" must ask which one
    cell, answer = ask(kernel, "Which ward had the most?", answers=["1", "y"])
    assert "Which column should I use?" in cell.stdin_prompts[0]
    assert "1. admissions" in cell.stdin_prompts[0] and "2. beds" in cell.stdin_prompts[0]
    assert "allow run_python" in cell.stdin_prompts[1]
    expected = totals("admissions")
    best = max(expected, key=lambda w: expected[w])
    assert answer.startswith("I summed `admissions` per `ward`"), answer
    assert f"The largest is **{best}** with {expected[best]:,}." in answer, answer


def test_a_rejected_approval_is_acknowledged_truthfully(kernel: Kernel) -> None:
    kernel.execute("marker = 'untouched'")
    cell, answer = ask(kernel, "Plot admissions per ward", options="--on-approval reject")
    # a policy refused it, not the person: the answer says nobody can approve here
    assert REFUSED[NO_APPROVER_MESSAGE] in answer, answer
    assert REJECTED not in answer and "you rejected" not in answer.lower()
    assert "approval for run_python: rejected" in cell.outputs[-1]["content"]["data"]["text/plain"]
    assert kernel.value("marker") == "'untouched'"
    assert kernel.value("'_dsh_analyst' in globals()") == "False"


def test_a_plot_is_drawn_by_approved_code(kernel: Kernel) -> None:
    cell, answer = ask(kernel, "Plot beds per ward", options="--on-approval allow")
    shown = cell.outputs[-1]["content"]["data"]["text/plain"]
    assert 'wardlog.groupby("ward")["beds"].sum()' in shown and ".plot.bar(" in shown
    assert "1 figure(s) attached as PNG" in shown
    assert "Drew a bar chart of the total `beds` per `ward` in your kernel" in answer
    for ward, total in totals("beds").items():
        assert f"- {ward}: {total:,}" in answer, answer
    _, weekly = ask(kernel, "Plot admissions per ward over week", options="--on-approval allow")
    assert "Drew a line chart of the total `admissions` per `ward` over `week`" in weekly


def test_a_script_is_written_and_run_and_its_output_shown_once(kernel: Kernel) -> None:
    cell, answer = ask(
        kernel, "Write wardsum.py: it reads wards.csv and prints the total admissions per ward"
    )
    expected = totals("admissions")
    shown = cell.outputs[-1]["content"]["data"]["text/plain"]  # the run's transcript
    for ward, total in expected.items():
        # the script's output is the bash result; the answer says what it means, not it again
        assert shown.count(f"{ward}: {total:,}") == 1 and f"{ward}: {total:,}" not in answer
    assert f"printed {len(expected)} values (the `bash` result above)" in answer, answer
    best = max(expected, key=lambda w: expected[w])
    assert f"The largest is **{best}** with {expected[best]:,}." in answer
    assert kernel.value("open('wardsum.py').read().startswith('\"\"\"Total admissions')") == "True"
    _, again = ask(kernel, "Run wardsum.py and tell me which ward had the fewest admissions")
    worst = min(expected, key=lambda w: expected[w])
    assert f"The smallest is **{worst}** with {expected[worst]:,}." in again


def test_outside_its_set_it_says_what_it_can_do(kernel: Kernel) -> None:
    cell, answer = ask(kernel, "Write a haiku about hospitals")
    assert answer.strip() == HELP
    assert "tool" not in cell.outputs[-1]["content"]["data"]["text/plain"].split("Prompt:")[1]


def test_in_the_background_a_subagent_does_the_part_and_its_report_is_quoted(
    kernel: Kernel,
) -> None:
    kernel.execute("gaps = wardlog.copy()\ngaps.loc[[1, 4, 7], 'beds'] = None")
    cell, answer = ask(kernel, "In the background, check gaps for missing values")
    text = cell.outputs[-1]["content"]["data"]["text/plain"]
    assert "[tool] subagent · done" in text and "[subagent] Check gaps for missing values" in text
    expected = f"Missing values in `gaps` ({len(ROWS)} rows): `beds` 3."
    assert answer.startswith("The subagent finished. Its report:")
    assert f"> {expected}" in answer, answer
    # the same transcript every run: the child's report was held until the runtime said the
    # parent's first turn had ended (its session.status, fed to the demo model), so the
    # settled notice always starts a second turn, however slow the runtime is
    assert " · 2 turns · " in text.splitlines()[0], text.splitlines()[0]
    demo = "get_ipython()._dsh_notebook_magics.agent.demo._server"
    assert int(kernel.value(f"{demo}.idle_releases")) >= 1


def test_ask_dsh_on_a_key_error_explains_the_missing_column(kernel: Kernel) -> None:
    failed = kernel.execute('wardlog.groupby("Ward")["beds"].sum().plot()')
    assert failed.error is not None
    count = failed.reply.get("execution_count") or failed.reply["content"]["execution_count"]
    prompt = "\n".join([
        f"Cell In[{count}] raised an error. Explain what went wrong and how to fix it.", "",
        "The code:", "```python", f"{{In[{count}]}}", "```", "", "The error:", "```",
        f"{{Err[{count}]}}", "```",
    ])  # fmt: skip
    cell, answer = ask(kernel, prompt)
    assert answer.startswith("`KeyError: 'Ward'`: there is no column `Ward` in `wardlog`"), answer
    assert "Similar columns: `ward`." in answer
    assert 'wardlog.groupby("ward")["beds"].sum().plot()' in answer
    assert "run_python" not in cell.outputs[-1]["content"]["data"]["text/plain"]
