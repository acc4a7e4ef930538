"""The read-only notebook tools over the kernel's namespace: ``notebook_variables`` (a table of
the person's variables) and ``describe_variable`` (one value in detail).

Plain functions over a namespace (``shell.user_ns``): no MCP, no threads, no kernel needed. The
server in :mod:`.server` runs them on a worker thread, bounded in time.

Guarantees:

- **Bounded output.** Every text result is at most ``max_chars`` characters (cut text ends with
  ``[… N characters omitted …]``). Values are described with
  :func:`~dsh_notebook.context.describe.describe_value`, so the work per value is bounded too (a
  user-defined ``repr``/``_repr_llm_`` still costs what it costs).
- **They never change the namespace** and never raise for odd values; they read a snapshot
  (``list(ns.items())``) of the namespace, so a concurrent cell cannot break the iteration. They
  are *not* atomic with respect to a cell mutating a value at the same moment.
"""

from __future__ import annotations

import difflib
import inspect
import itertools
import sys
import types
from collections.abc import Container, Mapping
from typing import Any

from ..context.describe import describe_value, loaded_module, short_summary, truncate
from ..context.private import is_private, private_refusal
from .tool_texts import (
    NO_VARIABLES,
    NO_VARIABLES_LISTED,
    PRIVATE_ROWS,
    kernel_line,
    more_variables,
    no_such_variable,
    similar_names,
    variables_heading,
    variables_named,
)

__all__ = [
    "HIDDEN_NAMES",
    "describe_variable",
    "kernel_facts",
    "notebook_variables",
    "visible_variables",
]

HIDDEN_NAMES: frozenset[str] = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
"""IPython's own names, always left out of listings (beside ``shell.user_ns_hidden``)."""

_PREVIEW_CHARS = 80
_VERSION_CHARS = 40
_MAX_LISTED = 200


def _is_listed(name: str, value: Any, hidden: Container[str]) -> bool:
    if not isinstance(name, str) or name.startswith("_") or name in HIDDEN_NAMES or name in hidden:
        return False
    try:
        return not (
            isinstance(value, (types.ModuleType, type)) or inspect.isroutine(value)
        ) and type(value).__name__ not in ("ExitAutocall", "ZMQExitAutocall")
    except Exception:
        return False


def visible_variables(
    user_ns: Mapping[str, Any], hidden: Container[str] = frozenset()
) -> list[tuple[str, Any]]:
    """The person's variables in definition order: no private names, modules, functions,
    classes or IPython internals (``hidden`` adds names, e.g. ``shell.user_ns_hidden``)."""
    try:
        items = list(user_ns.items())  # one snapshot: a concurrent cell cannot break iteration
    except Exception:
        return []
    return [(name, value) for name, value in items if _is_listed(name, value, hidden)]


def _format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - loop always returns


def _memory(value: Any) -> str:
    """Shallow memory size: pandas ``memory_usage(deep=False)``, numpy ``nbytes``, else
    ``sys.getsizeof`` (the container itself, not what it refers to)."""
    try:
        pd, np, pl = loaded_module("pandas"), loaded_module("numpy"), loaded_module("polars")
        if pd is not None and isinstance(value, pd.DataFrame):
            return _format_bytes(int(value.memory_usage(index=True, deep=False).sum()))
        if pd is not None and isinstance(value, pd.Series):
            return _format_bytes(int(value.memory_usage(index=True, deep=False)))
        if np is not None and isinstance(value, np.ndarray):
            return _format_bytes(int(value.nbytes))
        if pl is not None and isinstance(value, (pl.DataFrame, pl.Series)):
            return _format_bytes(int(value.estimated_size()))
        return _format_bytes(sys.getsizeof(value))
    except Exception:
        return "?"


def _shape(value: Any) -> str:
    try:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
            return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        if isinstance(value, (str, bytes, bytearray, list, tuple, dict, set, frozenset)):
            return f"len {len(value):,}"
        if hasattr(type(value), "__len__") and not isinstance(value, type):
            return f"len {len(value):,}"
    except Exception:
        pass
    return ""


def _one_line(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _preview(value: Any) -> str:
    try:
        pd = loaded_module("pandas")
        if pd is not None and isinstance(value, pd.DataFrame):
            cols = [f"{c} ({t})" for c, t in zip(value.columns[:8], value.dtypes[:8], strict=True)]
            more = ", …" if len(value.columns) > 8 else ""
            return _one_line("columns: " + ", ".join(cols) + more, _PREVIEW_CHARS)
        if pd is not None and isinstance(value, pd.Series):
            return _one_line(f"dtype {value.dtype}; " + ", ".join(map(str, value.head(5))), 80)
        np = loaded_module("numpy")
        if np is not None and isinstance(value, np.ndarray):
            head = value.ravel()[:6].tolist()
            return _one_line(repr(head)[:-1] + (", …]" if value.size > 6 else "]"), 80)
        if isinstance(value, (list, tuple, set, frozenset)):
            items = [
                _one_line(describe_value(x, max_chars=40), 40) for x in itertools.islice(value, 5)
            ]
            return _one_line(", ".join(items) + (", …" if len(value) > 5 else ""), _PREVIEW_CHARS)
        text = describe_value(value, max_chars=300, max_rows=3)
        lines = text.splitlines()
        if len(lines) > 1 and ":" in lines[0]:
            text = " ".join(lines[1:])  # the first line repeats the type/shape summary
        return _one_line(text, _PREVIEW_CHARS)
    except Exception:
        return _one_line(short_summary(value), _PREVIEW_CHARS)


def _version(module: types.ModuleType) -> str | None:
    """``__version__`` of the module or of its top package (``matplotlib.pyplot`` →
    matplotlib's); ``None`` for the standard library (its version is Python's). Never imports
    anything."""
    if module.__name__.partition(".")[0] in getattr(sys, "stdlib_module_names", ()):
        return None
    for candidate in (module, sys.modules.get(module.__name__.partition(".")[0])):
        version = getattr(candidate, "__version__", None)
        if isinstance(version, str) and version:
            return version[:_VERSION_CHARS]
    return None


def kernel_facts(
    user_ns: Mapping[str, Any], hidden: Container[str] = frozenset(), *, max_modules: int = 40
) -> str:
    """The kernel's Python version and the modules the notebook imported, by the names it uses
    (``pd = pandas 2.2.3``, ``plt = matplotlib.pyplot (matplotlib 3.9.2)``, ``json``), one line
    each part, at most ``max_modules`` modules (more are counted). Never raises."""
    python = f"Python {sys.version.split()[0]} ({sys.implementation.name})"
    try:
        items = list(user_ns.items())
    except Exception:
        items = []
    modules: list[str] = []
    for name, value in items:
        if not isinstance(value, types.ModuleType) or not isinstance(name, str):
            continue
        if name.startswith("_") or name in HIDDEN_NAMES or name in hidden:
            continue
        real = getattr(value, "__name__", name)
        label = real if real == name else f"{name} = {real}"
        version = _version(value)
        if version is not None:
            top = real.partition(".")[0]
            label += f" {version}" if top == real else f" ({top} {version})"
        modules.append(label)
    if not modules:
        return kernel_line(python, "")
    shown = ", ".join(modules[:max_modules])
    more = f", … {len(modules) - max_modules} more" if len(modules) > max_modules else ""
    return kernel_line(python, shown + more)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def notebook_variables(
    user_ns: Mapping[str, Any],
    *,
    hidden: Container[str] = frozenset(),
    max_chars: int = 8000,
    max_rows: int = _MAX_LISTED,
    private: tuple[str, ...] = (),
) -> str:
    """The kernel's facts (:func:`kernel_facts`: Python version, imported modules with aliases
    and versions), then a table of the person's variables: name, type, shape/len, memory size,
    one-line preview.

    Left out of the table: names starting with ``_``, modules (listed in the facts), functions,
    classes, IPython internals (``In``, ``Out``, ``exit``, ``quit``, ``get_ipython`` and
    ``hidden``). A private variable (``private`` name patterns) is listed by name and type
    only, its other cells read ``private``. At most ``max_rows`` rows and ``max_chars``
    characters (the facts at most a quarter of them).
    """
    facts = truncate(kernel_facts(user_ns, hidden), max(80, max_chars // 4))[0]
    variables = visible_variables(user_ns, hidden)
    if not variables:
        return truncate(facts + NO_VARIABLES, max_chars)[0]
    lines = [
        facts,
        "",
        variables_heading(len(variables)),
        "",
        "name | type | shape/len | size | preview",
        "--- | --- | --- | --- | ---",
    ]
    for name, value in variables[:max_rows]:
        type_name = _cell(type(value).__name__)
        if private and is_private(name, private):
            lines.append(f"{_cell(name)} | {type_name} | private | private | (withheld)")
            continue
        lines.append(
            f"{_cell(name)} | {type_name} | {_shape(value)} | {_memory(value)} | "
            f"{_cell(_preview(value))}"
        )
    if len(variables) > max_rows:
        lines.append(more_variables(len(variables) - max_rows))
    if private and any(is_private(n, private) for n, _ in variables[:max_rows]):
        lines.append(PRIVATE_ROWS)
    return truncate("\n".join(lines), max_chars)[0]


def _lookup(user_ns: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """``name`` or a dotted attribute path (``df.columns``); no code is evaluated."""
    head, *attrs = name.strip().split(".")
    if head not in user_ns:
        return False, None
    value = user_ns[head]
    for attr in attrs:
        if not attr.isidentifier() or attr.startswith("__"):
            return False, None
        try:
            value = getattr(value, attr)
        except Exception:
            return False, None
    return True, value


def describe_variable(
    user_ns: Mapping[str, Any],
    name: str,
    max_chars: int = 8000,
    *,
    hidden: Container[str] = frozenset(),
    private: tuple[str, ...] = (),
) -> tuple[bool, str]:
    """``(found, text)``: a bounded description of variable ``name`` (or ``a.b`` attribute path).

    An unknown name gives ``found=False`` and a message naming similar variables; a private
    one (``private`` name patterns) ``found=False`` and :func:`private_refusal`, before its
    value is looked at.
    """
    if private and isinstance(name, str) and is_private(name, private):
        return False, truncate(private_refusal(name.strip().split(".")[0]), max_chars)[0]
    found, value = _lookup(user_ns, name) if isinstance(name, str) and name.strip() else (False, 0)
    if not found:
        names = [n for n, _ in visible_variables(user_ns, hidden)]
        close = difflib.get_close_matches(str(name).split(".")[0], names, n=5, cutoff=0.5)
        if close:
            hint = similar_names(close)
        elif names:
            listed = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
            hint = variables_named(listed)
        else:
            hint = NO_VARIABLES_LISTED
        text = no_such_variable(name, hint)
        return False, truncate(text, max_chars)[0]
    header = f"{name.strip()}: {short_summary(value)}\n"
    body = describe_value(value, max_chars=max(1, max_chars - len(header)))
    return True, truncate(header + body, max_chars)[0]
