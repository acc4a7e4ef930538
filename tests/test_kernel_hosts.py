"""Kernel hosts that are not a laptop: no writable HOME, no bubblewrap, a kernel culled while a
run waits for an approval. Real ipykernel, real runtime, the scripted model on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from dsh_notebook.errors import ConfigError
from dsh_notebook.runtime import ensure_dsh_home, sandbox_problem
from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.testing.harnesses import group_alive

from .kernels import Kernel

pytestmark = [pytest.mark.real_runtime]


def _env(tmp_path: Path, scripted_model: ScriptedModelServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DSH_HOME", "DSH_PERMISSION_MODE")}
    env.update(
        DEEPSEEK_BASE_URL=scripted_model.base_url,
        DEEPSEEK_API_KEY="dummy-key",
        DSH_TELEMETRY_MODE="DISABLED",
        **extra,
    )
    return env


def _started(env: dict[str, str], cwd: Path) -> Kernel:
    cwd.mkdir(exist_ok=True)
    k = Kernel(env=env, cwd=str(cwd))
    loaded = k.execute("%load_ext dsh_notebook")
    assert loaded.error is None, loaded.error
    return k


# -- no writable HOME ----------------------------------------------------------------------------


def test_ensure_dsh_home_names_the_setting_when_the_folder_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="Set DSH_HOME to a writable folder"):
        ensure_dsh_home(blocker / "home" / ".dsh")
    assert ensure_dsh_home(tmp_path / "ok") == tmp_path / "ok"


def test_a_kernel_without_a_writable_home_says_to_configure_dsh_home(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a HOME below a regular file cannot be created, not even by root
    k = _started(_env(tmp_path, scripted_model, HOME=str(blocker / "home")), tmp_path / "work")
    try:
        refused = k.execute("%%dsh --wait\n[[scenario:plain]] hi")
        assert refused.reply["status"] == "error"  # a UsageError: IPython prints it on stderr
        assert "Set DSH_HOME to a writable folder" in refused.stderr
        assert "Errno" not in refused.stderr  # a sentence, not an OSError from deep inside
        # configured: the same kernel, HOME still unwritable, runs
        home = tmp_path / "dsh-home"
        k.execute(f"%config DshMagics.dsh_home = {str(home)!r}")
        ran = k.execute("%%dsh --wait\n[[scenario:plain]] hi")
        assert ran.error is None, ran.error
        assert k.value("_dsh.result(30).finish_reason") == "'completed'"
        assert (home / "dsh_notebook").is_dir()
    finally:
        k.shutdown()


# -- no bubblewrap -------------------------------------------------------------------------------


def test_sandbox_problem_names_the_mode_that_works(tmp_path: Path) -> None:
    empty = str(tmp_path)  # a PATH without bwrap
    line = sandbox_problem(None, {"PATH": empty}, platform="linux")
    assert line is not None and "\n" not in line
    assert "bubblewrap" in line and "'workspace-write'" in line and "danger-full-access" in line
    read_only = sandbox_problem("read-only", {"PATH": empty}, platform="linux")
    assert read_only is not None and "'read-only'" in read_only
    from_env = {"PATH": empty, "DSH_PERMISSION_MODE": "danger-full-access"}
    assert sandbox_problem(None, from_env, platform="linux") is None
    assert sandbox_problem("danger-full-access", {"PATH": empty}, platform="linux") is None
    assert sandbox_problem(None, {"PATH": empty}, platform="darwin") is None
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\n")
    (fake / "bwrap").chmod(0o755)
    assert sandbox_problem(None, {"PATH": str(fake)}, platform="linux") is None


def test_a_kernel_without_bubblewrap_warns_once_in_one_line(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    no_bwrap = tmp_path / "empty-bin"
    no_bwrap.mkdir()
    env = _env(tmp_path, scripted_model, PATH=str(no_bwrap), DSH_HOME=str(tmp_path / "home"))
    k = _started(env, tmp_path / "work")
    try:
        first = k.execute("%%dsh --wait\n[[scenario:plain]] hi")
        assert first.error is None, first.error
        warning = [line for line in first.stderr.splitlines() if "bubblewrap" in line]
        assert len(warning) == 1 and "danger-full-access" in warning[0]
        second = k.execute("%%dsh --wait\n[[scenario:plain]] again")
        assert "bubblewrap" not in second.stderr  # once per kernel
    finally:
        k.shutdown()


# -- a kernel culled while a run waits for an approval ------------------------------------------


def _waiting_for_approval(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> tuple[Kernel, Path, int]:
    target = tmp_path / "outside" / "never.txt"
    target.parent.mkdir()
    k = _started(_env(tmp_path, scripted_model, DSH_HOME=str(tmp_path / "home")), tmp_path / "work")
    cell = k.execute(f"%%dsh\n[[scenario:escalate]] [[target:{target}]] touch it", allow_stdin=True)
    assert cell.error is None, cell.error
    deadline = time.monotonic() + 30
    while "a1" not in k.execute("%dsh pending").stdout:
        assert time.monotonic() < deadline, "no approval asked"
        time.sleep(0.2)
    pid = int(k.value("get_ipython()._dsh_notebook_magics.agent.host.harness.pid"))
    assert group_alive(pid)
    return k, target, pid


def _gone(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not group_alive(pid)


def test_a_kernel_culled_while_an_approval_waits_fails_closed(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """What the server's idle culler does: a shutdown request, then the kernel exits."""
    k, target, pid = _waiting_for_approval(tmp_path, scripted_model)
    k.shutdown()
    assert _gone(pid), "the runtime outlived its culled kernel"
    time.sleep(0.5)
    assert not target.exists()  # the pending approval was never allowed


def test_a_kernel_killed_while_an_approval_waits_leaves_no_runtime(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    """The culler's last resort (a kernel that does not answer is killed): no atexit runs, the
    runtime (its own process group) sees its stdin close and ends; nothing was allowed."""
    k, target, pid = _waiting_for_approval(tmp_path, scripted_model)
    kernel_pid = k.manager.provisioner.process.pid  # type: ignore[union-attr]
    os.kill(kernel_pid, signal.SIGKILL)
    try:
        assert _gone(pid), "the runtime outlived its killed kernel"
        time.sleep(0.5)
        assert not target.exists()
    finally:
        k.client.stop_channels()
        k.manager.cleanup_resources()
