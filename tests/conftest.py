"""The project's fixtures (:mod:`dsh_notebook.testing.pytest_plugin`), the fixtures several
suites share (their code in ``tests/helpers/``, imported when a test uses them), and captures."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported by the fixtures that need them (IPython is a slow import)
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


# A failed attempt that was rerun says why, in one line, at the end of the run: without this,
# a test whose rerun failed too shows only the rerun's error, which may be a consequence of the
# first attempt (a rerun is a second chance, not a clean slate: module-scoped servers stay).
_RERUN_ERRORS: list[str] = []
_SUITE_FRAME = re.compile(r"^(tests/\S+\.py:\d+): ")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if str(report.outcome) == "rerun":  # pytest-rerunfailures' outcome, not in pytest's types
        lines = report.longreprtext.splitlines()
        errors = [line for line in lines if line.startswith("E ")]
        # the deepest line of the suite's own code on the way (which click, which wait)
        at = [m.group(1) for m in map(_SUITE_FRAME.match, lines) if m]
        where = f" (at {at[-1]})" if at else ""
        error = errors[0][1:].strip() if errors else "?"
        if len(errors) > 1 and any("Call log:" in line for line in errors):
            error += f" … {errors[-1][1:].strip()}"  # Playwright's last step: what it waited on
        _RERUN_ERRORS.append(f"{report.nodeid}{where}: {error}")



def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _RERUN_ERRORS:
        terminalreporter.write_sep("=", "first attempts of the tests that were rerun")
        for line in _RERUN_ERRORS:
            terminalreporter.write_line(line[:300])
