"""Real-time collaboration: JupyterLab with ``jupyter-collaboration`` (installed by
``scripts/test.sh`` under ``.rtc/`` with ``pip --prefix``, and put on this lab's paths only, so
the other browser tests keep a JupyterLab without it), two pages on one notebook, the real
runtime and the scripted demo model.

Page A runs the notebook (its cells are trusted there: A executed them). Page B is a
collaborator whose copy is not trusted: JupyterLab does not render the widget there and shows
the output's ``text/plain``, which must say what is going on and how to trust the notebook; the
approval is decided on A, once; when the run settles B sees the same static transcript as A.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, Lab, start_lab, write_notebook
from .labpage import click_when_still, menu_command
from .servers import wait_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.deploy,
    pytest.mark.real_runtime,
    pytest.mark.timeout(300),
]


def rtc_prefix() -> Path | None:
    """The ``pip install --prefix`` folder holding jupyter-collaboration, when there is one."""
    listed = os.environ.get("DSH_TEST_RTC_PREFIX")
    prefix = Path(listed) if listed else REPO / ".rtc"
    found = list(prefix.glob("lib/python*/site-packages/jupyter_collaboration"))
    return prefix if found else None


@pytest.fixture(scope="module")
def rtclab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    prefix = rtc_prefix()
    if prefix is None:
        pytest.skip("jupyter-collaboration is not installed under .rtc (scripts/test.sh does it)")
    site = next(prefix.glob("lib/python*/site-packages"))
    paths = [p for p in (os.environ.get("JUPYTER_PATH"),) if p]
    with start_lab(
        tmp_path_factory.mktemp("rtclab"),
        extra_env={
            "PYTHONPATH": os.pathsep.join([str(REPO), str(site)]),
            "JUPYTER_PATH": os.pathsep.join([str(prefix / "share" / "jupyter"), *paths]),
            "JUPYTER_CONFIG_PATH": str(prefix / "etc" / "jupyter"),
        },
    ) as server:
        yield server


def _open(page: Any, lab: Lab, name: str) -> None:
    workspace = f"{name.replace('.', '-')}-{time.monotonic_ns()}"
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(
        ".jp-Notebook-ExecutionIndicator[data-status='idle']:visible", timeout=90_000
    )


def test_an_untrusted_collaborator_is_told_why_and_sees_the_transcript(
    browser: Any, rtclab: Lab, artifacts: Path
) -> None:
    assert (
        "jupyter_server_ydoc | extension was successfully loaded"
        in (rtclab.root / "lab.log").read_text()
    )
    outside = rtclab.root.parent / f"outside-{time.monotonic_ns()}"
    outside.mkdir()
    target = outside / "allowed.txt"
    name = "shared.ipynb"
    write_notebook(rtclab.root / name, [
        "%load_ext dsh_notebook",
        f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch a file outside",
    ])  # fmt: skip
    a = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    b = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    try:
        _open(a, rtclab, name)
        _open(b, rtclab, name)
        a.click(".jp-Notebook")
        a.keyboard.press("Escape")
        menu_command(a, "Run", "Run All Cells")
        allow = a.locator(".dsh-allow")
        allow.wait_for(timeout=90_000)
        # B: the output arrived through the shared document, as text: it says why and what to do
        fallback = b.locator(".jp-OutputArea-output:has-text('Trust Notebook')")
        fallback.wait_for(timeout=30_000)
        assert "not trusted here" in fallback.inner_text()
        assert b.locator(".dsh-root").count() == 0
        b.screenshot(path=str(artifacts / "rtc-untrusted-fallback.png"), full_page=True)
        a.wait_for_timeout(600)  # inert for 0.5 s after appearing
        click_when_still(allow)
        a.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
        wait_until(target.exists, 10, "the allowed command did not run")
        # B: the settled transcript replaced the fallback
        b.locator(".jp-OutputArea-output:has-text('allowed once')").wait_for(timeout=30_000)
        assert b.locator(".jp-OutputArea-output:has-text('Trust Notebook')").count() == 0
        b.screenshot(path=str(artifacts / "rtc-untrusted-settled.png"), full_page=True)
    finally:
        a.context.close()
        b.context.close()


def test_two_trusted_pages_see_the_widget_and_an_approval_is_decided_once(
    browser: Any, rtclab: Lab, artifacts: Path
) -> None:
    outside = rtclab.root.parent / f"outside-{time.monotonic_ns()}"
    outside.mkdir()
    target = outside / "allowed.txt"
    name = "trusted.ipynb"
    write_notebook(rtclab.root / name, [
        "%load_ext dsh_notebook",
        f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch a file outside",
    ])  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "jupyter", "trust", str(rtclab.root / name)],
        check=True, capture_output=True, env={**os.environ, "JUPYTER_CONFIG_DIR": str(rtclab.root / ".jupyter")},
    )  # fmt: skip
    a = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    b = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    try:
        _open(a, rtclab, name)
        _open(b, rtclab, name)
        a.click(".jp-Notebook")
        a.keyboard.press("Escape")
        menu_command(a, "Run", "Run All Cells")
        a.locator(".dsh-allow").wait_for(timeout=90_000)
        allow_b = b.locator(".dsh-allow")
        allow_b.wait_for(timeout=30_000)  # the collaborator renders the live widget too
        b.wait_for_timeout(600)
        click_when_still(allow_b)
        for page in (a, b):  # one decision, seen on both pages; one transcript each
            page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
            assert page.locator(".dsh-root").count() == 0
        wait_until(target.exists, 10, "the allowed command did not run")
        b.screenshot(path=str(artifacts / "rtc-trusted-settled.png"), full_page=True)
    finally:
        a.context.close()
        b.context.close()
