"""The IPython extension: the runtime host in the kernel, ``%%dsh`` and ``%dsh``.

The only layer that imports IPython. Load it with ``%load_ext dsh_notebook``.
"""

from .extension import load_ipython_extension, unload_ipython_extension
from .handle import RunHandle
from .host import RuntimeHost
from .magics import DshMagics

__all__ = [
    "DshMagics",
    "RunHandle",
    "RuntimeHost",
    "load_ipython_extension",
    "unload_ipython_extension",
]
