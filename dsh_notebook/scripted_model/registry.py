"""The scenario registry: name -> :class:`~.steps.Script`, thread-safe."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

from .steps import Script, Step, StepFactory

__all__ = ["ScriptRegistry"]

_NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _as_script(script: Script | Sequence[Step | StepFactory]) -> Script:
    if isinstance(script, Script):
        return script
    return Script(steps=tuple(script))


class ScriptRegistry:
    """Name -> :class:`Script` map; all methods are thread-safe."""

    def __init__(self, scripts: Mapping[str, Script] | None = None) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, Script] = {}
        for name, script in (scripts or {}).items():
            self.register(name, script)

    def register(self, name: str, script: Script | Sequence[Step | StepFactory]) -> None:
        """Add or replace script ``name`` (letters, digits, ``_ . -``; starts alphanumeric).

        A plain sequence of steps is wrapped in a :class:`Script`.
        """
        if not _NAME_RE.match(name):
            raise ValueError(f"invalid scenario name {name!r}")
        resolved = _as_script(script)
        with self._lock:
            self._scripts[name] = resolved

    def unregister(self, name: str) -> None:
        """Remove script ``name``; missing names are ignored."""
        with self._lock:
            self._scripts.pop(name, None)

    def get(self, name: str) -> Script | None:
        """The script called ``name``, or ``None``."""
        with self._lock:
            return self._scripts.get(name)

    def names(self) -> list[str]:
        """Sorted script names."""
        with self._lock:
            return sorted(self._scripts)

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._scripts

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        with self._lock:
            return len(self._scripts)
