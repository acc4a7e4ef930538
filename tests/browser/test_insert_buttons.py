"""Insert below and Ask dsh in a real JupyterLab 4 (and Notebook 7), in chromium.

The real runtime answers from a scripted model that this test process serves on 127.0.0.1, so
the test reads exactly what the model received. The page has this checkout's extension build
(``start_lab``), except where a test blocks it.

- Insert below on a Python code block of the live widget (``--keep-widget``) and of a settled
  transcript: a new unexecuted cell with exactly that code, below the ``%%dsh`` cell; the bash
  block of the same answer has Copy only.
- Ask dsh on a cell that raised: a ``%%dsh`` cell below whose prompt names the cell by short id
  and quotes its code and traceback (no ``{In[n]}`` / ``{Err[n]}``, which point at another cell
  after a restart); running it sends the traceback text to the model.
- The extension blocked: Copy buttons only, the one-line notice once, no Ask dsh, no error.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.scripted_model.steps import Step

from .conftest import ARTIFACTS, Lab, SharedServers, write_notebook
from .labpage import menu_command, saved_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

CODE = "import math\nradius = 2\narea = math.pi * radius ** 2  # {not} interpolated\nprint(f'{area:.2f}')"
ANSWER = f"Here is the code:\n\n```python\n{CODE}\n```\n\nAnd in a shell:\n\n```bash\nls -l\n```\n"
RAISES = "answer = 41\nanswer + undefined_name"
NOTICE = "Insert below needs the dsh-notebook extension"


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(scripts={"pycode": [Step(text=ANSWER)]}) as server:
        yield server


def setup_cell(model: ScriptedModelServer) -> str:
    return (
        "%load_ext dsh_notebook\n"
        f"get_ipython()._dsh_notebook_magics.base_url = {model.base_url!r}\n"
        "get_ipython()._dsh_notebook_magics.api_key = 'dummy-key'"
    )


def cells(model: ScriptedModelServer) -> list[str]:
    return [
        setup_cell(model),
        "%%dsh --keep-widget\n[[scenario:pycode]] show me the code",
        "%%dsh\n[[scenario:pycode]] once more, please",
        RAISES,
    ]


def open_notebook(page: Any, lab: Lab, name: str, app: str = "lab") -> None:
    if app == "lab":
        workspace = f"{name.replace('.', '-')}-{time.monotonic_ns()}"
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
    else:
        page.goto(f"{lab.url}/notebooks/{name}?token={lab.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sessions = [s for s in lab.api("/api/sessions") if s["path"] == name]
        if sessions and sessions[0].get("kernel", {}).get("execution_state") == "idle":
            break
        time.sleep(0.3)
    else:
        raise AssertionError(f"the kernel of {name} never became idle")
    page.wait_for_timeout(1000)


def run_all(page: Any) -> None:
    page.click(".jp-Notebook")
    page.keyboard.press("Escape")
    menu_command(page, "Run", "Run All Cells")


def cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def saved_cells(page: Any, lab: Lab, name: str) -> list[dict[str, Any]]:
    """Save with Ctrl+S and return the saved cells once the file was written (its
    ``last_modified`` moved; a fixed wait read a file not yet written on a busy machine)."""
    before = lab.api(f"/api/contents/{name}?content=0")["last_modified"]
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while lab.api(f"/api/contents/{name}?content=0")["last_modified"] == before:
        assert time.monotonic() < deadline, f"{name} was never saved"
        page.wait_for_timeout(200)
    content = saved_notebook(lab, name, lambda nb: True, "the notebook could not be read")
    return list(content["cells"])


def source(saved: dict[str, Any]) -> str:
    text = saved["source"]
    return "".join(text) if isinstance(text, list) else str(text)


@contextlib.contextmanager
def busy_kernel(lab: Lab, name: str, seconds: float) -> Iterator[None]:
    """The notebook's kernel runs ``time.sleep(seconds)`` (sent by a second client over its
    connection file), and is busy, while the block runs."""
    from jupyter_client import find_connection_file
    from jupyter_client.blocking.client import BlockingKernelClient

    kernel_id = next(s["kernel"]["id"] for s in lab.api("/api/sessions") if s["path"] == name)
    client = BlockingKernelClient(connection_file=find_connection_file(f"kernel-{kernel_id}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        client.execute(f"import time; time.sleep({seconds})")
        deadline = time.monotonic() + 10
        while not any(
            s["path"] == name and s["kernel"]["execution_state"] == "busy"
            for s in lab.api("/api/sessions")
        ):
            assert time.monotonic() < deadline, "the kernel never became busy"
            time.sleep(0.1)
        yield
    finally:
        client.stop_channels()


def wait_ready(page: Any, error_cell: int = 3) -> None:
    """The kept widget, the settled transcript and the error cell, all rendered."""
    cell(page, 1).locator(".dsh-root .dsh-text .dsh-code").first.wait_for(timeout=120_000)
    cell(page, 2).locator(".jp-RenderedMarkdown:has-text('Here is the code')").wait_for(
        timeout=120_000
    )
    cell(page, error_cell).locator(".jp-OutputArea-output:has-text('NameError')").wait_for(
        timeout=60_000
    )


def test_insert_below_and_ask_dsh(
    browser: Any, lab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    write_notebook(lab.root / "insert.ipynb", cells(model))
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}"))
    open_notebook(page, lab, "insert.ipynb")
    assert page.evaluate("document.body.dataset.dshNotebookExtension"), "no extension marker"
    run_all(page)
    wait_ready(page)
    ask = cell(page, 3).locator(".dsh-nb-ask")
    ask.wait_for(timeout=30_000)
    widget = cell(page, 1).locator(".dsh-root")
    assert widget.locator(".dsh-insert").count() == 1  # the python block; bash: Copy only
    assert widget.locator(".dsh-copy").count() == 2
    settled = cell(page, 2)
    settled.locator(".dsh-nb-insert").wait_for(timeout=30_000)
    assert settled.locator(".dsh-nb-insert").count() == 1
    assert page.locator(".dsh-insert-notice:visible").count() == 0
    page.screenshot(path=str(artifacts / "insert-buttons.png"), full_page=True)

    with busy_kernel(lab, "insert.ipynb", 8):  # the page inserts without the kernel
        started = time.monotonic()
        widget.locator(".dsh-insert").click()  # -> a new cell at 2
        page.locator(".jp-Notebook .jp-Cell").nth(4).wait_for(timeout=5_000)
        assert page.locator(".jp-Notebook .jp-Cell").count() == 5
        took = time.monotonic() - started
        assert took < 5
        print(f"insert below -> cell on the page, kernel busy: {took * 1000:.0f} ms")
        assert "busy" in json.dumps(lab.api("/api/sessions"))
    cell(page, 3).locator(".dsh-nb-insert").click()  # the settled run, now at 3 -> a cell at 4
    cell(page, 5).locator(".dsh-nb-ask").click()  # the raised cell, now at 5 -> a cell at 6
    saved = saved_cells(page, lab, "insert.ipynb")
    assert len(saved) == 7, [source(c) for c in saved]
    for index in (2, 4):
        assert saved[index]["cell_type"] == "code"
        assert source(saved[index]) == CODE
        assert saved[index]["execution_count"] is None
        assert saved[index]["outputs"] == []
    count = saved[5]["execution_count"]
    assert source(saved[5]) == RAISES and isinstance(count, int)
    ask_source = source(saved[6])
    assert ask_source.startswith("%%dsh\n"), ask_source
    assert f"{{In[{count}]}}" not in ask_source and "{Err[" not in ask_source
    assert f"Cell {saved[5]['id'][:8]} raised an error" in ask_source
    assert RAISES in ask_source and "NameError" in ask_source
    assert saved[6]["execution_count"] is None

    # running the Ask dsh cell sends the cell's code and its traceback to the model
    before = len(model.requests)
    cell(page, 6).click()
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    cell(page, 6).locator(".jp-RenderedMarkdown:has-text('Hello from the fake model')").wait_for(
        timeout=120_000
    )
    sent = [json.dumps(r.body) for r in model.requests[before:] if r.body is not None]
    assert sent, "the model received no request"
    assert any("NameError" in body and "undefined_name" in body for body in sent), sent[-1][-3000:]
    assert any("Traceback" in body for body in sent), sent[-1][-3000:]
    assert any("answer + undefined_name" in body for body in sent)
    assert errors == []
    page.close()


def test_without_the_extension_copy_only_and_one_notice(
    browser: Any, lab: Lab, model: ScriptedModelServer, artifacts: Path
) -> None:
    setup, kept, frozen, raises = cells(model)
    again = "%%dsh --keep-widget\n[[scenario:pycode]] a third time"
    write_notebook(lab.root / "noext.ipynb", [setup, kept, frozen, again, raises])
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    blocked: list[str] = []

    def block(route: Any) -> None:
        blocked.append(route.request.url)
        route.abort()

    page.route("**/lab/extensions/dsh-notebook/**", block)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}"))
    open_notebook(page, lab, "noext.ipynb")
    assert blocked, "the extension was not requested: the test blocks nothing"
    assert page.evaluate("document.body.dataset.dshNotebookExtension") is None
    run_all(page)
    cell(page, 3).locator(".dsh-root .dsh-text .dsh-code").first.wait_for(timeout=120_000)
    wait_ready(page, error_cell=4)
    page.wait_for_timeout(1000)
    assert page.locator(".dsh-insert").count() == 0
    assert page.locator(".dsh-nb-insert, .dsh-nb-ask").count() == 0
    assert page.locator(".dsh-root .dsh-copy").count() == 4  # two widgets, two blocks each
    notices = page.locator(".dsh-insert-notice:visible")
    assert notices.count() == 1
    assert NOTICE in notices.first.inner_text()
    where = [i for i in range(5) if cell(page, i).locator(".dsh-insert-notice:visible").count()]
    assert where == [1], f"the notice is in cell(s) {where}, not in the first widget's (cell 1)"
    page.screenshot(path=str(artifacts / "insert-buttons-no-extension.png"), full_page=True)
    assert page.locator(".jp-Dialog").count() == 0
    # JupyterLab's own loader reports the blocked extension's missing container (an unhandled
    # rejection in its /static/lab/ chunk); nothing else may fail on the page
    others = [e for e in errors if not ("reading 'get'" in e and "/static/lab/" in e)]
    assert others == [], "\n\n".join(others)
    page.close()


def test_notebook7_insert_below_and_ask_dsh(
    browser: Any, model: ScriptedModelServer, shared_servers: SharedServers
) -> None:
    pytest.importorskip("notebook")
    server = shared_servers("notebook")
    root = server.root
    write_notebook(root / "nb7.ipynb", cells(model))
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    open_notebook(page, server, "nb7.ipynb", app="notebook")
    run_all(page)
    wait_ready(page)
    cell(page, 3).locator(".dsh-nb-ask").wait_for(timeout=30_000)
    cell(page, 1).locator(".dsh-insert").click()
    cell(page, 4).locator(".dsh-nb-ask").click()
    saved = saved_cells(page, server, "nb7.ipynb")
    assert source(saved[2]) == CODE and saved[2]["execution_count"] is None
    assert source(saved[5]).startswith("%%dsh\n")
    assert "NameError" in source(saved[5]) and "{Err[" not in source(saved[5])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "insert-buttons-notebook7.png"), full_page=True)
    page.close()
