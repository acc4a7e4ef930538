"""Remote kernels: JupyterLab with ``--gateway-url`` to Jupyter Enterprise Gateway 3.3 (its own
venv), both on 127.0.0.1, driven in chromium with the real runtime and the scripted model.

The kernel runs in the gateway's process tree, not the lab server's; the model endpoint and the
API key reach it only the way a deployment passes them (the lab server's environment, forwarded
by ``GatewayClient.allowed_envs`` and accepted by the gateway's ``client_envs``); ``DSH_HOME``
comes from the gateway host's kernelspec.

The session is created through the lab's REST API before the page opens: with JupyterLab 4.6 a
page that starts the kernel itself opens its websocket, drops it and reopens it at once, and the
gateway then stalls 42-48 s before the kernel is ready (docs/deploy.md).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import ARTIFACTS, Lab, busy_factor, start_lab, write_notebook
from .labpage import click_when_still, menu_command, save_notebook
from .servers import (
    KERNEL_NAME,
    Gateway,
    ancestors,
    gateway_python,
    runtimes_of,
    start_gateway,
    wait_until,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.deploy,
    pytest.mark.real_runtime,
    pytest.mark.timeout(300),
    # a real gateway on a loaded 2-core machine: its websocket reopen stall (docs/deploy.md) can
    # eat a cell; one rerun with a fresh server, as the widget browser tests have
    pytest.mark.flaky(reruns=1, reruns_delay=2),
]

FORWARDED = ["DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    if gateway_python() is None:
        pytest.skip(
            "no Enterprise Gateway venv: python3 -m venv .venv-gateway && "
            ".venv-gateway/bin/pip install 'jupyter_enterprise_gateway>=3.2,<4' (scripts/test.sh)"
        )
    with start_gateway(tmp_path_factory.mktemp("gateway"), client_envs=FORWARDED) as server:
        yield server


@pytest.fixture(scope="module")
def gwlab(
    tmp_path_factory: pytest.TempPathFactory, gateway: Gateway, scripted_model: ScriptedModelServer
) -> Iterator[Lab]:
    with start_lab(
        tmp_path_factory.mktemp("gwlab"),
        extra_args=[
            f"--gateway-url={gateway.url}",
            f"--GatewayClient.auth_token={gateway.token}",
            f"--GatewayClient.allowed_envs={','.join(FORWARDED)}",
            "--GatewayClient.request_timeout=60",
        ],
        extra_env={
            "DEEPSEEK_BASE_URL": scripted_model.base_url,
            "DEEPSEEK_API_KEY": "forwarded-test-key",
            # the gateway refuses kernels for its unauthorized_users (root by default); without
            # impersonation the name is only a label, and CI runs as root
            "KERNEL_USERNAME": "dsh-test",
        },
    ) as server:
        yield server
    # kept for a failed run: the stall shows as "Replacing stale connection" in the gateway's
    # log and "Ignoring message on failed connection" in the lab's
    ARTIFACTS.mkdir(exist_ok=True)
    for log in (server.root / "lab.log", gateway.dsh_home.parent / "gateway.log"):
        shutil.copy(log, ARTIFACTS / f"gateway-test-{log.name}")


def _session(lab: Lab, name: str) -> dict[str, Any]:
    """The notebook's session, created before the page opens (avoids the gateway stall)."""
    return dict(
        lab.api(
            "/api/sessions",
            method="POST",
            body={"path": name, "name": name, "type": "notebook", "kernel": {"name": KERNEL_NAME}},
        )
    )


def _open(page: Any, lab: Lab, name: str) -> None:
    workspace = f"{name.replace('.', '-')}-{time.monotonic_ns()}"
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000 * busy_factor())
    page.wait_for_selector(  # the wait a busy machine failed twice: scaled by its load
        ".jp-Notebook-ExecutionIndicator[data-status='idle']:visible",
        timeout=60_000 * busy_factor(),
    )


def _connected(page: Any, lab: Lab, name: str, attempts: int = 3) -> None:
    """Open the notebook until its kernel answers through the gateway: run the first cell (a
    probe) alone and wait for its output. When the page's websocket was dropped and reopened
    while the gateway was still opening it, the gateway stalls that connection and the lab
    server drops what the page sends meanwhile (docs/deploy.md); a reload gets a fresh one."""
    for _ in range(attempts):
        _open(page, lab, name)
        page.locator(".jp-Cell").first.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.locator(".jp-OutputArea-output:has-text('gateway-probe')").wait_for(timeout=15_000)
            return
        except Exception:  # Playwright's TimeoutError
            continue
    raise AssertionError(f"the gateway kernel did not answer in {attempts} page loads")


def _run_all(page: Any) -> None:
    page.click(".jp-Notebook")
    page.keyboard.press("Escape")
    menu_command(page, "Run", "Run All Cells")


def test_a_gateway_kernel_streams_asks_runs_python_and_leaves_no_runtime(
    browser: Any,
    gwlab: Lab,
    gateway: Gateway,
    scripted_model: ScriptedModelServer,
    artifacts: Path,
) -> None:
    name = "gateway.ipynb"
    write_notebook(gwlab.root / name, [
        "print('gateway' + '-probe')",
        "%load_ext dsh_notebook",
        "import pandas as pd\ndf = pd.DataFrame({'region': ['north', 'south', 'north'], "
        "'revenue': [1, 5, 2]})",
        "%%dsh\n[[scenario:slow]] [[chunks:30]] [[chunk-delay:0.15]] tell me slowly",
        "%%dsh\n[[scenario:notebook-analyze]] totals per region",
    ])  # fmt: skip
    nb = json.loads((gwlab.root / name).read_text())
    nb["metadata"]["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Python (dsh, gateway)",
                                    "language": "python"}  # fmt: skip
    (gwlab.root / name).write_text(json.dumps(nb))
    started = time.monotonic()
    session = _session(gwlab, name)
    kernel_id = session["kernel"]["id"]
    assert kernel_id in {k["id"] for k in gateway.api("/api/kernels")}  # the gateway's kernel
    scripted_model.clear_requests()
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    try:
        _connected(page, gwlab, name)
        print(f"gateway kernel answering {time.monotonic() - started:.1f} s after the session")
        _run_all(page)
        # live through the gateway: the answer grows in the widget
        page.wait_for_function(
            "() => { const t = document.querySelector('.dsh-root .dsh-text'); "
            "return t && t.textContent.includes('slow3'); }",
            timeout=90_000,
            polling=100,
        )
        assert "slow29" not in page.locator(".dsh-root .dsh-text").first.inner_text()
        page.screenshot(path=str(artifacts / "gateway-streaming.png"), full_page=True)
        # the runtime lives under the gateway's process tree, not the lab server's
        runtimes = runtimes_of(gateway.dsh_home)
        assert len(runtimes) == 1, runtimes
        chain = ancestors(runtimes[0])
        assert gateway.proc.pid in chain
        assert gwlab.pid not in chain
        # run_python asks; Allow once runs it in the kernel, on the gateway's side
        allow = page.locator(".dsh-allow")
        allow.wait_for(timeout=90_000)
        # the extension's waiting signal comes through the gateway's comm like locally
        page.locator(
            ".jp-StatusBar-Widget .dsh-waiting-status:has-text('dsh: 1 waiting')"
        ).wait_for(timeout=15_000)
        page.wait_for_timeout(600)  # inert for 0.5 s after appearing
        click_when_still(allow)
        page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
        assert page.locator(".dsh-root").count() == 0  # both widgets froze into transcripts
        page.screenshot(path=str(artifacts / "gateway-settled.png"), full_page=True)
        # the model endpoint and key came by forwarding (no demo model): the runtime called it
        assert any(r.path.endswith("/messages") for r in scripted_model.requests)
        # the tool result: region_totals was computed in the kernel (a pandas Series repr)
        settled = page.locator(".jp-RenderedMarkdown:has-text('allowed once')").first.inner_text()
        assert "south    5" in settled and "Series 'revenue': 2 rows" in settled, settled
        # the notebook's identity rode on the execute requests: its session is the notebook's
        saved = save_notebook(
            page, gwlab, name, lambda content: content["metadata"].get("dsh_notebook"),
            "the notebook was not saved with its identity",
        )  # fmt: skip
        identity = saved["metadata"]["dsh_notebook"]
        assert f"session nb-{identity['id'][:12]}" in settled
    finally:
        page.close()
    assert (gateway.dsh_home / "dsh_notebook").is_dir()  # DSH_HOME from the gateway's kernelspec
    # shutting the kernel down through the gateway leaves no runtime process (the notebook's
    # session now: a page load that met the gateway's stall may have replaced the first)
    for current in gwlab.api("/api/sessions"):
        if current["path"] == name:
            kernel_id = current["kernel"]["id"]
            gwlab.api(f"/api/sessions/{current['id']}", method="DELETE")
    wait_until(lambda: not runtimes_of(gateway.dsh_home), 20, "the runtime outlived its kernel")
    assert kernel_id not in {k["id"] for k in gateway.api("/api/kernels")}
