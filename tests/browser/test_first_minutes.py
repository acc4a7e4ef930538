"""A newcomer's first minutes (issue 48 item 8), with the launch step of ``scripts/run.sh``
(``scripts/lab.sh``: ``run.sh`` runs it after setting up ``.venv``) in chromium, as a person
with fresh Jupyter settings meets it:

- the quickstart opens with no JupyterLab "news" toast over it (this launch's page config
  disables the announcements plugin; the person's settings are untouched);
- the quickstart shows the picture of a diff card (the editing tools, without a key);
- the server serves the person's copy of the notebooks: running and saving the quickstart
  changes the copy, never ``notebooks/`` (the clone's git tree stays clean).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, Lab, _free_port, await_ready, stop_process
from .labpage import new_page, wait_kernel_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

QUICKSTART = REPO / "notebooks" / "quickstart.ipynb"
TOASTS = ".jp-Notification-Toast, .Toastify__toast"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_quickstart_opens_without_the_news_toast_on_a_copy_with_the_diff_card_picture(
    browser: Any, tmp_path: Path
) -> None:
    before = _digest(QUICKSTART)
    copy = tmp_path / "my-notebooks"
    token = secrets.token_hex(16)
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DEEPSEEK_", "JUPYTER"))},
        "DSH_TELEMETRY_MODE": "DISABLED",
        "DSH_HOME": str(tmp_path / ".dsh-home"),
        "DSH_NOTEBOOKS_COPY": str(copy),
        # a person's own, fresh Jupyter settings: nothing here turns the news off
        "JUPYTER_CONFIG_DIR": str(tmp_path / ".jupyter"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / ".jupyter" / "lab" / "user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / ".jupyter" / "lab" / "workspaces"),
    }
    log = (tmp_path / "lab.log").open("wb")
    proc = subprocess.Popen(
        ["bash", str(REPO / "scripts" / "lab.sh"), "--no-browser", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}"],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    lab = Lab(f"http://127.0.0.1:{port}", token, copy, proc.pid)
    try:
        await_ready(proc, log, lambda: lab.api("/api/status"))
        assert (copy / "quickstart.ipynb").read_bytes() == QUICKSTART.read_bytes()
        page = new_page(browser)
        page.goto(f"{lab.url}/lab/tree/quickstart.ipynb?reset&token={token}")
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
        wait_kernel_idle(lab, "quickstart.ipynb")
        page.wait_for_timeout(4_000)  # the news question comes once the app is restored
        shown = page.locator(TOASTS).all_inner_texts()
        assert not shown, f"a toast covers the quickstart: {shown}"

        picture = page.locator(".jp-RenderedMarkdown img[src*='diff-card']")
        picture.scroll_into_view_if_needed(timeout=30_000)
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 200", arg=picture.element_handle()
        )

        page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-InputPrompt").click()
        page.keyboard.press("Escape")
        page.keyboard.press("Control+Enter")  # %load_ext dsh_notebook
        page.wait_for_timeout(500)
        wait_kernel_idle(lab, "quickstart.ipynb")
        page.keyboard.press("Control+s")
        saved_by = time.monotonic() + 30  # the copy is written once the save landed
        while (copy / "quickstart.ipynb").read_bytes() == QUICKSTART.read_bytes():
            assert time.monotonic() < saved_by, "the copy of quickstart.ipynb was never saved"
            page.wait_for_timeout(200)
        assert _digest(QUICKSTART) == before, "saving changed notebooks/quickstart.ipynb"
        page.close()
    finally:
        lab.end_sessions(lambda session: True)
        stop_process(proc, log)
