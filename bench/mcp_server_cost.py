"""What the notebook tools' MCP server costs a kernel: ours against the SDK's, side by side.

    python bench/mcp_server_cost.py [--repeats 5]

Each sample is a fresh Python process (as a kernel's first prompt is): it imports the server,
starts it on an ``InteractiveShell``, and answers what the runtime sends at a run's start
(``server/discover``, ``tools/list``) and one ``tools/call`` (``notebook_variables``), all MCP
2026-07-28 over HTTP from a client thread. Arm A is ``NotebookMcpServer`` (its own endpoint,
``notebook_tools/mcp_endpoint.py``); arm B is the same server on the official ``mcp`` SDK's
low-level ``Server`` (``tests/helpers/sdk_oracle.py``, what the product used before). The arms
alternate. Prints, per arm, the median of the process's CPU time (user + system, from
``resource``) and peak RSS after that exchange, and the ratios. The process's own start (Python,
IPython, a cell importing pandas, httpx: the same in both arms) is measured alone as arm 0, and
each arm's share is what it adds to it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys
sys.path.insert(0, {root!r})
import httpx
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
arm = {arm!r}
shell.run_cell("import pandas as pd\nsales = pd.DataFrame({{'rev': [1.5, 2.0]}})")
if arm != "base":
    from dsh_notebook.notebook_tools.executor import MainThreadExecutor
    if arm == "ours":
        from dsh_notebook.notebook_tools.server import NotebookMcpServer as Server
    else:
        from tests.helpers.sdk_oracle import SdkNotebookServer as Server
    server = Server(shell, approve=None, executor=MainThreadExecutor()).start()
    meta = {{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {{}}}}
    base = {{"accept": "application/json, text/event-stream", "content-type": "application/json",
            "authorization": f"Bearer {{server.token}}", "mcp-protocol-version": "2026-07-28"}}
    for method, params, name in (("server/discover", {{}}, None), ("tools/list", {{}}, None),
                                 ("tools/call", {{"name": "notebook_variables"}}, "notebook_variables")):
        headers = {{**base, "mcp-method": method, **({{"mcp-name": name}} if name else {{}})}}
        body = {{"jsonrpc": "2.0", "id": 1, "method": method, "params": {{**params, "_meta": meta}}}}
        reply = httpx.post(server.url, json=body, headers=headers, timeout=30)
        assert reply.status_code == 200 and "result" in reply.json(), reply.text
    server.stop()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}}))
"""


def sample(arm: str) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT), arm=arm)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    samples: dict[str, list[dict[str, float]]] = {"base": [], "ours": [], "sdk": []}
    for _ in range(args.repeats):
        for arm in samples:
            samples[arm].append(sample(arm))
    medians = {
        arm: (
            statistics.median(s["cpu"] for s in runs),
            statistics.median(s["rss_mib"] for s in runs),
        )
        for arm, runs in samples.items()
    }
    base_cpu, base_rss = medians["base"]
    print(f"{'arm':<44} {'CPU s':>7} {'peak RSS MiB':>13}   (medians of {args.repeats})")
    labels = {
        "base": "0 the process alone (IPython, pandas, httpx)",
        "ours": "A NotebookMcpServer, its own endpoint",
        "sdk": "B the same on the mcp SDK",
    }
    for arm, (cpu, rss) in medians.items():
        print(f"{labels[arm]:<44} {cpu:>7.2f} {rss:>13.1f}")
    (a_cpu, a_rss), (b_cpu, b_rss) = medians["ours"], medians["sdk"]
    print(
        f"the server's own share (minus arm 0): A {a_cpu - base_cpu:.2f} s, {a_rss - base_rss:.1f} "
        f"MiB; B {b_cpu - base_cpu:.2f} s, {b_rss - base_rss:.1f} MiB"
    )
    print(
        f"B / A: CPU {b_cpu / a_cpu:.2f}x in all, {(b_cpu - base_cpu) / (a_cpu - base_cpu):.1f}x "
        f"the server's share; peak RSS +{b_rss - a_rss:.1f} MiB"
    )


if __name__ == "__main__":
    main()
