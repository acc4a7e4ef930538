"""The run widget in a real JupyterLab, in Debian's chromium (Playwright, no browser download).

A notebook builds a ``RunWidget`` and feeds it from a background thread the way the UI pump does
(snapshots of a live ``Transcript``): text streams in, hostile text is among it, an approval and a
question wait for clicks; ``on_action`` writes each click to disk. When the kernel integration is
present (``NotebookAgent.on_widget_action``), a second test runs ``%%dsh`` against the fake runtime and
clicks **Allow once** on its escalating ``bash`` call.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import ARTIFACTS, Lab, SharedServers, write_notebook
from .labpage import click_when_still, open_notebook, run_all, save_notebook, wait_shown

# one rerun, as every browser test (tests/browser/conftest.py)
pytestmark = pytest.mark.browser

SETUP = r"""
import json, pathlib, threading, time
from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import (ApprovalDecided, ApprovalRequested, QuestionAnswered,
                                           QuestionAsked, Settled)
from dsh_notebook.widget import RunWidget

HOSTILE = ("<img src=x onerror=\"window.__pwned=1\"> <script>window.__pwned=1</script> "
           "<svg onload=\"window.__pwned=1\"></svg> [click](javascript:window.__pwned=1) "
           "[c2](JaVaScRiPt:window.__pwned=1) [c3](data:text/html,<script>window.__pwned=1</script>)\n\n")
t = Transcript("browser-run", prompt="Plot {df} please", model="deepseek-flash",
               context=[{"token": "{df}", "kind": "dataframe", "summary": "DataFrame 3x2", "chars": 60, "truncated": False}])
actions = pathlib.Path("actions.jsonl")
actions.write_text("")
def on_action(action):
    with actions.open("a") as f:
        f.write(json.dumps(action) + "\n")
    return None
w = RunWidget(t.snapshot(), on_action=on_action)
w
"""

FEED = r"""
def frame(i, text):
    return Notification("session.assistant_stream", {"sessionId": "browser-run", "frame": {
        "type": "chunk", "attemptId": "a1", "revision": 1, "index": i, "time": 0,
        "chunk": {"type": "text-delta", "index": 0, "text": text}}})

def feed():
    t.apply(Notification("session.status", {"sessionId": "browser-run", "status": "running"}))
    w.update(t.snapshot())
    t.apply(frame(0, HOSTILE + "Here is the *plan*:\n\n```python\nimport pandas as pd\n```\n\n"))
    w.update(t.snapshot())
    for i in range(1, 120):
        t.apply(frame(i, f"word{i} "))
        w.update(t.snapshot())
        time.sleep(0.05)
    t.apply(Notification("session.event", {"sessionId": "browser-run", "event": {
        "type": "tool/call", "seq": 5, "time": 0,
        "data": {"callId": "call-1", "name": "bash", "arguments": json.dumps({"command": "touch done.txt"})}}}))
    t.apply_local(ApprovalRequested(request_id="a1", session_id="browser-run", tool_name="bash",
                                    call_id="call-1", reason="escalate: write outside the sandbox"))
    t.apply_local(QuestionAsked(request_id="q2", session_id="browser-run", questions=[
        {"id": "color", "question": "Which color?", "options": [{"label": "red"}, {"label": "blue"}]}]))
    w.update(t.snapshot())
    answered = set()
    while len(answered) < 2:
        for line in actions.read_text().splitlines():
            a = json.loads(line)
            if a.get("request_id") in answered:
                continue
            answered.add(a.get("request_id"))
            if a["type"] == "approval":
                ok = a["decision"] == "allowed-once"
                if ok:
                    pathlib.Path("done.txt").write_text("ran")  # the command's effect
                t.apply_local(ApprovalDecided(request_id="a1",
                              outcome="allowed-once" if ok else "rejected", decided_by="you"))
            elif a["type"] == "answer":
                t.apply_local(QuestionAnswered(request_id="q2", answers=a["answers"]))
        w.update(t.snapshot())
        time.sleep(0.1)
    t.apply_local(Settled(finish_reason="completed"))
    w.update(t.snapshot(), final=True)

threading.Thread(target=feed, daemon=True).start()
"""


def set_theme(lab: Lab, theme: str) -> None:
    lab.api(
        "/lab/api/settings/@jupyterlab/apputils-extension:themes",
        method="PUT",
        body={"raw": json.dumps({"theme": theme})},
    )


def test_widget_streams_is_safe_and_takes_clicks(browser: Any, lab: Lab, artifacts: Path) -> None:
    set_theme(lab, "JupyterLab Light")
    write_notebook(lab.root / "widget.ipynb", [SETUP, FEED])
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    open_notebook(page, lab, "widget.ipynb")
    run_all(page)
    root = page.locator(".dsh-root")
    root.wait_for(timeout=60_000)
    session = page.locator(".dsh-header .dsh-session")  # the session name, short, in the header
    assert session.inner_text() == "browser-run"
    assert session.get_attribute("title", timeout=5_000).startswith("session browser-run")
    text = page.locator(".dsh-text")
    text.wait_for(timeout=30_000)
    first = len(text.inner_text())
    page.wait_for_timeout(1000)
    second = len(text.inner_text())
    assert second > first, "the answer does not grow live"
    assert page.locator(".dsh-state").inner_text() == "running"
    assert page.evaluate("window.__pwned") is None
    assert root.locator("img, script, svg, iframe").count() == 0
    assert root.locator("a[href^='javascript' i], a[href^='data' i]").count() == 0
    assert "window.__pwned" in text.inner_text()  # shown as text
    page.screenshot(path=str(artifacts / "widget-light-streaming.png"), full_page=True)

    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=30_000)
    assert page.locator(".dsh-state").inner_text() == "waiting for you"
    cells = page.locator(".jp-Notebook .jp-Cell").count()
    # typing in the question card does not reach notebook shortcuts (a, b, d d would edit cells)
    custom = page.locator(".dsh-question input[type=text]")
    custom.click()
    custom.type("abdd m")
    assert custom.input_value() == "abdd m"
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells
    page.locator(".dsh-question input[value='blue']").check()
    page.wait_for_timeout(600)  # the approval buttons are inert for 0.5 s after appearing
    # a double click, as fast as a browser delivers it: one decision is sent
    page.evaluate("() => { const b = document.querySelector('.dsh-allow'); b.click(); b.click(); }")
    custom.press("Enter")
    page.locator(".dsh-state:has-text('settled')").wait_for(timeout=30_000)
    assert page.locator(".dsh-approval .dsh-outcome").inner_text() == "Allowed once — by you"
    assert "Answer: blue, “abdd m”" in page.locator(".dsh-question").inner_text()
    actions = [json.loads(x) for x in (lab.root / "actions.jsonl").read_text().splitlines()]
    assert actions == [
        {"type": "approval", "request_id": "a1", "decision": "allowed-once"},
        {"type": "answer", "request_id": "q2",
         "answers": [{"id": "color", "selected": ["blue"], "custom": "abdd m"}]},
    ]  # fmt: skip
    assert (lab.root / "done.txt").read_text() == "ran"
    assert page.evaluate("window.__pwned") is None
    page.screenshot(path=str(artifacts / "widget-light-settled.png"), full_page=True)
    assert not [e for e in errors if "dsh" in e.lower()], errors
    page.close()

    set_theme(lab, "JupyterLab Dark")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        open_notebook(page, lab, "widget.ipynb")
        run_all(page)
        page.locator(".dsh-allow").wait_for(timeout=60_000)
        page.screenshot(path=str(artifacts / "widget-dark-waiting.png"), full_page=True)
        background = page.evaluate(
            "getComputedStyle(document.querySelector('.dsh-root')).backgroundColor"
        )
        assert background != "rgb(255, 255, 255)", "the dark theme's variables are not used"
        page.close()
    finally:
        set_theme(lab, "JupyterLab Light")


MAGIC_SETUP = r"""
import os, pathlib, stat, sys
from dsh_notebook.testing.harnesses import FAKE_RUNTIME
launcher = pathlib.Path("fake-dsh")
launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_RUNTIME} --scenario approval "$@"\n')
launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
%load_ext dsh_notebook
get_ipython()._dsh_notebook_magics.dsh_bin = str(launcher.resolve())
get_ipython()._dsh_notebook_magics.bridge = False
assert hasattr(get_ipython()._dsh_notebook_magics.agent, "on_widget_action")
"""


def test_dsh_magic_allow_once(browser: Any, lab: Lab, artifacts: Path) -> None:
    write_notebook(
        lab.root / "magic.ipynb", [MAGIC_SETUP, "%%dsh --format widget\n[[turn:approval]] run it"]
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    open_notebook(page, lab, "magic.ipynb")
    run_all(page)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=60_000)
    page.wait_for_timeout(600)
    page.screenshot(path=str(artifacts / "magic-waiting.png"), full_page=True)
    click_when_still(allow)
    # settled: the widget is replaced by the static transcript, which records the decision
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    page.screenshot(path=str(artifacts / "magic-settled.png"), full_page=True)
    assert page.locator(".dsh-root").count() == 0
    page.close()


def test_real_runtime_live_text_allow_once_and_reload(
    browser: Any, lab: Lab, artifacts: Path
) -> None:
    """The real runtime and the scripted demo model (no key): text grows live in the widget,
    Allow once on an escalating bash call leaves its effect on disk, the settled transcript
    replaces the widget and still reads after the notebook is saved and the page reloaded."""
    outside = lab.root.parent / f"outside-{time.monotonic_ns()}"
    outside.mkdir()
    target = outside / "allowed.txt"
    write_notebook(
        lab.root / "real.ipynb",
        [
            "%load_ext dsh_notebook",
            "%%dsh\n[[scenario:slow]] [[chunks:30]] [[chunk-delay:0.15]] tell me slowly",
            f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch a file outside",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    open_notebook(page, lab, "real.ipynb")
    run_all(page)
    text = page.locator(".dsh-root .dsh-text").first
    text.wait_for(timeout=90_000)
    page.wait_for_function(
        "() => { const t = document.querySelector('.dsh-root .dsh-text'); "
        "return t && t.textContent.includes('slow3'); }",
        timeout=60_000,
        polling=100,
    )
    partial = text.inner_text()
    assert "slow29" not in partial, "the answer did not grow live: it arrived whole"
    page.screenshot(path=str(artifacts / "real-streaming.png"), full_page=True)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=90_000)
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    assert not target.exists()
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    assert page.locator(".dsh-root").count() == 0  # both widgets froze into transcripts
    page.screenshot(path=str(artifacts / "real-settled.png"), full_page=True)
    save_notebook(  # saved: the contents API has the allowed-once transcript
        page,
        lab,
        "real.ipynb",
        lambda content: "allowed once" in json.dumps(content),
        "the notebook was not saved with its transcripts",
    )
    page.reload()
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.locator(".jp-RenderedMarkdown:has-text('slow29')").wait_for(timeout=30_000)
    # outputs render one after another after a reload: wait for the second transcript too
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").first.wait_for(timeout=30_000)
    page.close()


def test_real_runtime_question_and_subagent(browser: Any, lab: Lab, artifacts: Path) -> None:
    """The real runtime: a question answered by clicking an option and Submit reaches the
    agent's tool result; a subagent's card appears under its tool call and completes; Reject on
    an escalating bash call leaves nothing on disk."""
    outside = lab.root.parent / f"outside-{time.monotonic_ns()}"
    outside.mkdir()
    target = outside / "rejected.txt"
    write_notebook(
        lab.root / "real2.ipynb",
        [
            "%load_ext dsh_notebook",
            "%%dsh -o asked\n[[scenario:ask]] ask me something",
            "%%dsh -o delegated\n[[scenario:subagent]] delegate a task",
            f"%%dsh -o refused\n[[scenario:escalate]] [[target:{target}]] touch a file outside",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    open_notebook(page, lab, "real2.ipynb")
    run_all(page)
    blue = page.locator(".dsh-question .dsh-option:has-text('Blue') input")
    blue.wait_for(timeout=90_000)
    blue.check()
    click_when_still(page.locator(".dsh-question .dsh-submit"))
    # the delegated run ends with the parent's answer after the child's; its live card is not
    # waited for: the scripted run can start and end between two renders, and a view skips the
    # render of a run that just ended (the transcript replaces it), so the card is read from the
    # transcript below. The live card is rendered and tested in js/test/render.test.ts.
    delegated = page.locator(".jp-RenderedMarkdown:has-text('The child said hello.')")
    delegated.wait_for(timeout=90_000)
    subagent = delegated.inner_text()
    assert "Subagent child task · done" in subagent, subagent
    assert "Hello from the child subagent." in subagent, subagent
    reject = page.locator(".dsh-reject")
    reject.wait_for(timeout=90_000)
    page.wait_for_timeout(600)  # inert for 0.5 s after appearing
    click_when_still(reject)
    rejected = page.locator(".jp-RenderedMarkdown:has-text('rejected')").first
    wait_shown(page, rejected, 60_000, "no transcript says 'rejected' 60 s after Reject")
    assert not target.exists()
    page.screenshot(path=str(artifacts / "real-question-subagent.png"), full_page=True)
    assert page.locator(".dsh-root").count() == 0  # both froze into transcripts
    transcripts = page.locator(".jp-RenderedMarkdown").all_inner_texts()
    joined = "\n".join(transcripts)
    assert "Blue" in joined
    page.close()


def test_notebook7_widget_and_allow_once(
    browser: Any, shared_servers: SharedServers, tmp_path: Path
) -> None:
    """Notebook 7 renders the live widget and a click on Allow once reaches the real runtime."""
    pytest.importorskip("notebook")

    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "nb7.txt"
    server = shared_servers("notebook")
    root = server.root
    write_notebook(
        root / "nb7.ipynb",
        [
            "%load_ext dsh_notebook",
            f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    page.goto(f"{server.url}/notebooks/nb7.ipynb?token={server.token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sessions = [s for s in server.api("/api/sessions") if s["path"].endswith("nb7.ipynb")]
        if sessions and sessions[0].get("kernel", {}).get("execution_state") == "idle":
            break
        time.sleep(0.3)
    page.wait_for_timeout(1000)
    run_all(page)
    allow = page.locator(".dsh-allow")
    allow.wait_for(timeout=90_000)
    page.wait_for_timeout(600)
    assert not target.exists()
    click_when_still(allow)
    page.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    assert target.exists()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "notebook7-settled.png"), full_page=True)
    page.close()
