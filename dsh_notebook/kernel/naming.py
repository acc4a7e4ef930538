"""The default session of a notebook: stable across kernel restarts, so the conversation goes on.

The id is derived from the notebook's path when the kernel can learn it (``JPY_SESSION_NAME`` set
by jupyter_server 2+, ``__vsc_ipynb_file__`` set by VS Code); otherwise from a per-process random
id (terminal IPython, unknown frontends), which then lasts only as long as the process.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["default_session_id", "notebook_path"]

_PROCESS_ID = uuid.uuid4().hex[:12]


def notebook_path(
    user_ns: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> str | None:
    env = os.environ if environ is None else environ
    vscode = user_ns.get("__vsc_ipynb_file__")
    if isinstance(vscode, str) and vscode:
        return vscode
    name = env.get("JPY_SESSION_NAME")
    if name:
        return name
    return None


def default_session_id(user_ns: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> str:
    path = notebook_path(user_ns, environ)
    if path is None:
        return f"nb-{_PROCESS_ID}"
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in Path(path).stem)[:40]
    digest = hashlib.sha256(str(Path(path)).encode()).hexdigest()[:10]
    return f"nb-{stem}-{digest}"
