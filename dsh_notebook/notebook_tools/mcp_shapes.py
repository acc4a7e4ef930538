"""The MCP shapes the notebook tools speak: a tool's definition and a tool call's result.

Plain frozen values, so the tools, the masking and the endpoint (:mod:`.mcp_endpoint`) share one
typed shape without importing the MCP SDK (its import costs each kernel about half a second and
37 MiB at the first prompt). :meth:`wire` gives each one's JSON as MCP puts it on the wire
(``inputSchema``, ``isError``, ``mimeType``), the same for every protocol version the endpoint
serves.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ContentBlock",
    "ImageBlock",
    "TextBlock",
    "Tool",
    "ToolResult",
    "png_block",
    "text_result",
]


@dataclass(frozen=True)
class Tool:
    """One tool as ``tools/list`` describes it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]

    def wire(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "inputSchema": dict(self.input_schema)}  # fmt: skip


@dataclass(frozen=True)
class TextBlock:
    """A text content block."""

    text: str

    def wire(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class ImageBlock:
    """An image content block: ``data`` is base64, as on the wire."""

    data: str
    mime_type: str = "image/png"

    def wire(self) -> dict[str, Any]:
        return {"type": "image", "data": self.data, "mimeType": self.mime_type}


ContentBlock = TextBlock | ImageBlock


@dataclass(frozen=True)
class ToolResult:
    """A ``tools/call`` result: its content blocks, in order, and whether it is an error."""

    content: tuple[ContentBlock, ...] = field(default_factory=tuple)
    is_error: bool = False

    def wire(self) -> dict[str, Any]:
        return {"content": [block.wire() for block in self.content], "isError": self.is_error}


def text_result(text: str, *, error: bool = False) -> ToolResult:
    """A result of one text block."""
    return ToolResult((TextBlock(text),), is_error=error)


def png_block(png: bytes) -> ImageBlock:
    """An image block holding ``png``."""
    return ImageBlock(base64.b64encode(png).decode())
