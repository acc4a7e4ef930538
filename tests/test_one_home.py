"""Concepts with one home: the truncation marker every Python exit uses, one "request is gone"
text, one decision vocabulary, one shell-parent lookup, one prompt validation."""

from __future__ import annotations

import re
from types import SimpleNamespace

from dsh_notebook.context.describe import truncate
from dsh_notebook.frontend.identity import parent_message
from dsh_notebook.kernel.agent import NotebookAgent
from dsh_notebook.kernel.notebook.cell_errors import MAX_ERROR_CHARS, cell_error_text
from dsh_notebook.kernel.options.settings import KernelSettings
from dsh_notebook.kernel.showing import display
from dsh_notebook.kernel.showing.display import DisplayChoice, open_view
from dsh_notebook.notebook_tools.cells import format_cells
from dsh_notebook.notebook_tools.edits import edited_note
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.bounds import cap, clip, truncation_mark
from dsh_notebook.transcript.facts import ApprovalRequested
from dsh_notebook.widget._messages import ApprovalMessage
from dsh_notebook.widget.actions import GONE, check_action

# what any truncation_mark(n) looks like; every other spelling is a second home
ONE_MARKER = re.compile(r"\[… ([\d,]+) characters omitted …\]")


OTHER_SPELLINGS = re.compile(r"more chars|truncated|\bcut\]|omitted|chars cut|cut for length")


def test_every_python_exit_cuts_text_with_the_one_marker() -> None:
    long_line = "x" * 5000
    cut_texts = {
        "context.describe.truncate": truncate(long_line, 300)[0],
        "transcript.bounds.cap": cap(long_line, 300),
        "transcript.bounds.clip": clip(long_line, 300),
        "notebook_tools.cells": format_cells(
            {"cells": [{"index": 0, "cell_type": "code", "source": long_line}]}, max_chars=8000
        ),
        "notebook_tools.edits.edited_note": edited_note(long_line, 300),
    }
    try:
        raise ValueError("v" * (MAX_ERROR_CHARS * 2))
    except ValueError as exc:
        cut_texts["kernel.cell_errors"] = cell_error_text(exc)
    for site, text in cut_texts.items():
        found = ONE_MARKER.search(text)
        assert found is not None, site
        omitted = int(found.group(1).replace(",", ""))
        assert found.group(0) == truncation_mark(omitted), site
        assert not OTHER_SPELLINGS.search(ONE_MARKER.sub("", text)), site  # no second spelling


def test_the_kernel_and_the_card_say_the_same_when_a_request_is_gone() -> None:
    agent = NotebookAgent(None, KernelSettings)
    try:
        assert agent.on_widget_action({"type": "dismiss", "request_id": "q9"}) == GONE
        gone: ApprovalMessage = {"type": "approval", "request_id": "a9", "decision": "rejected"}
        assert agent.on_widget_action(gone) == GONE
    finally:
        agent.close()


def test_a_decision_is_normalized_once_at_the_widget_edge() -> None:
    """The one decision vocabulary is checked where a click enters the kernel; the legacy
    spelling is refused there (never mapped), and what reaches the agent is typed."""
    transcript = Transcript("s", prompt="p")
    transcript.apply_local(ApprovalRequested("a1", "s", "run_python", "c1", "x = 1"))
    snapshot = transcript.snapshot()
    legacy = {"type": "approval", "request_id": "a1", "decision": "allow"}
    assert "decision must be" in str(check_action(snapshot, legacy))
    agent = NotebookAgent(None, KernelSettings)
    try:
        checked = check_action(snapshot, {**legacy, "decision": "rejected"})
        assert checked == {"type": "approval", "request_id": "a1", "decision": "rejected"}
        assert agent.on_widget_action(checked) == GONE  # the broker has no such request
    finally:
        agent.close()


def test_a_view_is_filed_under_the_cell_by_the_one_parent_lookup() -> None:
    """``frontend.identity.parent_message`` is the one lookup: the live view of a kernel that
    keeps the request as ``_parent_header`` (no ``get_parent``) is still filed under it."""
    header = {"header": {"msg_id": "execute-1", "msg_type": "execute_request"}}
    shell = SimpleNamespace(kernel=SimpleNamespace(_parent_header=header))
    choice = DisplayChoice("markdown", deferred=True)  # nothing displayed: no IPython needed
    view = open_view(shell, Transcript("s", prompt="hi"), choice, None)
    assert view.parent == header
    assert parent_message(shell.kernel) == header
    assert not hasattr(display, "current_parent")
