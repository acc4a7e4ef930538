"""The magics in an in-process InteractiveShell (no kernel: wait mode, text output), their runtime
a ``MockRuntime`` on the host loop (the ``dsh_kernel`` fixture: no subprocess). What is about
launching the runtime process (config applied at load, prewarm, the pid) runs against the
protocol-exact fake runtime process."""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.testing.harnesses import FAKE_RUNTIME
from dsh_notebook.testing.kernel import InProcessKernel

from .helpers.kernel import run_cell


@pytest.fixture
def launcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """The shell with the extension loaded on the fake runtime process (``__dsh_launcher__``)."""
    launcher = tmp_path / "fake-dsh"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_RUNTIME} "$@"\n')
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(workspace)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "dsh_notebook")
    magics = shell._dsh_notebook_magics  # type: ignore[attr-defined]
    magics.dsh_bin = str(launcher)
    magics.bridge = False
    shell.user_ns["__dsh_launcher__"] = str(launcher)
    try:
        yield shell
    finally:
        shell.run_line_magic("unload_ext", "dsh_notebook")
        shell.user_ns.pop("_dsh", None)


def test_cell_runs_and_binds_the_handle(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cell(ip, "-o answer", "[[reply:Forty-two]] what is it?")
    handle = ip.user_ns["answer"]
    assert handle is ip.user_ns["_dsh"]
    assert handle.done()
    assert handle.result().final_response == "Forty-two"
    assert "Forty-two" in capsys.readouterr().out  # terminal: the transcript is printed once


def test_interpolation_keeps_unresolved_braces(ip: InteractiveShell) -> None:
    ip.user_ns["x"] = 5
    ip.user_ns["d"] = {"a": 1}
    run_cell(ip, "", "value {x}; code {k: v for k, v in d.items()}; {missing} and {x.real}")
    sent = ip.user_ns["_dsh"].prompt
    assert "value `x` = `5` (int);" in sent  # named (issue 25)
    assert "{k: v for k, v in d.items()}" in sent
    assert "{missing}" in sent
    assert "and `x.real` = `5` (int)" in sent


def test_err_history_is_interpolated(ip: InteractiveShell) -> None:
    failed = ip.run_cell("1/0", store_history=True)
    count = failed.execution_count
    run_cell(ip, "", f"explain {{Err[{count}]}}")
    assert "ZeroDivisionError" in ip.user_ns["_dsh"].prompt


def test_sessions_continue_and_new_starts_fresh(ip: InteractiveShell) -> None:
    magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
    run_cell(ip, "", "first")
    first_session = ip.user_ns["_dsh"].session
    run_cell(ip, "", "second")
    assert ip.user_ns["_dsh"].session == first_session
    run_cell(ip, "--new", "third")
    assert ip.user_ns["_dsh"].session != first_session
    assert magics.agent.session_id == ip.user_ns["_dsh"].session
    run_cell(ip, "-s other", "fourth")
    assert ip.user_ns["_dsh"].session == "other"


def test_run_all_after_restart_skips_answered_prompts(
    dsh_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    ip = dsh_kernel.shell
    run_cell(ip, "-s ledger", "[[reply:once]] expensive question")
    # a restarted kernel: a new extension instance, same DSH_HOME
    dsh_kernel.reload()
    magics = dsh_kernel.magics
    capsys.readouterr()
    result = run_cell(ip, "-s ledger -o later", "[[reply:once]] expensive question")
    assert result is None
    # the skipped cell shows the transcript it had (Restart & Run All keeps it in the notebook)
    shown = capsys.readouterr().out
    assert "not sent again" in shown and "expensive question" in shown and "settled" in shown
    assert len(magics.agent.runs) == 0
    assert len(dsh_kernel.peer.prompts) == 1  # the runtime was asked once
    # later cells that use the handle get a clear error, not a NameError
    from dsh_notebook.kernel.run import PromptSkipped

    with pytest.raises(PromptSkipped, match="--force"):
        ip.user_ns["later"].result()
    assert ip.user_ns["_dsh"] is ip.user_ns["later"]


def test_errors_are_one_line_usage_errors(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="cell is empty"):
        run_cell(ip, "", "   ")
    with pytest.raises(UsageError, match="unknown command"):
        ip.run_line_magic("dsh", "frobnicate")
    with pytest.raises(UsageError, match="--image"):
        run_cell(ip, "--image nope_not_defined", "look")


def test_config_and_status_never_show_the_key(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
    magics.api_key = "sk-never-shown"
    ip.run_line_magic("dsh", "config")
    run_cell(ip, "", "hello")
    ip.run_line_magic("dsh", "status")
    out = capsys.readouterr()
    assert "sk-never-shown" not in out.out + out.err
    assert "<set>" in out.out
    assert "pid:" in out.out


def test_export_markdown_and_json(
    ip: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cell(ip, "-s exp", "[[reply:Exported answer]] go")
    target = tmp_path / "t.md"
    ip.run_line_magic("dsh", f"export exp --to {target}")
    assert "Exported answer" in target.read_text()
    ip.run_line_magic("dsh", "export exp --format json")
    assert '"final_response": "Exported answer"' in capsys.readouterr().out


def test_slash_command_reports_unsupported(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    ip.run_line_magic("dsh", "/compact")
    assert "does not serve slash commands" in capsys.readouterr().out


def test_demo_model_without_a_key(
    ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("DEEPSEEK_BASE_URL", raising=False)
    assert magics.agent.demo_active()
    config = magics.agent.harness_config()
    assert config.base_url is not None and config.base_url.startswith("http://127.0.0.1:")
    # the notice is the run's header (an informational note), never an error on stderr
    assert "scripted demo model" not in capsys.readouterr().err
    run_cell(ip, "", "hello")
    captured = capsys.readouterr()
    assert "demo analyst — no API key set" in captured.out
    assert "scripted demo model" not in captured.err
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-real")
    assert not magics.agent.demo_active()
    assert magics.agent.harness_config().base_url is None


def test_config_and_prewarm_apply_at_load(launcher: InteractiveShell) -> None:
    ip = launcher
    launcher = ip.user_ns["__dsh_launcher__"]
    ip.run_line_magic("unload_ext", "dsh_notebook")
    ip.run_line_magic("config", f"DshMagics.dsh_bin = {launcher!r}")
    ip.run_line_magic("config", "DshMagics.bridge = False")
    ip.run_line_magic("config", "DshMagics.prewarm = True")
    try:
        ip.run_line_magic("load_ext", "dsh_notebook")
        magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
        assert magics.dsh_bin == launcher
        magics.agent.host.prewarm().result(30)  # started at load, in the background
        assert magics.agent.host.running
        assert magics.agent.host.harness.pid is not None
        ip.run_line_magic("config", "DshMagics.model = 'deepseek-v4-pro'")
        assert magics.model == "deepseek-v4-pro"  # %config reaches the loaded instance
    finally:
        ip.config.DshMagics.prewarm = False
        ip.config.DshMagics.pop("model", None)


def test_a_prompt_that_failed_to_send_is_not_recorded_as_answered(
    dsh_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    ip = dsh_kernel.shell
    dsh_kernel.peer.refuse_start = True  # the runtime cannot start
    run_cell(ip, "-s failed-once", "[[reply:ok]] the question")
    assert ip.user_ns["_dsh"].exception() is not None  # nothing reached a runtime
    assert dsh_kernel.peer.prompts == []
    # a restarted kernel with a working runtime: the prompt is sent, not "already answered"
    dsh_kernel.peer.refuse_start = False
    dsh_kernel.reload()
    capsys.readouterr()
    run_cell(ip, "-s failed-once", "[[reply:ok]] the question")
    assert ip.user_ns["_dsh"].result().final_response == "ok"


def test_bad_cell_options_and_session_names_are_one_line_errors(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="cannot parse the %%dsh options"):
        run_cell(ip, '-s "unterminated', "hi")
    with pytest.raises(UsageError, match="invalid session name"):
        run_cell(ip, "-s ../../etc", "hi")
    with pytest.raises(UsageError, match="invalid session name"):
        ip.run_line_magic("dsh", "resume a/b")
    with pytest.raises(UsageError, match="--effort must be one of"):
        run_cell(ip, "--effort ultra", "hi")
    magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
    assert magics.reasoning_effort is None  # a refused route does not stick
    run_cell(ip, "", "[[reply:still fine]] hi")
    assert ip.user_ns["_dsh"].result().final_response == "still fine"


def test_the_key_is_never_printed(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    canary = "sk-canary-0123456789abcdef"
    ip.run_line_magic("config", f"DshMagics.api_key = {canary!r}")
    ip.run_line_magic("config", "DshMagics")
    shown = ip.run_line_magic("config", "DshMagics.api_key")
    ip.run_line_magic("dsh", "config")
    ip.run_line_magic("dsh", "status")
    captured = capsys.readouterr()
    assert canary not in captured.out + captured.err + repr(shown) + str(shown)
    assert "***" in repr(shown)
    magics = ip._dsh_notebook_magics  # type: ignore[attr-defined]
    assert magics.api_key == canary  # still the key where it is used
    assert canary not in repr(magics.settings()) and canary not in repr(
        magics.agent.harness_config()
    )


def test_a_comm_message_is_not_a_cell_holding_the_kernel(
    ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comm package wraps every comm message's callback in ``pre_execute`` /
    ``post_execute`` (on the thread that handles it): a click on a card, or a page's reply, must
    not read as a cell holding the kernel (an approved ``run_cells`` was refused "busy" at the
    click), and must not end a running cell's flag. Only a cell's run counts."""
    from comm.base_comm import BaseComm

    class Comm(BaseComm):
        def publish_msg(self, *args: Any, **kwargs: Any) -> None:
            pass

    tools = ip._dsh_notebook_magics.agent.tools  # type: ignore[attr-defined]
    calls: list[str] = []
    monkeypatch.setattr(tools, "cell_started", lambda: calls.append("started"))
    monkeypatch.setattr(tools, "cell_finished", lambda: calls.append("finished"))
    comm = Comm(target_name="dsh-test", primary=False)
    comm.on_msg(lambda msg: calls.append("callback"))
    comm.handle_msg({"content": {"comm_id": comm.comm_id, "data": {}}})  # type: ignore[typeddict-item]
    assert calls == ["callback"]
    ip.run_cell("x_for_the_flag = 1")
    assert calls == ["callback", "started", "finished"]


def test_a_headless_run_is_one_static_transcript_displayed_when_settled(
    dsh_headless_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    """As nbclient runs a notebook (no stdin, nobody watching): nothing is printed, and the run
    is displayed once, settled, as markdown with its plain companion and the run marker."""
    kernel = dsh_headless_kernel
    kernel.run_cell("-o answer", "[[reply:Forty-two]] what is it?")
    assert kernel.shell.user_ns["answer"].result(10).final_response == "Forty-two"
    kernel.agent.pump.flush(10)
    (shown,) = kernel.displayed
    assert not shown.update
    assert shown.metadata == {"dsh_notebook": {"run": True}}
    assert "Forty-two" in shown.data["text/markdown"]
    assert "settled" in shown.text()
    assert "Forty-two" not in capsys.readouterr().out


def test_restart_starts_a_new_runtime_and_resumes_the_session(
    dsh_kernel: InProcessKernel, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every start goes through the host's harness factory: ``%dsh restart`` gets a second
    runtime, in which the live session is resumed (its history kept), and the next prompt
    goes there."""
    ip = dsh_kernel.shell
    run_cell(ip, "-s kept", "[[reply:first]] one")
    ip.run_line_magic("dsh", "restart")
    first, second = dsh_kernel.peer.runtimes
    assert [p["params"]["sessionId"] for p in first.requests("session/prompt")] == ["kept"]
    (resumed,) = second.requests("session/resume")
    assert resumed["params"]["sessionId"] == "kept"
    run_cell(ip, "-s kept", "[[reply:second]] two")
    assert ip.user_ns["_dsh"].result().final_response == "second"
    assert [p["params"]["sessionId"] for p in second.requests("session/prompt")] == ["kept"]


def test_cwd_is_set_at_the_runs_turn_before_its_prompt(
    dsh_kernel: InProcessKernel, tmp_path: Path
) -> None:
    """``--cwd`` reaches the runtime right before the run's prompt, with the path as given (a
    guard of the order: the old code, which set it from the main thread, passed it too)."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    dsh_kernel.run_cell(f"--cwd {target}", "[[reply:ok]] where are we?")
    assert dsh_kernel.shell.user_ns["_dsh"].result().final_response == "ok"
    sent = [r["method"] for r in dsh_kernel.peer.runtimes[-1].requests()]
    at = sent.index("session/working-directory/set")
    assert sent[at + 1] == "session/prompt"
    (request,) = dsh_kernel.peer.runtimes[-1].requests("session/working-directory/set")
    assert request["params"]["path"] == str(target)


def test_a_refused_cwd_fails_the_run_and_sends_no_prompt(
    dsh_kernel: InProcessKernel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dir"
    dsh_kernel.run_cell(f"--cwd {missing}", "hello")
    handle = dsh_kernel.shell.user_ns["_dsh"]
    with pytest.raises(Exception, match="directory does not exist"):
        handle.result()
    assert dsh_kernel.peer.prompts == []
    assert "directory does not exist" in capsys.readouterr().out
