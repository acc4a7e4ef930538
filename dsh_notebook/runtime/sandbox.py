"""Whether the runtime's ``bash`` sandbox can work on this host, readable before any launch.

The runtime's default permission mode ``workspace-write`` (and ``read-only``) runs every ``bash``
call under a file sandbox; on Linux that is bubblewrap (``bwrap``). Without it each call fails
with "no sandbox backend is usable on this host" after the model already asked for it. Kernel
hosts in containers (Enterprise Gateway pods, hub images) often lack it, so the kernel says so
once, in one line, before the first run, and names the mode that works instead.

Pure: reads only the arguments it is given (and ``PATH`` lookups through :func:`shutil.which`).
A Landlock-capable kernel can serve the runtime without bubblewrap; the check cannot see that,
so its message is a warning, never a refusal.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping

__all__ = ["DEFAULT_PERMISSION_MODE", "sandbox_problem"]

DEFAULT_PERMISSION_MODE = "workspace-write"
_UNSANDBOXED = "danger-full-access"


def sandbox_problem(
    permission_mode: str | None,
    env: Mapping[str, str],
    *,
    platform: str = sys.platform,
) -> str | None:
    """One line saying that ``bash`` will fail and which permission mode works instead, or
    ``None`` when the sandbox can work (or is not used).

    ``permission_mode`` is the configured one; unset falls back to ``DSH_PERMISSION_MODE`` in
    ``env``, then the runtime's default. ``env`` supplies ``PATH`` for the ``bwrap`` lookup.
    """
    mode = permission_mode or env.get("DSH_PERMISSION_MODE") or DEFAULT_PERMISSION_MODE
    if mode == _UNSANDBOXED or not platform.startswith("linux"):
        return None
    if shutil.which("bwrap", path=env.get("PATH", "")) is not None:
        return None
    return (
        f"dsh: bubblewrap (bwrap) is not installed on this kernel host, so the agent's bash "
        f"calls will fail under permission mode {mode!r}: install bubblewrap "
        f"(apt-get install bubblewrap), or choose %config DshMagics.permission_mode = "
        f"'{_UNSANDBOXED}' deliberately (no sandbox, no approvals)."
    )
