"""Tool results with the secrets masked: what leaves the kernel for the model never holds the key.

:func:`mask_result` is applied by :class:`~.server.NotebookMcpServer` to every
``CallToolResult`` it returns (every tool, the error paths included), with the secrets looked up
at that moment. A person's cell that printed ``DEEPSEEK_API_KEY``, a variable holding it, or
``run_python`` code that prints it or raises with it: the model reads ``***`` instead.

Guarantees:

- Every string of the result is masked (text blocks, embedded text resources, structured
  content, ``_meta``) with :func:`~dsh_notebook.runtime.secret.redact_fragments`: each whole
  secret and each piece of :data:`~dsh_notebook.runtime.secret.FRAGMENT_CHARS` or more of it
  (a key cut in two by a cap).
- Binary payloads (image and audio ``data``, resource ``blob``) are left as they are: base64
  cannot be searched for text (a figure whose pixels show the key still shows it).
- A masked string is never longer than it was, so results stay within their caps.
- Pure: the given result is not changed; with no secret to mask it is returned as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mcp_types as mt

from ..runtime.secret import redact_fragments

__all__ = ["mask_result", "mask_value"]

_BINARY_KEYS = frozenset({"data", "blob"})
"""Keys that hold base64 bytes (``ImageContent.data``, ``AudioContent.data``, ``BlobResourceContents.blob``)."""


def _binary(owner: dict[Any, Any], key: Any) -> bool:
    if key not in _BINARY_KEYS:
        return False
    if key == "blob":
        return True
    return owner.get("type") in ("image", "audio")


def mask_value(value: Any, secrets: Sequence[str]) -> Any:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string masked, except
    the base64 payloads of image/audio/blob contents."""
    if isinstance(value, str):
        return redact_fragments(value, list(secrets))
    if isinstance(value, dict):
        return {
            mask_value(k, secrets): v if _binary(value, k) else mask_value(v, secrets)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [mask_value(v, secrets) for v in value]
    return value


def mask_result(result: mt.CallToolResult, secrets: Sequence[str]) -> mt.CallToolResult:
    """``result`` with every secret masked in all of its text (see the module's guarantees)."""
    if not any(len(s) >= 4 for s in secrets):
        return result
    dumped = result.model_dump(mode="python")
    masked = mask_value(dumped, secrets)
    if masked == dumped:
        return result
    return mt.CallToolResult.model_validate(masked)
