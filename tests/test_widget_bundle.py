"""The light widget: with the extension's ``widget_bundle:<hash>`` capability (and only the same
hash) a new run widget's ``comm_open`` carries a small loader instead of the whole bundle; the
extension's build serves that very bundle. The kernel test drives a real ipykernel and the real
runtime, answering ``hello`` as the extension does."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.widget import RunWidget
from dsh_notebook.widget.bundle import CAPABILITY, HASH, LIGHT_ESM, STATIC, bundle_hash

from .kernels import Execution, Kernel, scripted_kernel

REPO = Path(__file__).resolve().parent.parent


def test_the_hash_is_the_bundles_and_the_extension_serves_that_bundle() -> None:
    js, css = (STATIC / "widget.js").read_bytes(), (STATIC / "widget.css").read_bytes()
    assert bundle_hash(js, css) == HASH and re.fullmatch(r"[0-9a-f]{16}", HASH)
    generated = (REPO / "js/labextension/src/widgetbundle.ts").read_text()
    assert f"WIDGET_BUNDLE_HASH = '{HASH}';" in generated  # what the extension announces
    served = REPO / "dsh_notebook/labextension/static"
    assert (served / f"dsh-widget.{HASH}.js").read_bytes() == js
    assert (served / f"dsh-widget.{HASH}.css").read_bytes() == css
    assert len(list(served.glob("dsh-widget.*"))) == 2  # no stale bundle left beside it


def test_a_light_widget_carries_the_loader_and_no_css() -> None:
    full = RunWidget()
    light = RunWidget(light=True)
    try:
        assert full._esm == (STATIC / "widget.js").read_text() and len(full._css) > 1000
        assert light._esm == LIGHT_ESM and light._css == ""
        assert len(LIGHT_ESM.encode()) < 2500 and HASH in LIGHT_ESM
    finally:
        full.close()
        light.close()


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url, setup=None) as k:
        yield k


def _comm_opens(execution: Execution, target: str) -> list[dict[str, Any]]:
    return [
        m["content"]
        for m in execution.outputs
        if m["msg_type"] == "comm_open" and m["content"]["target_name"] == target
    ]


def _widget_esm(k: Kernel) -> str:
    ran = k.execute("%%dsh\n[[scenario:plain]] hi", allow_stdin=True)
    assert ran.error is None, ran.error
    esms = [
        c["data"]["state"]["_esm"]
        for c in _comm_opens(ran, "jupyter.widget")
        if "_esm" in c["data"].get("state", {})
    ]
    assert len(esms) == 1, esms
    k.value("_dsh.result(30).final_response")  # settled before the next prompt
    return str(esms[0])


def _reply(k: Kernel, comm_id: str, capabilities: list[str]) -> None:
    data = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": capabilities}
    k.client.shell_channel.send(
        k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
    )
    time.sleep(0.5)  # the reply is handled between cells
    k.execute("pass", allow_stdin=True)


@pytest.mark.real_runtime
@pytest.mark.timeout(240)
def test_the_kernel_sends_the_loader_only_to_a_page_serving_the_same_bundle(
    kernel: Kernel,
) -> None:
    loaded = kernel.execute(
        "%load_ext dsh_notebook\n%config DshMagics.prewarm = False", allow_stdin=True
    )
    assert loaded.error is None, loaded.error
    opens = _comm_opens(loaded, "dsh_notebook.frontend")
    assert opens, "no frontend comm opened at load"
    comm_id = str(opens[0]["comm_id"])
    full = (STATIC / "widget.js").read_text()

    assert _widget_esm(kernel) == full  # no hello_reply yet: the self-contained widget
    _reply(kernel, comm_id, ["identity", "waiting", "widget_bundle:0123456789abcdef"])
    assert _widget_esm(kernel) == full  # a page serving another bundle
    _reply(kernel, comm_id, ["identity", "waiting"])
    assert _widget_esm(kernel) == full  # an older extension
    _reply(kernel, comm_id, ["identity", "waiting", CAPABILITY])
    assert _widget_esm(kernel) == LIGHT_ESM
