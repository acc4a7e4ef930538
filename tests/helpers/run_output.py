"""A view publisher's recording stand-ins for run outputs."""

from __future__ import annotations

from typing import Any

from dsh_notebook.kernel.showing.pump import LiveView
from dsh_notebook.kernel.showing.rendering import published_bundle
from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript


class Shell:
    kernel = object()  # a kernel, but no display publisher: updates go through the handle


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []
        self.model_id = "m1"
        self.present = True  # the link: a page extension answered

    # the widget
    def update(self, snapshot: Any, final: bool = False) -> None:
        self.events.append(("widget.update",))

    def close(self) -> None:
        self.events.append(("widget.close",))

    # the display handle
    display_id = "d1"

    def handle_update(
        self, bundle: dict[str, Any], raw: bool = False, metadata: dict[str, Any] | None = None
    ) -> None:
        self.events.append(("display.update", bundle["text/markdown"]))
        self.metadata = metadata

    # the FrontendLink
    def send_run_output(self, model_id: str, cell_id: str | None, state: str, bundle: Any) -> bool:
        self.events.append(("run_output", model_id, cell_id, state, bundle))
        return True


def bundle_of(view: LiveView) -> dict[str, Any]:
    """What the pump publishes of ``view`` now."""
    return published_bundle(view.rendering(), view.fmt, view.settled)


def text(transcript: Transcript, i: int, chunk: str) -> None:
    transcript.apply(Notification("session.assistant_stream", {"sessionId": "s", "frame": {
        "type": "chunk", "attemptId": "a1", "revision": 1, "index": i, "time": 0,
        "chunk": {"type": "text-delta", "index": 0, "text": chunk}}}))  # fmt: skip
