"""``%load_ext dsh_notebook`` imports only what registering the magic and its hooks needs: not the
runtime client, the protocol models, the transcript machinery, pydantic nor anyio (the agent is
built on first use, or by the prewarm's own thread). A structural check in a fresh interpreter,
then the first ``%%dsh`` of that shell, against the protocol-exact fake runtime process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from dsh_notebook.testing.harnesses import FAKE_RUNTIME

ROOT = Path(__file__).resolve().parents[1]

HEAVY = (
    "pydantic", "anyio", "dsh_notebook.protocol", "dsh_notebook.client",
    "dsh_notebook.transcript.reducer", "dsh_notebook.kernel.agent", "dsh_notebook.kernel.host",
)  # fmt: skip

SCRIPT = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("config", "DshMagics.dsh_bin = {launcher!r}")
ip.run_line_magic("config", "DshMagics.bridge = False")
ip.run_line_magic("load_ext", "dsh_notebook")
ip.run_cell("x = 1")  # a cell between loading and the first prompt
ip.run_cell("1/0")  # its error is on record for {{Err[n]}} before the agent exists
loaded = sorted(m for m in {heavy!r} if m in sys.modules)
ip.run_cell_magic("dsh", "", "[[reply:Forty-two]] hi")
handle = ip.user_ns["_dsh"]
print(json.dumps({{
    "loaded": loaded,
    "answer": handle.result(60).final_response,
    "errors": sorted(ip._dsh_notebook_magics.agent.errors),
}}))
ip.run_line_magic("unload_ext", "dsh_notebook")
"""


def test_load_ext_imports_no_client_protocol_or_anyio_and_the_first_prompt_works(
    tmp_path: Path,
) -> None:
    launcher = tmp_path / "fake-dsh"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_RUNTIME} "$@"\n')
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "ws").mkdir()
    env = dict(os.environ, DSH_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(launcher=str(launcher), heavy=HEAVY)],
        cwd=tmp_path / "ws", env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []  # none of them at load
    assert result["answer"] == "Forty-two"  # built on the first prompt, which works
    assert len(result["errors"]) == 1  # the failing cell before that prompt was recorded
