"""JupyterHub on 127.0.0.1 for the ``deploy`` tests: the dummy authenticator, the simple local
process spawner (every user's server a process of the hub's own Unix user, home folders under
the test's tmp dir), ``configurable-http-proxy`` from npm, and a service token that may start,
stop and use every user's server. Plus a minimal kernel client over the server's websocket.

``configurable-http-proxy`` is ``$DSH_TEST_CHP`` (``scripts/test.sh`` installs it under
``.chp/``), else ``<checkout>/.chp/node_modules/.bin/configurable-http-proxy``, else on PATH.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .conftest import REPO, _free_port, await_ready, stop_process

USERS = ("alice", "bob")


def proxy_command() -> str | None:
    listed = os.environ.get("DSH_TEST_CHP")
    if listed:
        return listed if Path(listed).exists() else None
    local = REPO / ".chp" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


@dataclass
class Hub:
    url: str
    token: str
    root: Path
    proc: subprocess.Popen[bytes]

    def api(self, path: str, method: str = "GET", body: Any = None, timeout: float = 30) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def home(self, user: str) -> Path:
        return self.root / "homes" / user

    def dsh_home(self, user: str) -> Path:
        return self.home(user) / ".dsh"

    def start_server(self, user: str, timeout: float = 90) -> None:
        with contextlib.suppress(urllib.error.HTTPError):  # 400: already running
            self.api(f"/hub/api/users/{user}/server", method="POST", body={})
        deadline = time.monotonic() + timeout
        while not (self.api(f"/hub/api/users/{user}")["servers"].get("") or {}).get("ready"):
            if time.monotonic() > deadline:
                raise AssertionError(f"{user}'s server did not start: {self.log()[-3000:]}")
            time.sleep(0.5)

    def stop_server(self, user: str) -> None:
        self.api(f"/hub/api/users/{user}/server", method="DELETE")

    def log(self) -> str:
        return (self.root / "hub.log").read_text(errors="replace")


_CONFIG = """
import json
cfg = json.loads({cfg!r})
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = cfg["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = cfg["hub_port"]
c.JupyterHub.db_url = "sqlite:///" + cfg["root"] + "/hub.sqlite"
c.JupyterHub.cookie_secret_file = cfg["root"] + "/cookie_secret"
c.JupyterHub.pid_file = cfg["root"] + "/hub.pid"
c.JupyterHub.cleanup_servers = True
c.ConfigurableHTTPProxy.command = [cfg["proxy"]]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % cfg["proxy_api_port"]
c.ConfigurableHTTPProxy.pid_file = cfg["root"] + "/proxy.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = set(cfg["users"])
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = cfg["root"] + "/homes/{{username}}"
c.Spawner.cmd = [cfg["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--allow-root", "--ServerApp.ip=127.0.0.1"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
# per user: DSH_HOME in the user's home; the key and the endpoint from the spawner's environment
c.Spawner.environment = dict(cfg["environment"], DSH_HOME=lambda spawner: cfg["root"] + "/homes/" + spawner.user.name + "/.dsh")
c.JupyterHub.services = [{{"name": "dsh-test", "api_token": cfg["token"]}}]
c.JupyterHub.load_roles = [{{
    "name": "dsh-test",
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"],
    "services": ["dsh-test"],
}}]
"""


@contextlib.contextmanager
def start_hub(root: Path, environment: Mapping[str, str]) -> Iterator[Hub]:
    """The hub with its proxy; every user's server is stopped with it (``cleanup_servers``)."""
    proxy = proxy_command()
    assert proxy is not None
    for user in USERS:
        (root / "homes" / user).mkdir(parents=True, exist_ok=True)
    port = _free_port()
    token = secrets.token_hex(16)
    cfg = {
        "port": port, "hub_port": _free_port(), "proxy_api_port": _free_port(), "root": str(root),
        "proxy": proxy, "users": list(USERS), "python": sys.executable, "token": token,
        "environment": dict(environment),
    }  # fmt: skip
    (root / "jupyterhub_config.py").write_text(_CONFIG.format(cfg=json.dumps(cfg)))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DEEPSEEK_", "DSH_HOME"))},
        "CONFIGPROXY_AUTH_TOKEN": secrets.token_hex(16),
    }
    log = (root / "hub.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(root / "jupyterhub_config.py")],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    hub = Hub(f"http://127.0.0.1:{port}", token, root, proc)
    await_ready(proc, log, lambda: hub.api("/hub/api/", timeout=5), timeout=90)
    try:
        yield hub
    finally:
        stop_process(proc, log, grace=60)  # the hub stops its users' servers first


class KernelSocket:
    """One kernel of a user's server, driven over its websocket like a frontend (JSON frames)."""

    def __init__(self, hub: Hub, user: str) -> None:
        import websocket  # websocket-client, a jupyter_server dependency

        base = f"/user/{user}/api/kernels"
        self.kernel = hub.api(base, method="POST", body={"name": "python3"})
        ws_url = hub.url.replace("http://", "ws://") + f"{base}/{self.kernel['id']}/channels"
        self.session = uuid.uuid4().hex
        self._ws = websocket.create_connection(
            f"{ws_url}?session_id={self.session}",
            header=[f"Authorization: token {hub.token}"],
            timeout=120,
        )

    def execute(self, code: str, timeout: float = 120) -> tuple[str, str]:
        """Run ``code``; its (stdout, stderr + error text)."""
        msg_id = uuid.uuid4().hex
        self._ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": self.session,
                       "username": "test", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))  # fmt: skip
        out: list[str] = []
        err: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(self._ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                (out if content["name"] == "stdout" else err).append(content["text"])
            elif kind == "error":
                err.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(out), "".join(err)
        raise TimeoutError(f"no reply in {timeout} s to {code[:60]!r}")

    def close(self) -> None:
        self._ws.close()
