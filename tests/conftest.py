"""Loads the project's fixtures (:mod:`dsh_notebook.testing.pytest_plugin`) and reads captures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.testing.kernel import InProcessKernel

pytest_plugins = [
    "dsh_notebook.testing.pytest_plugin",
    # fixtures shared by several suites (a module's own fixture of the same name wins there)
    "tests.helpers.mcp_tools",  # shell, make_server
    "tests.helpers.loop_host",  # host
]

#: Wire captures of the real runtime 0.2.1-rc.2, vendored so that no golden test depends on a
#: directory outside the repository (see captures/README.md).
CAPTURES = Path(__file__).resolve().parent / "captures"


def load_capture(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/captures/<name>``; a missing file fails the test (never skips)."""
    path = CAPTURES / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def ip(dsh_kernel: InProcessKernel) -> InteractiveShell:
    """The shell of the in-process kernel (``dsh_kernel``: the extension on a ``MockRuntime``)."""
    shell: InteractiveShell = dsh_kernel.shell
    return shell
