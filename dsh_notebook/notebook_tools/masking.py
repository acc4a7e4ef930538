"""Tool results with the secrets masked: what leaves the kernel for the model never holds the key.

:func:`mask_result` is applied by :class:`~.server.NotebookMcpServer` to every
:class:`~.mcp_shapes.ToolResult` it returns (every tool, the error paths included), with the
secrets looked up at that moment. A person's cell that printed ``DEEPSEEK_API_KEY``, a variable holding it, or
``run_python`` code that prints it or raises with it: the model reads ``***`` instead.

Guarantees:

- Every text block of the result is masked with :func:`~dsh_notebook.runtime.secret.redact`,
  the package's one masking policy: each whole secret and each piece of
  :data:`~dsh_notebook.runtime.secret.FRAGMENT_CHARS` or more of it (a key cut in two by a cap,
  a slice the code printed).
- Image blocks (base64 ``data``) are left as they are (the same rule as everywhere, see
  :func:`~dsh_notebook.runtime.secret.redact`).
- Each masked span reads as its label (``[masked: WAREHOUSE_TOKEN]``, ``[masked: AWS access
  key]``); a label may be longer than what it replaced, so a text block that grew past
  ``max_chars`` is cut back to it (:func:`~dsh_notebook.transcript.bounds.clip`): results stay
  within their caps, and a cut after masking cannot bring a secret back.
- Pure: the given result is not changed; with no secret to mask it is returned as it is.
"""

from __future__ import annotations

from dataclasses import replace

from ..runtime.secret import Secrets, redact
from ..transcript.bounds import clip
from .mcp_shapes import ContentBlock, TextBlock, ToolResult

__all__ = ["mask_result"]


def mask_result(result: ToolResult, secrets: Secrets, max_chars: int | None = None) -> ToolResult:
    """``result`` with every secret masked in all of its text (see the module's guarantees);
    with ``max_chars``, a text block that masking made longer than that is cut back to it."""
    if not secrets:
        return result
    blocks: list[ContentBlock] = []
    changed = False
    for block in result.content:
        if isinstance(block, TextBlock):
            masked = redact(block.text, secrets)
            if masked != block.text:
                changed = True
                limit = max(max_chars, len(block.text)) if max_chars is not None else None
                if limit is not None and len(masked) > limit:
                    masked = clip(masked, limit)
                block = TextBlock(masked)
        blocks.append(block)
    return replace(result, content=tuple(blocks)) if changed else result
