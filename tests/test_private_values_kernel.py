"""A private value never reaches the model on any path, and the model is told why (issue 49
item 1, the values): a real ipykernel with ``DshMagics.private = ['payroll*', '*_secret']``, the
real runtime, the scripted model recording every request. The model lists the variables,
describes ``payroll``, runs approved code that prints both private values, and each answer
names them private or masked; the context block names what is withheld; a prompt that
references ``{payroll}`` is refused with one line and never sent. Before the setting existed each
value reached the model (the listing's preview, the description, the printed output, the cell
that made it). Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .kernels import Kernel, identity, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

PAYROLL = "PAYROLL-CANARY-93817"
DB_SECRET = "s3cr3t-canary-value-771"
CANARIES = (PAYROLL, DB_SECRET, "93817", "canary-value")


def call(tool: str, **args: object) -> Step:
    return Step(tool_calls=(ToolCall(public_tool_name(tool), dict(args)),))


SCRIPTS = {
    "private-probe": Script(
        steps=(
            call("notebook_variables"),
            call("describe_variable", name="payroll"),
            call("run_python", code="print(payroll, db_secret)\nprint(payroll[:14])"),
            Step(text="Done."),
        )
    ),
    "private-reference": Script(steps=(Step(text="never asked"),)),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    setup = "%load_ext dsh_notebook\n%config DshMagics.private = ['payroll*', '*_secret']"
    with scripted_kernel(
        tmp_path, scripted_model.base_url, setup=setup, allow_stdin=True,
        metadata=identity("setup"),
    ) as k:  # fmt: skip
        yield k


def test_a_private_value_never_reaches_the_model_and_it_is_told_why(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    made = kernel.execute(
        f"payroll = {PAYROLL!r}\ndb_secret = {DB_SECRET!r}\nsales = [1, 2, 3]",
        metadata=identity("data"),
    )
    assert made.error is None, made.error
    run = kernel.execute(
        "%%dsh --wait --on-approval allow -s private\n[[scenario:private-probe]] what is there?",
        metadata=identity("probe"),
    )
    assert run.error is None, run.error
    bodies = [r.body for r in scripted_model.requests if r.scenario == "private-probe"]
    assert len(bodies) == 4, len(bodies)
    sent = json.dumps(bodies, ensure_ascii=False)
    assert [c for c in CANARIES if c in sent] == []

    def results(body: dict[str, object]) -> str:
        return json.dumps(body["messages"][-1], ensure_ascii=False)  # type: ignore[index]

    listing, described, printed = results(bodies[1]), results(bodies[2]), results(bodies[3])
    assert "payroll | str | private | private | (withheld)" in listing, listing
    assert "db_secret | str | private" in listing and "sales | list" in listing
    assert "is private" in described and "Do not ask for it" in described, described
    assert printed.count("[masked: private payroll]") == 2, printed
    assert "[masked: private db_secret]" in printed
    first = json.dumps(bodies[0]["messages"][-1], ensure_ascii=False)
    assert "Private (withheld from you by the user" in first and "`payroll`" in first, first

    # the person sees the same in --show-context (what is withheld), and a reference is refused
    shown = kernel.execute("%%dsh --show-context -s private\nand now?", metadata=identity("show"))
    assert "Private (withheld from you by the user" in shown.stdout + str(shown.outputs)
    refused = kernel.execute(
        "%%dsh --wait -s private\n[[scenario:private-reference]] sum {payroll}",
        metadata=identity("ref"),
    )
    assert refused.reply["status"] == "error", refused.reply  # a one-line UsageError
    assert refused.reply["evalue"].startswith("{payroll} is private"), refused.reply
    time.sleep(0.5)
    assert not [r for r in scripted_model.requests if r.scenario == "private-reference"]
