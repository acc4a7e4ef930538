"""What the scripted model records of each request, with secrets redacted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["REDACTED", "RecordedRequest", "redact_headers"]

#: Replacement for secret header values in recorded requests.
REDACTED: Final = "<redacted>"
_SECRET_HEADERS: Final = frozenset({"x-api-key", "authorization", "proxy-authorization"})


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received.

    Attributes:
        method: HTTP method (``POST`` for model calls).
        path: request path (``/v1/messages``).
        headers: lower-cased header names -> values; secrets are ``"<redacted>"``.
        body: parsed JSON body (``None`` if absent or not JSON).
        scenario: selected script name (``"plain"`` for untagged requests; the unknown name
            for requests answered with the unknown-scenario error; ``None`` for other errors
            and non-model paths).
        step_index: selected step (``-1`` when no script was run).
        attempt: attempt number of that step as derived from the request.
        status: HTTP status of the reply.
        time: ``time.time()`` when the request was received.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    scenario: str | None
    step_index: int
    attempt: int
    status: int
    time: float

    @property
    def session_id(self) -> str | None:
        """The ``x-deepseek-harness-session-id`` header (the child's id for subagent calls)."""
        return self.headers.get("x-deepseek-harness-session-id")


def redact_headers(headers: Mapping[str, str] | Sequence[tuple[str, str]]) -> dict[str, str]:
    """Lower-case header names and replace secret values by :data:`REDACTED`."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        out[key] = REDACTED if key in _SECRET_HEADERS else value
    return out
