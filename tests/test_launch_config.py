"""Binary and home resolution, argv, the child environment, and secret hygiene."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dsh_notebook import HarnessConfig, RuntimeNotFound, resolve_dsh_bin, resolve_dsh_home
from dsh_notebook.errors import ConfigError
from dsh_notebook.runtime import argv_for, compose_environment
from dsh_notebook.runtime import resolve as resolve_module


def make_exe(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_binary_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path = make_exe(tmp_path / "dsh")
    env = {"PATH": str(tmp_path), "DSH_RUNTIME_BIN": "/from/env/dsh"}
    monkeypatch.setattr(resolve_module, "_wheel_launch_args", lambda: ["/from/wheel/exe"])
    assert resolve_dsh_bin("/explicit/dsh", env) == ["/explicit/dsh"]
    assert resolve_dsh_bin(["python", "-m", "fake"], env) == ["python", "-m", "fake"]
    assert resolve_dsh_bin("", env) == ["/from/env/dsh"]  # empty counts as absent
    assert resolve_dsh_bin(None, {**env, "DSH_RUNTIME_BIN": "  "}) == ["/from/wheel/exe"]
    monkeypatch.setattr(resolve_module, "_wheel_launch_args", lambda: None)
    assert resolve_dsh_bin(None, {"PATH": str(tmp_path)}) == [str(on_path)]
    with pytest.raises(RuntimeNotFound) as info:
        resolve_dsh_bin(None, {"PATH": str(tmp_path / "nowhere")})
    message = str(info.value)
    for route in ("dsh_bin", "DSH_RUNTIME_BIN", "deepseek-harness-runtime-bin", "PATH"):
        assert route in message


def test_installed_wheel_is_found_when_present() -> None:
    pytest.importorskip("deepseek_harness_runtime")
    argv = resolve_module._wheel_launch_args()
    assert argv is not None and Path(argv[0]).is_file()


def test_home_resolution_precedence(tmp_path: Path) -> None:
    parent = {"HOME": str(tmp_path), "DSH_HOME": str(tmp_path / "parent")}
    assert (
        resolve_dsh_home(tmp_path / "explicit", {"DSH_HOME": "x"}, parent) == tmp_path / "explicit"
    )
    assert resolve_dsh_home(None, {"DSH_HOME": str(tmp_path / "cfg")}, parent) == tmp_path / "cfg"
    assert resolve_dsh_home(None, {"DSH_HOME": "  "}, parent) == tmp_path / "parent"
    assert resolve_dsh_home(None, None, {"HOME": str(tmp_path)}) == tmp_path / ".dsh"
    assert resolve_dsh_home("~/h", None, {"HOME": str(tmp_path)}) == tmp_path / "h"
    assert not (tmp_path / "explicit").exists()  # resolution is pure


def test_argv_is_exactly_profile_then_absolute_patches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert argv_for(["/bin/dsh"], "sdk", [Path("a.yml"), Path("/abs/b.yml")]) == (
        "/bin/dsh",
        "--profile",
        "sdk",
        "--patch",
        str(tmp_path / "a.yml"),
        "--patch",
        "/abs/b.yml",
    )
    with pytest.raises(ConfigError):
        argv_for(["/bin/dsh"], " ", [])
    with pytest.raises(ConfigError):
        HarnessConfig(profile="")


def test_child_environment_is_an_allow_list(tmp_path: Path) -> None:
    parent = {
        "PATH": "/bin",
        "HOME": "/root",
        "LC_ALL": "C.UTF-8",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "GITHUB_TOKEN": "gh",
        "DSH_TELEMETRY_MODE": "DISABLED",
        "DEEPSEEK_BASE_URL": "http://parent",
        "https_proxy": "http://proxy",
    }
    env = compose_environment(
        parent,
        dsh_home=tmp_path,
        base_url="http://127.0.0.1:1",
        api_key="sk-secret",
        permission_mode="read-only",
        env={"DSH_PERMISSION_MODE": "danger-full-access", "EXTRA": "1", "DSH_HOME": "/ignored"},
    )
    assert "AWS_SECRET_ACCESS_KEY" not in env and "GITHUB_TOKEN" not in env
    assert (
        env["PATH"] == "/bin"
        and env["LC_ALL"] == "C.UTF-8"
        and env["https_proxy"] == "http://proxy"
    )
    assert env["DEEPSEEK_BASE_URL"] == "http://127.0.0.1:1"
    assert env["DEEPSEEK_API_KEY"] == "sk-secret"
    assert env["DSH_PERMISSION_MODE"] == "danger-full-access"  # config env wins on collision
    assert env["EXTRA"] == "1"
    assert env["DSH_HOME"] == str(tmp_path)  # always the resolved home
    everything = compose_environment(parent, dsh_home=tmp_path, inherit_env=True)
    assert everything["GITHUB_TOKEN"] == "gh"


def test_launch_spec_creates_home_and_hides_secrets(tmp_path: Path) -> None:
    exe = make_exe(tmp_path / "dsh")
    config = HarnessConfig(
        dsh_bin=str(exe),
        dsh_home=tmp_path / "home" / "nested",
        cwd=tmp_path,
        api_key="sk-very-secret",
        env={"OTHER_API_KEY": "also-secret", "PLAIN": "visible"},
        bridge=False,
    )
    spec = config.launch_spec({"PATH": os.environ.get("PATH", "")})
    assert spec.dsh_home.is_dir()
    assert spec.argv == (str(exe), "--profile", "sdk")
    assert spec.env["DEEPSEEK_API_KEY"] == "sk-very-secret"
    for text in (repr(config), str(config.describe()), repr(spec)):
        assert "sk-very-secret" not in text and "also-secret" not in text
    assert "visible" in repr(config)


def test_config_validation_messages() -> None:
    with pytest.raises(ConfigError, match="permission_mode"):
        HarnessConfig(permission_mode="yolo")
    with pytest.raises(ConfigError, match="max_tokens"):
        HarnessConfig(max_tokens=0)
    with pytest.raises(ConfigError, match="unknown option"):
        HarnessConfig.from_fields(None, modle="typo")
    with pytest.raises(ConfigError, match="base_url"):
        HarnessConfig(base_url="ftp://x")
    assert HarnessConfig(reasoning_effort="  ").effective_reasoning_effort is None
