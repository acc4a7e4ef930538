"""The kernel's side of the ``dsh-notebook`` JupyterLab / Notebook 7 extension.

- :mod:`.protocol`: every message between the kernel and the extension (version 1), validated.
- :mod:`.identity`: :func:`current_identity` -- which notebook and cell the running request
  came from (the extension sends it with every execute request).
- :mod:`.link`: :class:`FrontendLink` -- the ``dsh_notebook.frontend`` comm (``hello``,
  ``waiting``); a no-op where no extension answers.

Nothing here imports IPython or ipykernel at import time.
"""

from __future__ import annotations

from .identity import NotebookIdentity, current_identity
from .link import FrontendLink

__all__ = ["FrontendLink", "NotebookIdentity", "current_identity"]
