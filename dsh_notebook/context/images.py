"""Notebook objects → image prompt blocks.

:func:`to_image_block` accepts, in this order:

- a matplotlib ``Figure`` (or an ``Axes``/``SubFigure``: its figure), rendered with
  ``savefig(format="png", bbox_inches="tight", dpi=100)``;
- a PIL ``Image``, encoded as PNG (modes PNG cannot hold are converted to RGBA first);
- ``bytes``/``bytearray``/``memoryview`` holding a PNG, JPEG, GIF or WebP image;
- a path (``str`` or ``os.PathLike``; ``~`` expanded) to a PNG, JPEG, GIF or WebP file (the
  type is read from the content, not the extension);
- an object implementing IPython's display protocol with ``_repr_png_`` or ``_repr_jpeg_``
  (e.g. ``IPython.display.Image``).

It returns the validated block ``{"type": "image", "data": <base64>, "mimeType": ...}`` built by
:func:`dsh_notebook.client.prompt.image_block`. Anything else, an unreadable file, bytes of another
format, or an image over 20 MiB raises :class:`~dsh_notebook.errors.PromptError` saying what to do;
nothing else is raised. matplotlib and PIL are never imported here: their objects are recognized
through ``sys.modules``.
"""

from __future__ import annotations

import base64
import binascii
import io
import os
import sys
from pathlib import Path
from typing import Any

from ..client.prompt import MAX_IMAGE_BYTES, image_block, sniff_image_type
from ..errors import PromptError

__all__ = ["ACCEPTED", "to_image_block"]

ACCEPTED = (
    "a matplotlib Figure or Axes, a PIL Image, PNG/JPEG/GIF/WebP bytes, "
    "a path to a PNG/JPEG/GIF/WebP file, or an object with _repr_png_/_repr_jpeg_"
)

_MIB = 1024 * 1024


def to_image_block(obj: Any) -> dict[str, Any]:
    """The image prompt block for ``obj`` (see the module doc). Raises only ``PromptError``."""
    data, what = _image_bytes(obj)
    _check_size(len(data), what)
    if sniff_image_type(data) is None:
        raise PromptError(f"{what} is not a PNG, JPEG, GIF or WebP image; convert it first")
    return image_block(data)


def _image_bytes(obj: Any) -> tuple[bytes, str]:
    figure = _matplotlib_figure(obj)
    if figure is not None:
        return _render_figure(figure), "the figure"
    pil = sys.modules.get("PIL.Image")
    if pil is not None and isinstance(obj, pil.Image):
        return _encode_pil(obj), "the PIL image"
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj), "the bytes"
    if isinstance(obj, (str, os.PathLike)):
        return _read_file(obj)
    displayed = _display_protocol(obj)
    if displayed is not None:
        return displayed, f"the {type(obj).__name__}'s image"
    raise PromptError(f"cannot make an image from a {type(obj).__name__}: pass {ACCEPTED}")


def _check_size(size: int, what: str) -> None:
    if size > MAX_IMAGE_BYTES:
        raise PromptError(
            f"{what} is {size / _MIB:.1f} MiB, over the 20 MiB image limit; downscale it "
            "(a smaller figsize or dpi, Image.thumbnail) or save it as JPEG"
        )


def _matplotlib_figure(obj: Any) -> Any:
    figure_module = sys.modules.get("matplotlib.figure")
    if figure_module is None:
        return None
    figure_cls = figure_module.Figure
    if isinstance(obj, figure_cls):
        return obj
    axes_module = sys.modules.get("matplotlib.axes")
    subfigure_cls = getattr(figure_module, "SubFigure", None)
    is_axes = axes_module is not None and isinstance(obj, axes_module.Axes)
    if is_axes or (subfigure_cls is not None and isinstance(obj, subfigure_cls)):
        current = obj
        for _ in range(8):  # Axes → (SubFigure →)* Figure
            current = getattr(current, "figure", None)
            if isinstance(current, figure_cls):
                return current
    return None


def _render_figure(figure: Any) -> bytes:
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", bbox_inches="tight", dpi=100)
    except Exception as exc:
        raise PromptError(f"the figure could not be rendered to PNG: {exc}") from exc
    return buffer.getvalue()


def _encode_pil(image: Any) -> bytes:
    buffer = io.BytesIO()
    try:
        image.save(buffer, format="PNG")
    except (OSError, ValueError, KeyError):
        buffer = io.BytesIO()
        try:
            image.convert("RGBA").save(buffer, format="PNG")
        except Exception as exc:
            raise PromptError(
                f"the PIL image (mode {getattr(image, 'mode', '?')}) could not be encoded as PNG: "
                f"{exc}; convert it to RGB first"
            ) from exc
    except Exception as exc:
        raise PromptError(f"the PIL image could not be encoded as PNG: {exc}") from exc
    return buffer.getvalue()


def _read_file(value: str | os.PathLike[Any]) -> tuple[bytes, str]:
    try:
        path = Path(os.fsdecode(os.fspath(value))).expanduser()
        what = f"the file {_short(str(path))}"
        if not path.is_file():
            raise PromptError(
                f"no image file at {_short(str(path))} (relative to {os.getcwd()!r}); "
                f"pass {ACCEPTED}"
            )
        _check_size(path.stat().st_size, what)
        with path.open("rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except PromptError:
        raise
    except (OSError, ValueError, TypeError) as exc:
        raise PromptError(
            f"cannot read an image from {_short(str(value))}: {type(exc).__name__}; pass {ACCEPTED}"
        ) from exc
    return data, what


def _short(text: str, limit: int = 120) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def _display_protocol(obj: Any) -> bytes | None:
    if isinstance(obj, type):
        return None
    for name in ("_repr_png_", "_repr_jpeg_"):
        try:
            method = getattr(obj, name, None)
            if not callable(method):
                continue
            result = method()
        except Exception:
            continue
        if isinstance(result, tuple) and result:  # (data, metadata)
            result = result[0]
        if isinstance(result, (bytes, bytearray)):
            return bytes(result)
        if isinstance(result, str):
            try:
                return base64.b64decode(result, validate=False)
            except (binascii.Error, ValueError):
                continue
    return None
