"""The project's fixtures (:mod:`dsh_notebook.testing.pytest_plugin`), the fixtures several
suites share (their code in ``tests/helpers/``, imported when a test uses them), and captures."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported by the fixtures that need them (the MCP server takes seconds)
    from IPython.core.interactiveshell import InteractiveShell

    from dsh_notebook.notebook_tools.server import NotebookMcpServer
    from dsh_notebook.testing.kernel import InProcessKernel

    from .helpers.loop_host import LoopHost

pytest_plugins = ["dsh_notebook.testing.pytest_plugin"]

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


# Fixtures shared by several suites (a module's own fixture of the same name wins there).


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    """The global shell, reset before and after (notebook tools suites)."""
    from .helpers.mcp_tools import fresh_shell

    yield from fresh_shell()


@pytest.fixture
def make_server(shell: InteractiveShell) -> Iterator[Callable[..., NotebookMcpServer]]:
    """``make_server(**kwargs)``: a started notebook tools server on ``shell``; stopped after."""
    from .helpers.mcp_tools import server_factory

    yield from server_factory(shell)


@pytest.fixture
def host() -> Iterator[LoopHost]:
    """A loop of its own standing in for the runtime host (run registry suites)."""
    from .helpers.loop_host import loop_host

    yield from loop_host()
