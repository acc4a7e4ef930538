"""A 5 MB prompt in a real ipykernel against the real runtime (issue 24, item 8c): the cell's
output shows a bounded head and tail of it with the marker naming ``_dsh.prompt``, which keeps
the whole prompt."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer
from dsh_notebook.transcript import PROMPT_MAX

from .kernels import scripted_kernel

pytestmark = [pytest.mark.real_runtime]

SIZE = 5_000_000


def test_a_huge_prompt_is_capped_in_the_output_and_whole_in_the_handle(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        prompt = "q" * SIZE  # typed into the cell (an interpolated value is bounded on its own)
        cell = k.execute(
            f"%%dsh --wait --format markdown\n[[scenario:plain]] {prompt}", timeout=300
        )
        assert cell.error is None, cell.error
        time.sleep(0.5)
        k.drain_iopub()
        outputs = [
            m for m in cell.outputs if m["msg_type"] in ("display_data", "update_display_data")
        ]
        assert outputs
        assert max(len(json.dumps(m["content"])) for m in outputs) < 4 * PROMPT_MAX
        final = outputs[-1]["content"]["data"]["text/markdown"]
        assert "characters omitted; the full prompt is in `_dsh.prompt`" in final
        assert k.value("_dsh.prompt.count('q')") == str(SIZE)
