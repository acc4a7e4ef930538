"""A private cell never reaches the model, and the model is told why (issue 49 item 1, the
cells): a real ipykernel, the real runtime and the scripted model recording every request; the
page is played by this test and is careless on purpose (it sends a ``private`` cell's source and
outputs along with the mark; the extension sends neither). The model reads the notebook
(default, brief and the cell by id), asks to edit the private cell under
``--on-approval allow``: every answer reads "[private cell]", the edit is refused before any
card (the page is never asked to change anything), and the kernel's history names the cell's
run "[private cell]". Before, the cell's code and output reached
the model and the edit went on to its card."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import answers_reads, link_messages, play_page_until
from .kernels import PAGE_CAPABILITIES, Kernel, identity, open_link, page_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(300)]

IDS = (
    "a1a1a1a1-0000-4000-8000-000000000001",
    "b2b2b2b2-0000-4000-8000-000000000002",
    "c3c3c3c3-0000-4000-8000-000000000003",
)
SECRET_SOURCE = "salaries = {'alice': 91234}  # PRIVATE-CELL-CANARY"
SECRET_OUTPUT = "PRIVATE-OUTPUT-CANARY 91234"


def call(tool: str, **args: object) -> Step:
    return Step(tool_calls=(ToolCall(public_tool_name(tool), dict(args)),))


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def test_a_private_cell_never_reaches_the_model_and_it_is_told_why(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    scripted_model.register(
        "private-cell",
        Script(
            steps=(
                call("notebook_cells"),
                call("notebook_cells", brief=True),
                call("notebook_cells", cell_ids=[IDS[1][:8]]),
                call("edit_cell", cell_id=IDS[1][:8], old_text="91234", new_text="0"),
                call("notebook_history", n=5),
                Step(text="done"),
            )
        ),
    )
    counts = []
    for cell_id, code in (
        (IDS[0], "x = 1"),
        (IDS[1], f"{SECRET_SOURCE}\nprint({SECRET_OUTPUT!r})"),
    ):
        ran = kernel.execute(code, metadata={**identity(cell_id), "cellId": cell_id})
        assert ran.error is None, ran.error
        counts.append(int(ran.reply["execution_count"]))
    comm_id = open_link(kernel, (*PAGE_CAPABILITIES, "read_notebook", "edit_cells"))
    page = [
        (IDS[0], "x = 1", counts[0], [], False),
        (IDS[1], SECRET_SOURCE, counts[1], [{"output_type": "stream", "text": SECRET_OUTPUT}], True),
        (IDS[2], "%%dsh --on-approval allow -s private-cells\n[[scenario:private-cell]] go", None,
         [], False),
    ]  # fmt: skip
    start, first = len(kernel.iopub), len(scripted_model.requests)
    run = kernel.execute(page[2][1], allow_stdin=True, metadata=identity(IDS[2]))
    assert run.error is None, run.error
    answer = answers_reads(kernel, comm_id, start, page, "p.ipynb")

    play_page_until(kernel, scripted_model, "private-cell", 6, answer, since=first)
    requests = [r.body for r in scripted_model.requests[first:] if r.scenario == "private-cell"]
    results = [
        json.dumps(block.get("content"), ensure_ascii=False)
        for message in requests[-1]["messages"]
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert len(results) == 5, results
    # every tool result (the model's own call names 91234; the context block's cells run since
    # hold the cell's code when no page answered at the prompt and the cell's request did not
    # carry the tag, as this careless page's did not: the next test sends it; DESIGN §11)
    assert [r for r in results if "CANARY" in r or "91234" in r] == []
    default, brief, chosen, edit, history = results
    for text in (default, brief, chosen):
        assert "[private cell]" in text and "x = 1" in default + brief, text
    assert "is private (tagged dsh-private" in edit, edit
    assert not link_messages(kernel, comm_id, "apply_change", start)  # never asked to change
    # the kernel's own history ran the cell: its run reads as private, never its code
    assert f"## In [{counts[1]}]\\n[private cell]" in history, history


def test_a_private_cells_run_is_withheld_with_no_page_to_read(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    """The page sends the tag with the cell's execute request (``private: true`` beside its
    identity), so the kernel withholds that run where it has no page to ask: the context
    block's cells run since the previous prompt, ``notebook_history`` and ``notebook_cells``'
    fallback to the history. Before, all three held the cell's code and its output."""
    scripted_model.register(
        "private-no-page",
        Script(steps=(call("notebook_history", n=5), call("notebook_cells"), Step(text="done"))),
    )
    private = identity(IDS[1])
    private["dsh_notebook"]["private"] = True
    for cell_id, code, meta in (
        (IDS[0], "x = 1", identity(IDS[0])),
        (IDS[1], f"{SECRET_SOURCE}\nprint({SECRET_OUTPUT!r})\n91234", private),
    ):
        ran = kernel.execute(code, metadata={**meta, "cellId": cell_id})
        assert ran.error is None, ran.error
    first = len(scripted_model.requests)
    prompt = "%%dsh --on-approval allow -s private-no-page\n[[scenario:private-no-page]] go"
    run = kernel.execute(prompt, allow_stdin=True, metadata=identity(IDS[2]))
    assert run.error is None, run.error
    play_page_until(kernel, scripted_model, "private-no-page", 3, lambda: None, since=first)
    requests = [r.body for r in scripted_model.requests[first:] if r.scenario == "private-no-page"]
    sent = json.dumps(requests, ensure_ascii=False)
    assert "CANARY" not in sent and "91234" not in sent, leaks(requests, ("CANARY", "91234"))
    assert sent.count("[private cell]") >= 3, sent[-3000:]  # context block, history, fallback
    assert "x = 1" in sent  # the other cell is read as before


def leaks(requests: list[dict[str, object]], needles: tuple[str, ...]) -> list[str]:
    """Where in the model requests each of ``needles`` is: the request, its top-level field (and
    for ``messages`` the message and block), and the text around it."""
    found: list[str] = []

    def visit(value: object, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                visit(item, f"{where}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                visit(item, f"{where}[{i}]")
        elif isinstance(value, str):
            for needle in needles:
                at = value.find(needle)
                if at >= 0:
                    found.append(f"{where}: …{value[max(0, at - 150) : at + 60]!r}…")

    for n, body in enumerate(requests):
        visit(body, f"request {n}")
    return found
