"""A rejection's note in a real ipykernel against the real runtime (issue 43, item 9): the note a
page sends with Reject (as JSON a browser writes: a lone surrogate arrives as a ``\\ud800``
escape) and the one of ``%dsh reject --note`` reach the model, the card and the saved transcript
without NUL, ESC, BEL or lone surrogates; line breaks and tabs are kept."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.schemas import public_tool_name
from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_shown
from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

SCRIPTS = {
    "note-card": Script(
        steps=(
            Step(tool_calls=(ToolCall(public_tool_name("run_python"), {"code": "x = 1"}),)),
            Step(text="Understood."),
        )
    ),
}

TYPED = "use the\x00 2024\x1b[31m data\x07\r\nplease\tnow \ud800\U0001f600"
"""A note as a page may send it: NUL, an ANSI escape, BEL, a CRLF, a tab, a lone surrogate, and
an emoji (a surrogate pair in the JSON)."""
CLEAN = "use the 2024[31m data\nplease\tnow \U0001f600"
"""What may be kept and sent of it."""
UNWANTED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters but tab and line feed, and surrogates."""


@pytest.fixture(scope="module")
def scripted_model_scripts() -> Mapping[str, Script]:
    return SCRIPTS


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def pending_card(k: Kernel, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"^(a\d+): approve run_python", k.execute("%dsh pending").stdout, re.M)
        if found:
            return found.group(1)
        time.sleep(0.2)
    raise TimeoutError("the card never became pending")


def widget_comm_id(k: Kernel, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        k.drain_iopub()
        for m in k.iopub:
            if m["msg_type"] == "comm_open" and "snapshot" in m["content"]["data"].get("state", {}):
                return str(m["content"]["comm_id"])
        time.sleep(0.1)
    raise TimeoutError("no widget comm was opened")


def send_as_browser(k: Kernel, comm_id: str, data: dict[str, Any]) -> None:
    """A comm message whose JSON escapes every non-ASCII character, as a browser's
    ``JSON.stringify`` does a lone surrogate (``"\\ud800"``): the kernel decodes it to one."""
    session = k.client.session
    msg = session.msg("comm_msg", {"comm_id": comm_id, "data": data})
    packer = session.pack
    session.pack = lambda obj: json.dumps(obj, ensure_ascii=True, default=str).encode()
    try:
        session.send(k.client.shell_channel.socket, msg)
    finally:
        session.pack = packer


def texts(value: Any) -> Iterator[str]:
    """Every string in ``value``, and in the JSON a string holds (a tool result is JSON text)."""
    if isinstance(value, str):
        yield value
        try:
            inner = json.loads(value)
        except ValueError:
            return
        if not isinstance(inner, str):
            yield from texts(inner)
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def the_note_the_model_read(scripted_model: ScriptedModelServer) -> str:
    bodies = [r.body for r in scripted_model.requests if r.scenario == "note-card"]
    assert len(bodies) == 2, bodies
    for text in texts(bodies[1]["messages"][-1]):  # the tool's result
        found = re.search(r"The user's note: \"(.*)\"", text, re.S)
        if found:
            return found.group(1)
    raise AssertionError(f"no note in {bodies[1]['messages'][-1]}")


@pytest.mark.parametrize("way", ["widget", "%dsh reject"])
def test_a_rejection_note_reaches_the_model_and_the_card_cleaned(
    kernel: Kernel, scripted_model: ScriptedModelServer, way: str
) -> None:
    scripted_model.clear_requests()
    run = kernel.execute("%%dsh -s notes\n[[scenario:note-card]] set x", allow_stdin=True)
    assert run.error is None, run.error
    key = pending_card(kernel)
    if way == "widget":
        comm_id = widget_comm_id(kernel)
        time.sleep(0.6)  # the card is inert for ~0.5 s after it appears (a person waits too)
        click = {"type": "approval", "request_id": key, "decision": "rejected", "note": TYPED}
        send_as_browser(kernel, comm_id, {"method": "custom", "content": click})
    else:
        kernel.execute(f"typed = {TYPED.encode('utf-16', 'surrogatepass')!r}.decode("
                       "'utf-16', 'surrogatepass')")  # fmt: skip
        assert kernel.value("len(typed)") == str(len(TYPED))
        rejected = kernel.execute(f'%dsh reject {key} --note "{{typed}}"')
        assert "rejected" in rejected.stdout, rejected.stdout + rejected.stderr
    wait_done(kernel)
    assert kernel.value("'x' in globals()") == "False"  # rejected: nothing ran
    assert the_note_the_model_read(scripted_model) == CLEAN
    # the static transcript that replaces the widget (its markdown card; the note alone is in the
    # widget's messages too)
    wait_shown(kernel, "**rejected** (by you)")
    saved = [
        m["content"]["data"]["text/markdown"] for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and "text/markdown" in m["content"]["data"]
    ]  # fmt: skip
    assert saved and "please" in saved[-1], saved[-1:]
    assert UNWANTED.search(saved[-1]) is None, saved[-1]
