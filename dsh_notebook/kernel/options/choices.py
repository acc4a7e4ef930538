"""The closed choices a ``%%dsh`` option takes, declared without the machinery that acts on them
(so the option declarations load with the magic, before the agent exists)."""

from __future__ import annotations

from typing import Literal

__all__ = ["ApprovalMode", "Format"]

ApprovalMode = Literal["ask", "allow", "reject"]
"""How approval requests are decided: asked of the person, or allowed/rejected unasked."""

Format = Literal["widget", "markdown", "text"]
"""How a run is shown: the live widget, static markdown, or plain text."""
