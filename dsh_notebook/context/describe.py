"""Bounded, LLM-friendly descriptions of notebook values.

:func:`describe_value` turns any object into text an agent can read: a DataFrame becomes its
shape, dtypes, first rows, null counts and a numeric summary; an array its shape, dtype and
nan-aware statistics; a container its length and a sample of short item reprs; anything else a
``repr()``. :func:`short_summary` gives one line (type and shape/length) for context chips.

Guarantees:

- **Never raises** (for any ``Exception``): a failing ``_repr_llm_``, property or ``repr`` falls
  back to a simpler description, finally ``<Foo: repr failed: ValueError: ...>``.
- **Bounded output**: every result of :func:`describe_value` is at most ``max_chars`` characters
  (or, when ``max_chars`` is smaller than the marker itself, just the marker); when text was cut it
  ends with the one truncation marker (:func:`~dsh_notebook.transcript.bounds.truncation_mark`,
  ``[… N characters omitted …]``). :func:`short_summary` is at most 200 characters.
- **Bounded work** where we control it: only ``max_rows`` rows/items are rendered, huge strings and
  byte strings are sliced before ``repr``, generators and other iterators are never consumed, the
  pandas numeric summary is skipped for frames over 50 columns or 10 million numeric cells. A
  user-defined ``repr``/``_repr_llm_`` still costs what it costs.
- **Encodable text**: results never contain surrogate code points (lone ones become U+FFFD), so
  they always encode as UTF-8, whatever a ``repr`` or ``_repr_llm_`` returned.
- **Stable text**: memory addresses (`` at 0x7f...``) are removed from everything but strings
  and ``_repr_llm_`` results, which are passed through as they are.
- **No heavy imports**: pandas, numpy and polars are never imported here; values are recognized
  through ``sys.modules`` (an instance of a library's class implies the library is loaded).

Objects can describe themselves by defining ``_repr_llm_(self) -> str``; its result is used
(capped) unless it raises or returns a non-string.
"""

from __future__ import annotations

import collections
import itertools
import re
import sys
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..transcript.bounds import truncation_mark
from .sanitize import replace_lone_surrogates

__all__ = [
    "describe_value",
    "loaded_module",
    "render",
    "safe_repr",
    "short_summary",
    "truncate",
]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_SUMMARY_MAX = 200
_ITEM_REPR_MAX = 120
_COMPACT_MAX = 200
_MAX_LISTED_COLUMNS = 100
_DESCRIBE_MAX_COLUMNS = 50
_DESCRIBE_MAX_CELLS = 10_000_000
_TABLE_MAX_COLS = 20
_TABLE_MAX_COLWIDTH = 50


def truncate(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_chars`` characters: its head, a space and the one
    truncation marker (:func:`~dsh_notebook.transcript.bounds.truncation_mark`), on one line.

    Returns ``(text, was_truncated)``. The marker counts toward ``max_chars``; if ``max_chars`` is
    smaller than the marker, the marker alone is returned.
    """
    if len(text) <= max_chars:
        return text, False
    # sized for the largest possible count, so the result never exceeds max(max_chars, marker)
    keep = max(0, max_chars - len(truncation_mark(len(text))) - 1)
    mark = truncation_mark(len(text) - keep)
    return (f"{text[:keep]} {mark}" if keep else mark), True


def describe_value(obj: Any, *, max_chars: int = 4000, max_rows: int = 10) -> str:
    """A description of ``obj`` for a language model, at most ``max_chars`` characters.

    ``max_rows`` bounds rendered table rows and sampled container items. Never raises.
    """
    return truncate(render(obj, max_rows=max_rows, max_chars=max_chars), max_chars)[0]


def render(obj: Any, *, max_rows: int = 10, max_chars: int = 4000) -> str:
    """The description of ``obj`` before the final cap (``max_chars`` is a work hint only).

    For callers that cap themselves (see :func:`truncate`); :func:`describe_value` is this plus
    the cap. Never raises.
    """
    return replace_lone_surrogates(_render(obj, max(1, max_rows), max_chars))


def _render(obj: Any, max_rows: int, max_chars: int) -> str:
    try:
        llm = _repr_llm(obj)
        if llm is not None:
            return llm
        if isinstance(obj, str):
            return obj
        for describer in _DESCRIBERS:
            text = describer(obj, max_rows, max_chars)
            if text is not None:
                return _ADDRESS.sub("", text)
    except Exception:
        pass  # a library describer failed on an odd value: fall back to repr
    return safe_repr(obj, max_chars=max_chars)


def short_summary(obj: Any) -> str:
    """One line naming the type and shape/length of ``obj`` (at most 200 chars). Never raises."""
    try:
        text = _summary(obj)
    except Exception:
        text = _type_name(obj)
    text = replace_lone_surrogates(" ".join(text.split()))
    return truncate(text, _SUMMARY_MAX)[0]


def safe_repr(obj: Any, *, max_chars: int = 4000) -> str:
    """``repr(obj)`` without memory addresses; ``<Foo: repr failed: ...>`` if it raises.

    Large ``str``/``bytes`` are sliced before ``repr`` so the work stays bounded; the result is not
    capped (use :func:`truncate`).
    """
    try:
        if isinstance(obj, (str, bytes, bytearray)) and len(obj) > max_chars:
            return repr(obj[:max_chars]) + f" (first {max_chars} of {len(obj):,})"
        text = repr(obj)
        if not isinstance(text, str):  # pragma: no cover - repr() enforces str
            raise TypeError("__repr__ returned a non-string")
    except Exception as exc:
        return f"<{_type_name(obj)}: repr failed: {_exc_text(exc)}>"
    return _ADDRESS.sub("", text)


# --- helpers ---------------------------------------------------------------------------------


def _type_name(obj: Any) -> str:
    try:
        return type(obj).__name__
    except Exception:  # pragma: no cover - type() of anything has a name
        return "object"


def _exc_text(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable>"
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return truncate(_ADDRESS.sub("", text), 200)[0]


def _repr_llm(obj: Any) -> str | None:
    if isinstance(obj, type):
        return None  # the class's unbound method, not a description of the value
    try:
        method = getattr(obj, "_repr_llm_", None)
        if not callable(method):
            return None
        text = method()
    except Exception:
        return None
    return text if isinstance(text, str) else None


def loaded_module(name: str) -> Any:
    """A library module if (and only if) it is already imported (never imports it)."""
    return sys.modules.get(name)


def _fmt_shape(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _short_item(obj: Any, width: int = _ITEM_REPR_MAX, depth: int = 0) -> str:
    """A one-line, bounded repr of a container item (nested containers abbreviated)."""
    try:
        if _is_table_or_array(obj):
            return f"<{short_summary(obj)}>"
        if isinstance(obj, (list, tuple, set, frozenset)) and not hasattr(obj, "_fields"):
            if depth >= 2:
                return f"<{_type_name(obj)}, {_items(len(obj))}>"
            parts = [_short_item(x, width, depth + 1) for x in itertools.islice(obj, 5)]
            more = ", …" if len(obj) > 5 else ""
            text = ", ".join(parts) + more
            if isinstance(obj, list):
                text = f"[{text}]"
            elif isinstance(obj, tuple):
                text = f"({text}{',' if len(obj) == 1 else ''})"
            else:
                text = f"{{{text}}}" if obj else f"{_type_name(obj)}()"
        elif isinstance(obj, dict):
            if depth >= 2:
                return f"<{_type_name(obj)}, {_items(len(obj))}>"
            pairs = [
                f"{_short_item(k, width, depth + 1)}: {_short_item(v, width, depth + 1)}"
                for k, v in itertools.islice(obj.items(), 5)
            ]
            text = "{" + ", ".join(pairs) + (", …" if len(obj) > 5 else "") + "}"
        else:
            text = safe_repr(obj, max_chars=width)
    except Exception as exc:
        text = f"<{_type_name(obj)}: repr failed: {_exc_text(exc)}>"
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= width else text[: width - 1] + "…"


def _is_table_or_array(obj: Any) -> bool:
    pd, pl, np = loaded_module("pandas"), loaded_module("polars"), loaded_module("numpy")
    return bool(
        (pd is not None and isinstance(obj, (pd.DataFrame, pd.Series)))
        or (pl is not None and isinstance(obj, (pl.DataFrame, pl.Series, pl.LazyFrame)))
        or (np is not None and isinstance(obj, np.ndarray))
    )


# --- summaries -------------------------------------------------------------------------------


def _summary(obj: Any) -> str:
    name = _type_name(obj)
    pd, pl, np = loaded_module("pandas"), loaded_module("polars"), loaded_module("numpy")
    if pd is not None and isinstance(obj, pd.DataFrame):
        rows, cols = obj.shape
        return f"DataFrame: {rows:,} rows x {cols:,} columns"
    if pd is not None and isinstance(obj, pd.Series):
        return f"Series{_series_name(obj.name)}: {len(obj):,} rows, {obj.dtype}"
    if pl is not None and isinstance(obj, pl.DataFrame):
        return f"polars DataFrame: {obj.height:,} rows x {obj.width:,} columns"
    if pl is not None and isinstance(obj, pl.Series):
        return f"polars Series{_series_name(obj.name)}: {len(obj):,} rows, {obj.dtype}"
    if pl is not None and isinstance(obj, pl.LazyFrame):
        return "polars LazyFrame (not evaluated)"
    if np is not None and isinstance(obj, np.ndarray):
        return f"ndarray: shape {_fmt_shape(obj.shape)}, {obj.dtype}"
    if isinstance(obj, str):
        return f"str: {len(obj):,} chars"
    if isinstance(obj, (bytes, bytearray)):
        return f"{name}: {len(obj):,} bytes"
    if isinstance(obj, (bool, int, float, complex)) or obj is None:
        text = safe_repr(obj, max_chars=60)
        return f"{name}: {text}" if len(text) <= 60 else name
    if isinstance(obj, (list, tuple, set, frozenset, dict, collections.deque)):
        return f"{name}: {_items(len(obj))}"
    shape = _safe_attr(obj, "shape")
    if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
        return f"{name}: shape {_fmt_shape(shape)}"
    return name


def _items(n: int) -> str:
    return f"{n:,} item" if n == 1 else f"{n:,} items"


def _safe_attr(obj: Any, attr: str) -> Any:
    try:
        return getattr(obj, attr, None)
    except Exception:
        return None


def _series_name(name: Any) -> str:
    if name is None or (isinstance(name, str) and not name):
        return ""
    return f" {_short_item(name, 60)}"


# --- describers: each returns None when the value is not theirs -------------------------------


_Describer = Callable[[Any, Any, int], str]
"""Describes a value of a library's class: ``(library module, value, max_rows)``."""


def _by_class(
    library: str, obj: Any, max_rows: int, describers: tuple[tuple[str, _Describer], ...]
) -> str | None:
    """The first describer whose class (an attribute of ``library``) ``obj`` is an instance of;
    ``None`` when the library is not loaded or none matches."""
    module = loaded_module(library)
    if module is None:
        return None
    for class_name, describe in describers:
        if isinstance(obj, getattr(module, class_name)):
            return describe(module, obj, max_rows)
    return None


def _describe_pandas(obj: Any, max_rows: int, max_chars: int) -> str | None:
    return _by_class(
        "pandas", obj, max_rows, (("DataFrame", _pandas_frame), ("Series", _pandas_series))
    )


def _section(title: str, body: Callable[[], str]) -> str:
    try:
        return f"{title}\n{body()}"
    except Exception as exc:
        return f"{title}\n<unavailable: {_exc_text(exc)}>"


def _head_section(rows: int, max_rows: int, table: Callable[[], str]) -> str:
    return _section(f"First {min(rows, max_rows)} of {rows:,} rows:", table)


def _column_list(pairs: Iterable[tuple[Any, Any]], columns: int) -> str:
    """``  name: value`` of the first listed columns of ``columns`` (then how many more)."""
    lines = [
        f"  {_short_item(name, 60)}: {value}"
        for name, value in itertools.islice(pairs, _MAX_LISTED_COLUMNS)
    ]
    if columns > _MAX_LISTED_COLUMNS:
        lines.append(f"  … {columns - _MAX_LISTED_COLUMNS:,} more columns")
    return "\n".join(lines) if lines else "  (no columns)"


def _null_counts(counts: Iterable[tuple[Any, Any]]) -> str:
    """The columns with nulls and their counts (the first listed, then how many more)."""
    nonzero = [(name, int(n)) for name, n in counts if n]
    if not nonzero:
        return "  no nulls"
    lines = [f"  {_short_item(name, 60)}: {n:,}" for name, n in nonzero[:_MAX_LISTED_COLUMNS]]
    if len(nonzero) > _MAX_LISTED_COLUMNS:
        lines.append(f"  … {len(nonzero) - _MAX_LISTED_COLUMNS:,} more columns with nulls")
    return "\n".join(lines)


def _pandas_frame(pd: Any, df: Any, max_rows: int) -> str:
    rows, cols = df.shape
    parts = [f"DataFrame: {rows:,} rows x {cols:,} columns"]
    index = df.index
    index_line = f"Index: {type(index).__name__}"
    if not isinstance(index, pd.RangeIndex):
        index_line += f" ({index.dtype})"
        if index.name is not None:
            index_line += f", name {_short_item(index.name, 60)}"
    parts.append(index_line)

    parts.append(_section("Columns (dtype):", lambda: _column_list(df.dtypes.items(), cols)))
    parts.append(
        _head_section(
            rows,
            max_rows,
            lambda: str(
                df.head(max_rows).to_string(
                    max_cols=_TABLE_MAX_COLS, max_colwidth=_TABLE_MAX_COLWIDTH
                )
            ),
        )
    )
    parts.append(_section("Null counts:", lambda: _null_counts(df.isna().sum().items())))
    if 0 < cols <= _DESCRIBE_MAX_COLUMNS and rows > 0:
        numeric = df.select_dtypes(include="number")
        if numeric.shape[1] and rows * numeric.shape[1] <= _DESCRIBE_MAX_CELLS:
            parts.append(
                _section(
                    "Numeric summary (describe()):",
                    lambda: str(numeric.describe().to_string(max_cols=_TABLE_MAX_COLS)),
                )
            )
    return "\n".join(parts)


def _pandas_series(pd: Any, s: Any, max_rows: int) -> str:
    rows = len(s)
    parts = [f"Series{_series_name(s.name)}: {rows:,} rows, dtype {s.dtype}"]
    parts.append(
        _head_section(rows, max_rows, lambda: str(s.head(max_rows).to_string(max_rows=max_rows)))
    )
    parts.append(f"Nulls: {int(s.isna().sum()):,}")
    if rows and pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        parts.append(_section("Summary (describe()):", lambda: str(s.describe().to_string())))
    return "\n".join(parts)


def _describe_polars(obj: Any, max_rows: int, max_chars: int) -> str | None:
    return _by_class(
        "polars",
        obj,
        max_rows,
        (("DataFrame", _polars_frame), ("Series", _polars_series), ("LazyFrame", _polars_lazy)),
    )


def _polars_lazy(pl: Any, lazy: Any, max_rows: int) -> str:
    return _section(
        "polars LazyFrame (not evaluated); schema:",
        lambda: _polars_schema(lazy.collect_schema()),
    )


def _polars_schema(schema: Any) -> str:
    return _column_list(schema.items(), len(schema))


def _polars_table(pl: Any, frame: Any, max_rows: int) -> str:
    with pl.Config(
        tbl_rows=max_rows, tbl_cols=_TABLE_MAX_COLS, fmt_str_lengths=_TABLE_MAX_COLWIDTH
    ):
        return str(frame.head(max_rows))


def _polars_frame(pl: Any, df: Any, max_rows: int) -> str:
    rows, cols = df.height, df.width
    parts = [f"polars DataFrame: {rows:,} rows x {cols:,} columns"]
    parts.append(_section("Schema:", lambda: _polars_schema(df.schema)))
    parts.append(_head_section(rows, max_rows, lambda: _polars_table(pl, df, max_rows)))
    parts.append(
        _section("Null counts:", lambda: _null_counts(df.null_count().row(0, named=True).items()))
    )
    return "\n".join(parts)


def _polars_series(pl: Any, s: Any, max_rows: int) -> str:
    rows = len(s)
    parts = [f"polars Series{_series_name(s.name)}: {rows:,} rows, dtype {s.dtype}"]
    parts.append(_head_section(rows, max_rows, lambda: _polars_table(pl, s, max_rows)))
    parts.append(f"Nulls: {int(s.null_count()):,}")
    return "\n".join(parts)


def _describe_numpy(obj: Any, max_rows: int, max_chars: int) -> str | None:
    np = loaded_module("numpy")
    if np is None or not isinstance(obj, np.ndarray):
        return None
    parts = [f"ndarray: shape {_fmt_shape(obj.shape)}, dtype {obj.dtype}, {obj.size:,} elements"]
    if obj.size and obj.dtype.kind in "biuf":
        parts.append(_section("Statistics (nan-aware):", lambda: _numpy_stats(np, obj)))
    threshold = max(max_rows * max_rows, 100)
    parts.append(
        _section(
            "Values:",
            lambda: str(np.array2string(obj, threshold=threshold, edgeitems=3, max_line_width=100)),
        )
    )
    return "\n".join(parts)


def _numpy_stats(np: Any, arr: Any) -> str:
    if arr.dtype.kind == "b":
        return f"  true: {int(np.count_nonzero(arr)):,} of {arr.size:,}"
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        nans = int(np.isnan(arr).sum()) if arr.dtype.kind == "f" else 0
        if nans == arr.size:
            return "  all values are NaN"
        data = arr
        lines = [
            f"  min: {np.nanmin(data)!s}",
            f"  max: {np.nanmax(data)!s}",
            f"  mean: {np.nanmean(data)!s}",
            f"  std: {np.nanstd(data)!s}",
        ]
        if arr.dtype.kind == "f":
            lines.append(f"  nan count: {nans:,}")
    return "\n".join(lines)


def _describe_container(obj: Any, max_rows: int, max_chars: int) -> str | None:
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return None  # a namedtuple's own repr names its fields
    name = _type_name(obj)
    if type(obj) in (list, tuple, set, frozenset, dict):
        compact = _compact(obj, _COMPACT_MAX)
        if compact is not None:
            return compact
    if isinstance(obj, (dict, types.MappingProxyType)):
        n = len(obj)
        lines = [f"{name}: {_items(n)}" + (f"; first {min(n, max_rows)}:" if n else "")]
        for key, value in itertools.islice(obj.items(), max_rows):
            lines.append(f"  {_short_item(key, 60)}: {_short_item(value)}")
        if n > max_rows:
            lines.append(f"  … {n - max_rows:,} more items")
        return "\n".join(lines)
    if isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
        n = len(obj)
        lines = [f"{name}: {_items(n)}" + (f"; first {min(n, max_rows)}:" if n else "")]
        for index, item in enumerate(itertools.islice(obj, max_rows)):
            label = f"[{index}] " if isinstance(obj, (list, tuple, collections.deque)) else "- "
            lines.append(f"  {label}{_short_item(item)}")
        if n > max_rows:
            lines.append(f"  … {n - max_rows:,} more items")
        return "\n".join(lines)
    if isinstance(obj, (bytes, bytearray)):
        data = bytes(obj[:max_chars])
        more = f" (first {len(data):,} of {len(obj):,} bytes)" if len(data) < len(obj) else ""
        return f"{name}: {len(obj):,} bytes\n{data!r}{more}"
    return None


def _compact(obj: Any, budget: int) -> str | None:
    """The full repr of a small container of plain values, or None if it would not fit."""
    if obj is None or type(obj) in (bool, int, float, complex):
        text = repr(obj)
    elif type(obj) in (str, bytes):
        if len(obj) > budget:
            return None
        text = repr(obj)
    elif type(obj) in (list, tuple, set, frozenset, dict):
        if len(obj) > budget // 3:
            return None
        items = obj.items() if isinstance(obj, dict) else obj
        parts: list[str] = []
        used = 0
        for item in items:
            if isinstance(obj, dict):
                key, value = _compact(item[0], budget - used), _compact(item[1], budget - used)
                part = None if key is None or value is None else f"{key}: {value}"
            else:
                part = _compact(item, budget - used)
            if part is None:
                return None
            used += len(part) + 2
            if used > budget:
                return None
            parts.append(part)
        body = ", ".join(parts)
        if isinstance(obj, list):
            text = f"[{body}]"
        elif isinstance(obj, tuple):
            text = f"({body},)" if len(obj) == 1 else f"({body})"
        elif isinstance(obj, dict):
            text = f"{{{body}}}"
        else:
            text = f"{{{body}}}" if obj else f"{type(obj).__name__}()"
            if isinstance(obj, frozenset):
                text = f"frozenset({text})" if obj else text
    else:
        return None
    return text if len(text) <= budget else None


_DESCRIBERS: tuple[Callable[[Any, int, int], str | None], ...] = (
    _describe_pandas,
    _describe_polars,
    _describe_numpy,
    _describe_container,
)
