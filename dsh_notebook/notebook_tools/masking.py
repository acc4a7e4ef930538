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
- A masked string is never longer than it was, so results stay within their caps.
- Pure: the given result is not changed; with no secret to mask it is returned as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import mcp_types as mt

from ..runtime.secret import redact

__all__ = ["mask_result"]


def mask_result(result: mt.CallToolResult, secrets: Sequence[str]) -> mt.CallToolResult:
    """``result`` with every secret masked in all of its text (see the module's guarantees)."""
    if not any(len(s) >= 4 for s in secrets):
        return result
    dumped = result.model_dump(mode="python")
    masked = redact(dumped, secrets)
    if masked is dumped or masked == dumped:
        return result
    return mt.CallToolResult.model_validate(masked)
