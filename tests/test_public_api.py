"""The public surface and the layer rules of DESIGN.md §2."""

from __future__ import annotations

import ast
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

# layer -> modules it must never import (DESIGN.md §2: each layer imports only the ones above it)
FORBIDDEN = {
    "protocol": ("IPython", "ipywidgets", "anywidget", "anyio", "dsh_notebook.transport",
                 "dsh_notebook.client", "dsh_notebook.kernel", "dsh_notebook.transcript"),
    "transport.py": ("IPython", "ipywidgets", "anywidget", "dsh_notebook.client", "dsh_notebook.kernel"),
    "runtime": ("IPython", "ipywidgets", "anywidget", "pydantic", "dsh_notebook.client", "dsh_notebook.kernel"),
    "client": ("IPython", "ipywidgets", "anywidget", "dsh_notebook.kernel", "dsh_notebook.widget"),
    "transcript": ("IPython", "ipywidgets", "anywidget", "anyio", "dsh_notebook.client",
                   "dsh_notebook.kernel", "dsh_notebook.transport"),
}  # fmt: skip


def test_all_is_pinned() -> None:
    assert set(dsh_notebook.__all__) == EXPECTED_ALL
    for name in dsh_notebook.__all__:
        assert hasattr(dsh_notebook, name), name


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # resolve relative imports against the package path
                parts = path.relative_to(PACKAGE.parent).with_suffix("").parts[: -node.level]
                module = ".".join([*parts, module]) if module else ".".join(parts)
            names.add(module)
    return names


def test_layers_import_only_what_they_may() -> None:
    violations = []
    for layer, forbidden in FORBIDDEN.items():
        target = PACKAGE / layer
        files = [target] if target.suffix == ".py" else sorted(target.rglob("*.py"))
        assert files, layer
        for path in files:
            for name in _imports(path):
                if any(name == f or name.startswith(f + ".") for f in forbidden):
                    violations.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert violations == []


def test_importing_the_package_pulls_no_jupyter() -> None:
    code = (
        "import sys, dsh_notebook; "
        "print(sorted(m for m in ('IPython', 'ipywidgets', 'anywidget', 'ipykernel') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
