"""What to tell the user next, for a failure code of a turn (``turn/end`` kind ``error``)."""

from __future__ import annotations

__all__ = ["hint_for"]

_CREDENTIAL = (
    "Set DEEPSEEK_API_KEY to a valid DeepSeek API key in the environment the runtime starts with "
    "(e.g. before %load_ext dsh_notebook), then run again."
)
_NETWORK = (
    "The model endpoint failed or could not be reached; check the network (and DEEPSEEK_BASE_URL "
    "if set) and run again."
)

_HINTS: dict[str, str] = {
    "AUTH": _CREDENTIAL,
    "INVALID_CREDENTIAL": _CREDENTIAL,
    "MISSING_CREDENTIAL": _CREDENTIAL,
    "RATE_LIMIT": "The provider is rate limiting requests; wait a minute, then run again.",
    "QUOTA": "The account's quota is used up; check the DeepSeek balance, then run again.",
    "ACCOUNT_QUOTA": "The account's quota is used up; check the DeepSeek balance, then run again.",
    "CONTEXT_WINDOW_EXCEEDED": (
        "The conversation no longer fits the model's context window; start a new session."
    ),
    "TRANSPORT": _NETWORK,
    "TIMEOUT": _NETWORK,
    "SERVER": _NETWORK,
    "STREAM_CLOSED": _NETWORK,
    "EMPTY_RESPONSE": "The model returned nothing; run again.",
    "MALFORMED_RESPONSE": "The model returned a malformed response; run again.",
    "UNSUPPORTED_CONTENT": (
        "The session holds content the model cannot read (e.g. an unsupported prompt block); "
        "it stays in the history, so start a new session."
    ),
    "IMAGE_OFFLOAD_REQUIRED": "An image is too large for the model; send a smaller image.",
    "INVALID_REQUEST": "The model rejected the request; if it happens again, start a new session.",
}


def hint_for(code: str | None) -> str | None:
    """A one-sentence next step for a failure ``code``, or ``None`` when there is nothing to add."""
    if not code:
        return None
    return _HINTS.get(code.upper())
