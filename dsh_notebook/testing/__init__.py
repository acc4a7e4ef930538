"""Public test helpers (like ``trio.testing``).

* The scripted model endpoint (re-exported from :mod:`dsh_notebook.scripted_model`, where it
  lives because it is also the kernel's demo model).
* :class:`MockRuntime`: an in-process runtime peer for ``HarnessClient(streams=…)``.
* :func:`duplex` / :func:`memory_pipe`: in-memory byte stream pairs.
* A protocol-exact fake runtime, a separate stdlib-only process:
  ``python -m dsh_notebook.testing.fake_runtime --scenario NAME``.
* pytest fixtures: ``pytest_plugins = ["dsh_notebook.testing.pytest_plugin"]`` (pytest is imported
  only when that plugin is loaded, never by this package).
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
from .mock_runtime import SERVER_INFO, MockHandler, MockRuntime, standard_reply
from .streams import duplex, memory_pipe

__all__ = [
    "SERVER_INFO",
    "HttpError",
    "MockHandler",
    "MockRuntime",
    "RecordedRequest",
    "Script",
    "ScriptContext",
    "ScriptedModelServer",
    "Step",
    "ToolCall",
    "duplex",
    "memory_pipe",
    "standard_reply",
]
