"""Matplotlib figures as compact text, for a model that cannot see images.

:func:`describe_figure` turns a ``Figure`` (or an ``Axes``: its figure) into a few lines: the
figure's title and size, then per axes its title, axis labels, limits and scales, and what is
drawn — lines, scatter points, bars, filled areas, images — with each series' label, point count
and value ranges, the legend's entries and a colorbar's label and range. It reads the artists
the figure holds; nothing is rendered, so it costs far less than a PNG.

Guarantees: matplotlib is never imported here (a figure object implies it is loaded; it is
recognized through ``sys.modules``); the text is at most ``max_chars`` characters, at most
:data:`MAX_AXES` axes and :data:`MAX_SERIES` series per axes are listed (the rest are counted);
it never raises — a part that cannot be read is left out. Not thread-safe with respect to code
drawing on the same figure at the same moment (call it where the figure's code runs).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any

from .describe import truncate
from .figure_of import as_figure

__all__ = ["MAX_AXES", "MAX_SERIES", "as_figure", "describe_figure"]

MAX_AXES = 8
"""Most axes described per figure (colorbars are described with the axes they belong to)."""

MAX_SERIES = 12
"""Most series (lines, collections, bar groups, images) listed per axes."""


def _num(value: Any) -> str:
    """A short number: integers as such, others with 4 significant digits; dates stay numbers."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)[:40]
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"


def _finite(values: Iterable[Any]) -> list[float]:
    out: list[float] = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(x):
            out.append(x)
    return out


def _bounds(values: Any) -> tuple[float, float] | None:
    """(min, max) of the finite values; numpy does it in C when the values are numeric."""
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            array = np.asarray(values, dtype=float).ravel()
            finite = array[np.isfinite(array)]
            return (float(finite.min()), float(finite.max())) if finite.size else None
        except (TypeError, ValueError):
            pass  # dates, categories: the slow path below skips what is not a number
    found = _finite(values)
    return (min(found), max(found)) if found else None


def _range(values: Any) -> str:
    bounds = _bounds(values)
    if bounds is None:
        try:
            words = [str(v) for v in list(values)[:7] if isinstance(v, str)]
        except Exception:
            words = []
        if words:  # a categorical axis: the data are the category names
            return (
                "categories "
                + ", ".join(w[:30] for w in words[:6])
                + (", …" if len(words) > 6 else "")
            )
        return "no finite values"
    low, high = bounds
    return _num(low) if low == high else f"{_num(low)}..{_num(high)}"


def _label(artist: Any) -> str | None:
    try:
        label = artist.get_label()
    except Exception:
        return None
    if not isinstance(label, str) or not label or label.startswith("_"):
        return None  # matplotlib's "_child0", "_nolegend_": unnamed
    return label


def _named(artist: Any) -> str:
    label = _label(artist)
    return f' "{label}"' if label else ""


def _lines(ax: Any) -> list[str]:
    out: list[str] = []
    for line in ax.get_lines():
        try:
            xs, ys = line.get_xdata(orig=False), line.get_ydata(orig=False)
            size = len(ys)
            given = line.get_xdata()  # categories stay names here (converted: 0, 1, 2, …)
        except Exception:
            continue
        style = str(line.get_linestyle())
        kind = "markers" if style in ("None", "none", "", " ") else "line"
        if size == 2 and len(set(_finite(xs))) == 1 and _label(line) is None:
            out.append(f"vertical line at x {_range(xs)}")  # axvline: y is in axes units
        elif size == 2 and len(set(_finite(ys))) == 1 and _label(line) is None:
            out.append(f"horizontal line at y {_range(ys)}")
        else:
            x = _range(given) if _bounds(given) is None and size else _range(xs)
            if x == "no finite values":
                x = _range(xs)
            out.append(f"{kind}{_named(line)}: {size} points, x {x}, y {_range(ys)}")
    return out


def _collections(ax: Any) -> list[str]:
    collections = sys.modules.get("matplotlib.collections")
    out: list[str] = []
    for coll in getattr(ax, "collections", []):
        try:
            name = type(coll).__name__
            if collections is not None and isinstance(coll, collections.PathCollection):
                offsets = coll.get_offsets()
                xs, ys = offsets[:, 0], offsets[:, 1]
                text = f"scatter{_named(coll)}: {len(xs)} points, x {_range(xs)}, y {_range(ys)}"
                values = coll.get_array()
                if values is not None and len(values):
                    text += f", colour values {_range(values)}"
                out.append(text)
            elif name in ("PolyCollection", "FillBetweenPolyCollection"):
                paths = coll.get_paths()
                xs = [x for p in paths for x in p.vertices[:, 0]]
                ys = [y for p in paths for y in p.vertices[:, 1]]
                out.append(f"filled area{_named(coll)}: x {_range(xs)}, y {_range(ys)}")
            elif name in ("QuadMesh", "PolyQuadMesh"):
                values = coll.get_array()
                shape = getattr(values, "shape", ())
                out.append(
                    f"mesh{_named(coll)}: {'x'.join(str(s) for s in shape)} cells, "
                    f"values {_range(values if values is not None else [])}"
                )
            elif name == "LineCollection":
                out.append(f"line segments{_named(coll)}: {len(coll.get_segments())}")
            else:
                out.append(f"{name}{_named(coll)}")
        except Exception:
            continue
    return out


def _bars(ax: Any) -> tuple[list[str], set[int]]:
    """Bar groups (``BarContainer``) and the ids of their patches (not listed again)."""
    out: list[str] = []
    seen: set[int] = set()
    for container in getattr(ax, "containers", []):
        if type(container).__name__ != "BarContainer":
            continue
        patches = list(container.patches)
        seen.update(id(p) for p in patches)
        horizontal = getattr(container, "orientation", "vertical") == "horizontal"
        try:
            sizes = [p.get_width() if horizontal else p.get_height() for p in patches]
        except Exception:
            continue
        kind = "horizontal bars" if horizontal else "bars"
        ticks = _tick_labels(ax, "y" if horizontal else "x")
        text = f"{kind}{_named(container)}: {len(patches)} bars, values {_range(sizes)}"
        if ticks and len(ticks) == len(patches):
            pairs = ", ".join(
                f"{t}={_num(s)}" for t, s in zip(ticks[:12], sizes[:12], strict=False)
            )
            text += f" ({pairs}{', …' if len(ticks) > 12 else ''})"
        out.append(text)
    return out, seen


def _tick_labels(ax: Any, axis: str) -> list[str]:
    try:
        labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
        texts = [t.get_text() for t in labels]
    except Exception:
        return []
    return [t for t in texts if t]


def _patches(ax: Any, skip: set[int]) -> list[str]:
    others = [p for p in getattr(ax, "patches", []) if id(p) not in skip]
    if not others:
        return []
    kinds: dict[str, int] = {}
    for patch in others:
        kinds[type(patch).__name__] = kinds.get(type(patch).__name__, 0) + 1
    return ["shapes: " + ", ".join(f"{n} {k}" for k, n in kinds.items())]


def _images(ax: Any) -> list[str]:
    out: list[str] = []
    for image in getattr(ax, "images", []):
        try:
            array = image.get_array()
            shape = "x".join(str(s) for s in getattr(array, "shape", ()))
            low, high = image.get_clim()
            out.append(
                f"image{_named(image)}: {shape} pixels, colour scale {_num(low)}..{_num(high)}"
            )
        except Exception:
            continue
    return out


def _texts(ax: Any) -> list[str]:
    texts = []
    for text in getattr(ax, "texts", [])[:5]:
        try:
            content = text.get_text().strip()
        except Exception:
            continue
        if content:
            texts.append(repr(content[:60]))
    return [f"annotations: {', '.join(texts)}"] if texts else []


def _legend(ax: Any) -> str | None:
    try:
        legend = ax.get_legend()
        if legend is None:
            return None
        entries = [t.get_text() for t in legend.get_texts()]
        title = legend.get_title().get_text()
    except Exception:
        return None
    head = f'legend "{title}": ' if title else "legend: "
    return head + ", ".join(entries[:MAX_SERIES]) + (", …" if len(entries) > MAX_SERIES else "")


def _axis(ax: Any, axis: str) -> str:
    try:
        label = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
        low, high = ax.get_xlim() if axis == "x" else ax.get_ylim()
        scale = ax.get_xscale() if axis == "x" else ax.get_yscale()
    except Exception:
        return f"{axis}: ?"
    text = f'{axis} "{label}"' if label else f"{axis} (no label)"
    text += f" {_num(low)}..{_num(high)}"
    if scale != "linear":
        text += f" ({scale})"
    ticks = _tick_labels(ax, axis)
    if ticks and not all(_is_number(t) for t in ticks):
        text += ", ticks " + ", ".join(ticks[:8]) + (", …" if len(ticks) > 8 else "")
    return text


def _is_number(text: str) -> bool:
    try:
        float(text.replace("\u2212", "-").replace(",", ""))
    except ValueError:
        return False
    return True


def _title(ax: Any) -> str:
    try:
        parts = [ax.get_title(loc) for loc in ("left", "center", "right")]
    except Exception:
        return ""
    return " / ".join(p for p in parts if p)


def _colorbar(ax: Any) -> str:
    bar = getattr(ax, "_colorbar", None)
    try:
        label = bar.ax.get_ylabel() or bar.ax.get_xlabel() if bar is not None else ax.get_ylabel()
        low, high = (bar.vmin, bar.vmax) if bar is not None else ax.get_ylim()
    except Exception:
        return "colorbar"
    name = f' "{label}"' if label else ""
    return f"colorbar{name}: {_num(low)}..{_num(high)}"


def _is_colorbar(ax: Any) -> bool:
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"


def _describe_axes(ax: Any, index: int, total: int) -> list[str]:
    title = _title(ax)
    head = f"axes {index}/{total}" + (f' "{title}"' if title else "")
    lines = [head + ": " + "; ".join((_axis(ax, "x"), _axis(ax, "y")))]
    bars, in_bars = _bars(ax)
    series = _lines(ax) + _collections(ax) + bars + _patches(ax, in_bars) + _images(ax)
    for entry in series[:MAX_SERIES]:
        lines.append("  - " + entry)
    if len(series) > MAX_SERIES:
        lines.append(f"  - … {len(series) - MAX_SERIES} more series")
    if not series:
        lines.append("  - nothing drawn")
    for extra in (*_texts(ax), _legend(ax)):
        if extra:
            lines.append("  " + extra)
    return lines


def describe_figure(obj: Any, *, max_chars: int = 2000, number: int | None = None) -> str:
    """A compact text description of the matplotlib figure ``obj`` (see the module doc).

    ``number`` names the figure in the first line (``Figure 2``). Anything that is not a
    figure or axes gives a one-line note; nothing raises.
    """
    try:
        return truncate(_describe(obj, number), max_chars)[0]
    except Exception as exc:  # a figure in an odd state: say so rather than fail the tool
        return f"Figure: could not be described ({type(exc).__name__})"


def _describe(obj: Any, number: int | None) -> str:
    figure = as_figure(obj)
    if figure is None:
        return f"not a matplotlib figure: {type(obj).__name__}"
    name = f"Figure {number}" if number is not None else "Figure"
    try:
        width, height = figure.get_size_inches()
        size = f"{_num(width)}x{_num(height)} in"
    except Exception:
        size = "?"
    suptitle = getattr(figure, "_suptitle", None)
    title = suptitle.get_text() if suptitle is not None else ""
    head = f'{name} "{title}"' if title else name
    axes = list(figure.get_axes())
    plots = [ax for ax in axes if not _is_colorbar(ax)]
    bars = [ax for ax in axes if _is_colorbar(ax)]
    lines = [f"{head} ({size}, {len(plots)} axes)"]
    for i, ax in enumerate(plots[:MAX_AXES], start=1):
        lines.extend(_describe_axes(ax, i, len(plots)))
    if len(plots) > MAX_AXES:
        lines.append(f"… {len(plots) - MAX_AXES} more axes")
    for bar in bars:
        lines.append(_colorbar(bar))
    return "\n".join(lines)
