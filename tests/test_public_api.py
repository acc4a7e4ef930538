"""The public surface and the layer rules of DESIGN.md §2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dsh_notebook

PACKAGE = Path(dsh_notebook.__file__).resolve().parent

EXPECTED_ALL = {
    "ConfigError", "DeepSeekHarness", "DirectoryNotFound", "DshError", "HarnessClient",
    "HarnessConfig", "ImageRejected", "JsonRpcError", "JsonRpcLineTransport", "MethodNotFound",
    "NotInitialized", "Notification", "PromptError", "RequestTimeout", "RunResult",
    "RuntimeNotFound", "SdkProtocolError", "ServerShuttingDown", "Session",
    "SessionAlreadyExists", "SessionAlreadyOpen", "SessionEvent", "SessionNotFound",
    "Subscription", "TransportClosed", "UnknownSession", "UnsupportedByRuntime", "__version__",
    "image_block", "load_ipython_extension", "resolve_dsh_bin", "resolve_dsh_home",
    "unload_ipython_extension",
}  # fmt: skip

def test_all_is_pinned() -> None:
    assert set(dsh_notebook.__all__) == EXPECTED_ALL
    for name in dsh_notebook.__all__:
        assert hasattr(dsh_notebook, name), name


def test_importing_the_package_pulls_no_jupyter() -> None:
    code = (
        "import sys, dsh_notebook; "
        "print(sorted(m for m in ('IPython', 'ipywidgets', 'anywidget', 'ipykernel') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
