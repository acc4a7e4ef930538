"""The magics in the in-process kernel (the ``ip`` fixture of ``tests/conftest.py``)."""

from __future__ import annotations

from typing import Any

from IPython.core.interactiveshell import InteractiveShell

__all__ = ["run_cell"]


def run_cell(ip: InteractiveShell, line: str, cell: str) -> Any:
    """``%%dsh line`` with ``cell``; what the magic returned."""
    return ip.run_cell_magic("dsh", line, cell)
