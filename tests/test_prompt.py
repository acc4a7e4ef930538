"""Prompt validation: nothing that would poison the session history leaves the client."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from dsh_notebook.client.prompt import image_block, normalize_input, sniff_image_type
from dsh_notebook.errors import PromptError


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
        + chunk(b"IEND", b"")
    )


def test_string_becomes_one_text_block() -> None:
    assert normalize_input("hi {x: y}") == [{"type": "text", "text": "hi {x: y}"}]


@pytest.mark.parametrize(
    ("blocks", "match"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ([], "no content"),
        ([{"type": "text", "text": "  "}], "blank"),
        ([{"type": "text"}], "'text' must be a string"),
        ([{"type": "audio", "data": "AAAA"}], "cannot be sent"),
        ([{"type": "image", "data": "AAAA", "mimeType": "image/bmp"}], "mimeType must be one of"),
        (
            [{"type": "image", "data": "data:image/png;base64,AAAA", "mimeType": "image/png"}],
            "not valid base64",
        ),
        (
            [{"type": "image", "data": "iVBORw0KGgo=\n", "mimeType": "image/png"}],
            "not valid base64",
        ),
        ([{"type": "text", "text": "x", "cache": True}], "only 'type' and 'text'"),
        (b"bytes", "string or a list"),
    ],
)
def test_rejected_inputs(blocks: object, match: str) -> None:
    with pytest.raises(PromptError, match=match):
        normalize_input(blocks)  # type: ignore[arg-type]


def test_image_type_must_match_bytes_and_be_canonical() -> None:
    png = tiny_png()
    good = image_block(png)
    assert good["mimeType"] == "image/png"
    assert normalize_input([{"type": "text", "text": "look"}, good])[1] == good
    with pytest.raises(PromptError, match="mimeType says image/jpeg but the bytes are image/png"):
        normalize_input([{**good, "mimeType": "image/jpeg"}])
    non_canonical = base64.b64encode(png).decode().rstrip("=") + "=="
    with pytest.raises(PromptError):
        normalize_input([{**good, "data": non_canonical}])
    # an image alone is a valid prompt
    assert normalize_input([good]) == [good]


def test_too_many_images() -> None:
    block = image_block(tiny_png())
    with pytest.raises(PromptError, match="at most 20"):
        normalize_input([block] * 21)


def test_sniffing() -> None:
    assert sniff_image_type(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert sniff_image_type(b"GIF89a...") == "image/gif"
    assert sniff_image_type(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert sniff_image_type(b"%PDF") is None
    with pytest.raises(PromptError, match="not PNG"):
        image_block(b"%PDF-1.4")


def test_validated_blocks_are_not_validated_twice() -> None:
    from dsh_notebook.client.prompt import ValidatedBlocks, normalize_input

    blocks = normalize_input([{"type": "text", "text": "hi"}])
    assert isinstance(blocks, ValidatedBlocks)
    assert normalize_input(blocks) is blocks  # Session.run passes the notebook's blocks through
