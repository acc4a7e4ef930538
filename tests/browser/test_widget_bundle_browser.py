"""Light widgets in a real JupyterLab 4 (Chromium, real runtime, scripted model): with the
``dsh-notebook`` extension the run widgets' ``comm_open`` carries the small loader, the bundle is
fetched once from the extension's static folder, and both widgets stream and take a click; with
the extension's files blocked the kernel never hears ``hello_reply`` and sends the whole bundle,
which still renders. Websocket bytes are counted from Playwright's frame events."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.widget.bundle import HASH

from .conftest import Lab, SharedServers, write_notebook
from .labpage import click_when_still, open_notebook

pytestmark = pytest.mark.browser


class Frames:
    """Bytes the page receives over its websockets, by phase, and the widget ``comm_open``s."""

    def __init__(self, page: Any) -> None:
        self.phase = "load"
        self.totals: dict[str, int] = {}
        self.widget_opens: list[int] = []
        self.kinds: dict[str, int] = {}
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        data = payload.encode() if isinstance(payload, str) else bytes(payload)
        self.totals[self.phase] = self.totals.get(self.phase, 0) + len(data)
        kind = re.search(rb'"msg_type": ?"(\w+)"', data)
        key = f"{self.phase}/{kind.group(1).decode() if kind else '?'}"
        self.kinds[key] = self.kinds.get(key, 0) + len(data)
        if b'"comm_open"' in data and b"jupyter.widget" in data and b"_esm" in data:
            self.widget_opens.append(len(data))


def _notebook(lab: Lab, name: str) -> Path:
    outside = lab.root.parent / f"outside-{time.monotonic_ns()}"
    outside.mkdir()
    target = outside / "allowed.txt"
    write_notebook(
        lab.root / name,
        [
            "%load_ext dsh_notebook",
            "%%dsh\n[[scenario:slow]] [[chunks:12]] [[chunk-delay:0.15]] tell me slowly",
            f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch a file outside",
        ],
    )
    return target


def _open_in_notebook7(page: Any, server: Lab, name: str) -> None:
    page.goto(f"{server.url}/notebooks/{name}?token={server.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sessions = [s for s in server.api("/api/sessions") if s["path"].endswith(name)]
        if sessions and sessions[0].get("kernel", {}).get("execution_state") == "idle":
            break
        time.sleep(0.3)
    page.wait_for_timeout(1000)


def _run_two_widgets(
    page: Any, lab: Lab, name: str, frames: Frames, opener: Any = open_notebook
) -> None:
    """Runs the cells one by one (as a person does) and works both widgets."""
    target = _notebook(lab, name)
    opener(page, lab, name)
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.nth(0).click()
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    page.wait_for_timeout(1500)  # the extension's hello_reply reaches the kernel
    frames.phase = "widget 1"
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "() => { const t = document.querySelector('.dsh-root .dsh-text'); "
        "return t && t.textContent.includes('slow3'); }",
        timeout=90_000,
        polling=100,
    )  # the widget rendered and streams
    page.locator(".jp-RenderedMarkdown:has-text('slow11')").wait_for(timeout=60_000)
    frames.phase = "widget 2"
    page.keyboard.press("Shift+Enter")
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=90_000)
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    assert not target.exists()
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()  # the click on the light widget reached the kernel
    frames.phase = "after"


def test_two_light_widgets_render_work_and_load_the_bundle_once(
    browser: Any, lab: Lab, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    frames = Frames(page)
    fetched: list[str] = []
    phases: list[str] = []

    def bundle_request(request: Any) -> None:
        if "dsh-widget." in request.url:
            fetched.append(request.url)
            phases.append(frames.phase)

    page.on("request", bundle_request)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    _run_two_widgets(page, lab, "light.ipynb", frames)
    # preloaded once the kernel loaded dsh_notebook, before the first widget's run streamed
    assert phases == ["load", "load"], phases
    page.screenshot(path=str(artifacts / "widget-bundle-light.png"), full_page=True)
    print("light: widget comm_open bytes", frames.widget_opens, "phase bytes", frames.totals)
    print("light: by message type", sorted(frames.kinds.items()))
    assert len(frames.widget_opens) == 2 and all(n <= 10_000 for n in frames.widget_opens)
    # the whole second run's traffic (its streamed transcript, the settled output, statuses):
    # well under the bundle alone (~237 KB), which it carried before
    assert frames.totals["widget 2"] < 100_000
    assert sorted(u.rsplit("/", 1)[1].split("?")[0] for u in fetched) == [
        f"dsh-widget.{HASH}.css",
        f"dsh-widget.{HASH}.js",
    ]  # fetched once per page, under the bundle's hash
    assert page.locator(f'link[data-dsh-widget-bundle="{HASH}"]').count() == 1
    assert errors == []
    page.close()


def test_with_the_extension_blocked_the_kernel_sends_the_whole_bundle(
    browser: Any, lab: Lab, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    page.route("**/lab/extensions/dsh-notebook/**", lambda route: route.abort())
    frames = Frames(page)
    _run_two_widgets(page, lab, "blocked.ipynb", frames)
    assert page.evaluate("() => document.body.dataset.dshNotebookExtension") is None
    page.screenshot(path=str(artifacts / "widget-bundle-blocked.png"), full_page=True)
    print("blocked: widget comm_open bytes", frames.widget_opens, "phase bytes", frames.totals)
    assert len(frames.widget_opens) == 2 and all(n > 200_000 for n in frames.widget_opens)
    page.close()


def test_notebook7_serves_the_bundle_too(browser: Any, shared_servers: SharedServers) -> None:
    """Notebook 7 has ``fullLabextensionsUrl`` in its page config as JupyterLab does: the same
    loader finds the served bundle there."""
    pytest.importorskip("notebook")
    server = shared_servers("notebook")
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    frames = Frames(page)
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "dsh-widget." in r.url else None)
    _run_two_widgets(page, server, "nb7.ipynb", frames, _open_in_notebook7)
    print("notebook 7: widget comm_open bytes", frames.widget_opens, "phase", frames.totals)
    assert len(frames.widget_opens) == 2 and all(n <= 10_000 for n in frames.widget_opens)
    assert len(fetched) == 2 and all(HASH in u for u in fetched)
    page.close()
