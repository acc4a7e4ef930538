"""A 5 MB prompt in a real ipykernel against the real runtime (issue 24, item 8c; issue 43, item
10), in a live frontend: the widget's state, its page messages, the transcript that replaces it
and every other IOPub message are bounded, with the marker naming ``_dsh.prompt``, which keeps
the whole prompt. Only the kernel's echo of the cell's code (``execute_input``, which no notebook
saves) carries the prompt whole.

A real kernel and the real runtime are the point: every IOPub message a kernel sends, and every
echo of the prompt the real runtime sends back (receipt, ``user/message``, title). The markdown
and plain text outputs are kernel logic: ``test_big_prompt``, in process."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.transcript import PROMPT_MAX

from .kernels import identity, open_link, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

SIZE = 5_000_000


def test_every_output_of_a_huge_prompt_is_bounded(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    # the widget: the default where a person is at the keyboard (the page plays)
    with scripted_kernel(
        tmp_path, scripted_model.base_url, allow_stdin=True, metadata=identity("setup")
    ) as k:
        open_link(k)
        first = len(k.iopub)
        cell = k.execute(
            f"%%dsh -s big\n[[scenario:plain]] {'q' * SIZE}",
            timeout=300, allow_stdin=True, metadata=identity("big"),
        )  # fmt: skip
        assert cell.error is None, cell.error
        deadline = time.monotonic() + 120
        while k.value("_dsh.done()") != "True":
            assert time.monotonic() < deadline, "the run never settled"
            k.drain_iopub(0.5)
        k.drain_iopub(1.0)
        assert k.value("_dsh.prompt.count('q')") == str(SIZE)
        sent = [m for m in k.iopub[first:] if m["msg_type"] != "execute_input"]
        for m in sent:  # the widget's bundle and style (its comm_open) are not the prompt
            state = m["content"].get("data", {}).get("state")
            if isinstance(state, dict):
                state.pop("_esm", None), state.pop("_css", None)
        sizes = {m["msg_type"]: len(json.dumps(m["content"])) for m in sent}
        assert max(sizes.values()) < 4 * PROMPT_MAX, sizes
        assert sum(len(json.dumps(m["content"])) for m in sent) < 50 * PROMPT_MAX
        shown = [
            m["content"]["data"] for m in sent
            if m["msg_type"] in ("display_data", "update_display_data")
        ]  # fmt: skip
        final = shown[-1]["text/markdown"]
        assert "characters omitted; the full prompt is in `_dsh.prompt`" in final
        states = [m["content"]["data"]["state"] for m in sent if m["msg_type"] == "comm_open"
                  and "snapshot" in m["content"]["data"].get("state", {})]  # fmt: skip
        assert states and "characters omitted" in states[0]["snapshot"]["prompt"]
