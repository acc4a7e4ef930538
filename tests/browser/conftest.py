"""Browser tests: JupyterLab on 127.0.0.1 driven by Playwright with Debian's chromium.

Skipped unless Debian's chromium (:data:`CHROMIUM`), ``playwright`` and ``jupyterlab`` are all
present (no browser download: Playwright launches the system's).
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import pytest

HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = Path(
    os.environ.get("DSH_TEST_CHROMIUM")
    or (HEADLESS_SHELL if HEADLESS_SHELL.exists() else "/usr/bin/chromium")
)
"""The browser the tests drive: Debian's ``chromium-headless-shell`` (Chromium's own build for
headless use, the one Playwright drives by default: a browser module took 9 % less CPU in all,
kernels and servers included, than with the full ``chromium``), else Debian's ``chromium``;
``DSH_TEST_CHROMIUM`` names another build (``/usr/bin/chromium``, to compare)."""
RERUNS = int(os.environ.get("DSH_TEST_BROWSER_RERUNS", "1"))
"""Reruns of a failed browser test (see below); ``DSH_TEST_BROWSER_RERUNS=0`` shows every failure."""
NOTEBOOK7_TWINS = os.environ.get("DSH_TEST_NOTEBOOK7_TWINS", "") == "1"
"""Whether the Notebook 7 twins of JupyterLab tests run (:data:`LAB_AND_NOTEBOOK7_TWIN`)."""
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


LAB_AND_NOTEBOOK7_TWIN: Final = [
    "lab",
    pytest.param(
        "notebook",
        marks=pytest.mark.skipif(
            not NOTEBOOK7_TWINS,
            reason="the Notebook 7 twin of a JupyterLab flow: DSH_TEST_NOTEBOOK7_TWINS=1 runs it",
        ),
    ),
]
"""The ``app`` parameters of a flow whose subject is the extension's and the widget's own page
code, the same in JupyterLab and Notebook 7 (both are the same JupyterLab 4 application
framework, and the extension has no branch on the shell): the flow runs in JupyterLab, and its
Notebook 7 twin only with ``DSH_TEST_NOTEBOOK7_TWINS=1`` (each twin cost CI 15-40 s of a
2-core machine). What differs in Notebook 7 keeps tests that always run there: the cell tools'
page side and Fix with dsh (``["lab", "notebook"]``), the tab a file browser's New leaves open,
the trust dialog, the scrolled output box, the waiting button without a status bar."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real browser against JupyterLab")


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium-headless-shell)"
    for module in ("playwright", "jupyterlab"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed"
    return None


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook, on the controller
def pytest_xdist_node_collection_finished(node: Any, ids: Sequence[str]) -> None:
    """Under ``--dist loadgroup`` a browser test the worker did not tag (``nodeid@group``) would be
    scheduled alone, its module's servers started once per worker it lands on and its tests run
    apart from the ones whose state they read: stop instead of running so (pytest 9.2 with
    pytest-xdist 3.8 did exactly that, silently: 9.2 derives ``nodeid`` from ``_id``)."""
    if node.config.getvalue("dist") != "loadgroup":
        return
    lost = [i for i in ids if i.startswith("tests/browser/") and "@" not in i]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist ignored the xdist_group of {len(lost)} browser tests (e.g. {lost[0]}):"
            " this pytest and pytest-xdist do not work together; install the versions"
            " pyproject.toml allows (pip install -e '.[test]')"
        )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the group markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the browser tests where their parts are missing; otherwise give each one rerun, and
    keep each browser module on one pytest-xdist worker.

    A real browser against a real JupyterLab on a 2-core CI machine has timing this suite does
    not own (JupyterLab's own Launcher opening, a save racing a read); one rerun, shown as ``R``
    in the log and counted in the summary, keeps such a stall from failing CI. A test that fails
    twice still fails. Modules that set their own ``flaky`` marker keep it.

    A browser module's servers and browser are module-scoped and its tests read what earlier ones
    left (a notebook, the model's requests), so under ``--dist loadgroup`` (scripts/test.sh) the
    module is one group: one worker runs it in order, with one set of servers.
    """
    reason = _missing()
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:  # the deployment tests here too: their servers are costly
            item.add_marker(pytest.mark.xdist_group(name=item.path.stem))
        if "browser" not in item.keywords:
            continue
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
        elif item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=RERUNS, reruns_delay=2))


# The servers and browsers up in this worker, for the per-test cleanup below.
_LIVE_LABS: list[Lab] = []
_LIVE_BROWSERS: list[Browser] = []


@pytest.fixture(autouse=True)
def _shut_down_the_kernels_the_test_started() -> Iterator[None]:
    """When a test ends, failed or not, the pages it opened are closed and the kernels it
    started on the servers that are up (the module's, the worker's shared ones, its own) are
    shut down (their sessions deleted); sessions that were there before it (a module
    fixture's) stay.

    - An idle kernel with the extension loaded, and its runtime, still use about one percent
      of a core each (timers, the demo model's accept loop); a module's tests left up to nine.
    - A shared server's next tests, and a rerun, would otherwise open their notebooks on these
      kernels (an execution count, a waiting approval, a cell still looping) and fail for that.
    - A failed test never reaches its ``page.close()``: its page would keep its kernel
      connection, timers and renderer, and a rerun would open the notebook beside it.
    """
    up_before = {id(lab) for lab in _LIVE_LABS}
    before: dict[int, set[str]] = {}
    for lab in _LIVE_LABS:
        with contextlib.suppress(OSError):  # a server that does not answer is left alone
            before[id(lab)] = {session["id"] for session in lab.sessions()}
    yield
    for browser in list(_LIVE_BROWSERS):
        browser.close_pages()
    for lab in list(_LIVE_LABS):
        # a server the test started (a shared one, on first use) had no sessions before it
        known = before.get(id(lab)) if id(lab) in up_before else set()
        if known is not None:
            lab.end_sessions(lambda s, known=known: s["id"] not in known)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def api_request(url: str, token: str, path: str, method: str = "GET", body: Any = None) -> Any:
    """A Jupyter REST call: its JSON answer (``None`` when empty). An error answer raises
    ``HTTPError`` (an ``OSError``) that names the request and quotes what the server said."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{url}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        said = error.read()[:400].decode(errors="replace")
        raise urllib.error.HTTPError(
            error.url, error.code, f"{error.reason} ({method} {path}: {said})", error.headers, None
        ) from None
    return json.loads(raw) if raw else None


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    pid: int = 0

    def api(self, path: str, method: str = "GET", body: Any = None) -> Any:
        return api_request(self.url, self.token, path, method, body)

    def sessions(self) -> list[dict[str, Any]]:
        """The server's sessions (raises ``OSError`` when it does not answer)."""
        return list(self.api("/api/sessions") or [])

    def end_sessions(self, which: Callable[[dict[str, Any]], bool]) -> None:
        """Delete the sessions ``which`` picks, shutting their kernels down; a server or a
        session that does not answer is skipped, never raised."""
        with contextlib.suppress(OSError):
            for session in self.sessions():
                if which(session):
                    with contextlib.suppress(OSError):
                        self.api(f"/api/sessions/{session['id']}", method="DELETE")


@contextlib.contextmanager
def start_lab(
    root: Path,
    app: str = "lab",
    *,
    extra_args: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
) -> Iterator[Lab]:
    """JupyterLab (``app="lab"``) or Notebook 7 (``"notebook"``) on 127.0.0.1 serving ``root``,
    with a token; stopped on exit. ``extra_args`` go to the server's command line (e.g.
    ``--gateway-url``), ``extra_env`` into its environment."""
    token = secrets.token_hex(16)
    # the checkout's own build of the extension, ahead of the copy pip installed (first wins)
    extensions = root / ".labextensions"
    extensions.mkdir(exist_ok=True)
    link = extensions / "dsh-notebook"
    if not link.exists():
        link.symlink_to(REPO / "dsh_notebook" / "labextension", target_is_directory=True)
    # A JupyterLab page asks its server on every load whether the app needs a rebuild (GET
    # /lab/api/build), which runs ``node yarn.js config --json`` each time: 0.8 s of CPU per
    # page load, 44 s in a suite run. A prebuilt extension never needs a rebuild, so the test
    # servers are configured as a deployment may be: no build check.
    config = root / ".jupyter" / "jupyter_server_config.json"
    if not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        settings = {"tornado_settings": {"page_config_data": {"buildCheck": False}}}
        config.write_text(json.dumps({"ServerApp": settings}))
    env = {
        # never DeepSeek from a test: without a key the kernel uses the scripted demo model
        **{k: v for k, v in os.environ.items() if not k.startswith("DEEPSEEK_")},
        "DSH_TELEMETRY_MODE": "DISABLED",
        "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "DSH_HOME": str(root / ".dsh-home"),
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".jupyter" / "lab" / "user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".jupyter" / "lab" / "workspaces"),
        **(extra_env or {}),
    }
    # The free port is free when chosen, not when the server binds it: a kernel or server of
    # another worker can take it in between. Jupyter would then move to another port silently
    # (and this would probe whatever holds ours), so it may not move: it exits, and we try again.
    for attempt in range(3):
        port = _free_port()
        log = (root / "lab.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", app, "--no-browser", "--allow-root",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
             f"--ServerApp.root_dir={root}",
             f"--LabServerApp.extra_labextensions_path={extensions}", *(["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"] if app == "lab" else []), *extra_args],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        server = Lab(f"http://127.0.0.1:{port}", token, root, proc.pid)
        try:
            await_ready(proc, log, functools.partial(server.api, "/api/status"))
            break
        except BaseException as exc:
            stop_process(proc, log)  # never left running, whatever failed
            if attempt < 2 and "is already in use" in str(exc):
                continue
            raise
    _LIVE_LABS.append(server)
    try:
        yield server
    finally:
        _LIVE_LABS.remove(server)
        server.end_sessions(lambda session: True)
        stop_process(proc, log)


def await_ready(
    proc: subprocess.Popen[bytes], log: IO[bytes], probe: Callable[[], object], timeout: float = 60
) -> None:
    """Call ``probe`` every 0.3 s until it raises no ``OSError`` or ``HTTPException`` (the server
    answers HTTP). When the process exits first or ``timeout`` passes, stop it (never left
    running), close ``log`` and raise with the log's tail."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            probe()
            return
        except (OSError, http.client.HTTPException):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_process(proc, log)
                raise RuntimeError(Path(log.name).read_text()[-3000:]) from None
            time.sleep(0.3)


def stop_process(proc: subprocess.Popen[bytes], log: IO[bytes], grace: float = 20) -> None:
    """Terminate ``proc`` (killed after ``grace`` seconds), wait for it, close its ``log``."""
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


class SharedServers:
    """This worker's JupyterLab and Notebook 7 servers, with this checkout's extension build
    (:func:`.labpage.lab_with_extension`), each started on its first use and stopped when the
    worker ends. A server start costs about 6 s of CPU, and the browser modules used to start
    about 30.

    A test on a shared server shares its root and ``DSH_HOME`` with the tests before it on this
    worker, never its kernels (each test's are shut down when it ends). So a test writes the
    notebooks it opens (a name another module used is written anew; the extension gives a
    written notebook a fresh identity, hence a fresh default session), a test that names a
    ``%%dsh -s`` session names a new one (a named session outlives its notebook in
    ``DSH_HOME``), and a test that needs a root of its own (the Launcher's ``Untitled.ipynb``)
    or other server options starts a server of its own."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._servers: dict[str, Lab] = {}
        self._stack = contextlib.ExitStack()

    def __call__(self, app: str = "lab") -> Lab:
        """The server of ``app`` (``"lab"`` or ``"notebook"``), started now if it is not up."""
        from .labpage import lab_with_extension

        if app not in self._servers:
            root = self._tmp.mktemp(f"shared-{app}")
            self._servers[app] = self._stack.enter_context(lab_with_extension(root, app))
        return self._servers[app]

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="session")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    servers = SharedServers(tmp_path_factory)
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture(scope="module")
def lab(shared_servers: SharedServers) -> Lab:
    """This worker's shared JupyterLab (:class:`SharedServers`)."""
    return shared_servers("lab")


@pytest.fixture(scope="module")
def extlab(shared_servers: SharedServers) -> Lab:
    """This worker's shared JupyterLab (:class:`SharedServers`), named for the tests that are
    about the extension."""
    return shared_servers("lab")


def busy_factor() -> float:
    """How much longer than on a quiet machine a wait may take now: the one-minute load average
    per core, between 1 and 3 (read at each call). A wait scaled by it is as strict on a quiet
    machine and gives a loaded one (CI's workers, a build beside it) the time it is behind."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 1.0
    return max(1.0, min(3.0, per_core))


DEFAULT_TIMEOUT_MS: Final = 30_000
"""Playwright's own default for a wait without ``timeout=``; a page or context of
:class:`Browser` gets it scaled by :func:`busy_factor` when it is made."""


class Browser:
    """The module's chromium, as the tests use it: ``new_page`` and ``new_context`` (their waits
    without a ``timeout=`` of their own scaled by the machine's load, :data:`DEFAULT_TIMEOUT_MS`).

    Pages of ``new_page`` share one profile on disk (a persistent context), so from the second
    JupyterLab page on its scripts come from the HTTP cache with V8's code cache: a notebook page
    load then costs chromium about a third less CPU than in a fresh incognito context
    (``python bench/page_load_cpu.py``), and the server sends no bundle twice. The pages share
    the profile (cache, cookies, storage), nothing else: each test's page opens its own workspace
    (``?reset``) and its own kernel. A test that needs pages isolated from each other asks
    ``new_context``: a context of a second, incognito chromium, started on first use.
    """

    def __init__(self, playwright: Any, profile: Path) -> None:
        self._playwright = playwright
        self._shared = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        self._incognito: Any = None
        self._contexts: list[Any] = []

    def new_page(self, viewport: Mapping[str, int] | None = None) -> Any:
        """A page in the shared profile (``viewport``: its size; Playwright's default else)."""
        page = self._shared.new_page()
        page.set_default_timeout(DEFAULT_TIMEOUT_MS * busy_factor())
        if viewport is not None:
            page.set_viewport_size(dict(viewport))
        return page

    def new_context(self, **options: Any) -> Any:
        """A context of its own (Playwright's ``Browser.new_context`` options): no shared cache."""
        if self._incognito is None:
            self._incognito = self._playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
            )
        context = self._incognito.new_context(**options)
        context.set_default_timeout(DEFAULT_TIMEOUT_MS * busy_factor())
        self._contexts.append(context)
        return context

    def close_pages(self) -> None:
        """Close every page opened so far (the shared profile's) and every context of its own;
        the browser stays up. A page or context that is already closed is skipped."""
        for page in list(self._shared.pages):
            with contextlib.suppress(Exception):  # Playwright's Error: closed or crashed
                page.close()
        for context in self._contexts:
            with contextlib.suppress(Exception):
                context.close()
        self._contexts.clear()

    def close(self) -> None:
        self._shared.close()
        if self._incognito is not None:
            self._incognito.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Module-scoped on purpose: Playwright's sync API keeps an asyncio loop running in this
    thread while it is started, which would break every async test that runs after it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = Browser(p, tmp_path_factory.mktemp("chromium-profile"))
        _LIVE_BROWSERS.append(b)
        try:
            yield b
        finally:
            _LIVE_BROWSERS.remove(b)
            b.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def write_notebook(path: Path, cells: Sequence[str | tuple[str, str]]) -> None:
    """A notebook of code cells: each a source (id ``c<i>``) or an ``(id, source)`` pair."""
    pairs = [cell if isinstance(cell, tuple) else (f"c{i}", cell) for i, cell in enumerate(cells)]
    nb = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": cid, "metadata": {},
             "outputs": [], "source": source}
            for cid, source in pairs
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    path.write_text(json.dumps(nb, indent=1))
