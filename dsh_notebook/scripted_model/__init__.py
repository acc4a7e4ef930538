"""The scripted model endpoint: an Anthropic-Messages SSE server on 127.0.0.1 answering from scripts.

It is the kernel's demo model (``%%dsh`` without an API key) and the model of the integration
tests. Standard library only; nothing of ``dsh_notebook`` outside this package is imported.

One concept per module:

* :mod:`.steps` - :class:`Step`, :class:`ToolCall`, :class:`HttpError`, :class:`AfterReply`,
  :class:`Script`, :class:`ScriptContext`: what a reply is (immutable values).
* :mod:`.registry` - :class:`ScriptRegistry`: scenario name -> script (thread-safe).
* :mod:`.analysis` - :func:`analyze_request`: which scenario, step and attempt a request asks for.
* :mod:`.builtin` - the built-in scripts (:data:`BUILTIN_SCRIPTS`) and their texts.
* :mod:`.sse` - the event stream of one reply.
* :mod:`.recording` - :class:`RecordedRequest`, header redaction.
* :mod:`.handler` - HTTP plumbing; :mod:`.server` - :class:`ScriptedModelServer`.
* ``python -m dsh_notebook.scripted_model`` runs it standalone (:mod:`.__main__`).
"""

from .analysis import RequestAnalysis, analyze_request, parse_tags
from .builtin import BUILTIN_SCRIPTS, DEFAULT_SCENARIO, default_registry, long_text_chunks
from .recording import REDACTED, RecordedRequest, redact_headers
from .registry import ScriptRegistry
from .server import ScriptedModelServer
from .sse import iter_sse_events
from .steps import AfterReply, HttpError, Script, ScriptContext, Step, StepFactory, ToolCall

__all__ = [
    "BUILTIN_SCRIPTS",
    "DEFAULT_SCENARIO",
    "REDACTED",
    "AfterReply",
    "HttpError",
    "RecordedRequest",
    "RequestAnalysis",
    "Script",
    "ScriptContext",
    "ScriptRegistry",
    "ScriptedModelServer",
    "Step",
    "StepFactory",
    "ToolCall",
    "analyze_request",
    "default_registry",
    "iter_sse_events",
    "long_text_chunks",
    "parse_tags",
    "redact_headers",
]
