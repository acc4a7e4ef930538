"""Keeping a notebook value so that "Undo this run" can give it back: copy it, or say why not.

:func:`keep_value` copies a value as the undo of a run needs it — a pandas object with
``copy(deep=True)``, a numpy array with ``copy()``, plain containers and other objects with
:func:`copy.deepcopy` — and keeps modules, functions, classes and immutable values by reference
(giving the name back its old object is all undo needs for them). :func:`cannot_keep` says,
without copying anything, why a value could not be kept: too large for the per-value limit, or
of a kind that cannot be copied (open files, connections, sockets, generators, threads and
locks, GPU tensors…). The card names those before the click ("not undoable: conn
(sqlite3.Connection)").

Guarantees: never raises; the size is an estimate (pandas ``memory_usage``, numpy ``nbytes``,
``sys.getsizeof`` over at most :data:`_SIZE_VISITS` objects of a container); no heavy import
(pandas, numpy and torch are recognised through ``sys.modules``).
"""

from __future__ import annotations

import copy
import io
import socket
import sys
import threading
import types
from dataclasses import dataclass
from typing import Any

__all__ = ["Kept", "NotKept", "cannot_keep", "keep_value", "size_of", "type_label"]

_SIZE_VISITS = 100_000
"""Objects a container's size estimate visits at most (then the estimate is a lower bound)."""
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), range, frozenset, tuple)
_BY_REFERENCE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                 types.MethodType)  # fmt: skip
_LOCKS = (type(threading.Lock()), type(threading.RLock()))
_UNCOPYABLE = (
    io.IOBase, socket.socket, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType,
    types.FrameType, types.TracebackType, threading.Thread, *_LOCKS,
)  # fmt: skip
_UNCOPYABLE_NAMES = {
    ("sqlite3", "Connection"), ("sqlite3", "Cursor"), ("_sqlite3", "Connection"),
    ("_sqlite3", "Cursor"), ("ssl", "SSLSocket"), ("multiprocessing.pool", "Pool"),
    ("concurrent.futures.thread", "ThreadPoolExecutor"), ("subprocess", "Popen"),
}  # fmt: skip


@dataclass(frozen=True)
class Kept:
    """A value kept for undo: the copy (or the object itself, ``copied`` False) and its size."""

    value: Any
    size: int
    copied: bool


@dataclass(frozen=True)
class NotKept:
    """Why a value was not kept (``"too large: 1.2 GB over 256 MB"``, ``"cannot be copied"``)."""

    reason: str


def type_label(value: Any) -> str:
    """``sqlite3.Connection``, ``DataFrame``: the type's module (but builtins) and name."""
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", kind.__name__)
    if module in ("builtins", "__main__") or module.startswith(("pandas.", "numpy")):
        return str(name)
    return f"{module.removeprefix('_')}.{name}"


def _megabytes(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def _loaded(module: str, name: str) -> Any:
    found = sys.modules.get(module)
    return getattr(found, name, None) if found is not None else None


def _pandas_object(value: Any) -> bool:
    kinds = [_loaded("pandas", n) for n in ("DataFrame", "Series", "Index")]
    return any(isinstance(kind, type) and isinstance(value, kind) for kind in kinds)


def _ndarray(value: Any) -> bool:
    kind = _loaded("numpy", "ndarray")
    return isinstance(kind, type) and isinstance(value, kind)


def _gpu_tensor(value: Any) -> bool:
    kind = _loaded("torch", "Tensor")
    if not (isinstance(kind, type) and isinstance(value, kind)):
        return False
    try:
        device: Any = getattr(value, "device", None)
        return str(device.type) != "cpu"
    except Exception:
        return True


def size_of(value: Any) -> int:
    """An estimate of the memory ``value`` holds, in bytes (never raises)."""
    try:
        if _pandas_object(value):
            usage = value.memory_usage(index=True, deep=False)
            return int(usage.sum()) if hasattr(usage, "sum") else int(usage)
        if _ndarray(value):
            return int(value.nbytes)
    except Exception:
        return sys.getsizeof(value, 0)
    return _container_size(value)


def _container_size(value: Any) -> int:
    seen: set[int] = set()
    todo = [value]
    total = 0
    while todo and len(seen) < _SIZE_VISITS:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        try:
            if _pandas_object(item) or _ndarray(item):
                total += size_of(item)
                continue
            total += sys.getsizeof(item, 64)
            if isinstance(item, dict):
                todo.extend(item.keys())
                todo.extend(item.values())
            elif isinstance(item, (list, tuple, set, frozenset)):
                todo.extend(item)
            elif hasattr(item, "__dict__") and not isinstance(item, _BY_REFERENCE):
                todo.append(vars(item))
        except Exception:
            continue
    return total


def _by_reference(value: Any) -> bool:
    if isinstance(value, _BY_REFERENCE):
        return True
    return isinstance(value, _IMMUTABLE) and not isinstance(value, (tuple, frozenset))


def cannot_keep(value: Any, limit: int) -> str | None:
    """Why ``value`` cannot be kept for undo (its size over ``limit`` bytes, or its kind), or
    ``None`` when it can. Copies nothing."""
    try:
        if _by_reference(value):
            return None
        if isinstance(value, _UNCOPYABLE) or _gpu_tensor(value):
            return "cannot be copied"
        kind = type(value)
        if (getattr(kind, "__module__", ""), kind.__name__) in _UNCOPYABLE_NAMES:
            return "cannot be copied"
        size = size_of(value)
        if size > limit:
            return f"too large to keep: {_megabytes(size)}, over {_megabytes(limit)}"
    except Exception:
        return "cannot be copied"
    return None


def keep_value(value: Any, limit: int) -> Kept | NotKept:
    """``value`` kept for undo (module docstring), or why not."""
    reason = cannot_keep(value, limit)
    if reason is not None:
        return NotKept(reason)
    if _by_reference(value):
        return Kept(value, 0, copied=False)
    try:
        if _pandas_object(value):
            return Kept(value.copy(deep=True), size_of(value), copied=True)
        if _ndarray(value):
            return Kept(value.copy(), size_of(value), copied=True)
        return Kept(copy.deepcopy(value), size_of(value), copied=True)
    except Exception as exc:
        return NotKept(f"cannot be copied ({type(exc).__name__})")
