"""The notebook MCP tools without the runtime: the tool functions over an in-process
``InteractiveShell``, the main-thread executor, the HTTP server (bearer token, tools over
JSON-RPC) and the patch file. Servers bind 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.notebook_tools.edits import Grant, Refusal
from dsh_notebook.notebook_tools.executor import (
    ExecutorClosed,
    ExecutorFull,
    ItemInterrupted,
    MainThreadExecutor,
)
from dsh_notebook.notebook_tools.history import notebook_history
from dsh_notebook.notebook_tools.patch import (
    MCP_CLIENT_PLUGIN,
    MCP_TOKEN_ENV,
    render_mcp_patch,
    write_mcp_patch,
)
from dsh_notebook.notebook_tools.refusals import REJECTED_MESSAGE
from dsh_notebook.notebook_tools.run_python import run_python
from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.notebook_tools.server import NotebookMcpServer, NotebookToolsSettings
from dsh_notebook.notebook_tools.variables import describe_variable, notebook_variables
from dsh_notebook.transcript.bounds import PROPOSED_MAX

from .helpers.mcp_tools import (
    JSON_HEADERS,
    PROTOCOL,
    call,
    reset,
    rpc,
    run_cell,
    run_cells,
    text_of,
    tool_call,
)

pd = pytest.importorskip("pandas")


# -- notebook_variables / describe_variable ----------------------------------------------------


def test_variables_lists_data_and_hides_the_rest(shell: InteractiveShell) -> None:
    run_cells(
        shell,
        "import os\nimport pandas as pd\n"
        "sales = pd.DataFrame({'region': ['n', 's', 'e'], 'revenue': [1.0, 2.5, None]})\n"
        "xs = list(range(1000))\ntitle = 'Q3 report'\n"
        "def helper(): pass\nclass Thing: pass\n_private = 1",
    )
    text = notebook_variables(shell.user_ns, hidden=shell.user_ns_hidden)
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if " | " in line}
    assert set(rows) == {"name", "---", "sales", "xs", "title"}
    sales = shell.user_ns["sales"]
    size = int(sales.memory_usage(index=True, deep=False).sum())
    assert rows["sales"].split(" | ")[1:3] == ["DataFrame", "(3, 2)"]
    assert f"{size} B" in rows["sales"] and "revenue (float64)" in rows["sales"]
    assert rows["xs"].split(" | ")[2] == "len 1,000" and "0, 1, 2, 3, 4, …" in rows["xs"]
    assert "Q3 report" in rows["title"]
    for hidden in ("os", "pd", "helper", "Thing", "_private", "In", "Out", "get_ipython", "exit"):
        assert hidden not in rows


def test_variables_empty_and_capped(shell: InteractiveShell) -> None:
    assert "no user variables" in notebook_variables(shell.user_ns, hidden=shell.user_ns_hidden)
    ns = {f"v{i}": i for i in range(500)}
    text = notebook_variables(ns, max_chars=1000)
    assert len(text) <= 1000 and text.endswith("characters omitted …]")
    assert "300 more variables not shown" in notebook_variables(ns, max_chars=100_000)


def test_describe_variable_dtypes_attribute_and_unknown(shell: InteractiveShell) -> None:
    run_cells(shell, "import pandas as pd\nsales = pd.DataFrame({'region': ['n'], 'rev': [1.5]})")
    found, text = describe_variable(shell.user_ns, "sales", 4000)
    assert found and text.startswith("sales: DataFrame: 1 rows x 2 columns")
    assert "'rev': float64" in text and "Columns (dtype)" in text
    found, text = describe_variable(shell.user_ns, "sales.columns", 4000)
    assert found and "region" in text
    found, text = describe_variable(shell.user_ns, "sale", 4000)
    assert not found and "No variable named 'sale'" in text and "Similar names: sales" in text
    found, text = describe_variable(shell.user_ns, "sales.__class__", 4000)
    assert not found  # dunder paths are refused: no code, no introspection tricks


def test_describe_huge_variable_stays_within_the_cap(shell: InteractiveShell) -> None:
    shell.user_ns["blob"] = "x" * 5_000_000
    shell.user_ns["wide"] = pd.DataFrame({f"c{i}": range(1000) for i in range(300)})
    for name in ("blob", "wide"):
        found, text = describe_variable(shell.user_ns, name, 1500)
        assert found and len(text) <= 1500
        assert text.endswith("characters omitted …]") or "first 1500" in text


# -- notebook_history ---------------------------------------------------------------------------


def test_history_shows_inputs_outputs_and_errors(shell: InteractiveShell) -> None:
    run_cells(shell, "a = 40", "a + 2", "1/0", "", "print('x' * 50)")
    errors = {3: "ZeroDivisionError: division by zero"}
    text = notebook_history(shell, 3, errors=errors)
    assert "## In [1]" not in text and "## In [2]" in text
    assert "Out [2]: 42" in text
    assert "## In [3]\n1/0\nError [3]: ZeroDivisionError: division by zero" in text
    assert "## In [4]\nprint('x' * 50)" in text  # the empty cell got no number
    assert len(notebook_history(shell, 50, errors=errors, max_chars=300)) <= 300
    reset(shell)
    assert notebook_history(shell, 5) == "No cells have been executed in this kernel yet."


# -- run_python -----------------------------------------------------------------------------------


def test_run_python_captures_and_keeps_variables(shell: InteractiveShell) -> None:
    run_cells(shell, "base = 20", "base")
    out_before = dict(shell.user_ns["Out"])
    count = shell.execution_count
    result = run_python(shell, "print('hello')\nimport sys\nprint('warn', file=sys.stderr)\n"
                        "doubled = base * 2\ndoubled + 2")  # fmt: skip
    assert result.ok and result.stdout == "hello" and result.stderr == "warn"
    assert result.value == "42"
    assert shell.user_ns["doubled"] == 40
    # no IPython bookkeeping: history, Out and _ untouched
    assert shell.execution_count == count
    assert dict(shell.user_ns["Out"]) == out_before and shell.user_ns["_"] == 20
    text = result.as_text()
    assert "stdout:\nhello" in text and "value of the last expression:\n42" in text


def test_run_python_error_returns_traceback_and_shell_stays_healthy(
    shell: InteractiveShell,
) -> None:
    result = run_python(shell, "def f():\n    raise ValueError('bad input')\nf()")
    assert not result.ok and result.error is not None
    assert "Traceback (most recent call last)" in result.error
    assert "ValueError: bad input" in result.error and "in f" in result.error
    assert "notebook_tools" not in result.error  # our own frames are not shown
    syntax = run_python(shell, "x = (")
    assert syntax.error is not None and "SyntaxError" in syntax.error
    exited = run_python(shell, "raise SystemExit(3)")
    assert exited.error is not None and "SystemExit" in exited.error
    assert run_python(shell, "1 + 1").value == "2"
    assert run_cell(shell, "2 + 2").result == 4


def test_run_python_magics_and_output_cap(shell: InteractiveShell) -> None:
    assert run_python(shell, "%time y = 5").ok and shell.user_ns["y"] == 5
    result = run_python(shell, "for i in range(100000): print(i)", max_chars=1000)
    assert len(result.as_text(1000)) <= 1000 and "characters omitted …]" in result.stdout
    assert result.stdout.startswith("0\n1\n2\n") and result.stdout.endswith("99999")


def test_run_python_returns_new_figures_as_png(shell: InteractiveShell) -> None:
    pytest.importorskip("matplotlib")
    run_cells(shell, "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt")
    old = shell.user_ns["plt"].figure()  # the person's own figure: neither returned nor closed
    result = run_python(shell, "fig, ax = plt.subplots()\nax.plot([1, 3, 2])\nNone")
    assert len(result.figures) == 1 and result.figures[0].startswith(b"\x89PNG\r\n\x1a\n")
    plt = shell.user_ns["plt"]
    assert plt.get_fignums() == [old.number]
    many = run_python(shell, "for _ in range(6): plt.figure()")
    assert len(many.figures) == 4 and many.figures_omitted == 2
    plt.close("all")


def test_run_python_reports_keyboard_interrupt(shell: InteractiveShell) -> None:
    result = run_python(shell, "started = True\nraise KeyboardInterrupt")
    assert result.interrupted and not result.ok and shell.user_ns["started"] is True
    assert "Interrupted" in result.as_text()


# -- the executor ---------------------------------------------------------------------------------


def test_executor_runs_in_order_is_bounded_and_skips_withdrawn() -> None:
    executor = MainThreadExecutor(max_pending=2)
    order: list[int] = []

    def step(n: int) -> Callable[[], int]:
        def run() -> int:
            order.append(n)
            return n

        return run

    first = executor.submit(step(1))
    second = executor.submit(step(2))
    with pytest.raises(ExecutorFull):
        executor.submit(step(3))
    assert second.cancel()  # withdrawn before it started: frees a slot, never runs
    third = executor.submit(step(3))
    assert executor.pump() == 2
    assert order == [1, 3] and first.result() == 1 and third.result() == 3
    assert executor.pump() == 0


def test_executor_close_withdraws_and_refuses() -> None:
    executor = MainThreadExecutor()
    queued = executor.submit(lambda: 1)
    assert executor.close() == 1
    with pytest.raises(ExecutorClosed):
        queued.result(0)
    with pytest.raises(ExecutorClosed):
        executor.submit(lambda: 2)
    assert executor.close() == 0


def test_executor_wraps_base_exceptions() -> None:
    executor = MainThreadExecutor()

    def interrupted() -> None:
        raise KeyboardInterrupt

    def failing() -> None:
        raise ValueError("x")

    a, b = executor.submit(interrupted), executor.submit(failing)
    executor.pump()
    with pytest.raises(ItemInterrupted):
        a.result(0)
    with pytest.raises(ValueError, match="x"):
        b.result(0)


def test_executor_on_a_loop_waits_for_the_running_cell() -> None:
    async def scenario() -> list[str]:
        loop = asyncio.get_running_loop()
        executor = MainThreadExecutor(loop=loop)
        seen: list[str] = []
        executor.cell_started()
        future = executor.submit(lambda: seen.append(threading.current_thread().name))
        await asyncio.sleep(0.05)  # an awaiting cell: the loop runs, the item must not
        assert not future.done()
        executor.cell_finished()
        await asyncio.wait_for(asyncio.wrap_future(future), 2)
        return seen

    assert asyncio.run(scenario()) == [threading.main_thread().name]


def test_executor_without_loop_drains_after_the_cell() -> None:
    executor = MainThreadExecutor()
    future = executor.submit(lambda: 7)
    executor.cell_started()
    assert not future.done()
    executor.cell_finished()
    assert future.result(0) == 7


def test_sigint_interrupts_a_running_item_and_restores_the_handler(
    shell: InteractiveShell,
) -> None:
    """Like ipykernel while idle: SIGINT is ignored, yet "Interrupt kernel" must stop the code."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        executor = MainThreadExecutor()
        code = "import time\nfor _ in range(400):\n    time.sleep(0.025)\nfinished = True"
        future = executor.submit(lambda: run_python(shell, code))
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        executor.pump()
        result = future.result(0)
        assert result.interrupted and "finished" not in shell.user_ns
        assert time.monotonic() - started < 5
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


# -- the HTTP server --------------------------------------------------------------------------------


INITIALIZE = rpc(
    "initialize",
    {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
)

Approve = Callable[..., Awaitable[Grant | Refusal | None]]


def allow(calls: list[str]) -> Approve:
    async def approve(*, tool_name: str, reason: str, arguments: Any) -> Grant:
        calls.append(f"{tool_name}: {reason}")
        return Grant()

    return approve


async def reject(*, tool_name: str, reason: str, arguments: Any) -> None:
    return None


async def broken(*, tool_name: str, reason: str, arguments: Any) -> None:
    raise RuntimeError("approval widget crashed")


def test_server_requires_the_bearer_token(make_server: Callable[..., NotebookMcpServer]) -> None:
    server = make_server()
    assert server.url.startswith("http://127.0.0.1:")
    no_token = httpx.post(server.url, json=INITIALIZE, headers=JSON_HEADERS, timeout=10)
    assert no_token.status_code == 401 and "bearer token" in no_token.text
    assert no_token.headers["www-authenticate"].startswith("Bearer")
    for bad in ("Bearer wrong", f"Bearer {server.token}x", server.token, f"Basic {server.token}"):
        response = httpx.post(
            server.url, json=INITIALIZE, headers={**JSON_HEADERS, "Authorization": bad}, timeout=10
        )
        assert response.status_code == 401, bad
    listed = call(server, rpc("tools/list"))
    assert listed.status_code == 200
    names = [tool["name"] for tool in listed.json()["result"]["tools"]]
    assert names == [
        "notebook_variables",
        "describe_variable",
        "notebook_history",
        "notebook_cells",
        "run_python",
    ]
    assert call(server, INITIALIZE).json()["result"]["serverInfo"]["name"] == "notebook"
    other = NotebookMcpServer(server.shell, approve=None, executor=MainThreadExecutor())
    assert other.token != server.token and len(other.token) >= 40
    assert public_tool_name("run_python") == "mcp__notebook__run_python"


def test_server_read_tools(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    run_cells(
        shell, "import pandas as pd\nsales = pd.DataFrame({'rev': [1.5, 2.0]})", "sales.rev.sum()"
    )
    server = make_server(errors={})
    listed = tool_call(server, "notebook_variables")
    assert not listed["isError"] and "sales | DataFrame | (2, 1)" in text_of(listed)
    described = tool_call(server, "describe_variable", name="sales")
    assert "'rev': float64" in text_of(described)
    missing = tool_call(server, "describe_variable", name="sale")
    assert missing["isError"] and "Similar names: sales" in text_of(missing)
    history = tool_call(server, "notebook_history", n=1)
    assert "## In [2]\nsales.rev.sum()" in text_of(history) and "## In [1]" not in text_of(history)


class SpinningRepr:
    def __repr__(self) -> str:
        deadline = time.monotonic() + 10.0  # safety exit; the server gives up long before
        while time.monotonic() < deadline:
            pass
        return "finished late"


def test_server_read_tool_with_a_repr_that_never_returns_is_stopped_and_the_next_call_served(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    shell.user_ns["slow"] = SpinningRepr()
    shell.user_ns["fine"] = [1, 2, 3]
    server = make_server(settings=NotebookToolsSettings(read_timeout=0.5))
    started = time.monotonic()
    stopped = tool_call(server, "describe_variable", name="slow")
    assert time.monotonic() - started < 5.0
    assert stopped["isError"]
    assert "describe_variable was stopped after 0.5 s" in text_of(stopped)
    described = tool_call(server, "describe_variable", name="fine")
    assert not described["isError"] and "[1, 2, 3]" in text_of(described)


def test_server_run_python_approved_runs_on_the_pumping_thread(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    calls: list[str] = []
    executor = MainThreadExecutor()
    server = make_server(approve=allow(calls), executor=executor)
    threads: list[str] = []
    shell.user_ns["record_thread"] = lambda: threads.append(threading.current_thread().name)
    box: dict[str, Any] = {}
    worker = threading.Thread(
        target=lambda: box.update(
            r=tool_call(server, "run_python", code="record_thread()\nz = 9\nz * 2")
        )
    )
    worker.start()
    deadline = time.monotonic() + 10
    while worker.is_alive() and time.monotonic() < deadline:
        executor.pump()  # this test's main thread plays the kernel's main thread
        time.sleep(0.01)
    worker.join(1)
    assert not box["r"]["isError"], box
    assert "value of the last expression:\n18" in text_of(box["r"])
    assert shell.user_ns["z"] == 9 and threads == [threading.main_thread().name]
    assert calls == ["run_python: record_thread()\nz = 9\nz * 2"]


@pytest.mark.parametrize("approver", [reject, broken, None], ids=["rejected", "raising", "none"])
def test_server_run_python_not_approved_runs_nothing(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer], approver: Any
) -> None:
    executor = MainThreadExecutor()
    server = make_server(approve=approver, executor=executor)
    result = tool_call(server, "run_python", code="ran = True")
    assert result["isError"] and text_of(result) == REJECTED_MESSAGE
    assert executor.pending == 0 and executor.pump() == 0 and "ran" not in shell.user_ns


def test_server_run_python_longer_than_a_card_shows_whole_is_refused_before_asking(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    """A card shows a run_python call's code whole up to PROPOSED_MAX: longer code would be
    approved half read, so it is refused before any card."""
    calls: list[str] = []
    server = make_server(approve=allow(calls))
    code = "ran = True\n" + "#" * PROPOSED_MAX
    result = tool_call(server, "run_python", code=code)
    assert result["isError"] and "refused before asking the user" in text_of(result)
    assert calls == [] and "ran" not in shell.user_ns


def test_server_run_python_switched_off(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    calls: list[str] = []
    server = make_server(approve=allow(calls), settings=NotebookToolsSettings(run_python=False))
    names = [t["name"] for t in call(server, rpc("tools/list")).json()["result"]["tools"]]
    assert "run_python" not in names and len(names) == 4
    result = tool_call(server, "run_python", code="ran = True")
    assert result["isError"] and "turned off" in text_of(result)
    assert calls == [] and "ran" not in shell.user_ns


def test_server_run_python_queue_bound_and_start_timeout(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    executor = MainThreadExecutor(max_pending=1)
    server = make_server(
        approve=allow([]), executor=executor,
        settings=NotebookToolsSettings(max_pending=1, start_timeout=0.5),
    )  # fmt: skip
    blocker = executor.submit(lambda: None)  # the kernel "stays busy": nobody pumps
    full = tool_call(server, "run_python", code="ran = True")
    assert full["isError"] and "already waiting" in text_of(full)
    assert blocker.cancel()
    started = time.monotonic()
    withdrawn = tool_call(server, "run_python", code="ran = True")
    assert withdrawn["isError"] and "withdrawn" in text_of(withdrawn)
    assert time.monotonic() - started < 5
    assert executor.pump() == 0 and "ran" not in shell.user_ns


def test_server_stop_is_idempotent_bounded_and_withdraws(
    make_server: Callable[..., NotebookMcpServer],
) -> None:
    executor = MainThreadExecutor()
    server = make_server(executor=executor)
    url = server.url
    queued = executor.submit(lambda: 1)
    started = time.monotonic()
    server.stop()
    server.stop()
    assert time.monotonic() - started < 5 and not server.running
    with pytest.raises(ExecutorClosed):
        queued.result(0)
    with pytest.raises(httpx.ConnectError):
        httpx.post(url, json=INITIALIZE, headers=JSON_HEADERS, timeout=2)


def test_mcp_sdk_client_talks_to_the_server(make_server: Callable[..., NotebookMcpServer]) -> None:
    """Interop with the official client: tools/list and a call through a Bearer-carrying client."""
    httpx2 = pytest.importorskip("httpx2")
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server = make_server()

    async def scenario() -> tuple[list[str], str]:
        headers = {"Authorization": f"Bearer {server.token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(server.url, http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("notebook_variables", {})
            return [t.name for t in tools.tools], result.content[0].text  # type: ignore[union-attr]

    names, text = asyncio.run(scenario())
    assert "describe_variable" in names and "variable" in text


# -- the patch --------------------------------------------------------------------------------------


def test_patch_file_is_private_and_holds_no_token(tmp_path: Path) -> None:
    token = "s3cret-token-value"
    mount = write_mcp_patch("http://127.0.0.1:4567/mcp", token, directory=tmp_path)
    text = mount.patch_path.read_text()
    assert token not in text
    assert stat.S_IMODE(mount.patch_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(mount.patch_path.parent.stat().st_mode) == 0o700
    assert mount.env == {MCP_TOKEN_ENV: token} and token not in repr(mount)
    assert f'name: "{MCP_CLIENT_PLUGIN}"' in text and "transport: streamable-http" in text
    assert f"process.env.{MCP_TOKEN_ENV}" in text and 'url: "http://127.0.0.1:4567/mcp"' in text
    mount.remove()
    mount.remove()
    assert not mount.patch_path.parent.exists()


def test_patch_refuses_non_loopback_urls() -> None:
    for url in ("http://example.com/mcp", "https://127.0.0.1:1/mcp", "http://127.0.0.1.evil:1/"):
        with pytest.raises(ValueError, match="loopback"):
            render_mcp_patch(url)
    with pytest.raises(ValueError, match="single-line"):
        write_mcp_patch("http://127.0.0.1:1/mcp", "two\nlines")


PAGE = {
    "v": 1,
    "type": "read_notebook_reply",
    "request_id": "n1",
    "path": "sales.ipynb",
    "total_cells": 2,
    "cells": [
        {"index": 0, "id": "a", "cell_type": "code", "source": "never_run = 41",
         "execution_count": None, "agent": False, "selected": True, "outputs": []},
        {"index": 1, "id": "b", "cell_type": "code", "source": "x = 1\n1 / 0",
         "execution_count": 3, "agent": True, "selected": False,
         "outputs": [{"output_type": "error", "ename": "ZeroDivisionError",
                      "evalue": "division by zero"}]},
    ],
}  # fmt: skip


def test_server_notebook_cells_reads_the_page_or_falls_back(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    run_cells(shell, "ran_before = 1")
    asked: list[tuple[float, bool]] = []

    def page(timeout: float, main_thread_busy: bool, want: Any = None) -> dict[str, Any] | str:
        asked.append((timeout, main_thread_busy))
        if main_thread_busy:
            return "the kernel is busy running a cell"
        assert threading.current_thread() is not threading.main_thread()
        return PAGE

    read = text_of(tool_call(make_server(read_notebook=page), "notebook_cells"))
    assert read.startswith("sales.ipynb as the user sees it now")
    assert "cell 1 is selected" in read and "## cell 1 · id a · code · not run · SELECTED" in read
    assert "never_run = 41" in read and "written by the agent" in read
    assert "→ error: ZeroDivisionError: division by zero" in read and asked == [(3.0, False)]
    absent = text_of(
        tool_call(make_server(read_notebook=lambda t, busy, want=None: "no page here"), "notebook_cells")
    )
    assert absent.startswith("The notebook itself could not be read (no page here)")
    assert "ran_before = 1" in absent
    busy_executor = MainThreadExecutor()
    busy_executor.cell_started()
    busy = make_server(read_notebook=page, executor=busy_executor)
    assert "the kernel is busy running a cell" in text_of(tool_call(busy, "notebook_cells"))
    assert asked == [(3.0, False), (3.0, True)]  # the reader knows a cell holds the main thread
