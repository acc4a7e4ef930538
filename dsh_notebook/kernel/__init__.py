"""The IPython extension: the runtime host in the kernel, ``%%dsh`` and ``%dsh``.

The only layer that imports IPython. Load it with ``%load_ext dsh_notebook``.
"""

from typing import TYPE_CHECKING

from ..lazy import install as install_lazy_exports

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use
    from .entry.extension import load_ipython_extension, unload_ipython_extension
    from .entry.magics import DshMagics
    from .host import RuntimeHost
    from .registry.handle import RunHandle

_SUBMODULE = install_lazy_exports(
    globals(),
    **{
        "entry.extension": ("load_ipython_extension", "unload_ipython_extension"),
        "registry.handle": ("RunHandle",),
        "host": ("RuntimeHost",),
        "entry.magics": ("DshMagics",),
    },
)


__all__ = [
    "DshMagics",
    "RunHandle",
    "RuntimeHost",
    "load_ipython_extension",
    "unload_ipython_extension",
]
