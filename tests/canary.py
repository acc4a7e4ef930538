"""The key canary: a key, what the three prints of an approved ``run_python`` write, and a count
of the key's pieces in what an exit sent (the count must be 0 at every exit)."""

from __future__ import annotations

import json
from typing import Any

KEY = "sk-canary-7f3a9c2e5b1d4068a9e7c3f10b"
"""35 characters, like a DeepSeek key; not the demo key, so the kernel treats it as a secret."""

HALF = len(KEY) // 2

CANARY_CODE = (
    "import os\nkey = os.environ['DEEPSEEK_API_KEY']\n"
    "print(key)\nprint(key[:12])\n"
    "print(key[:len(key)//2]); print(key[len(key)//2:])"
)
"""The three prints: the whole key, a 12-character slice, the key in two halves on two lines."""

PRINTED = f"{KEY}\n{KEY[:12]}\n{KEY[:HALF]}\n{KEY[HALF:]}\n"
"""What :data:`CANARY_CODE` writes to stdout."""

PIECE = 8


def key_pieces(sent: Any, key: str = KEY) -> int:
    """How many of the ``PIECE``-character pieces of ``key`` occur in ``sent`` (a text, or
    anything JSON-serialisable: its JSON text)."""
    text = sent if isinstance(sent, str) else json.dumps(sent, ensure_ascii=False)
    return sum(1 for i in range(len(key) - PIECE + 1) if key[i : i + PIECE] in text)
