"""Real kernels with the extension loaded, over jupyter_client: the ``kernel_python`` fixture,
starting one, the page's execute metadata, the link messages a page received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from ..kernels import Kernel, kernel_pythons, scripted_model_env


@pytest.fixture(params=kernel_pythons())
def kernel_python(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def start_kernel(
    tmp_path: Path, scripted_model: ScriptedModelServer, python: str, **extra_env: str
) -> Kernel:
    """A real kernel with the extension loaded; kernels of one ``tmp_path`` share DSH_HOME."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    env = scripted_model_env(tmp_path, scripted_model.base_url, home="dsh-home", **extra_env)
    k = Kernel(env=env, cwd=str(workspace), python=python)
    loaded = k.execute("%load_ext dsh_notebook")
    assert loaded.error is None, loaded.error
    return k


def identity(notebook_id: str, cell_id: str = "c1") -> dict[str, object]:
    """The execute metadata the dsh-notebook frontend extension sends with every cell."""
    return {"dsh_notebook": {"v": 1, "id": notebook_id, "path": "x.ipynb", "cell_id": cell_id}}


def link_messages(k: Kernel, comm_id: str, kind: str, since: int = 0) -> list[dict[str, Any]]:
    k.drain_iopub(0.2)
    return [
        m["content"]["data"]
        for m in k.iopub[since:]
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("type") == kind
    ]
