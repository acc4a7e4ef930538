"""The tags of the notebook context block, one home (stdlib only).

The kernel adds a ``<notebook-context>`` text block after the person's words in every prompt
(:mod:`dsh_notebook.context.notebook_context` writes it). Whatever reads a prompt back tells the
two apart by these tags: the transcript (a session title the runtime made from the whole first
message keeps the person's words only) and the scripted model (a block starting with the tag is
the package's, not the person's).
"""

from __future__ import annotations

from typing import Final

__all__ = ["CONTEXT_CLOSE", "CONTEXT_OPEN"]

CONTEXT_OPEN: Final = "<notebook-context>"
"""The first line of the block."""
CONTEXT_CLOSE: Final = "</notebook-context>"
"""The last line of the block."""
