"""dsh_notebook: drive a DeepSeek Harness agent from Python and Jupyter.

The public surface is this module's ``__all__`` (pinned by a test). The async client works without
Jupyter::

    from dsh_notebook import DeepSeekHarness

    async with DeepSeekHarness(cwd=".") as harness:
        result = await harness.start_session().run("Say hello")
        print(result.final_response)
"""

from typing import TYPE_CHECKING

from .lazy import install as install_lazy_exports

if TYPE_CHECKING:  # what mypy and readers see; at run time each name is imported on first use
    from .client import (
        DeepSeekHarness,
        HarnessClient,
        HarnessConfig,
        RunResult,
        Session,
        Subscription,
        image_block,
    )
    from .errors import (
        ConfigError,
        DirectoryNotFound,
        DshError,
        ImageRejected,
        JsonRpcError,
        MethodNotFound,
        NotInitialized,
        PromptError,
        RequestTimeout,
        RuntimeNotFound,
        SdkProtocolError,
        ServerShuttingDown,
        SessionAlreadyExists,
        SessionAlreadyOpen,
        SessionNotFound,
        TransportClosed,
        UnknownSession,
        UnsupportedByRuntime,
    )
    from .protocol import Notification, SessionEvent
    from .runtime import resolve_dsh_bin, resolve_dsh_home
    from .transport import JsonRpcLineTransport

__version__ = "0.1.0"

_SUBMODULE = install_lazy_exports(
    globals(),
    client=(
        "DeepSeekHarness", "HarnessClient", "HarnessConfig", "RunResult", "Session", "Subscription",
        "image_block"
    ),
    errors=(
        "ConfigError", "DirectoryNotFound", "DshError", "ImageRejected", "JsonRpcError",
        "MethodNotFound", "NotInitialized", "PromptError", "RequestTimeout", "RuntimeNotFound",
        "SdkProtocolError", "ServerShuttingDown", "SessionAlreadyExists", "SessionAlreadyOpen",
        "SessionNotFound", "TransportClosed", "UnknownSession", "UnsupportedByRuntime"
    ),
    protocol=("Notification", "SessionEvent"),
    runtime=("resolve_dsh_bin", "resolve_dsh_home"),
    transport=("JsonRpcLineTransport",),
)  # fmt: skip
"""Each public name -> the submodule that defines it (PEP 562): ``import dsh_notebook`` (and
``%load_ext dsh_notebook``) imports none of them; the first access imports that submodule."""


def load_ipython_extension(ip: object) -> None:
    """``%load_ext dsh_notebook`` (IPython is imported only here)."""
    from .kernel import load_ipython_extension as load

    load(ip)


def unload_ipython_extension(ip: object) -> None:
    """``%unload_ext dsh_notebook``: closes the runtime."""
    from .kernel import unload_ipython_extension as unload

    unload(ip)


__all__ = [
    "ConfigError",
    "DeepSeekHarness",
    "DirectoryNotFound",
    "DshError",
    "HarnessClient",
    "HarnessConfig",
    "ImageRejected",
    "JsonRpcError",
    "JsonRpcLineTransport",
    "MethodNotFound",
    "NotInitialized",
    "Notification",
    "PromptError",
    "RequestTimeout",
    "RunResult",
    "RuntimeNotFound",
    "SdkProtocolError",
    "ServerShuttingDown",
    "Session",
    "SessionAlreadyExists",
    "SessionAlreadyOpen",
    "SessionEvent",
    "SessionNotFound",
    "Subscription",
    "TransportClosed",
    "UnknownSession",
    "UnsupportedByRuntime",
    "__version__",
    "image_block",
    "load_ipython_extension",
    "resolve_dsh_bin",
    "resolve_dsh_home",
    "unload_ipython_extension",
]
