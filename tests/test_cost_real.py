"""The estimated cost (issue 46 item 5), in a real ipykernel against the real runtime and the
scripted model: the transcript's footer and ``%dsh sessions`` show the run's cost from the
runtime's token counts and the documented price table, labelled an estimate with the table's
date; ``DshMagics.prices`` replaces a model's rates; a bad table is a one-line error."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.transcript.pricing import DEFAULT_PRICES, PRICES_AS_OF, format_usd

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def _footer(markdown: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith("**settled**"))


def _run(kernel: Kernel, prompt: str) -> str:
    cell = kernel.execute(f"%%dsh --wait --format markdown\n{prompt}")
    assert cell.error is None, cell.error
    return "".join(
        str(m["content"]["data"].get("text/markdown", ""))
        for m in cell.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
    )


def test_the_cost_line_is_the_token_counts_times_the_price_table(kernel: Kernel) -> None:
    footer = _footer(_run(kernel, "[[scenario:plain]] hello"))
    used = re.search(r"(\d+) input · (\d+) output · (\d+) total tokens", footer)
    assert used is not None, footer
    inputs, outputs = int(used.group(1)), int(used.group(2))
    price = DEFAULT_PRICES["deepseek-flash"]
    usd = (inputs * price.input + outputs * price.output) / 1_000_000
    expected = f"{format_usd(usd)} estimated (deepseek-flash prices of {PRICES_AS_OF})"
    assert expected.replace("<", "&lt;") in footer, footer

    sessions = kernel.execute("%dsh sessions").stdout
    assert f"last run {format_usd(usd)} (estimated)" in sessions, sessions

    kernel.execute(
        '%config DshMagics.prices = \'{"deepseek-flash": {"input": 1000, "cached_input": 0, '
        '"output": 2000, "as_of": "2026-12-04"}}\''
    )
    footer = _footer(_run(kernel, "[[scenario:plain]] again"))
    mine = (inputs * 1000 + outputs * 2000) / 1_000_000
    assert f"{format_usd(mine)} estimated (deepseek-flash prices of 2026-12-04)" in footer
    sessions = kernel.execute("%dsh sessions").stdout
    assert f"last run {format_usd(mine)}, all runs {format_usd(mine + usd)} (estimated)" in sessions

    kernel.execute('%config DshMagics.prices = \'{"deepseek-flash": {"input": 1}}\'')
    bad = kernel.execute("%%dsh --wait\n[[scenario:plain]] once more")
    assert bad.reply["ename"] == "UsageError"
    said = bad.reply["evalue"]
    assert said.startswith("DshMagics.prices: ") and "needs input, cached_input, output" in said
    assert len(said.strip().splitlines()) == 1
