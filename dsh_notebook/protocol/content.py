"""Content blocks: what messages are made of, and what prompts may carry.

Two vocabularies:

- :data:`ContentBlock` — blocks the runtime *emits* (``text``, ``reasoning``, ``image``, ``file``,
  ``tool-call``, ``tool-result`` and anything newer). An unknown ``type``, or a known ``type`` with a
  body that does not fit, parses as :class:`UnknownBlock`, which keeps the raw object and dumps it
  back unchanged. Parsing a block never fails on a dict with a string ``type``.
- :data:`PromptBlock` — blocks a client may *send* in ``session/prompt``: ``text`` and the encoded
  image ``{type: "image", data, mimeType}``. Nothing else: the runtime stores unknown blocks verbatim
  and they poison the session history for good (see ``dsh_notebook.client.prompt`` for validation).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, WrapValidator

from .base import WireModel

__all__ = [
    "ContentBlock",
    "FileAttachmentRef",
    "FileBlock",
    "ImageAttachmentRef",
    "ImageBlock",
    "PromptBlock",
    "PromptImageBlock",
    "PromptTextBlock",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "UnknownBlock",
    "text_of",
]


class TextBlock(WireModel):
    type: Literal["text"] = "text"
    text: str


class ReasoningBlock(WireModel):
    type: Literal["reasoning"] = "reasoning"
    text: str


class ImageAttachmentRef(WireModel):
    attachment_id: str
    media_type: str
    bytes: int
    width: int | None = None
    height: int | None = None
    name: str | None = None
    original_dimensions: dict[str, Any] | None = None


class ImageBlock(WireModel):
    """An admitted image: the runtime replaced the inline bytes by a content-addressed reference."""

    type: Literal["image"] = "image"
    attachment: ImageAttachmentRef


class FileAttachmentRef(WireModel):
    attachment_id: str
    name: str | None = None
    bytes: int | None = None


class FileBlock(WireModel):
    type: Literal["file"] = "file"
    attachment: FileAttachmentRef


class ToolCallBlock(WireModel):
    """A tool call by the model. ``arguments`` is the model's raw JSON text, not parsed."""

    type: Literal["tool-call"] = "tool-call"
    id: str
    name: str
    arguments: str


class ToolResultBlock(WireModel):
    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    content: list[ContentBlock]
    is_error: bool | None = None


class UnknownBlock(WireModel):
    """Any block this client does not model (or a known type with an unexpected body), kept verbatim."""

    type: str


_KNOWN: dict[str, type[WireModel]] = {
    "text": TextBlock,
    "reasoning": ReasoningBlock,
    "image": ImageBlock,
    "file": FileBlock,
    "tool-call": ToolCallBlock,
    "tool-result": ToolResultBlock,
}


def _parse_block(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, WireModel):
        return value
    if isinstance(value, dict):
        model = _KNOWN.get(value.get("type"))  # type: ignore[arg-type]
        if model is not None:
            try:
                return model.model_validate(value)
            except ValidationError:
                pass
        return UnknownBlock.model_validate(value)
    return handler(value)


ContentBlock = Annotated[
    Union[  # noqa: UP007 - a runtime Union is needed for the wrap validator
        TextBlock,
        ReasoningBlock,
        ImageBlock,
        FileBlock,
        ToolCallBlock,
        ToolResultBlock,
        UnknownBlock,
    ],
    WrapValidator(_parse_block),
]
ToolResultBlock.model_rebuild()


class PromptTextBlock(WireModel):
    type: Literal["text"] = "text"
    text: str


class PromptImageBlock(WireModel):
    """An inline image for a prompt: canonical base64 (no ``data:`` prefix) and its MIME type."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


PromptBlock = Annotated[Union[PromptTextBlock, PromptImageBlock], Field(discriminator="type")]  # noqa: UP007


def text_of(blocks: list[Any]) -> str:
    """Concatenate the ``text`` blocks of a message (reasoning and tool calls are left out)."""
    return "".join(block.text for block in blocks if isinstance(block, TextBlock))
