"""The IPython extension: the runtime host in the kernel, ``%%dsh`` and ``%dsh``.

The only layer that imports IPython. Load it with ``%load_ext dsh_notebook``.
"""

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use
    from .extension import load_ipython_extension, unload_ipython_extension
    from .handle import RunHandle
    from .host import RuntimeHost
    from .magics import DshMagics

_SUBMODULE = {
    "load_ipython_extension": "extension",
    "unload_ipython_extension": "extension",
    "RunHandle": "handle",
    "RuntimeHost": "host",
    "DshMagics": "magics",
}
"""Each re-exported name -> its submodule (PEP 562): importing one submodule of this package
does not import the others; the first access to a name here imports its submodule."""


_lazy = LazyExports(__name__, globals(), _SUBMODULE)


def __getattr__(name: str) -> object:
    return _lazy.get(name)


def __dir__() -> list[str]:
    return _lazy.names(__all__)


__all__ = [
    "DshMagics",
    "RunHandle",
    "RuntimeHost",
    "load_ipython_extension",
    "unload_ipython_extension",
]
