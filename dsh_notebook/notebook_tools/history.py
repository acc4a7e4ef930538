"""The read-only ``notebook_history`` tool: the kernel's last executed cells, from IPython's own
input history and ``Out`` (what ran, not what the page shows now: that is ``notebook_cells``).

Bounded like :mod:`.variables`: at most ``max_chars`` characters, each input and output capped
on its own; never changes the namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..context.describe import describe_value, truncate
from ..context.private import PRIVATE_CELL
from .tool_texts import NO_CELLS_RUN, PRIVATE_HISTORY_CELL, history_heading

__all__ = ["notebook_history"]


def _inputs(shell: Any) -> list[str]:
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if isinstance(history, list) and history:
        return [str(x) for x in history]
    cells = getattr(shell, "user_ns", {}).get("In")
    return [str(x) for x in cells] if isinstance(cells, list) else []


def notebook_history(
    shell: Any,
    n: int = 10,
    *,
    errors: Mapping[int, str] | None = None,
    max_chars: int = 8000,
    max_input_chars: int = 1500,
    max_output_chars: int = 600,
    private: Callable[[int], bool] | None = None,
) -> str:
    """The last ``n`` executed cells: source (raw, as typed), the result (``Out[k]``, described
    and capped) and the error the cell raised (from ``errors``, keyed by execution count). A
    count ``private`` names (a run of a private cell) shows as "[private cell]" alone."""
    n = max(1, min(int(n), 50))
    inputs = _inputs(shell)
    outputs = getattr(shell, "user_ns", {}).get("Out")
    outputs = outputs if isinstance(outputs, Mapping) else {}
    errors = errors or {}
    numbers = [k for k in range(len(inputs) - 1, 0, -1) if inputs[k].strip()][:n]
    if not numbers:
        return NO_CELLS_RUN
    parts: list[str] = []
    for k in reversed(numbers):
        if private is not None and private(k):
            parts.append(f"## In [{k}]\n{PRIVATE_CELL}{PRIVATE_HISTORY_CELL}")
            continue
        source = truncate(inputs[k].rstrip(), max_input_chars)[0]
        block = [f"## In [{k}]", source]
        if k in outputs:
            block.append(f"Out [{k}]: " + describe_value(outputs[k], max_chars=max_output_chars))
        if k in errors:
            block.append(f"Error [{k}]: " + truncate(errors[k], max_output_chars)[0])
        parts.append("\n".join(block))
    head = history_heading(len(numbers))
    return truncate(head + "\n\n".join(parts), max_chars)[0]
