"""How long one page read takes through a real Jupyter server: the kernel's
``FrontendLink.read_notebook`` (the agent's ``notebook_cells``, the context block) asks the page
and waits for its ``read_notebook_reply``.

    python bench/page_read.py [--reads 40] [--cells 200] [--no-nodelay] [--json]

A real ``jupyter server`` (subprocess) runs a real ipykernel; this script plays the page over
the server's kernel websocket as JupyterLab does (answering ``hello`` with ``hello_reply`` and
each ``read_notebook`` with a reply of ``--cells`` cells, at once). A background thread of the
kernel times ``--reads`` consecutive reads. Printed: the median, min and max per read.

``--no-nodelay`` starts the server without dsh_notebook's server extension, which turns off
Nagle's algorithm on the kernel websockets (``dsh_notebook.server_extension``): the jupyter
server writes each websocket message as the kernel sends it, and a small write made while an
earlier one is not yet acknowledged waits for that acknowledgement, which the browser delays
(~40 ms on Linux), so consecutive reads had a ~45 ms floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

TIMER = """
import threading, time, statistics
_link = get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link
_times = []
def _reads(n):
    for _ in range(n):
        t = time.perf_counter()
        r = _link.read_notebook(5.0)
        assert not isinstance(r, str), r
        _times.append((time.perf_counter() - t) * 1000)
threading.Thread(target=_reads, args=({reads},), daemon=True).start()
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _msg(msg_type: str, content: dict[str, Any], channel: str = "shell") -> dict[str, Any]:
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "bench",
                       "session": "bench", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
            "buffers": []}  # fmt: skip


def _cells(n: int) -> list[dict[str, Any]]:
    return [{"index": i, "id": f"{i:08x}-0000-4000-8000-000000000000", "cell_type": "code",
             "source": f"x_{i} = {i}", "execution_count": i + 1, "agent": False,
             "selected": False, "outputs": []} for i in range(n)]  # fmt: skip


async def _run(base: str, token: str, reads: int, cells: int) -> list[float]:
    http = AsyncHTTPClient()
    auth = {"Authorization": f"token {token}"}
    kernel = json.loads((await http.fetch(HTTPRequest(
        f"http://{base}/api/kernels", method="POST", body="{}", headers=auth))).body)  # fmt: skip
    ws = await websocket_connect(HTTPRequest(
        f"ws://{base}/api/kernels/{kernel['id']}/channels?session_id=bench", headers=auth))  # fmt: skip
    comm: list[str] = []
    results: dict[str, Any] = {}

    async def execute(code: str) -> str:
        msg = _msg("execute_request", {"code": code, "silent": False, "store_history": False,
                                       "user_expressions": {}, "allow_stdin": False})  # fmt: skip
        ws.write_message(json.dumps(msg))
        msg_id = msg["header"]["msg_id"]
        while msg_id not in results:
            await asyncio.sleep(0.01)
        return str(results.pop(msg_id))

    async def page() -> None:
        while True:
            raw = await ws.read_message()
            if raw is None:
                return
            m = json.loads(raw)
            kind, content = m["header"]["msg_type"], m["content"]
            if kind == "stream":
                results.setdefault("out:" + m["parent_header"].get("msg_id", ""), "")
                results["out:" + m["parent_header"]["msg_id"]] += content["text"]
            if kind == "status" and content["execution_state"] == "idle":  # after its output
                pid = m["parent_header"].get("msg_id", "")
                results[pid] = results.pop("out:" + pid, "")
            if kind == "comm_open" and content.get("target_name") == "dsh_notebook.frontend":
                comm.append(content["comm_id"])  # its data is the kernel's hello
            elif kind != "comm_msg" or not comm or content.get("comm_id") != comm[0]:
                continue
            data = content["data"]
            reply: dict[str, Any] | None = None
            if data.get("type") == "hello":
                reply = {"v": 1, "type": "hello_reply", "version": "bench",
                         "capabilities": ["identity", "read_notebook"]}  # fmt: skip
            elif data.get("type") == "read_notebook":
                reply = {"v": 1, "type": "read_notebook_reply", "request_id": data["request_id"],
                         "path": "bench.ipynb", "total_cells": cells, "cells": _cells(cells)}  # fmt: skip
            if reply is not None:
                out = _msg("comm_msg", {"comm_id": comm[0], "data": reply})
                ws.write_message(json.dumps(out))

    task = asyncio.ensure_future(page())
    await execute("%load_ext dsh_notebook")
    link = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
    await execute(f"{link}.open()")  # a page's identity metadata opens it; this page sends none
    while (await execute(f"print({link}.present)")).strip() != "True":
        await asyncio.sleep(0.1)
    await execute(TIMER.format(reads=reads))
    while True:
        done = await execute("print(len(_times))")
        if int(done.strip() or 0) >= reads:
            break
        await asyncio.sleep(0.2)
    times = json.loads(await execute("import json; print(json.dumps(_times))"))
    task.cancel()
    await http.fetch(HTTPRequest(f"http://{base}/api/kernels/{kernel['id']}", method="DELETE",
                                 headers=auth))  # fmt: skip
    return [float(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=40)
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--no-nodelay", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    port, token = _port(), secrets.token_hex(16)
    on = not args.no_nodelay  # explicit either way: an installed package enables it
    extensions = f'{{"dsh_notebook.server_extension": {on}}}'
    with tempfile.TemporaryDirectory() as root:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", f"--port={port}", "--no-browser",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             f"--ServerApp.jpserver_extensions={extensions}", "--allow-root"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "JUPYTER_CONFIG_DIR": root, "DSH_NO_PREWARM": "1"},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 0.5).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.2)
            times = asyncio.run(_run(f"127.0.0.1:{port}", token, args.reads, args.cells))
        finally:
            server.terminate()
            server.wait(10)
    times.sort()
    if args.json:
        print(json.dumps({"median": times[len(times) // 2], "min": times[0], "max": times[-1]}))
        return
    mode = "without nodelay" if args.no_nodelay else "with the server extension (nodelay)"
    print(f"{len(times)} page reads of {args.cells} cells through a real jupyter server, {mode}: "
          f"median {times[len(times) // 2]:.1f} ms, min {times[0]:.1f} ms, max {times[-1]:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
