"""Figures of approved ``run_python`` calls go to the transcript, under the call's tool card.

:class:`ShowFigures` is the notebook tools server's recorder
(:class:`~dsh_notebook.notebook_tools.server.CallRecorder`), wrapping another (the agent cells,
:class:`~.agent_cells.AgentCells`). For a call it can place — the grant's owner is an
:class:`~.runs.ApprovedCall`, so the run and the runtime's call id are known — it always returns
a sink; the sink posts the call's figures (the PNGs matplotlib made, base64) to the run's view as
a :class:`~dsh_notebook.transcript.facts.Figures` fact, then hands the result to the wrapped
recorder's sink and returns what that one says. The live widget and the static transcript
(both modes, wait included) then show the figures where the call is.

Threads: :meth:`ShowFigures.__call__` runs on the MCP server's loop; the sink on the kernel's main
thread right after the code ran, before the model's result is sent; posting to the pump is
thread-safe and ordered after the call's ``tool/call`` event (it arrived before the call). A
failure to post is logged and never stops the wrapped sink.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..transcript.bounds import FIGURES_MAX
from ..transcript.facts import Figures
from .pump import LiveView
from .runs import ApprovedCall

if TYPE_CHECKING:  # notebook_tools needs the jupyter extra; only its result type is used here
    from ..notebook_tools.run_python import RunPythonResult

__all__ = ["ShowFigures"]

log = logging.getLogger(__name__)

Sink = Callable[["RunPythonResult"], "str | None"]
Recorder = Callable[[str, object], "Sink | None"]


class ShowFigures:
    """The recorder that shows a call's figures in its transcript (see the module docstring)."""

    def __init__(self, post: Callable[[LiveView, Figures], None], inner: Recorder | None = None):
        self._post = post
        self._inner = inner

    def __call__(self, code: str, owner: object) -> Sink | None:
        inner = self._inner(code, owner) if self._inner is not None else None
        if not isinstance(owner, ApprovedCall):
            return inner
        call, post = owner, self._post

        def sink(result: RunPythonResult) -> str | None:  # kernel main thread, after the code
            if result.figures:
                try:
                    pngs = tuple(
                        base64.b64encode(png).decode("ascii")
                        for png in result.figures[:FIGURES_MAX]
                    )
                    post(call.run.view, Figures(call.session_id, call.call_id, pngs))
                except Exception:
                    log.exception("dsh: showing the figures of a run_python call failed")
            return inner(result) if inner is not None else None

        return sink
