"""Public test helpers: a scripted model endpoint for the real runtime, a protocol-exact fake
runtime (``python -m dsh_notebook.testing.fake_runtime``), and in-memory stream pairs.

Importing this package is cheap; the submodules are imported on use.
"""

from ..scripted_model import (
    HttpError,
    RecordedRequest,
    Script,
    ScriptContext,
    ScriptedModelServer,
    Step,
    ToolCall,
)
from .streams import duplex, memory_pipe

__all__ = [
    "HttpError",
    "RecordedRequest",
    "Script",
    "ScriptContext",
    "ScriptedModelServer",
    "Step",
    "ToolCall",
    "duplex",
    "memory_pipe",
]
