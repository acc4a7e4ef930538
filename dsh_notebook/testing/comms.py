"""``RecordingComm``: a Jupyter comm that records what the kernel would publish, for widget tests.

Imports ``comm`` (Jupyter's comm package), so :mod:`dsh_notebook.testing` does not import this
module; the pytest plugin's ``recording_comms`` fixture and the widget benchmark do.
"""

from __future__ import annotations

import json
from typing import Any

from comm.base_comm import BaseComm

__all__ = ["RecordingComm"]


def _size(data: dict[str, Any]) -> int:
    return len(json.dumps(data, separators=(",", ":")))


class RecordingComm(BaseComm):
    """A comm that records every message instead of sending it on IOPub.

    ``published`` holds ``(msg_type, data)`` in order; ``sizes`` the compact-JSON size of each
    ``comm_msg`` (``nbytes`` their sum); ``open_bytes`` the size of the ``comm_open`` (it carries
    the bundled JavaScript). Not thread-safe beyond what ipywidgets guarantees: it is written
    from whichever thread the widget sends on.
    """

    kernel = object()  # ipywidgets only sends when the comm has a kernel

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []
        self.sizes: list[int] = []
        self.open_bytes = 0
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        payload = data or {}
        self.published.append((msg_type, payload))
        if msg_type == "comm_msg":
            self.sizes.append(_size(payload))
        elif msg_type == "comm_open":
            self.open_bytes = _size(payload)

    @property
    def nbytes(self) -> int:
        """Bytes of all ``comm_msg`` payloads so far (compact JSON)."""
        return sum(self.sizes)

    def updates(self) -> list[dict[str, Any]]:
        """The ``comm_msg`` payloads: what the views receive after the comm was opened."""
        return [d for t, d in self.published if t == "comm_msg"]

    def receive(self, content: dict[str, Any]) -> None:
        """A custom message from a view, delivered as the kernel's comm manager does."""
        self.handle_msg(
            {
                "header": {"msg_type": "comm_msg"},
                "content": {
                    "comm_id": self.comm_id,
                    "data": {"method": "custom", "content": content},
                },
                "buffers": [],
            }
        )
