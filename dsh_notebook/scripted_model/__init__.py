"""The scripted model endpoint: an Anthropic-Messages SSE server on 127.0.0.1 answering from scripts.

It is the kernel's demo model (``%%dsh`` without an API key) and the model of the integration
tests. Standard library only; nothing of ``dsh_notebook`` outside this package is imported.
"""

from .scripts import AfterReply, HttpError, Script, ScriptContext, ScriptRegistry, Step, ToolCall
from .server import RecordedRequest, ScriptedModelServer

__all__ = [
    "AfterReply",
    "HttpError",
    "RecordedRequest",
    "Script",
    "ScriptContext",
    "ScriptRegistry",
    "ScriptedModelServer",
    "Step",
    "ToolCall",
]
