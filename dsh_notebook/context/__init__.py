"""What the notebook tells the agent: interpolated values, descriptions of values, images.

Pure and IPython-free (neither at import nor lazily): every function takes plain values — a
namespace mapping, an object — so it is usable and testable without a kernel. It imports only the
standard library, :mod:`dsh_notebook.client.prompt`, :mod:`dsh_notebook.errors` and
:mod:`dsh_notebook.transcript.sanitize` (fences and code spans).

- :mod:`.interpolate`: ``{name}`` / ``{In[n]}`` references in a ``%%dsh`` prompt
  (:func:`interpolate`);
- :mod:`.notebook_context`: the notebook context block sent with every prompt
  (:func:`~.notebook_context.notebook_context_block`);
- :mod:`.describe`: bounded, LLM-friendly text for any value (:func:`describe_value`);
- :mod:`.images`: figures, PIL images, bytes and paths as prompt image blocks
  (:func:`to_image_block`).
"""

from typing import TYPE_CHECKING

from ..lazy import install as install_lazy_exports

# eager: `interpolate` is also a submodule's name, which a lazy name would lose to the submodule
from .describe import describe_value, short_summary, truncate
from .interpolate import ContextChunk, ContextKind, Interpolation, interpolate

if TYPE_CHECKING:  # what mypy sees; at run time the name is imported on first use
    from .images import to_image_block

_SUBMODULE = install_lazy_exports(globals(), images=("to_image_block",))
"""Lazy names -> their submodule (PEP 562): :mod:`.images` needs the runtime client's prompt
blocks, which the describing and interpolating parts (watched figures, ``%load_ext``) do not."""


__all__ = [
    "ContextChunk",
    "ContextKind",
    "Interpolation",
    "describe_value",
    "interpolate",
    "short_summary",
    "to_image_block",
    "truncate",
]
