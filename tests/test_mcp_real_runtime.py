"""The notebook MCP tools through the real DeepSeek Harness runtime: the runtime mounts the
in-kernel server from the patch written by ``notebook_tools.patch`` (token in its environment), the scripted
model calls ``mcp__notebook__*`` tools, and the checks look at the tool results the runtime hands
back to the model and at the in-process shell's namespace.

The test's event loop plays the kernel's loop: the executor schedules ``run_python`` onto it with
``call_soon_threadsafe``, so approved code runs on the main thread while the test awaits the run.
Nothing leaves 127.0.0.1."""

from __future__ import annotations

import ast
import asyncio
import base64
import json
import math
import re
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook import DeepSeekHarness
from dsh_notebook.kernel.tools.agent_cells import AgentCells, kept_note
from dsh_notebook.notebook_tools.edits import Grant, Refusal
from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.patch import write_mcp_patch
from dsh_notebook.notebook_tools.refusals import (
    NO_APPROVER_MESSAGE,
    REJECTED_MESSAGE,
    refusal_text,
)
from dsh_notebook.notebook_tools.schemas import TOOL_NAMES, public_tool_name
from dsh_notebook.notebook_tools.server import NotebookMcpServer, NotebookToolsSettings
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.testing.harnesses import real_harness

pd = pytest.importorskip("pandas")

pytestmark = [
    pytest.mark.real_runtime,  # skipped without the runtime wheel; asyncio only (the plugin)
    pytest.mark.anyio,
]

CAP = 1500


def one_call(tool: str, **arguments: Any) -> Script:
    return Script(
        steps=(
            Step(tool_calls=(ToolCall(public_tool_name(tool), arguments),)),
            Step(text="done"),
        )
    )


FIGURE_CODE = (
    "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
    "fig, ax = plt.subplots()\nax.plot([1, 3, 2], label='trend')\nax.set_title('Trend')"
)

SCRIPTS = {
    "vars": one_call("notebook_variables"),
    "describe": one_call("describe_variable", name="sales"),
    "describe-huge": one_call("describe_variable", name="huge"),
    "history": one_call("notebook_history", n=2),
    "run": one_call(
        "run_python", code="growth = sales.revenue.pct_change().round(2).tolist()\ngrowth"
    ),
    "run-rejected": one_call("run_python", code="import pathlib\nMARKER = 'ran'"),
    "run-raises": one_call("run_python", code="print('before')\n{}['missing']"),
    "run-after-error": one_call("run_python", code="healthy = sum(range(4))\nhealthy"),
    "run-figure-text-only": one_call("run_python", code=FIGURE_CODE),
    "run-figure": one_call(
        "run_python",
        code=(
            "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots()\n"
            "ax.plot(sales.region, sales.revenue, label='revenue')\n"
            "ax.bar(sales.region, sales.units, label='units sold')\n"
            "ax.set_title('Revenue by region')\nax.legend()"
        ),
    ),
    "run-chatty-fail": one_call(
        "run_python",
        code=(
            "import sys\nfor i in range(400):\n    print(f'row {i:04d} ok')\n"
            "print('w' * 2000, file=sys.stderr)\n"
            "def deep(n):\n    return deep(n - 1) if n else {}['the real cause']\ndeep(30)"
        ),
    ),
    "run-kept": one_call("run_python", code="kept_value = 41 + 1\nkept_value"),
    "cell-figure": one_call("notebook_cells", cell_ids=["c-fig"]),
}


@pytest.fixture(scope="module")
def scripted_model_scripts() -> dict[str, Script]:
    return SCRIPTS


def reset(sh: InteractiveShell) -> None:
    sh.reset(new_session=True)  # type: ignore[no-untyped-call]


def run_cell(sh: InteractiveShell, cell: str) -> Any:
    return sh.run_cell(cell, store_history=True)  # type: ignore[no-untyped-call]


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    sh = InteractiveShell.instance()
    reset(sh)
    run_cell(
        sh,
        "import pandas as pd\n"
        "sales = pd.DataFrame({'region': ['north', 'south', 'east'],"
        " 'revenue': [120.0, 90.5, 130.25], 'units': [12, 9, 13]})",
    )
    try:
        yield sh
    finally:
        reset(sh)


@dataclass
class Notebook:
    """The in-process notebook: shell, tools server, and what the approver was asked."""

    shell: InteractiveShell
    server: NotebookMcpServer
    harness: DeepSeekHarness
    decision: bool = True
    asked: list[tuple[str, str]] = field(default_factory=list)
    refusal: Refusal | None = None
    owner: object = None

    async def approve(
        self, *, tool_name: str, reason: str, arguments: Any
    ) -> Grant | Refusal | None:
        self.asked.append((tool_name, reason))
        if self.refusal is not None:
            return self.refusal
        return Grant(owner=self.owner) if self.decision else None

    async def prompt(self, scenario: str, session: str = "nb") -> dict[str, Any]:
        """Run ``scenario``; the root's single tool result with its joined text."""
        with anyio.fail_after(60):
            result = await self.harness.start_session(session).run(f"[[scenario:{scenario}]] go")
        assert result.finish_reason == "completed"
        (event,) = [e for e in result.events if e.type == "tool/result"]
        message = dict(event.data["message"])
        message["text"] = "".join(b.get("text", "") for b in message["content"])
        return message


async def open_notebook(
    tmp_path: Path,
    scripted_model: ScriptedModelServer,
    shell: InteractiveShell,
    *,
    model: str = "deepseek-flash",
    record: Any = None,
    server_args: Mapping[str, Any] | None = None,
    **settings: Any,
) -> tuple[Notebook, Any]:
    executor = MainThreadExecutor(loop=asyncio.get_running_loop())
    holder: dict[str, Notebook] = {}

    async def approve(*, tool_name: str, reason: str, arguments: Any) -> Grant | None:
        return await holder["nb"].approve(tool_name=tool_name, reason=reason, arguments=arguments)

    server = NotebookMcpServer(
        shell,
        approve=approve,
        executor=executor,
        settings=NotebookToolsSettings(max_chars=CAP, **settings),
        record=record,
        **(server_args or {}),
    ).start()
    mount = write_mcp_patch(server.url, server.token, directory=tmp_path)
    harness = real_harness(
        tmp_path, scripted_model, patches=[mount.patch_path], env=mount.env, model=model
    )
    notebook = Notebook(shell, server, harness)
    holder["nb"] = notebook
    return notebook, mount


@pytest.fixture
async def notebook(
    tmp_path: Path, scripted_model: ScriptedModelServer, shell: InteractiveShell
) -> AsyncIterator[Notebook]:
    nb, mount = await open_notebook(tmp_path, scripted_model, shell)
    try:
        async with nb.harness:
            yield nb
    finally:
        nb.server.stop()
        mount.remove()


def tools_offered(scripted_model: ScriptedModelServer, scenario: str) -> list[str]:
    bodies = [r.body for r in scripted_model.requests if r.scenario == scenario and r.body]
    return [tool["name"] for tool in bodies[-1].get("tools", [])]


async def test_variables_sees_the_dataframe(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    result = await notebook.prompt("vars")
    assert not result["isError"]
    assert "sales | DataFrame | (3, 3)" in result["text"]
    assert "revenue (float64)" in result["text"] and "| pd |" not in result["text"]
    offered = tools_offered(scripted_model, "vars")
    assert {public_tool_name(t) for t in TOOL_NAMES} <= set(offered)
    assert notebook.asked == []


async def test_describe_variable_returns_dtypes(notebook: Notebook) -> None:
    result = await notebook.prompt("describe")
    assert not result["isError"]
    text = result["text"]
    assert text.startswith("sales: DataFrame: 3 rows x 3 columns")
    for dtype in ("'region': ", "'revenue': float64", "'units': int64"):
        assert dtype in text


async def test_huge_variable_is_described_within_the_cap(notebook: Notebook) -> None:
    notebook.shell.user_ns["huge"] = pd.DataFrame({f"col{i}": range(20_000) for i in range(200)})
    result = await notebook.prompt("describe-huge")
    assert not result["isError"]
    assert len(result["text"]) <= CAP and result["text"].endswith("characters omitted …]")


async def test_history_lists_the_cells(notebook: Notebook) -> None:
    run_cell(notebook.shell, "sales.revenue.max()")
    result = await notebook.prompt("history")
    assert "## In [1]\nimport pandas as pd" in result["text"]
    assert "## In [2]\nsales.revenue.max()\nOut [2]: " in result["text"]


async def test_run_python_approved_creates_a_variable(notebook: Notebook) -> None:
    result = await notebook.prompt("run")
    assert not result["isError"], result["text"]
    growth = notebook.shell.user_ns["growth"]
    assert math.isnan(growth[0]) and growth[1:] == [-0.25, 0.44]
    assert "value of the last expression" in result["text"] and "-0.25" in result["text"]
    (asked,) = notebook.asked
    assert asked[0] == "run_python" and asked[1].startswith("growth = sales.revenue")


def model_saw(scripted_model: ScriptedModelServer, scenario: str) -> str:
    """The tool results' text in the last request the model received for ``scenario``."""
    bodies = [r.body for r in scripted_model.requests if r.scenario == scenario and r.body]
    texts: list[str] = []
    for message in bodies[-1]["messages"]:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                parts = inner if isinstance(inner, list) else [{"type": "text", "text": inner}]
                texts += [str(p.get("text", "")) for p in parts if p.get("type") == "text"]
    return "\n".join(texts)


async def test_run_python_figure_reaches_the_model_as_text(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    pytest.importorskip("matplotlib")
    result = await notebook.prompt("run-figure")
    assert not result["isError"], result["text"]
    seen = model_saw(scripted_model, "run-figure")
    assert 'axes 1/1 "Revenue by region"' in seen
    assert 'line "revenue": 3 points, x categories north, south, east, y 90.5..130.2' in seen
    assert 'bars "units sold": 3 bars, values 9..13 (north=12, south=9, east=13)' in seen
    assert "legend: revenue, units sold" in seen


async def test_run_python_rejected_runs_nothing(notebook: Notebook) -> None:
    notebook.decision = False
    result = await notebook.prompt("run-rejected")
    assert result["isError"]
    assert REJECTED_MESSAGE in result["text"] and "rejected" in result["text"]
    assert "MARKER" not in notebook.shell.user_ns and len(notebook.asked) == 1


async def test_run_python_error_returns_traceback_and_the_shell_stays_healthy(
    notebook: Notebook,
) -> None:
    failed = await notebook.prompt("run-raises", session="err")
    assert failed["isError"]
    assert "stdout:\nbefore" in failed["text"]
    assert "Traceback (most recent call last)" in failed["text"]
    assert "KeyError: 'missing'" in failed["text"]
    healed = await notebook.prompt("run-after-error", session="err")
    assert not healed["isError"] and "value of the last expression:\n6" in healed["text"]
    assert notebook.shell.user_ns["healthy"] == 6
    assert run_cell(notebook.shell, "healthy + 1").result == 7


async def test_run_python_off_is_not_offered(
    tmp_path: Path, scripted_model: ScriptedModelServer, shell: InteractiveShell
) -> None:
    scripted_model.clear_requests()
    nb, mount = await open_notebook(tmp_path, scripted_model, shell, run_python=False)
    try:
        async with nb.harness:
            result = await nb.prompt("run-rejected")
    finally:
        nb.server.stop()
        mount.remove()
    offered = tools_offered(scripted_model, "run-rejected")
    assert public_tool_name("notebook_variables") in offered
    assert public_tool_name("run_python") not in offered
    assert result["isError"] and "MARKER" not in shell.user_ns and nb.asked == []


# -- issue 25: what the model is told (the tool side) -------------------------------------------


def last_body(scripted_model: ScriptedModelServer, scenario: str) -> str:
    bodies = [r.body for r in scripted_model.requests if r.scenario == scenario and r.body]
    return json.dumps(bodies[-1])


async def test_the_system_prompt_teaches_the_notebook(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    await notebook.prompt("vars")
    body = last_body(scripted_model, "vars")
    assert "### MCP server: notebook" in body
    for taught in (
        "each user message is a %%dsh cell and your reply is shown under it",
        "Never read, write or edit the open .ipynb with file tools",
        "never analyse notebook data with bash python",
        "approved code is kept as a cell below the prompt",
        "shown to the user as a card (a diff for edits) and waits for their click",
        f"Results are capped at {CAP:,} characters",
    ):
        assert json.dumps(taught)[1:-1] in body, taught


async def test_notebook_variables_tells_the_model_the_imports_and_python(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    await notebook.prompt("vars")
    seen = model_saw(scripted_model, "vars")
    assert f"pd = pandas {pd.__version__}" in seen
    assert f"Kernel: Python {sys.version.split()[0]}" in seen
    assert "sales | DataFrame | (3, 3)" in seen


async def test_a_chatty_failure_reaches_the_model_with_its_error(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    result = await notebook.prompt("run-chatty-fail")
    assert result["isError"] and len(result["text"]) <= CAP + len("Error: ")  # the runtime's
    seen = model_saw(scripted_model, "run-chatty-fail")
    assert "KeyError: 'the real cause'" in seen  # the exception line survived the cap
    assert "in deep" in seen  # and the traceback's tail
    assert "row 0000 ok" in seen and "row 0399 ok" in seen  # stdout's head and tail
    assert "characters omitted …]" in seen


async def test_the_model_reads_why_a_call_was_refused_and_the_persons_note(
    notebook: Notebook, scripted_model: ScriptedModelServer
) -> None:
    notebook.refusal = Refusal(refusal_text("rejected", "you", "Use sales2, it is cleaned."))
    await notebook.prompt("run-rejected")
    seen = model_saw(scripted_model, "run-rejected")
    assert 'The user\'s note: "Use sales2, it is cleaned."' in seen
    notebook.refusal = Refusal(refusal_text("rejected", "policy"))
    await notebook.prompt("run-rejected", session="headless")
    seen = model_saw(scripted_model, "run-rejected")
    assert NO_APPROVER_MESSAGE in seen and "The user rejected" not in seen
    assert "MARKER" not in notebook.shell.user_ns


async def test_the_result_says_the_code_became_a_cell_below_the_prompt(
    tmp_path: Path, scripted_model: ScriptedModelServer, shell: InteractiveShell
) -> None:
    from dsh_notebook.kernel.registry.runs import ApprovedCall

    from .helpers.agent_cells import Run, linked

    link, comm = linked(["insert_cell"])
    nb, mount = await open_notebook(
        tmp_path, scripted_model, shell, record=AgentCells(link, enabled=lambda: True)
    )
    run = Run()
    nb.owner = ApprovedCall(run, run.handle.session, "toolu_kept")
    try:
        async with nb.harness:
            result = await nb.prompt("run-kept")
    finally:
        nb.server.stop()
        mount.remove()
    assert not result["isError"] and [m["call"] for m in comm.sent] == [1]
    seen = model_saw(scripted_model, "run-kept")
    assert seen.startswith(kept_note(1)) and "agent cell 1 of this run" in seen
    assert "value of the last expression:\n42" in seen


async def test_a_text_only_route_gets_no_images_and_is_told_so(
    tmp_path: Path, scripted_model: ScriptedModelServer, shell: InteractiveShell
) -> None:
    pytest.importorskip("matplotlib")
    nb, mount = await open_notebook(
        tmp_path, scripted_model, shell, model="deepseek-v4-pro", images=False
    )
    try:
        async with nb.harness:
            result = await nb.prompt("run-figure-text-only")
    finally:
        nb.server.stop()
        mount.remove()
    assert not result["isError"], result["text"]
    body = last_body(scripted_model, "run-figure-text-only")
    assert "image unavailable" not in body and "attached as PNG" not in body
    seen = model_saw(scripted_model, "run-figure-text-only")
    assert "1 figure(s) not sent as images: this model route takes no image input" in seen
    assert 'axes 1/1 \\"Trend\\"' in body or 'axes 1/1 "Trend"' in seen


def figure_page(figure_png: bytes) -> tuple[Any, Any]:
    """A page with one cell that showed a figure as In [3], and the kernel's PNG of that run."""
    page = {"v": 1, "type": "read_notebook_reply", "request_id": "r", "path": "a.ipynb",
            "total_cells": 1, "cells": [
                {"index": 0, "id": "c-fig", "cell_type": "code", "source": "plt.plot(y)",
                 "execution_count": 3, "agent": False, "selected": False,
                 "outputs": [{"output_type": "display_data", "mime": ["image/png", "text/plain"],
                              "text": "<Figure size 640x480 with 1 Axes>"}]}]}  # fmt: skip

    def images(cell_id: str | None, count: int | None) -> list[bytes | None]:
        return [figure_png] if (cell_id, count) == ("c-fig", 3) else []

    return (lambda timeout, busy, want=None: page), images


@pytest.mark.parametrize("route", ["image", "text"])
async def test_a_cell_read_by_id_brings_its_figure_as_png_or_as_words(
    tmp_path: Path, scripted_model: ScriptedModelServer, shell: InteractiveShell, route: str
) -> None:
    """Issue 49 item 3: ``notebook_cells`` for a cell by id attaches the PNG of the figure that
    cell showed where the route takes images (it arrives in the model's request), and says the
    figure is described as text where it does not."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([1, 3, 2])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    plt.close(fig)
    reader, images = figure_page(buffer.getvalue())
    extra = {"model": "deepseek-v4-pro", "images": False} if route == "text" else {}
    nb, mount = await open_notebook(
        tmp_path, scripted_model, shell,
        server_args={"read_notebook": reader, "figure_images": images}, **extra,
    )  # fmt: skip
    try:
        async with nb.harness:
            result = await nb.prompt("cell-figure")
    finally:
        nb.server.stop()
        mount.remove()
    assert not result["isError"], result["text"]
    seen = model_saw(scripted_model, "cell-figure")
    body = last_body(scripted_model, "cell-figure")
    # the runtime admits the PNG, then sends the model a handle and a normalized copy
    handle = "; request preview 100x75px. Normalized copy"  # 2 x 1.5 in at 50 dpi
    image_block = '{"type": "image", "source": {"type": "base64"'
    if route == "image":
        assert "Figures: 1 figure(s) attached as PNG (cell 1: 1)." in seen
        assert handle in body and image_block in body  # the figure itself reached the model
    else:
        assert "Figures in cell 1: not sent as images (this model takes none)" in seen
        assert handle not in body and image_block not in body


# -- a real ipykernel (active once the integration patch is applied to magics.py) -----------------

KERNEL_CODE = (
    "import threading\nagent_thread = threading.current_thread().name\nagent_rows = len(sales)\n"
    "agent_rows"
)
LONG_CODE = (
    "import time\nstarted = True\nopen('run_python_started', 'w').close()\n"
    "for _ in range(600):\n    time.sleep(0.05)\nfinished = True"
)


def integration_applied() -> bool:
    from dsh_notebook.kernel.entry.magics import DshMagics

    return DshMagics.class_traits().get("notebook_tools") is not None


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def kernel(tmp_path: Path, workspace: Path, scripted_model: ScriptedModelServer) -> Iterator[Any]:
    if not integration_applied():
        pytest.skip("DshMagics has no notebook_tools yet (apply /tmp/mcp-integration.patch)")
    from .kernels import scripted_kernel

    scripted_model.register("k-run", one_call("run_python", code=KERNEL_CODE))
    scripted_model.register("k-long", one_call("run_python", code=LONG_CODE))
    scripted_model.register("k-cells", one_call("notebook_cells"))
    scripted_model.register("k-figure", one_call("run_python", code=FIGURE_CODE))
    scripted_model.register(
        "k-time", one_call("run_python", code="import time\nagent_ran_at = time.monotonic()")
    )
    setup = (
        "import pandas as pd\nsales = pd.DataFrame({'a': [1, 2, 3]})\n"
        "%load_ext dsh_notebook\n%config DshMagics.default_format = 'text'"
    )
    assert workspace == tmp_path / "ws"  # the kernel's working directory
    with scripted_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
        yield k


def tool_texts(k: Any) -> str:
    return str(
        k.value(
            "''.join(b.get('text', '') for e in _dsh.result(30).events if e.type == 'tool/result'"
            " for b in e.data['message']['content'])"
        )
    )


def test_kernel_wait_mode_runs_approved_code_in_the_waiting_cell(kernel: Any) -> None:
    run = kernel.execute("%%dsh --wait --on-approval allow\n[[scenario:k-run]] go")
    assert run.error is None, run.error
    assert kernel.value("(agent_thread, agent_rows)") == "('MainThread', 3)"
    assert "value of the last expression:\\n3" in tool_texts(kernel)


def test_kernel_wait_mode_shows_the_approved_codes_figure_in_the_transcript(kernel: Any) -> None:
    """Wait mode (nbclient's): the saved markdown shows the figure under the call, as a PNG."""
    run = kernel.execute(
        "%%dsh --wait --on-approval allow --format markdown\n[[scenario:k-figure]] plot"
    )
    assert run.error is None, run.error
    (markdown,) = [
        m["content"]["data"]["text/markdown"]
        for m in run.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
        and "text/markdown" in m["content"]["data"]
    ][-1:]
    image = markdown.index("![Figure 1 shown by the code][dsh-figure-")
    assert markdown.index("run_python") < image < markdown.index("\n---\n")
    png = re.search(r"\]: data:image/png;base64,([A-Za-z0-9+/=]+)$", markdown, re.M)
    assert png is not None and base64.b64decode(png.group(1)).startswith(b"\x89PNG")


def test_kernel_notebook_cells_without_the_extension_falls_back_and_says_so(
    kernel: Any, scripted_model: ScriptedModelServer
) -> None:
    """No stdin and no page (as under nbclient/papermill): the kernel's history, introduced by
    why the notebook itself could not be read; the model received exactly that."""
    run = kernel.execute("%%dsh --wait\n[[scenario:k-cells]] what is in my notebook?")
    assert run.error is None, run.error
    text = ast.literal_eval(tool_texts(kernel))  # the repr of the kernel's string
    assert text.startswith("The notebook itself could not be read (the dsh-notebook JupyterLab")
    assert "this is the kernel's execution history instead" in text
    assert "sales = pd.DataFrame({'a': [1, 2, 3]})" in text
    assert "the kernel's execution history instead" in model_saw(scripted_model, "k-cells")


def test_kernel_background_run_python_runs_when_idle(kernel: Any) -> None:
    # allow_stdin=True: a live frontend, so the cell returns at once (background mode) and the
    # approved code is scheduled onto the idle kernel's loop
    run = kernel.execute("%%dsh --on-approval allow\n[[scenario:k-run]] go", allow_stdin=True)
    assert run.error is None, run.error
    deadline = time.monotonic() + 60
    while kernel.value("'agent_thread' in globals()") != "True":
        assert time.monotonic() < deadline, "the background run_python never ran"
        time.sleep(0.2)
    assert kernel.value("agent_thread") == "'MainThread'"


def test_kernel_headless_default_rejects_run_python(
    kernel: Any, scripted_model: ScriptedModelServer
) -> None:
    """No stdin, no page (nbconvert, papermill): the headless policy refuses, and the model is
    told nobody can approve here (not that the user rejected it)."""
    run = kernel.execute("%%dsh --wait\n[[scenario:k-run]] go")  # no stdin: headless -> reject
    assert run.error is None, run.error
    assert kernel.value("'agent_thread' in globals()") == "False"
    seen = model_saw(scripted_model, "k-run")
    assert NO_APPROVER_MESSAGE in seen and "The user rejected" not in seen


def test_kernel_interrupt_stops_a_long_run_python(kernel: Any, workspace: Path) -> None:
    run = kernel.execute("%%dsh --on-approval allow\n[[scenario:k-long]] go", allow_stdin=True)
    assert run.error is None, run.error  # background: the cell is done, the kernel idle
    marker = workspace / "run_python_started"
    deadline = time.monotonic() + 60
    while not marker.exists():  # the code now holds the kernel's main thread, between cells
        assert time.monotonic() < deadline, "run_python never started"
        time.sleep(0.1)
    kernel.manager.interrupt_kernel()
    assert kernel.value("('started' in globals(), 'finished' in globals())") == "(True, False)"
    assert "Interrupted" in tool_texts(kernel)


def test_kernel_run_python_waits_for_a_running_cell(kernel: Any) -> None:
    """Approved code never runs concurrently with a cell: it waits until the cell is done."""
    run = kernel.execute("%%dsh --on-approval allow\n[[scenario:k-time]] go", allow_stdin=True)
    assert run.error is None, run.error
    busy = kernel.execute(
        "import time\ncell_started = time.monotonic()\ntime.sleep(4)\ncell_ended = time.monotonic()"
    )
    assert busy.error is None, busy.error
    deadline = time.monotonic() + 60
    while kernel.value("'agent_ran_at' in globals()") != "True":
        assert time.monotonic() < deadline, "run_python never ran"
        time.sleep(0.2)
    # the run asked for approval (granted by policy) while the cell slept: the code waited
    assert kernel.value("agent_ran_at >= cell_ended") == "True"


def test_kernel_dsh_wait_runs_approved_code_like_a_waiting_cell(kernel: Any) -> None:
    """``%dsh wait`` pumps approved ``run_python`` calls as ``--wait`` does: approving and waiting
    in one cell must not deadlock (the code would otherwise wait for that very cell to end)."""
    run = kernel.execute("%%dsh\n[[scenario:k-run]] go", allow_stdin=True)  # background, ask
    assert run.error is None, run.error
    deadline = time.monotonic() + 60
    while "a1" not in kernel.execute("%dsh pending").stdout:
        assert time.monotonic() < deadline, "the run_python approval never became pending"
        time.sleep(0.2)
    waited = kernel.execute("%dsh allow a1\n%dsh wait", timeout=60)
    assert waited.error is None, waited.error
    assert "settled" in waited.stdout
    assert kernel.value("(agent_thread, agent_rows)") == "('MainThread', 3)"


def test_restart_and_run_all_shows_the_kept_transcript_and_the_variables_not_recreated(
    kernel: Any,
) -> None:
    cell = "%%dsh --wait --on-approval allow\n[[scenario:k-run]] go"
    first = kernel.execute(cell)
    assert first.error is None, first.error
    # a restarted kernel, as far as the extension knows: a new agent on the same DSH_HOME
    kernel.execute("%unload_ext dsh_notebook\n%load_ext dsh_notebook")
    kernel.execute("%config DshMagics.default_format = 'text'")
    again = kernel.execute(cell)
    assert again.error is None, again.error
    shown = again.stdout + "".join(
        str(m["content"]["data"].get("text/plain", ""))
        for m in again.outputs
        if m["msg_type"] == "display_data"
    )
    assert "not sent again" in shown
    assert "agent_thread" in shown and "were not recreated" in shown
    assert "settled" in shown  # the transcript it had, not only a note
    assert "[tool] run_python" in shown or "[tool] mcp__notebook__run_python" in shown, shown
