"""What the kernel side reads from ``%config DshMagics``: one immutable snapshot per use.

:class:`~dsh_notebook.kernel.magics.DshMagics` owns the traitlets (so ``%config`` and
``ipython_config.py`` keep working) and builds a :class:`KernelSettings` whenever the agent needs
the configuration (a runtime start, a run). Nothing else reads the traits, so the agent, the run
planner and the commands can be tested without IPython.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DemoChoice", "FormatChoice", "HeadlessAnswer", "KernelSettings", "Mode", "Rerun"]

Mode = Literal["auto", "background", "wait"]
FormatChoice = Literal["auto", "widget", "markdown", "text"]
HeadlessAnswer = Literal["reject", "allow"]
Rerun = Literal["skip-answered", "always"]
DemoChoice = Literal["auto", "on", "off"]


@dataclass(frozen=True)
class KernelSettings:
    """The effective ``DshMagics`` settings (``None``: fall back to the environment)."""

    dsh_bin: str | None = None
    dsh_home: str | None = None
    cwd: str | None = None
    provider: str = "deepseek-official"
    model: str | None = None
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    permission_mode: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    prewarm: bool | None = None
    """None: when the frontend extension answers; True: at load; False: never."""
    bridge: bool = True
    mode: Mode = "auto"
    default_format: FormatChoice = "auto"
    headless_approval: HeadlessAnswer = "reject"
    rerun: Rerun = "skip-answered"
    demo_model: DemoChoice = "auto"
    notebook_tools: bool = True
    notebook_run_python: bool = True
    agent_cells: bool = True
    notebook_tools_max_chars: int = 8000
    max_chars_per_value: int = 4000
    max_context_chars: int = 40000
    context_block: bool = True

    def __repr__(self) -> str:  # the key never shows, not even in a traceback's locals
        return f"KernelSettings(model={self.model!r}, api_key={'<set>' if self.api_key else None})"
