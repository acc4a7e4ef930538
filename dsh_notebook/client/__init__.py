"""The SDK client: ``HarnessClient`` (low level) and ``DeepSeekHarness`` / ``Session`` /
``RunResult`` (high level). Imports protocol, transport and runtime; never IPython or widgets."""

from .config import DEFAULT_MODEL, DEFAULT_PROVIDER, PERMISSION_MODES, HarnessConfig
from .handlers import ApprovalHandler, QuestionHandler
from .harness import DeepSeekHarness
from .low_level import SERVER_NAME, HarnessClient
from .prompt import image_block, normalize_input
from .routing import Router, Subscription
from .session import RunResult, Session

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_PROVIDER",
    "PERMISSION_MODES",
    "SERVER_NAME",
    "ApprovalHandler",
    "DeepSeekHarness",
    "HarnessClient",
    "HarnessConfig",
    "QuestionHandler",
    "Router",
    "RunResult",
    "Session",
    "Subscription",
    "image_block",
    "normalize_input",
]
