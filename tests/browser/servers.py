"""Deployment servers for the ``deploy`` browser tests, each on 127.0.0.1, started and stopped by
the test: Enterprise Gateway (its own venv: 3.3 pins ``jupyter_server`` 1.24), and the process
helpers that say where a runtime lives and that it is gone.

The gateway's interpreter is ``$DSH_TEST_GATEWAY_PYTHON`` (``scripts/test.sh`` sets it to
``.venv-gateway/bin/python``), else ``<checkout>/.venv-gateway/bin/python``; without one the
tests that need it are skipped with the command that installs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .conftest import REPO, _free_port, api_request, await_ready, busy_factor, stop_process

RUNTIME_EXE = "deepseek-harness-sdk-runtime"
KERNEL_NAME = "dsh-python"


def gateway_python() -> Path | None:
    """The gateway venv's interpreter, when there is one with Enterprise Gateway installed."""
    listed = os.environ.get("DSH_TEST_GATEWAY_PYTHON")
    python = Path(listed) if listed else REPO / ".venv-gateway" / "bin" / "python"
    return python if (python.parent / "jupyter-enterprisegateway").exists() else None


@dataclass
class Gateway:
    url: str
    token: str
    proc: subprocess.Popen[bytes]
    dsh_home: Path

    def api(self, path: str, method: str = "GET", body: Any = None) -> Any:
        return api_request(self.url, self.token, path, method, body)


def write_kernelspec(share: Path, kernel_env: Mapping[str, str]) -> None:
    """A kernelspec on the gateway host that runs the kernel with this interpreter (the "kernel
    image": dsh-notebook and the runtime installed), with ``kernel_env`` as its ``env``."""
    spec = share / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (dsh, gateway)",
        "language": "python",
        "env": dict(kernel_env),
    }))  # fmt: skip


@contextlib.contextmanager
def start_gateway(root: Path, *, client_envs: list[str]) -> Iterator[Gateway]:
    """Enterprise Gateway on 127.0.0.1 serving one kernelspec; kernels get ``DSH_HOME`` =
    ``root/gateway-dsh-home`` and this checkout on ``PYTHONPATH`` from the kernelspec, and the
    names in ``client_envs`` from the client's start request. Stopped (and its kernels with it)
    on exit."""
    python = gateway_python()
    assert python is not None
    share = root / "gateway-share"
    dsh_home = root / "gateway-dsh-home"
    write_kernelspec(share, {
        "PYTHONPATH": str(REPO),
        "DSH_HOME": str(dsh_home),
        "DSH_TELEMETRY_MODE": "DISABLED",
    })  # fmt: skip
    port = _free_port()
    token = secrets.token_hex(16)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DEEPSEEK_", "JUPYTER"))},
        "JUPYTER_PATH": str(share),
        "JUPYTER_CONFIG_DIR": str(root / ".gateway-config"),
        "JUPYTER_DATA_DIR": str(root / ".gateway-data"),
        "JUPYTER_RUNTIME_DIR": str(root / ".gateway-runtime"),
    }
    log = (root / "gateway.log").open("wb")
    proc = subprocess.Popen(
        [str(python), "-m", "enterprise_gateway", "--ip=127.0.0.1", f"--port={port}",
         "--port_retries=0", f"--EnterpriseGatewayApp.auth_token={token}",
         "--EnterpriseGatewayApp.list_kernels=True",  # the lab server lists them (else 403)
         f"--EnterpriseGatewayApp.default_kernel_name={KERNEL_NAME}",
         f"--EnterpriseGatewayApp.client_envs={json.dumps(client_envs)}"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    gateway = Gateway(f"http://127.0.0.1:{port}", token, proc, dsh_home)
    await_ready(proc, log, lambda: gateway.api("/api/kernelspecs"))
    try:
        yield gateway
    finally:
        with contextlib.suppress(OSError):
            for kernel in gateway.api("/api/kernels") or []:
                with contextlib.suppress(OSError):
                    gateway.api(f"/api/kernels/{kernel['id']}", method="DELETE")
        stop_process(proc, log)


# -- processes ----------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def parent_of(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields else None


def ancestors(pid: int) -> list[int]:
    """The parent chain of ``pid`` up to (not including) pid 1."""
    chain: list[int] = []
    current = parent_of(pid)
    while current and current > 1 and current not in chain:
        chain.append(current)
        current = parent_of(current)
    return chain


def runtimes_of(dsh_home: Path) -> list[int]:
    """Live runtime processes whose ``DSH_HOME`` is ``dsh_home`` (zombies excepted)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv0 = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
            if RUNTIME_EXE not in argv0:
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        fields = _stat(int(entry.name))
        if fields is None or fields[0] == "Z":
            continue
        if f"DSH_HOME={dsh_home}".encode() in environ:
            found.append(int(entry.name))
    return found


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds; fail with ``what`` after ``timeout`` seconds, scaled by
    :func:`busy_factor` as the wait starts."""
    allowed = timeout * busy_factor()
    deadline = time.monotonic() + allowed
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {allowed:.0f} s: {what}")
        time.sleep(0.2)
