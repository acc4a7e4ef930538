"""to_image_block(): figures, PIL images, bytes and paths → validated image prompt blocks."""

from __future__ import annotations

import base64
import io
import struct
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from PIL import Image

from dsh_notebook.client.prompt import normalize_input
from dsh_notebook.context.images import to_image_block
from dsh_notebook.errors import PromptError

matplotlib.use("Agg")
import matplotlib.pyplot as plt

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _decode(block: dict[str, Any]) -> bytes:
    assert set(block) == {"type", "data", "mimeType"}
    assert block["type"] == "image"
    raw = base64.b64decode(block["data"], validate=True)
    assert normalize_input([block]) == [block]  # passes the client's own validation
    return raw


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_SIGNATURE)
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _pil_bytes(fmt: str, size: tuple[int, int] = (8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.fixture
def figure() -> Any:
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2, 3], [3, 1, 2])
    ax.set_title("revenue")
    yield fig
    plt.close(fig)


def test_matplotlib_figure_becomes_png(figure: Any) -> None:
    block = to_image_block(figure)
    assert block["mimeType"] == "image/png"
    width, height = _png_size(_decode(block))
    # dpi 100 with bbox_inches="tight": close to 300x200, never the 2x of a retina savefig
    assert 150 < width <= 330
    assert 100 < height <= 230


def test_matplotlib_axes_uses_its_figure(figure: Any) -> None:
    from_axes = _decode(to_image_block(figure.axes[0]))
    assert _png_size(from_axes) == _png_size(_decode(to_image_block(figure)))


def test_pil_image_becomes_png() -> None:
    image = Image.new("RGB", (17, 9), (0, 128, 255))
    raw = _decode(to_image_block(image))
    assert _png_size(raw) == (17, 9)
    assert Image.open(io.BytesIO(raw)).getpixel((3, 3)) == (0, 128, 255)


@pytest.mark.parametrize("mode", ["F", "CMYK", "I"])
def test_pil_modes_png_cannot_hold_are_converted(mode: str) -> None:
    raw = _decode(to_image_block(Image.new(mode, (5, 4))))
    assert _png_size(raw) == (5, 4)


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_raw_bytes(fmt: str, mime: str) -> None:
    data = _pil_bytes(fmt)
    for value in (data, bytearray(data), memoryview(data)):
        block = to_image_block(value)
        assert block["mimeType"] == mime
        assert _decode(block) == data


def test_path_str_and_pathlike(tmp_path: Path) -> None:
    data = _pil_bytes("JPEG")
    path = tmp_path / "photo.png"  # the content decides the type, not the extension
    path.write_bytes(data)
    for value in (path, str(path)):
        block = to_image_block(value)
        assert block["mimeType"] == "image/jpeg"
        assert _decode(block) == data


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match=r"no image file at .*nope\.png"):
        to_image_block(tmp_path / "nope.png")
    with pytest.raises(PromptError, match="no image file"):
        to_image_block("a prompt, not a path")


def test_prompt_text_passed_as_path_gives_a_short_message() -> None:
    text = "Please plot revenue by region. " * 200  # also too long for a file name
    with pytest.raises(PromptError) as info:
        to_image_block(text)
    assert len(str(info.value)) < 500
    assert "matplotlib Figure" in str(info.value)


def test_file_that_is_not_an_image(tmp_path: Path) -> None:
    path = tmp_path / "data.png"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(PromptError, match="not a PNG, JPEG, GIF or WebP image"):
        to_image_block(path)


def test_bytes_that_are_not_an_image() -> None:
    with pytest.raises(PromptError, match="not a PNG, JPEG, GIF or WebP image"):
        to_image_block(b"BM\x00\x00 a bitmap header")


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    with path.open("wb") as handle:
        handle.write(PNG_SIGNATURE)
        handle.truncate(21 * 1024 * 1024)  # sparse: cheap to create
    with pytest.raises(PromptError, match=r"21\.0 MiB, over the 20 MiB image limit; downscale"):
        to_image_block(path)


def test_oversized_bytes_are_refused() -> None:
    data = PNG_SIGNATURE + bytes(20 * 1024 * 1024)
    with pytest.raises(PromptError, match="over the 20 MiB image limit; downscale"):
        to_image_block(data)


def test_display_protocol_objects() -> None:
    data = _pil_bytes("PNG")

    class Displayable:
        def _repr_png_(self) -> bytes:
            return data

    class JpegOnly:
        def _repr_png_(self) -> None:
            return None

        def _repr_jpeg_(self) -> str:
            return base64.b64encode(_pil_bytes("JPEG")).decode()

    assert _decode(to_image_block(Displayable())) == data
    assert to_image_block(JpegOnly())["mimeType"] == "image/jpeg"


@pytest.mark.parametrize("value", [42, None, [1, 2], {"a": 1}, object(), 3.5])
def test_unsupported_objects_say_what_is_accepted(value: Any) -> None:
    with pytest.raises(PromptError) as info:
        to_image_block(value)
    message = str(info.value)
    assert f"cannot make an image from a {type(value).__name__}" in message
    for accepted in ("matplotlib Figure", "PIL Image", "bytes", "path"):
        assert accepted in message


def test_errors_are_prompt_errors_only() -> None:
    class Failing:
        def _repr_png_(self) -> bytes:
            raise RuntimeError("renderer crashed")

    with pytest.raises(PromptError, match="cannot make an image from a Failing"):
        to_image_block(Failing())
