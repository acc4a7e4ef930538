"""The first prompt of a kernel: prewarmed (the default in a live frontend) against a cold start.

    python bench/prewarm.py [--repeats 3] [--after 3] [--imports-only]

A real ipykernel driven over jupyter_client as JupyterLab drives it (``allow_stdin``), the real
runtime and the scripted model. This script answers the kernel's ``hello`` exactly as the
dsh-notebook extension does (a ``comm_msg`` with ``hello_reply``). Two arms, interleaved, a fresh
kernel each time:

- **prewarm** (default settings): the runtime starts in the background on the reply;
- **cold** (``%config DshMagics.prewarm = False`` in the loading cell): it starts on the prompt.

- **no page** (default settings, the ``hello`` never answered: VS Code, Colab, classic Notebook
  drive the kernel with ``allow_stdin`` but have no page extension): it starts once the loading
  cell has finished;
- **warm**: a second prompt in the **no page** kernel, once the first one settled.

Printed per arm (median over ``--repeats``): ``%load_ext`` time measured inside the kernel, and
for a background ``%%dsh`` cell sent ``--after`` seconds after the load, the time from sending
the execute request to the first runtime notification reaching the kernel's UI pump (both clocks
``time.time()`` on one machine; the pump publishes it to the page within its 100 ms slot).
First, side by side in fresh interpreters: the cold import of IPython's own kernel machinery
(``ipykernel.ipkernel`` and the shell) and the ``%load_ext dsh_notebook`` that follows it: the
milliseconds ``%load_ext`` adds and their ratio to IPython's own import (``--imports-only``: this
line alone, no kernels).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dsh_notebook.testing import ScriptedModelServer
from tests.kernels import Kernel

ROOT = Path(__file__).resolve().parents[1]
REPLY = {"v": 1, "type": "hello_reply", "version": "bench", "capabilities": ["identity"]}
LOAD = """
import time as _time
_s = _time.perf_counter()
get_ipython().run_line_magic("load_ext", "dsh_notebook")
{config}
print(_time.perf_counter() - _s)
"""
TAP = """
import time as _time
_first = []
_pump = get_ipython()._dsh_notebook_magics.agent.pump
def _tap(view, notification, _orig=_pump.notification):
    if not _first:
        _first.append(_time.time())
    _orig(view, notification)
_pump.notification = _tap
"""


MACHINERY = """
import sys, time
t0 = time.perf_counter()
import ipykernel.ipkernel
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t1 = time.perf_counter()
ip.run_line_magic("load_ext", "dsh_notebook")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def machinery(pycache: str) -> tuple[float, float]:
    """Seconds of a cold import (a fresh interpreter) of IPython's kernel machinery, then of
    ``%load_ext``. Bytecode is cached under ``pycache`` (``PYTHONPYCACHEPREFIX``, so the trees
    are not written): as in an install, neither side pays for compiling its sources."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
        PYTHONPYCACHEPREFIX=pycache,
    )  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", MACHINERY], env=env, cwd=root,  # `-c` puts the cwd first on sys.path
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    return float(out[-2]), float(out[-1])


def first_event(kernel: Kernel) -> float:
    """Seconds from sending a background ``%%dsh`` to its first runtime event at the pump."""
    kernel.execute("_first.clear()")
    sent = time.time()
    ran = kernel.execute("%%dsh --format text\n[[scenario:plain]] hi", allow_stdin=True)
    assert ran.error is None, ran.error
    deadline = time.monotonic() + 60
    while kernel.value("len(_first)") == "0":
        assert time.monotonic() < deadline, "no event arrived"
        time.sleep(0.02)
    first = float(kernel.value("_first[0]")) - sent
    kernel.execute("_dsh.result(30)")
    return first


def one(
    server: ScriptedModelServer, root: Path, *, prewarm: bool, after: float, page: bool = True
) -> tuple[float, float, float]:
    (root / "ws").mkdir(parents=True)
    (root / "agents").mkdir()
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, DSH_HOME=str(root / "home"), DEEPSEEK_BASE_URL=server.base_url,
               DEEPSEEK_API_KEY="dummy", DSH_TELEMETRY_MODE="DISABLED",
               DSH_AGENTS_HOME=str(root / "agents"), PYTHONPATH=path,
               PYTHONPYCACHEPREFIX=str(root.parent / "pycache"))  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached as in an install (not in the tree)
    kernel = Kernel(env=env, cwd=str(root / "ws"))
    try:
        config = (
            "" if prewarm else "get_ipython().run_line_magic('config', 'DshMagics.prewarm = False')"
        )
        loaded = kernel.execute(LOAD.format(config=config), allow_stdin=True)
        assert loaded.error is None, loaded.error
        load_s = float(loaded.stdout.strip().splitlines()[-1])
        comm_id = next(
            m["content"]["comm_id"]
            for m in loaded.outputs
            if m["msg_type"] == "comm_open"
            and m["content"]["target_name"] == "dsh_notebook.frontend"
        )
        if page:
            msg = kernel.client.session.msg("comm_msg", {"comm_id": comm_id, "data": REPLY})
            kernel.client.shell_channel.send(msg)
        kernel.execute(TAP)
        time.sleep(after)
        first = first_event(kernel)
        warm = first_event(kernel)  # the same kernel, its runtime now serving
        return load_s, first, warm
    finally:
        kernel.shutdown()


def main(repeats: int, after: float, imports_only: bool = False) -> None:
    with tempfile.TemporaryDirectory() as pycache:
        machinery(pycache)  # compiles and caches the bytecode: not measured
        imports = [machinery(pycache) for _ in range(repeats)]
    ipython = statistics.median(v[0] for v in imports) * 1000
    load_ext = statistics.median(v[1] for v in imports) * 1000
    print(
        f"cold, fresh interpreter, n={repeats}: IPython kernel machinery import {ipython:6.1f} ms"
        f" | %load_ext dsh_notebook adds {load_ext:+6.1f} ms = {load_ext / ipython:.1%} of it"
        f" (all: {', '.join(f'{v[1] * 1000:.0f}' for v in imports)}; target: <= +50 ms)"
    )
    if imports_only:
        return
    results: dict[str, list[tuple[float, float, float]]] = {
        "prewarm": [],
        "cold": [],
        "no page": [],
    }
    with ScriptedModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):  # interleaved: machine noise hits both arms alike
            for arm in results:
                results[arm].append(
                    one(server, Path(tmp) / f"{arm.replace(' ', '')}{i}",
                        prewarm=arm != "cold", after=after, page=arm != "no page")
                )  # fmt: skip
    medians = {}
    for arm, values in results.items():
        load = statistics.median(v[0] for v in values) * 1000
        first = statistics.median(v[1] for v in values) * 1000
        medians[arm] = (load, first)
        print(
            f"{arm:8s} n={repeats}: %load_ext {load:6.1f} ms   first prompt sent {after:.0f} s "
            f"after load -> first event {first:7.1f} ms   (all: "
            + ", ".join(f"{v[1] * 1000:.0f}" for v in values)
            + ")"
        )
    warm = statistics.median(v[2] for v in results["no page"]) * 1000
    print(
        f"no page (allow_stdin, no extension): first event {medians['no page'][1]:.1f} ms against"
        f" warm {warm:.1f} ms (the second prompt of that kernel)"
    )
    print(
        f"first event: cold / prewarm = {medians['cold'][1] / medians['prewarm'][1]:.1f}x; "
        f"%load_ext cost of prewarm: {medians['prewarm'][0] - medians['cold'][0]:+.1f} ms "
        "(targets: first event <= 300 ms, load <= +50 ms)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--after", type=float, default=3.0)
    parser.add_argument("--imports-only", action="store_true", help="the import line alone")
    args = parser.parse_args()
    main(args.repeats, args.after, args.imports_only)
