"""Tool results with the secrets masked: what leaves the kernel for the model never holds the key.

:func:`mask_result` is applied by :class:`~.server.NotebookMcpServer` to every
``CallToolResult`` it returns (every tool, the error paths included), with the secrets looked up
at that moment. A person's cell that printed ``DEEPSEEK_API_KEY``, a variable holding it, or
``run_python`` code that prints it or raises with it: the model reads ``***`` instead.

Guarantees:

- Every string of the result is masked (text blocks, embedded text resources, structured
  content, ``_meta``) with :func:`~dsh_notebook.runtime.secret.redact`, the package's one
  masking policy: each whole secret and each piece of
  :data:`~dsh_notebook.runtime.secret.FRAGMENT_CHARS` or more of it (a key cut in two by a cap,
  a slice the code printed).
- Binary payloads (image and audio ``data``, resource ``blob``) are left as they are (the same
  rule as everywhere, see :func:`~dsh_notebook.runtime.secret.redact`).
- Each masked span reads as its label (``[masked: WAREHOUSE_TOKEN]``, ``[masked: AWS access
  key]``); a label may be longer than what it replaced, so a text block that grew past
  ``max_chars`` is cut back to it (:func:`~dsh_notebook.transcript.bounds.clip`): results stay
  within their caps, and a cut after masking cannot bring a secret back.
- Pure: the given result is not changed; with no secret to mask it is returned as it is.
"""

from __future__ import annotations

import mcp_types as mt

from ..runtime.secret import Secrets, redact
from ..transcript.bounds import clip

__all__ = ["mask_result"]


def mask_result(
    result: mt.CallToolResult, secrets: Secrets, max_chars: int | None = None
) -> mt.CallToolResult:
    """``result`` with every secret masked in all of its text (see the module's guarantees);
    with ``max_chars``, a text block that masking made longer than that is cut back to it."""
    if not secrets:
        return result
    dumped = result.model_dump(mode="python")
    masked = redact(dumped, secrets)
    if masked is dumped or masked == dumped:
        return result
    if max_chars is not None:
        for before, after in zip(dumped["content"], masked["content"], strict=True):
            limit = max(max_chars, len(before.get("text") or ""))
            text = after.get("text")
            if isinstance(text, str) and len(text) > limit:
                after["text"] = clip(text, limit)
    return mt.CallToolResult.model_validate(masked)
