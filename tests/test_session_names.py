"""Issue 15: sessions chosen by name (``%dsh new NAME``, ``-s NAME``) and ``%dsh sessions``
listing this notebook's conversations with their first prompt and date (in-process shell, the
runtime a ``MockRuntime``; the index survives a restarted extension, as after a kernel restart).
"""

from __future__ import annotations

import re
import time

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.testing.kernel import InProcessKernel

from .helpers.kernel import run_cell


def sessions(ip: InteractiveShell, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    ip.run_line_magic("dsh", " ".join(["sessions", *args]))
    return capsys.readouterr().out


def test_new_name_becomes_the_current_session(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    ip.run_line_magic("dsh", "new sales-q3")
    assert "new session sales-q3" in capsys.readouterr().out
    run_cell(ip, "", "[[reply:ok]] first question")
    assert ip.user_ns["_dsh"].session == "sales-q3"
    run_cell(ip, "", "[[reply:ok]] second question")
    assert ip.user_ns["_dsh"].session == "sales-q3"
    with pytest.raises(UsageError, match=r"exists already.*resume sales-q3"):
        ip.run_line_magic("dsh", "new sales-q3")  # new means new: never someone's history
    with pytest.raises(UsageError, match="invalid session name"):
        ip.run_line_magic("dsh", "new ../escape")


def test_sessions_lists_this_notebooks_conversations(
    dsh_kernel: InProcessKernel, ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    before = time.time()
    run_cell(ip, "", "[[reply:ok]] Which region grows fastest?\nand more lines")
    default = ip.user_ns["_dsh"].session
    run_cell(ip, "", "[[reply:ok]] a follow-up")
    ip.run_line_magic("dsh", "new churn")
    run_cell(ip, "", "[[reply:ok]] Who churned in week 8?")
    run_cell(ip, "-s side", "[[reply:ok]] a side question")
    out = sessions(ip, capsys)
    lines = [line for line in out.splitlines() if line[:2] in ("* ", "  ")]
    assert [line.split()[1] if line.startswith("*") else line.split()[0] for line in lines] == [
        "side", "churn", default,
    ]  # fmt: skip  # most recently used first
    churn, first = lines[1], lines[2]
    assert churn.startswith("* churn") and "1 prompt " in churn + " "  # the current one
    assert "Who churned in week 8?" in churn
    assert "2 prompts" in first and first.endswith("Which region grows fastest? and more lines")
    assert "a follow-up" not in out  # the first prompt names a conversation
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(before))
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", first) and (
        stamp in first or time.strftime("%Y-%m-%d", time.localtime()) in first
    )
    # a restarted kernel (new extension instance, same DSH_HOME) still lists them
    dsh_kernel.reload()
    assert "Who churned in week 8?" in sessions(ip, capsys)


def test_sessions_of_another_notebook_are_not_listed(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = ip._dsh_notebook_magics.agent  # type: ignore[attr-defined]
    run_cell(ip, "", "[[reply:ok]] mine")
    agent.sessions.adopt("nb-0123456789ab")  # as the frontend's identity of another notebook does
    out = sessions(ip, capsys)
    assert "mine" not in out and "no conversation in this notebook yet" in out
    assert "(current; no prompt sent yet)" in out


def test_the_api_key_never_lands_in_the_index(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test-not-a-real-key-1234")
    run_cell(ip, "", "[[reply:ok]] my key is sk-test-not-a-real-key-1234, keep it")
    out = sessions(ip, capsys)
    assert "my key is [masked: DEEPSEEK_API_KEY]" in out and "sk-test" not in out
    home = ip._dsh_notebook_magics.agent.resolved_home()  # type: ignore[attr-defined]
    for path in (home / "dsh_notebook" / "conversations").iterdir():
        assert "sk-test" not in path.read_text()


A, B = "a" * 32, "b" * 32


def rows(out: str) -> list[str]:
    """The listed conversations' names, in order."""
    return [line[2:].split()[0] for line in out.splitlines() if line[:2] in ("* ", "  ")]


def test_sessions_of_a_notebook_by_its_identity_across_a_restart(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each cell carries the notebook's identity in its execute metadata, as the page extension
    sends it (reading it on ipykernel 6 and 7 is ``test_frontend_identity``'s): notebook A's
    conversations are listed in A, after a restarted kernel too, and never in notebook B."""
    kernel = dsh_headless_kernel
    ip, page = kernel.shell, kernel.driver
    assert page is not None

    def cell(notebook: str, cell_id: str, code: str) -> str:
        page.metadata = {"dsh_notebook": {"v": 1, "id": notebook, "path": "x.ipynb",
                                          "cell_id": cell_id}}  # fmt: skip
        capsys.readouterr()
        assert ip.run_cell(code).success
        return capsys.readouterr().out

    cell(A, "c1", "%%dsh --wait\n[[reply:ok]] Which region grows fastest?")
    assert "new session churn-q3" in cell(A, "c2", "%dsh new churn-q3")
    cell(A, "c3", "%%dsh --wait\n[[reply:ok]] Who churned in week 8?")
    assert ip.user_ns["_dsh"].session == "churn-q3"
    listed = cell(A, "c4", "%dsh sessions")
    assert rows(listed) == ["churn-q3", f"nb-{A[:12]}"], listed
    assert "* churn-q3" in listed and "Who churned in week 8?" in listed
    assert "Which region grows fastest?" in listed and "[[reply" in listed  # the prompt as sent
    kernel.reload()  # a restarted kernel of the same notebook lists the same conversations
    listed = cell(A, "c1", "%dsh sessions")
    assert rows(listed) == ["churn-q3", f"nb-{A[:12]}"], listed
    other = cell(B, "c1", "%dsh sessions")  # another notebook in the same DSH_HOME: none of them
    assert "churn-q3" not in other and "grows fastest" not in other, other
