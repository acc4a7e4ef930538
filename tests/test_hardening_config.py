"""Issue 13 items 7 and 15: removed 0.1 variables stay out; the API key never prints."""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from pathlib import Path

import pytest

from dsh_notebook.client import HarnessConfig
from dsh_notebook.errors import ConfigError
from dsh_notebook.runtime import (
    LaunchSpec,
    RuntimeProcess,
    Secret,
    StderrTail,
    compose_environment,
)

KEY = "sk-live-0123456789abcdef"


def test_removed_01_variables_are_not_inherited(tmp_path: Path) -> None:
    parent = {
        "PATH": "/bin",
        "DSH_CORDIS_CONFIG": "/etc/cordis.yml",
        "DSH_SESSION_ROOT": "/old/sessions",
        "DSH_CWD": "/old/cwd",
        "DSH_TELEMETRY_MODE": "DISABLED",
    }
    env = compose_environment(parent, dsh_home=tmp_path)
    assert not {"DSH_CORDIS_CONFIG", "DSH_SESSION_ROOT", "DSH_CWD"} & set(env)
    assert env["DSH_TELEMETRY_MODE"] == "DISABLED"  # other DSH_* still pass
    # an explicit entry is the caller's choice, and inherit_env=True is the seed's wholesale copy
    explicit = compose_environment(parent, dsh_home=tmp_path, env={"DSH_CWD": "/x"})
    assert explicit["DSH_CWD"] == "/x"
    assert compose_environment(parent, dsh_home=tmp_path, inherit_env=True)["DSH_CWD"] == "/old/cwd"


def test_secret_is_masked_but_equal_to_its_value() -> None:
    secret = Secret(KEY)
    shown = [repr(secret), str(secret), f"{secret}", f"{secret!s}", f"{[secret]}"]
    shown.append("%s" % secret)  # noqa: UP031 - the old formatting path too
    for text in shown:
        assert KEY not in text
    assert secret == KEY and hash(secret) == hash(KEY) and len(secret) == len(KEY)
    assert secret.reveal() == KEY and type(secret.reveal()) is str
    assert os.fsencode(secret) == KEY.encode()


def test_config_and_environment_mask_the_key(tmp_path: Path) -> None:
    config = HarnessConfig(api_key=KEY, env={"OTHER_TOKEN": KEY + "x"}, cwd=tmp_path)
    assert isinstance(config.api_key, Secret)
    for text in (repr(config), str(config), f"{config.api_key}", str(config.describe())):
        assert KEY not in text
    env = compose_environment({"DEEPSEEK_API_KEY": KEY}, dsh_home=tmp_path)
    assert KEY not in repr(env) and KEY not in str(env)
    env = compose_environment({}, dsh_home=tmp_path, api_key=KEY)
    assert isinstance(env["DEEPSEEK_API_KEY"], Secret) and env["DEEPSEEK_API_KEY"] == KEY


@pytest.mark.anyio
async def test_the_child_receives_the_real_key(tmp_path: Path) -> None:
    code = "import os, sys; sys.stdout.write(os.environ['DEEPSEEK_API_KEY'])"
    env = compose_environment(dict(os.environ), dsh_home=tmp_path, api_key=KEY)
    spec = LaunchSpec(argv=(sys.executable, "-c", code), cwd=tmp_path, dsh_home=tmp_path, env=env)
    process = await RuntimeProcess.spawn(spec)
    received = b""
    try:
        while True:
            received += await process.stdout.receive()
    except Exception:
        pass
    await process.close()
    assert received.decode() == KEY


def _everything_reachable(exc: BaseException) -> str:
    """Every local of every frame of the traceback chain, as text (what a printer could show)."""
    parts: list[str] = ["".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        tb = current.__traceback__
        while tb is not None:
            for value in tb.tb_frame.f_locals.values():
                try:
                    parts.append(repr(value))
                except Exception:
                    pass
            tb = tb.tb_next
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


@pytest.mark.anyio
async def test_a_failed_spawn_keeps_no_plain_key_in_its_traceback(tmp_path: Path) -> None:
    env = compose_environment({}, dsh_home=tmp_path, api_key=KEY)
    spec = LaunchSpec(
        argv=(str(tmp_path / "missing-dsh"),), cwd=tmp_path, dsh_home=tmp_path, env=env
    )
    with pytest.raises(ConfigError) as info:
        await RuntimeProcess.spawn(spec)
    gc.collect()
    reachable = _everything_reachable(info.value)
    assert KEY not in reachable and json.dumps(KEY)[1:-1].encode().hex() not in reachable
    assert KEY.encode() not in reachable.encode()


def test_stderr_tail_redacts_the_key() -> None:
    tail = StderrTail(secrets=(Secret(KEY),))
    tail.feed(f"auth failed for {KEY}\n".encode())
    assert KEY not in tail.text() and "***" in tail.text()


def test_a_secret_wrapped_again_keeps_its_value_not_the_mask() -> None:
    from dsh_notebook.runtime import Secret

    twice = Secret(Secret("sk-value-123"))
    assert twice.reveal() == "sk-value-123" and str(twice) == "***"
