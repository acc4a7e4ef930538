"""What the person's own MCP servers add to a runtime start (issue 49 item 4).

    python bench/user_mcp_probe.py [--repeat 7]

At each runtime start the kernel reads the servers' file, starts every server once to list its
tools (in parallel) and writes the patch that mounts the ones that answered
(``kernel/tools/user_mcp.UserMcp.mount``). Timed here, median (min-max) of ``--repeat`` runs,
after one warm-up (the first probe imports the MCP client):

- ``no file``: the cost for everyone who lists no server (two ``stat`` calls);
- ``1 server`` / ``4 servers``: a tiny stdio server (plain JSON-RPC in Python) answering
  ``initialize`` and ``tools/list``;
- ``1 that exits``: a command that exits at once (left out with one line);
- ``mount, 1 server``: the whole start-time work (read, probe, patch).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dsh_notebook.kernel.tools.user_mcp import UserMcp
from dsh_notebook.notebook_tools.user_probe import probe_servers
from dsh_notebook.notebook_tools.user_servers import UserServer

TINY = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "tiny", "version": "1"}}
    else:
        r = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""


def timed(fn: Callable[[], object], repeat: int) -> str:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return f"{statistics.median(times):8.2f} ms ({min(times):.2f}-{max(times):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    root = Path(tempfile.mkdtemp(prefix="dsh-bench-mcp-"))
    (root / "ws").mkdir()
    (root / "home").mkdir()
    tiny = root / "tiny.py"
    tiny.write_text(TINY)

    def server(name: str) -> UserServer:
        return UserServer(name, "stdio", "bench", command=sys.executable, args=(str(tiny),))

    exits = UserServer("exits", "stdio", "bench", command=sys.executable, args=("-c", "exit(3)"))
    nothing = UserMcp(lambda: (None, root / "ws", root / "home"))
    print(f"no file          {timed(nothing.mount, repeat * 10)}")
    print(f"1 server         {timed(lambda: probe_servers([server('a')]), repeat)}")
    four = [server(f"s{i}") for i in range(4)]
    print(f"4 servers        {timed(lambda: probe_servers(four), repeat)}")
    print(f"1 that exits     {timed(lambda: probe_servers([exits]), repeat)}")
    config = {"mcpServers": {"tiny": {"command": sys.executable, "args": [str(tiny)]}}}
    (root / "ws" / "dsh-mcp.json").write_text(json.dumps(config))
    mcp = UserMcp(lambda: (None, root / "ws", root / "home"))
    print(f"mount, 1 server  {timed(mcp.mount, repeat)}")
    mcp.stop()


if __name__ == "__main__":
    main()
