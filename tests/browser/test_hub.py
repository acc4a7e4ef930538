"""Multi-user JupyterHub 5 on 127.0.0.1: two users, each with a server started by the hub (the
simple local process spawner) and a kernel driven over that server's websocket through the
hub's proxy, with the real runtime and the scripted model. No browser: what is checked lives in
the kernels and the processes (the single-user servers are the JupyterLab of the other tests).

- each user's ``%%dsh`` runs in a runtime under that user's server, with that user's
  ``DSH_HOME`` (from the spawner's environment), never the other's;
- the notebook-tools server's bearer token is per kernel: user B's kernel calling user A's
  tools server with B's token is refused (401), with A's token it is not (the check is the
  token, not the network);
- stopping a user's server (what the idle culler does) ends that user's runtime; stopping the
  hub ends the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import REPO
from .hub import USERS, Hub, KernelSocket, proxy_command, start_hub
from .servers import ancestors, runtimes_of, wait_until

pytestmark = [pytest.mark.deploy, pytest.mark.real_runtime, pytest.mark.timeout(400)]

RUN = "%%dsh --wait\n[[scenario:plain]] hello from {user}"
TOOLS = (
    "import json; _t = get_ipython()._dsh_notebook_magics.agent.tools._served[0]; "
    "_a = get_ipython()._dsh_notebook_magics.agent; "
    "print(json.dumps({'url': _t.url, 'token': _t.token, 'home': str(_a.resolved_home()), "
    "'pid': _a.host.harness.pid, 'finish': _dsh.result(30).finish_reason}))"
)
CALL = (
    "import urllib.request, urllib.error\n"
    "req = urllib.request.Request({url!r}, data=b'{{}}', method='POST', headers={{"
    "'Authorization': 'Bearer ' + {token!r}, 'Content-Type': 'application/json', "
    "'Accept': 'application/json, text/event-stream'}})\n"
    "try:\n    print('status', urllib.request.urlopen(req, timeout=10).status)\n"
    "except urllib.error.HTTPError as e:\n    print('status', e.code)\n"
)


@pytest.fixture(scope="module")
def hub(
    tmp_path_factory: pytest.TempPathFactory, scripted_model: ScriptedModelServer
) -> Iterator[Hub]:
    if proxy_command() is None:
        pytest.skip("configurable-http-proxy is missing (npm install configurable-http-proxy)")
    pytest.importorskip("jupyterhub")
    environment = {
        "PYTHONPATH": str(REPO),
        "DEEPSEEK_BASE_URL": scripted_model.base_url,
        "DEEPSEEK_API_KEY": "spawner-env-test-key",
        "DSH_TELEMETRY_MODE": "DISABLED",
    }
    with start_hub(tmp_path_factory.mktemp("hub"), environment) as server:
        yield server


def _server_user(pid: int) -> str | None:
    """The ``JUPYTERHUB_USER`` of the nearest single-user server above ``pid``."""
    for parent in ancestors(pid):
        try:
            cmdline = Path(f"/proc/{parent}/cmdline").read_bytes()
            environ = Path(f"/proc/{parent}/environ").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"jupyterhub.singleuser" in cmdline:
            for entry in environ:
                if entry.startswith(b"JUPYTERHUB_USER="):
                    return entry.split(b"=", 1)[1].decode()
    return None


def test_two_users_get_their_own_runtime_home_and_tools_token(
    hub: Hub, scripted_model: ScriptedModelServer
) -> None:
    kernels: dict[str, KernelSocket] = {}
    seen: dict[str, dict[str, str]] = {}
    try:
        for user in USERS:
            hub.start_server(user)
            k = kernels[user] = KernelSocket(hub, user)
            out, err = k.execute("%load_ext dsh_notebook")
            assert "Error" not in err, err
            out, err = k.execute(RUN.format(user=user))
            assert "Error" not in err, err
            out, err = k.execute(TOOLS)
            assert "Error" not in err, err
            seen[user] = json.loads(out.strip().splitlines()[-1])
        alice, bob = seen["alice"], seen["bob"]
        # each runtime under its own user's server, with that user's DSH_HOME
        for user in USERS:
            assert seen[user]["home"] == str(hub.dsh_home(user))
            assert runtimes_of(hub.dsh_home(user)) == [int(seen[user]["pid"])]
            assert _server_user(int(seen[user]["pid"])) == user
            assert (hub.dsh_home(user) / "dsh_notebook").is_dir()
            assert (
                seen[user]["finish"] == "completed"
            )  # the model endpoint came from the spawner env
        assert any(r.path.endswith("/messages") for r in scripted_model.requests)  # not the demo
        assert alice["token"] != bob["token"] and alice["url"] != bob["url"]
        # bob's kernel cannot use alice's tools with its own token ...
        refused, _ = kernels["bob"].execute(CALL.format(url=alice["url"], token=bob["token"]))
        assert refused.strip() == "status 401", refused
        # ... only with alice's (so the refusal above is the token check, not the network)
        other, _ = kernels["bob"].execute(CALL.format(url=alice["url"], token=alice["token"]))
        assert other.strip().startswith("status ") and other.strip() != "status 401", other
    finally:
        for k in kernels.values():
            k.close()
    # the idle culler stops a server: alice's runtime ends with it, bob's stays
    hub.stop_server("alice")
    wait_until(
        lambda: not runtimes_of(hub.dsh_home("alice")), 30, "alice's runtime outlived her server"
    )
    assert runtimes_of(hub.dsh_home("bob"))


def test_stopping_the_hub_leaves_no_runtime(hub: Hub) -> None:
    """Runs after the test above (bob's server and runtime still up); the hub's own teardown
    is exercised here, not in the fixture, so its effect can be checked."""
    hub.start_server("bob")
    k = KernelSocket(hub, "bob")
    try:
        k.execute("%load_ext dsh_notebook")
        k.execute(RUN.format(user="bob"))
    finally:
        k.close()
    assert runtimes_of(hub.dsh_home("bob"))
    hub.proc.terminate()
    hub.proc.wait(timeout=60)
    wait_until(
        lambda: not any(runtimes_of(hub.dsh_home(u)) for u in USERS),
        30,
        "a runtime outlived the hub",
    )
