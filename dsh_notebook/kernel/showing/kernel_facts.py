"""What the shell tells about who drives it: the ipykernel kernel (none in a terminal) and whether
the current request allows stdin (a person at the keyboard). Plain attribute reads, no imports:
``%load_ext`` asks them before anything heavy is loaded."""

from __future__ import annotations

from typing import Any

__all__ = ["kernel_of", "stdin_available"]


def kernel_of(shell: Any) -> Any:
    """The ipykernel kernel of ``shell``, or None (terminal IPython)."""
    return getattr(shell, "kernel", None)


def stdin_available(shell: Any) -> bool:
    """Whether the current request allows stdin: a live frontend that can also click
    (nbclient and nbconvert send ``allow_stdin: false``; terminal IPython has no kernel)."""
    kernel = kernel_of(shell)
    return bool(kernel is not None and getattr(kernel, "_allow_stdin", False))
