"""The text of a cell's error as ``{Err[n]}`` gives it to the model: the traceback, not just the
exception line.

Only the frames of the person's code are kept: the first frames, which are IPython running the
cell (``interactiveshell.py``), are dropped, as IPython's own display does. No terminal colors.
The text is capped at :data:`MAX_ERROR_CHARS` with the one truncation marker
(:func:`~dsh_notebook.transcript.bounds.clip`), keeping its end (the exception line and the
frames nearest to it); interpolation caps it again per value. Never raises: an error that cannot
be formatted falls back to ``"Type: message"`` (or just the type's name).
"""

from __future__ import annotations

import traceback
from types import TracebackType

from ...transcript.bounds import clip

__all__ = ["MAX_ERROR_CHARS", "cell_error_text"]

MAX_ERROR_CHARS = 20_000
"""The longest error text kept per cell (the tail is kept)."""


def _user_frames(tb: TracebackType | None) -> TracebackType | None:
    while tb is not None and tb.tb_frame.f_code.co_filename.endswith("interactiveshell.py"):
        tb = tb.tb_next
    return tb


def cell_error_text(error: BaseException) -> str:
    """``error`` as a traceback of the cell's code (capped, see the module docstring)."""
    short = type(error).__name__
    try:
        short = f"{short}: {error}"
        if isinstance(error, SyntaxError) or error.__traceback__ is None:
            text = "".join(traceback.format_exception_only(type(error), error))
        else:
            tb = _user_frames(error.__traceback__)
            text = "".join(traceback.format_exception(type(error), error, tb))
    except Exception:
        return short
    text = text.rstrip("\n")
    return clip(text, MAX_ERROR_CHARS, head_share=0.0) or short
