"""The one error tree of dsh_notebook.

Every exception this package raises on purpose derives from :class:`DshError`::

    DshError
    ├── RuntimeNotFound        no runtime executable could be resolved (message names the routes)
    ├── ConfigError            a launch option is invalid; raised before anything is spawned
    ├── TransportClosed        the runtime process or its pipes are gone (exit status + stderr tail)
    ├── RequestTimeout         a request got no response in time (names the method; for
    │                          ``initialize`` also the profile; carries the stderr tail)
    ├── SdkProtocolError       the peer broke the protocol contract, or a bounded buffer overflowed
    ├── PromptError            prompt input that must never reach the runtime (validated locally)
    └── JsonRpcError           an error response (code, message, data), classified by message:
        ├── NotInitialized         ``SDK server is not initialized``
        ├── ServerShuttingDown     ``SDK server is shutting down``
        ├── MethodNotFound         -32601, or the runtime's ``unknown … runtime method`` text
        │   └── UnsupportedByRuntime   a seed method this runtime does not serve (e.g. session/query)
        ├── SessionAlreadyExists   persisted but not open here: resume it first
        ├── SessionAlreadyOpen     resume of a session that is already live in this process
        ├── SessionNotFound        resume of an id that does not exist on disk
        ├── UnknownSession         wait on a session not opened in this process
        ├── DirectoryNotFound      working-directory set to a missing path
        └── ImageRejected          the runtime refused an inline image

Messages say what to do next. No message, ``repr`` or ``str`` of these errors ever contains the
API key: the runtime never echoes it and we never put it in.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "ConfigError",
    "DirectoryNotFound",
    "DshError",
    "ImageRejected",
    "JsonRpcError",
    "MethodNotFound",
    "NotInitialized",
    "PromptError",
    "RequestTimeout",
    "RuntimeNotFound",
    "SdkProtocolError",
    "ServerShuttingDown",
    "SessionAlreadyExists",
    "SessionAlreadyOpen",
    "SessionNotFound",
    "TransportClosed",
    "UnknownSession",
    "UnsupportedByRuntime",
    "classify_rpc_error",
]

METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


class DshError(Exception):
    """Root of every error raised by dsh_notebook."""


class RuntimeNotFound(DshError):
    """No DeepSeek Harness runtime executable could be found."""


class ConfigError(DshError):
    """A configuration value is invalid. Raised before any process is spawned."""


def _with_tail(text: str, stderr_tail: str) -> str:
    if stderr_tail.strip():
        text += "\n--- runtime stderr (tail) ---\n" + stderr_tail.rstrip()
    return text


class SdkProtocolError(DshError):
    """The peer violated the SDK protocol, or a bounded buffer overflowed.

    ``stderr_tail``: the runtime's newest stderr lines when it is a spawned runtime (bounded).
    """

    def __init__(self, message: str = "", *, stderr_tail: str = "") -> None:
        self.stderr_tail = stderr_tail
        super().__init__(_with_tail(message, stderr_tail))


class PromptError(DshError, ValueError):
    """Prompt input was rejected locally, before it could poison the session history."""


class TransportClosed(DshError):
    """The runtime is gone: the process exited or its stdio closed.

    ``exit_status`` is the process exit code when known (negative: killed by that signal);
    ``stderr_tail`` holds the newest stderr lines the runtime wrote (bounded).
    """

    def __init__(
        self,
        message: str = "the runtime transport is closed",
        *,
        exit_status: int | None = None,
        stderr_tail: str = "",
    ) -> None:
        self.exit_status = exit_status
        self.stderr_tail = stderr_tail
        detail = message
        if exit_status is not None:
            detail += f" (exit status {exit_status})"
        super().__init__(_with_tail(detail, stderr_tail))


class RequestTimeout(DshError, TimeoutError):
    """A request got no response within its bound. The runtime may still be working on it.

    ``stderr_tail``: what the runtime printed on stderr meanwhile (bounded), also in the message.
    """

    def __init__(
        self, method: str, timeout: float, *, profile: str | None = None, stderr_tail: str = ""
    ) -> None:
        self.method = method
        self.timeout = timeout
        self.profile = profile
        self.stderr_tail = stderr_tail
        text = f"no response to {method!r} within {timeout:g} s"
        if profile is not None:
            text += (
                f" (selected dsh profile {profile!r}); the runtime may still be booting: "
                "raise initialize_timeout, or check that the profile exists"
            )
        super().__init__(_with_tail(text, stderr_tail))


class JsonRpcError(DshError):
    """An error response from the peer. ``code``, ``message`` and ``data`` are as on the wire.

    ``stderr_tail``: the runtime's newest stderr lines when the peer is a spawned runtime
    (bounded). It is part of the message for ``initialize`` (a start that failed), and an
    attribute only for other methods, whose messages stay short.
    """

    hint: str = ""
    """What to do next; the message ends with it."""
    matches: re.Pattern[str] | None = None
    """The runtime's message text that means this error (:func:`classify_rpc_error`)."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        method: str = "",
        stderr_tail: str = "",
    ) -> None:
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        self.stderr_tail = stderr_tail
        text = f"{method}: {message}" if method else message
        if self.hint:
            text += f" — {self.hint}"
        if method == "initialize":
            text = _with_tail(text, stderr_tail)
        super().__init__(text)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.code, self.message, self.data),
            {"method": self.method, "stderr_tail": self.stderr_tail},
        )


class NotInitialized(JsonRpcError):
    hint = "call initialize first (DeepSeekHarness does this on start)"
    matches = re.compile(r"SDK server is not initialized")


class ServerShuttingDown(JsonRpcError):
    hint = "the runtime is shutting down; start a new harness"
    matches = re.compile(r"SDK server is shutting down")


class MethodNotFound(JsonRpcError):
    hint = "the peer does not serve this method"


class UnsupportedByRuntime(MethodNotFound):
    hint = "this runtime version does not serve it; upgrade the runtime or use another route"
    matches = re.compile(r"unknown DeepSeek Harness SDK runtime method")


class SessionAlreadyExists(JsonRpcError):
    hint = "the session is persisted but not open in this runtime: resume_session(id) first"
    matches = re.compile(r"^session \".*\" already exists")


class SessionAlreadyOpen(JsonRpcError):
    hint = "the session is already live in this runtime; use it directly"
    matches = re.compile(r"already open or opening")


class SessionNotFound(JsonRpcError):
    hint = "no persisted session has this id in this DSH_HOME"
    matches = re.compile(r"^session \".*\" not found")


class UnknownSession(JsonRpcError):
    hint = "the session is not open in this runtime: prompt it or resume it first"
    matches = re.compile(r"^unknown SDK session")


class DirectoryNotFound(JsonRpcError):
    hint = "create the directory first, or pass an existing path"
    matches = re.compile(r"directory does not exist")


class ImageRejected(JsonRpcError):
    hint = "send PNG, JPEG, WebP or GIF bytes whose type matches mimeType, as canonical base64"
    matches = re.compile(
        r"(?i)image upload is not canonical base64|unsupported or malformed image data"
        r"|IMAGE_TYPE_MISMATCH|image .*(too large|exceeds|megapixel)"
    )


def _kinds(cls: type[JsonRpcError]) -> list[type[JsonRpcError]]:
    return [kind for sub in cls.__subclasses__() for kind in (sub, *_kinds(sub))]


_CLASSIFIED = tuple(kind for kind in _kinds(JsonRpcError) if kind.matches is not None)
"""The classes above that recognize a message, in the order they are defined (first match wins)."""


def classify_rpc_error(
    code: int, message: str, data: Any = None, *, method: str = "", stderr_tail: str = ""
) -> JsonRpcError:
    """Build the most specific :class:`JsonRpcError` for an error response.

    The published runtime answers every failure with ``-32603`` and the handler's text, so
    classification is by message text; ``-32601`` always maps to :class:`MethodNotFound`.
    """
    cls: type[JsonRpcError] = JsonRpcError
    if code == METHOD_NOT_FOUND:
        cls = MethodNotFound
    for candidate in _CLASSIFIED:
        if candidate.matches is not None and candidate.matches.search(message):
            cls = candidate
            break
    return cls(code, message, data, method=method, stderr_tail=stderr_tail)
