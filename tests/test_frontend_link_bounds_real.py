"""What a page can make a real kernel do or keep over the frontend link is bounded.

Forged or looping pages, played over a real ipykernel's shell channel as a browser tab's kernel
connection sends them: ``undo_request``\\ s are answered at most ``UNDOS_PER_SECOND`` a second
(before: every one, 2,002 in and 2,002 ``undo_changes`` out); a page's repeated ``hello_reply``
re-sends the kernel's state at most once per ``HELLO_INTERVAL`` (before: every time, each small
message answered with every kept transcript), and all pages together ``HELLOS_PER_INTERVAL``
times; a ``hello_reply`` announcing 200,000 capabilities is refused, not kept.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.frontend.pages import (
    HELLO_INTERVAL,
    HELLOS_PER_INTERVAL,
    UNDOS_PER_SECOND,
)
from dsh_notebook.scripted_model import ScriptedModelServer

from .helpers.real_kernel import link_messages
from .kernels import Kernel, open_link, scripted_kernel

pytestmark = pytest.mark.timeout(300)

LINK = "get_ipython().magics_manager.registry['DshMagics'].agent.frontend_link"
CAPABILITIES = ["waiting", "run_output", "insert_cell", "read_notebook", "edit_cells"]
HELLO = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": CAPABILITIES}


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    setup = "%load_ext dsh_notebook\n%config DshMagics.prewarm = False"
    with scripted_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
        yield k


def flood(k: Kernel, comm_id: str, messages: list[dict[str, Any]], sessions: bool = False) -> float:
    """Send ``messages`` on the link as fast as the client can (each from a page of its own with
    ``sessions``), then wait until the kernel handled them (a cell after them on the same
    shell); the seconds it took."""
    started = time.monotonic()
    for n, data in enumerate(messages):
        out = k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if sessions:
            out["header"]["session"] = f"forged-page-{n}"
        k.client.shell_channel.send(out)
    assert k.value("1") == "1"
    return time.monotonic() - started


def test_what_a_page_can_make_the_kernel_do_or_keep_is_bounded(kernel: Kernel) -> None:
    comm_id = open_link(kernel, tuple(CAPABILITIES))
    kept = "; ".join(
        f"{LINK}.send_run_output('m{i}', None, 'settled', {{'text/markdown': 'x' * 2000}})"
        for i in range(32)
    )
    assert kernel.execute(kept).error is None  # 32 settled runs' transcripts, as after 32 runs
    time.sleep(HELLO_INTERVAL)  # open_link's own hello_reply is not what is measured

    # one page repeating hello_reply: its state is re-sent once, not once per message
    since = len(kernel.iopub)
    took = flood(kernel, comm_id, [HELLO] * 400)
    replays = link_messages(kernel, comm_id, "run_output", since)
    bytes_in = 400 * len(json.dumps(HELLO))
    bytes_out = sum(len(json.dumps(m)) for m in replays)
    rounds = 1 + int(took / HELLO_INTERVAL)  # one re-send per interval, whatever the flood
    assert len(replays) <= 32 * rounds, (len(replays), bytes_in, bytes_out, took)

    # pages that each say hello once (forged ids): all pages together are bounded too
    time.sleep(HELLO_INTERVAL)
    since = len(kernel.iopub)
    took = flood(kernel, comm_id, [HELLO] * 400, sessions=True)
    replays = link_messages(kernel, comm_id, "run_output", since)
    assert len(replays) <= 32 * int(HELLOS_PER_INTERVAL * (1 + took / HELLO_INTERVAL)), took

    # forged "Undo this run" clicks: a few answered a second, the rest dropped
    since = len(kernel.iopub)
    took = flood(kernel, comm_id, [{"v": 1, "type": "undo_request", "anchor": "nope"}] * 2002)
    answered = link_messages(kernel, comm_id, "undo_changes", since)
    assert 1 <= len(answered) <= int(UNDOS_PER_SECOND * (1 + took)), (len(answered), took)

    # a capability list of 200,000 entries is refused whole; the link keeps what it had
    huge = {**HELLO, "capabilities": [f"cap{i}" for i in range(200_000)]}
    flood(kernel, comm_id, [huge])
    assert kernel.value(f"len({LINK}.capabilities)") == str(len(CAPABILITIES))
    assert kernel.value(f"len({LINK}._pages)") == "8"  # the forged pages: the newest 8 kept
