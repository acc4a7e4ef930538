"""Lazy re-exports for a package's ``__init__`` (PEP 562), written once.

A package that re-exports names from its submodules calls :func:`install` with its globals and
the names of each submodule, which gives it ``__getattr__`` and ``__dir__``: importing the
package (or one submodule of it) then imports none of the others; the first access to a name
imports its submodule and binds the value in the package, so later accesses are plain attribute
reads. Thread-safe as imports
are (the import lock); a name that is not re-exported raises ``AttributeError`` as usual.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any


class LazyExports:
    def __init__(
        self, package: str, namespace: MutableMapping[str, object], submodules: Mapping[str, str]
    ) -> None:
        self._package = package
        self._namespace = namespace
        self._submodules = submodules

    def get(self, name: str) -> object:
        """The value of ``name``, importing its submodule on first use."""
        submodule = self._submodules.get(name)
        if submodule is None:
            raise AttributeError(f"module {self._package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{submodule}", self._package), name)
        self._namespace[name] = value  # the next access is a plain module attribute
        return value

    def names(self, exported: Iterable[str]) -> list[str]:
        """What ``dir(package)`` lists: what it holds now and everything it exports."""
        return sorted(set(self._namespace) | set(exported))


def install(namespace: MutableMapping[str, Any], **exported: Iterable[str]) -> dict[str, str]:
    """Make the package whose globals are ``namespace`` export each submodule's names lazily
    (``install(globals(), handle=("RunHandle",))``); returns ``{name: submodule}``."""
    submodules = {name: submodule for submodule, names in exported.items() for name in names}
    exports = LazyExports(str(namespace["__name__"]), namespace, submodules)
    namespace["__getattr__"] = exports.get
    namespace["__dir__"] = lambda: exports.names(namespace.get("__all__", ()))
    return submodules
