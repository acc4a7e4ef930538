"""Agent cells on the kernel side: ``run_python``'s outputs as nbformat outputs, the
``insert_cell`` message (built, validated, HTML refused), the recorder that numbers a run's
approved calls and sends them over the frontend link, the server calling it on the pumping
thread with the model's result unchanged, and the skipped-rerun note."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.frontend.link import FrontendLink
from dsh_notebook.kernel.persistence.kept import skipped_bundle
from dsh_notebook.kernel.persistence.ledger import PromptLedger
from dsh_notebook.kernel.registry.runs import ActiveRun, ApprovedCall
from dsh_notebook.kernel.tools.agent_cells import AgentCells, agent_cell_source, kept_note
from dsh_notebook.notebook_tools.edits import Grant
from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.run_python import RunPythonResult, run_python
from dsh_notebook.notebook_tools.server import NotebookMcpServer
from dsh_notebook.page_protocol import (
    MAX_CELL_OUTPUTS,
    insert_cell,
)
from dsh_notebook.transcript import markdown_companion
from dsh_notebook.transcript.facts import Figures

from .canary import CANARY_CODE, HALF, KEY, PRINTED, key_pieces
from .helpers.agent_cells import FakeComm, Run, linked
from .page_parser import parse_kernel_message

PNG_MAGIC = b"\x89PNG"


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    sh = InteractiveShell.instance()
    sh.reset(new_session=True)  # type: ignore[no-untyped-call]
    try:
        yield sh
    finally:
        sh.reset(new_session=True)  # type: ignore[no-untyped-call]


# -- run_python's outputs --------------------------------------------------------------------


def test_outputs_hold_stdout_stderr_value_in_cell_order(shell: InteractiveShell) -> None:
    code = "import sys\nprint('hi')\nprint('warn', file=sys.stderr)\nx = 41\nx + 1"
    plain = run_python(shell, code)
    shell.user_ns.pop("x")
    recorded = run_python(shell, code, outputs=True)
    assert plain.cell_outputs == []
    assert recorded.as_text() == plain.as_text()  # the model's report does not change
    assert recorded.cell_outputs == [
        {"output_type": "stream", "name": "stdout", "text": "hi\n"},
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
        {"output_type": "execute_result", "execution_count": None,
         "data": {"text/plain": "42"}, "metadata": {}},
    ]  # fmt: skip
    assert shell.user_ns["x"] == 41


def test_outputs_of_an_error_carry_the_traceback(shell: InteractiveShell) -> None:
    result = run_python(shell, "def f():\n    raise ValueError('bad value')\nf()", outputs=True)
    (error,) = result.cell_outputs
    assert error["output_type"] == "error" and error["ename"] == "ValueError"
    assert error["evalue"] == "bad value"
    assert error["traceback"][-1] == "ValueError: bad value"
    assert any("raise ValueError" in line for line in error["traceback"])


def test_outputs_keep_figures_as_png_and_drop_html(shell: InteractiveShell) -> None:
    pytest.importorskip("matplotlib")
    code = (
        "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
        "from IPython.display import HTML, display\n"
        "display(HTML('<img src=x onerror=alert(1)>'))\n"
        "plt.plot([1, 2, 3])\nplt.title('t')"
    )
    result = run_python(shell, code, outputs=True)
    kinds = [o["output_type"] for o in result.cell_outputs]
    figures = [o for o in result.cell_outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 1 and base64.b64decode(figures[0]["data"]["image/png"])[:4] == PNG_MAGIC
    assert "execute_result" in kinds  # the Text object of plt.title, as text/plain
    for output in result.cell_outputs:  # the HTML display keeps only its text/plain
        assert set(output.get("data", {})) <= {"text/plain", "image/png"}
    assert "<IPython.core.display.HTML object>" in str(result.cell_outputs)


def test_displays_of_other_threads_are_not_captured(shell: InteractiveShell) -> None:
    """The UI pump publishes a run's live output from its own thread while the agent's code runs:
    that reaches the page as usual, and is neither in the cell nor in the model's report."""

    class Recording:
        def __init__(self) -> None:
            self.published: list[Any] = []

        def publish(self, data: Any, *args: Any, **kwargs: Any) -> None:
            self.published.append(data)

    original, recording = shell.display_pub, Recording()
    shell.display_pub = recording  # type: ignore[assignment]
    code = (
        "import threading\nfrom IPython.display import display\n"
        "t = threading.Thread(target=lambda: display('from-the-pump'))\n"
        "t.start(); t.join()\ndisplay('from-the-code')"
    )
    try:
        result = run_python(shell, code, outputs=True)
    finally:
        shell.display_pub = original
    assert recording.published == [{"text/plain": "'from-the-pump'"}]
    assert "from-the-pump" not in result.as_text() and "from-the-code" in result.as_text()
    assert [o["data"]["text/plain"] for o in result.cell_outputs] == ["'from-the-code'"]
    assert shell.display_pub is original


def test_outputs_of_an_interrupt(shell: InteractiveShell) -> None:
    result = run_python(shell, "raise KeyboardInterrupt", outputs=True)
    assert result.interrupted
    assert result.cell_outputs[-1]["ename"] == "KeyboardInterrupt"


# -- the insert_cell message ---------------------------------------------------------------------


def test_insert_cell_round_trips_and_refuses_html() -> None:
    outputs: list[dict[str, Any]] = [
        {"output_type": "stream", "name": "stdout", "text": "hi\n"},
        {"output_type": "display_data", "data": {"image/png": "iVBO"}, "metadata": {}},
    ]
    message = insert_cell("cell-1", "nb-abc", "run1", 2, "# dsh agent\nx = 1", outputs)
    assert message is not None
    assert parse_kernel_message(dict(message)) == message
    html = {**message, "outputs": [{"output_type": "display_data",
            "data": {"text/html": "<script>alert(1)</script>"}, "metadata": {}}]}  # fmt: skip
    assert parse_kernel_message(html) is None  # a frontend refuses the whole message
    for broken in ({**message, "call": 0}, {**message, "anchor": ""}, {**message, "source": 3}):
        assert parse_kernel_message(broken) is None
    # the kernel's builder never sends HTML: it leaves the output out, with a note
    built = insert_cell("cell-1", "nb-abc", "run1", 1, "x", html["outputs"])  # type: ignore[arg-type]
    assert built is not None and built["outputs"][0]["output_type"] == "stream"
    assert "not shown here" in str(built["outputs"][0]["text"])


def test_insert_cell_bounds_outputs() -> None:
    many = [{"output_type": "stream", "name": "stdout", "text": "x"}] * (MAX_CELL_OUTPUTS + 5)
    message = insert_cell("c", "s", "r", 1, "x", many)
    assert message is not None and len(message["outputs"]) == MAX_CELL_OUTPUTS
    assert parse_kernel_message(dict(message)) == message
    huge = [{"output_type": "display_data", "data": {"image/png": "A" * (9 * 1024 * 1024)}}]
    cut = insert_cell("c", "s", "r", 1, "x", huge)
    assert cut is not None and cut["outputs"][0]["name"] == "stderr"
    assert insert_cell("c", "s", "r", 1, "x" * (600 * 1024), []) is None


# -- the recorder ------------------------------------------------------------------------------


def result_with(outputs: list[dict[str, Any]]) -> RunPythonResult:
    return RunPythonResult(cell_outputs=outputs)


def call(run: ActiveRun, call_id: str = "toolu_1") -> ApprovedCall:
    """The grant's owner of one approved call of ``run`` (in its own session)."""
    return ApprovedCall(run, run.handle.session, call_id)


def test_recorder_numbers_calls_and_sends_them_in_order() -> None:
    link, comm = linked(["insert_cell"])
    run = Run()
    cells = AgentCells(link, enabled=lambda: True)
    first, second = cells("a = 1", call(run, "1")), cells("b = 2", call(run, "2"))
    assert first is not None and second is not None
    first(result_with([{"output_type": "stream", "name": "stdout", "text": "one\n"}]))
    second(result_with([]))
    assert [m["call"] for m in comm.sent] == [1, 2]
    assert comm.sent[0]["anchor"] == "dsh-cell" and comm.sent[0]["run"] == "r1"
    assert comm.sent[0]["session"] == "nb-session"
    assert comm.sent[0]["source"] == agent_cell_source("a = 1", "nb-session", "r1", 1)
    assert comm.sent[0]["source"].splitlines()[1:] == ["a = 1"]
    assert comm.sent[0]["source"].startswith("# dsh agent:")
    assert comm.sent[0]["outputs"][0]["text"] == "one\n"
    assert run.agent_cells == 2


def test_no_piece_of_the_key_reaches_an_agent_cell() -> None:
    """The cell's code and outputs are masked as the model's copy is: the whole key, a slice
    and the key in two halves (on two lines, in two outputs) become ``***``; images stay."""
    link, comm = linked(["insert_cell"])
    cells = AgentCells(
        link,
        enabled=lambda: True,
        secrets=lambda: (KEY,),
    )
    sink = cells(f"{CANARY_CODE}\nassert key[:12] == '{KEY[:12]}'", call(Run()))
    assert sink is not None
    png = {"image/png": "aGVsbG8=", "text/plain": f"<Figure {KEY[:12]}>"}
    sink(
        result_with([
            {"output_type": "stream", "name": "stdout", "text": PRINTED},
            {"output_type": "stream", "name": "stdout", "text": KEY[:HALF]},
            {"output_type": "stream", "name": "stderr", "text": [KEY[HALF:], "\n"]},
            {"output_type": "display_data", "data": png, "metadata": {}},
            {"output_type": "error", "ename": "E", "evalue": KEY[:12], "traceback": [f"x {KEY}"]},
        ])
    )  # fmt: skip
    assert key_pieces(comm.sent) == 0 and "***" in json.dumps(comm.sent)
    outputs = comm.sent[0]["outputs"]
    assert outputs[0]["text"] == "***\n***\n***\n***\n"
    assert outputs[1]["text"] == "***" and outputs[2]["text"] == "***\n"
    assert outputs[3]["data"] == {"image/png": "aGVsbG8=", "text/plain": "<Figure ***>"}
    assert comm.sent[0]["source"].endswith("assert key[:12] == '***'")


@pytest.mark.parametrize("case", ["off", "no-cell-id", "no-run", "no-capability"])
def test_recorder_records_nothing_without_everything_it_needs(case: str) -> None:
    link, comm = linked(["waiting"] if case == "no-capability" else ["insert_cell"])
    run = Run(cell_id=None if case == "no-cell-id" else "c")
    cells = AgentCells(
        link,
        enabled=lambda: case != "off",
    )
    assert cells("x = 1", None if case == "no-run" else call(run)) is None
    assert comm.sent == [] and run.agent_calls == 0


def test_one_sink_shows_the_calls_figures_and_sends_its_cell() -> None:
    """The one recorder: the call's result arrives once and both happen, figures first; a call
    that is not kept as a cell still shows its figures, and a grant that names no call shows
    none."""
    link, comm = linked(["insert_cell"])
    run = Run()
    posted: list[tuple[Any, Figures]] = []
    cells = AgentCells(link, enabled=lambda: True, figures=lambda v, f: posted.append((v, f)))
    sink = cells("plot()", ApprovedCall(run, "nb-session", "toolu_1"))
    assert sink is not None
    assert sink(RunPythonResult(figures=[b"png"])) == kept_note(1)
    assert posted == [(run.view, Figures("nb-session", "toolu_1", ("cG5n",)))]
    assert [m["call"] for m in comm.sent] == [1]
    off = AgentCells(link, enabled=lambda: False, figures=lambda v, f: posted.append((v, f)))
    only_figures = off("plot()", ApprovedCall(run, "nb-session", "toolu_2"))
    assert only_figures is not None and only_figures(RunPythonResult(figures=[b"png"])) is None
    assert len(posted) == 2 and len(comm.sent) == 1
    assert off("plot()", None) is None


def test_no_page_connected_is_a_quiet_no_op() -> None:
    link = FrontendLink(create_comm=lambda target, data: FakeComm(target, data))
    cells = AgentCells(link, enabled=lambda: True)
    assert cells("x = 1", call(Run())) is None


# -- the server calls the recorder on the pumping thread ------------------------------------------


def call_run_python(shell: InteractiveShell, record: Any, code: str) -> dict[str, Any]:
    """One approved run_python call over HTTP; this test's main thread pumps the executor."""

    async def allow(*, tool_name: str, reason: str, arguments: Any) -> Grant:
        return Grant()

    executor = MainThreadExecutor()
    server = NotebookMcpServer(shell, approve=allow, executor=executor, record=record).start()
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "run_python", "arguments": {"code": code}}}  # fmt: skip
    headers = {"Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {server.token}", "mcp-protocol-version": "2025-06-18"}  # fmt: skip
    box: dict[str, Any] = {}

    def post() -> None:
        box["r"] = httpx.post(server.url, json=body, headers=headers, timeout=10)

    try:
        worker = threading.Thread(target=post)
        worker.start()
        deadline = time.monotonic() + 10
        while worker.is_alive() and time.monotonic() < deadline:
            executor.pump()
            time.sleep(0.01)
        worker.join(1)
    finally:
        server.stop()
    result: dict[str, Any] = box["r"].json()["result"]
    return result


def test_server_records_an_approved_call_and_the_model_result_is_the_same(
    shell: InteractiveShell,
) -> None:
    seen: list[tuple[str, str, RunPythonResult]] = []

    def record(code: str, owner: object) -> Callable[[RunPythonResult], None]:
        return lambda result: seen.append((code, threading.current_thread().name, result))

    def broken(code: str, owner: object) -> Callable[[RunPythonResult], None]:
        raise RuntimeError("recorder bug")

    code = "print('p')\n6 * 7"
    plain = call_run_python(shell, None, code)
    recorded = call_run_python(shell, record, code)
    assert call_run_python(shell, broken, code) == plain  # a failing recorder changes nothing
    assert plain == recorded and not plain["isError"]
    ((seen_code, thread, result),) = seen
    assert seen_code == code and thread == threading.main_thread().name
    assert [o["output_type"] for o in result.cell_outputs] == ["stream", "execute_result"]


# -- Run All: the skipped cell's note ----------------------------------------------------------


def test_skipped_note_says_the_agent_cells_recreate_the_variables(tmp_path: Any) -> None:
    ledger = PromptLedger(tmp_path)
    ledger.keep_transcript("s", "p", {"text/plain": "t"}, ["df"], agent_cells=2)
    assert ledger.kept_agent_cells("s", "p") == 2
    assert ledger.kept_agent_cells("s", "other") == 0
    note = skipped_bundle({"text/plain": "t"}, ["df"], "s", agent_cells=2)["text/plain"]
    assert "agent cell(s) it wrote below this cell" in note and "not recreated" not in note
    old = skipped_bundle({"text/plain": "t"}, ["df"], "s")["text/plain"]
    assert "not recreated" in old


def test_a_skipped_cell_shows_the_kept_markdown_with_the_one_line_plain_text_of_a_settled_cell() -> (
    None
):
    kept = {
        "text/markdown": "**dsh** the answer",
        "text/plain": "dsh · session s · settled\nanswer",
    }
    shown = skipped_bundle(kept, [], "s")
    assert shown["text/markdown"].endswith("**dsh** the answer")
    assert "not sent again" in shown["text/markdown"]
    assert shown["text/plain"].startswith("dsh: not sent again")
    assert shown["text/plain"].endswith(markdown_companion("dsh · session s · settled"))
    assert "answer" not in shown["text/plain"].split("\n\n", 1)[1]  # the plain body is not kept
    whole = skipped_bundle(kept, [], "s", plain_transcript=True)["text/plain"]
    assert whole.endswith("dsh · session s · settled\nanswer")  # a text display prints it all
