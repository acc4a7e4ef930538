"""Whether an object is a matplotlib figure, without importing matplotlib nor the describer: a
figure object implies matplotlib is loaded, so it is recognized through ``sys.modules``. Cheap
enough to ask of every object the shell displays."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["as_figure"]


def as_figure(obj: Any) -> Any | None:
    """The matplotlib ``Figure`` of ``obj`` (a Figure, SubFigure or Axes), else ``None``."""
    figure_module = sys.modules.get("matplotlib.figure")
    axes_module = sys.modules.get("matplotlib.axes")
    try:
        if axes_module is not None and isinstance(obj, axes_module.Axes):
            obj = obj.figure
        if figure_module is not None and isinstance(obj, figure_module.SubFigure):
            obj = obj.figure
        if figure_module is not None and isinstance(obj, figure_module.Figure):
            return obj
    except Exception:
        return None
    return None
