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


def test_importing_the_package_imports_no_public_name_until_used() -> None:
    """``import dsh_notebook`` (what ``%load_ext dsh_notebook`` starts with) loads neither the
    client nor pydantic/anyio; the first use of a public name imports its submodule."""
    code = (
        "import sys, dsh_notebook as d; "
        "heavy = ('pydantic', 'anyio', 'dsh_notebook.client', 'dsh_notebook.protocol'); "
        "print(sorted(m for m in heavy if m in sys.modules)); "
        "print(d.DeepSeekHarness.__module__, 'dsh_notebook.client' in sys.modules, "
        "set(d.__all__) <= set(dir(d)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "dsh_notebook.client.harness True True"]


def test_no_lazy_name_is_also_a_submodule_name() -> None:
    """A package's lazy name (PEP 562 ``_SUBMODULE``) that is also one of its submodules' names
    would turn into that submodule once anything imports it (``context.interpolate`` did)."""
    import importlib
    import pkgutil

    for package in PACKAGE.rglob("__init__.py"):
        name = ".".join(package.parent.relative_to(PACKAGE.parent).parts)
        module = importlib.import_module(name)
        lazy = set(getattr(module, "_SUBMODULE", {}))
        submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
        assert lazy & submodules == set(), name
