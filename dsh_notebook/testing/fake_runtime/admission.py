"""What the runtime admits from the client: inline images (checked and turned into attachment
references) and question answers (exactly one per question). Pure; raises :class:`RpcError`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from .records import QUESTIONS, js_str
from .wire import Json, RpcError

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


def sniff_image(raw: bytes) -> tuple[str, int, int] | None:
    """Media type and pixel size of PNG, GIF, JPEG or WebP bytes (0 when not parsed)."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and len(raw) >= 24:
        return "image/png", int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return "image/gif", int.from_bytes(raw[6:8], "little"), int.from_bytes(raw[8:10], "little")
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        if raw[12:16] == b"VP8X" and len(raw) >= 30:
            return (
                "image/webp",
                int.from_bytes(raw[24:27], "little") + 1,
                int.from_bytes(raw[27:30], "little") + 1,
            )
        return "image/webp", 0, 0
    if raw.startswith(b"\xff\xd8\xff"):
        pos = 2
        while pos + 9 <= len(raw) and raw[pos] == 0xFF:
            marker, size = raw[pos + 1], int.from_bytes(raw[pos + 2 : pos + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                return (
                    "image/jpeg",
                    int.from_bytes(raw[pos + 7 : pos + 9], "big"),
                    int.from_bytes(raw[pos + 5 : pos + 7], "big"),
                )
            pos += 2 + size
        return "image/jpeg", 0, 0
    return None


def admit_block(block: Any) -> Any:
    """Inline images become attachment references; everything else is stored verbatim (§10)."""
    if not (isinstance(block, dict) and block.get("type") == "image" and "data" in block):
        return block
    data, mime = block.get("data"), block.get("mimeType")
    try:
        raw = base64.b64decode(data, validate=True) if isinstance(data, str) else b""
    except (binascii.Error, ValueError):
        raise RpcError("Image upload is not canonical base64.") from None
    if raw and base64.b64encode(raw).decode("ascii") != data:
        raise RpcError("Image upload is not canonical base64.")
    sniffed = sniff_image(raw)
    if sniffed is None:
        raise RpcError("Unsupported or malformed image data.")
    if mime not in IMAGE_TYPES or mime != sniffed[0]:
        raise RpcError(
            f"IMAGE_TYPE_MISMATCH: declared {js_str(mime)} but the bytes are {sniffed[0]}"
        )
    return {
        "type": "image",
        "attachment": {
            "attachmentId": "sha256:" + hashlib.sha256(raw).hexdigest(),
            "mediaType": sniffed[0],
            "width": sniffed[1],
            "height": sniffed[2],
            "bytes": len(raw),
        },
    }


def validate_answers(result: Any) -> Json | None:
    """A well-formed ``{answers:[{id, selected, custom?}]}`` naming every question once, or None."""
    if not isinstance(result, dict) or set(result) != {"answers"}:
        return None
    answers = result["answers"]
    if not isinstance(answers, list):
        return None
    ids: list[str] = []
    for item in answers:
        if (
            not isinstance(item, dict)
            or not {"id", "selected"} <= set(item)
            or not set(item) <= {"id", "selected", "custom"}
            or not isinstance(item["id"], str)
            or not isinstance(item["selected"], list)
            or not all(isinstance(label, str) for label in item["selected"])
            or ("custom" in item and not isinstance(item["custom"], str))
        ):
            return None
        ids.append(item["id"])
    if sorted(ids) != sorted(q["id"] for q in QUESTIONS):
        return None
    return {"answers": answers}
