"""dsh_notebook: drive a DeepSeek Harness agent from Python and Jupyter.

The public surface is this module's ``__all__`` (pinned by a test). The async client works without
Jupyter::

    from dsh_notebook import DeepSeekHarness

    async with DeepSeekHarness(cwd=".") as harness:
        result = await harness.start_session().run("Say hello")
        print(result.final_response)
"""

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
    "resolve_dsh_bin",
    "resolve_dsh_home",
]
