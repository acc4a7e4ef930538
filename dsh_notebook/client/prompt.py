"""Prompt input: normalize and validate content blocks before they reach the runtime.

The runtime stores whatever blocks it is given in the session history; a malformed block (an
``audio`` block, a ``text`` without ``text``) makes that turn *and every later turn* of the session
fail. So nothing but these leaves the client:

- ``{"type": "text", "text": <str>}``;
- ``{"type": "image", "data": <canonical base64>, "mimeType": "image/png|jpeg|webp|gif"}`` whose
  bytes really are of that type, within the runtime's admission limits.

An input of only blank text, or no blocks at all, is rejected too. :func:`image_block` builds an
image block from bytes (type sniffed).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import PromptError
from ..protocol.base import WireModel
from ..protocol.content import PromptImageBlock, PromptTextBlock

__all__ = [
    "IMAGE_MIME_TYPES",
    "MAX_IMAGES_PER_MESSAGE",
    "MAX_IMAGE_BYTES",
    "PromptInput",
    "image_block",
    "ValidatedBlocks",
    "normalize_input",
    "sniff_image_type",
]

IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_MESSAGE_BYTES = 200 * 1024 * 1024
MAX_IMAGES_PER_MESSAGE = 20

PromptInput = str | Sequence[Mapping[str, Any] | WireModel]


def sniff_image_type(data: bytes) -> str | None:
    """The MIME type of PNG, JPEG, GIF or WebP bytes; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_block(data: bytes, mime_type: str | None = None) -> dict[str, Any]:
    """An encoded image block from raw bytes; the type is sniffed when not given."""
    sniffed = sniff_image_type(data)
    mime = mime_type or sniffed
    if mime is None:
        raise PromptError("image bytes are not PNG, JPEG, WebP or GIF; convert the image first")
    block = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}
    _validate_image(block, 0)
    return block


def _validate_image(block: Mapping[str, Any], index: int) -> int:
    where = f"block {index} (image)"
    mime = block.get("mimeType")
    data = block.get("data")
    extra = set(block) - {"type", "data", "mimeType"}
    if extra:
        raise PromptError(f"{where}: unexpected field(s) {sorted(extra)}; only data and mimeType")
    if mime not in IMAGE_MIME_TYPES:
        raise PromptError(
            f"{where}: mimeType must be one of {', '.join(IMAGE_MIME_TYPES)}, got {mime!r}"
        )
    if not isinstance(data, str) or not data:
        raise PromptError(f"{where}: data must be a non-empty base64 string")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise PromptError(
            f"{where}: data is not valid base64 (no data: prefix, no line breaks)"
        ) from None
    if base64.b64encode(raw).decode("ascii") != data:
        raise PromptError(f"{where}: data is not canonical base64; re-encode the bytes")
    if len(raw) > MAX_IMAGE_BYTES:
        raise PromptError(f"{where}: {len(raw)} bytes is over the 20 MiB limit; downscale it")
    actual = sniff_image_type(raw)
    if actual != mime:
        raise PromptError(
            f"{where}: mimeType says {mime} but the bytes are {actual or 'not a supported image'}"
        )
    return len(raw)


class ValidatedBlocks(list[dict[str, Any]]):
    """Wire blocks :func:`normalize_input` has already validated: passing them again (e.g. the
    notebook validates a cell, then ``Session.run`` sends it) validates nothing twice."""


def normalize_input(value: PromptInput) -> list[dict[str, Any]]:
    """The validated wire blocks for ``value`` (a string or a sequence of blocks).

    Raises :class:`~dsh_notebook.errors.PromptError` naming the offending block and what to do.
    Returns :class:`ValidatedBlocks`; given those, returns them as they are.
    """
    if isinstance(value, ValidatedBlocks):
        return value
    if isinstance(value, str):
        if not value.strip():
            raise PromptError("the prompt is empty; write something to send")
        return ValidatedBlocks([{"type": "text", "text": value}])
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Sequence):
        raise PromptError("input must be a string or a list of content blocks")
    blocks: list[dict[str, Any]] = []
    images = 0
    total = 0
    for index, item in enumerate(value):
        if isinstance(item, (PromptTextBlock, PromptImageBlock)):
            block: dict[str, Any] = item.to_wire()
            block.setdefault("type", item.type)
        elif isinstance(item, Mapping):
            block = dict(item)
        else:
            raise PromptError(f"block {index}: expected a dict, got {type(item).__name__}")
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise PromptError(f"block {index} (text): 'text' must be a string")
            if set(block) - {"type", "text"}:
                raise PromptError(f"block {index} (text): only 'type' and 'text' are allowed")
        elif kind == "image":
            images += 1
            total += _validate_image(block, index)
        else:
            raise PromptError(
                f"block {index}: type {kind!r} cannot be sent; use 'text' or 'image' "
                "(other blocks would break the session history for good)"
            )
        blocks.append(block)
    if not blocks:
        raise PromptError("no content blocks to send")
    if images > MAX_IMAGES_PER_MESSAGE:
        raise PromptError(f"{images} images; at most {MAX_IMAGES_PER_MESSAGE} per message")
    if total > MAX_MESSAGE_BYTES:
        raise PromptError("images exceed 200 MiB in one message")
    if images == 0 and not any(b["text"].strip() for b in blocks):
        raise PromptError("the prompt has only blank text; write something to send")
    return ValidatedBlocks(blocks)
