"""Canaries of each secret kind the masking policy knows (issue 49 item 2): an environment token,
an AWS access key id, a GitHub token and a private key block, what code that prints them writes,
and a count of their pieces in what an exit sent (the count must be 0 at every exit)."""

from __future__ import annotations

import json
from typing import Any

ENV_NAME = "WAREHOUSE_TOKEN"
ENV_TOKEN = "wh-tok-5d8e1f0a9b7c3e2d4f6a8b0c"
AWS_KEY_ID = "AKIAZ3CANARY7Q2XW4PL"
GITHUB_TOKEN = "ghp_C4nary0GitHub1Token2Value3abcdefghij"
PRIVATE_KEY_BODY = (
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7canaryBODYline1\n"
    "q8f3Zk1canaryBODYline2mWq9xR7tYpL0sNd4vB2hJ6cK8eF1gT3uI5oA7zX9wQ2"
)
PRIVATE_KEY = f"-----BEGIN PRIVATE KEY-----\n{PRIVATE_KEY_BODY}\n-----END PRIVATE KEY-----"

CANARIES = {
    "env token": ENV_TOKEN,
    "AWS access key": AWS_KEY_ID,
    "GitHub token": GITHUB_TOKEN,
    "private key": PRIVATE_KEY_BODY,
}
"""Each kind's secret part (of the private key: its body)."""

LABELS = {
    "env token": f"[masked: {ENV_NAME}]",
    "AWS access key": "[masked: AWS access key]",
    "GitHub token": "[masked: GitHub token]",
    "private key": "[masked: private key]",
}

CANARY_CODE = (
    "import os\n"
    f"token = os.environ[{ENV_NAME!r}]\n"
    "print(token); print(token[:12]); print(token[12:])\n"
    f"print({AWS_KEY_ID!r})\n"
    f"print('auth', {GITHUB_TOKEN!r})\n"
    f"print({PRIVATE_KEY!r})\n"
)
"""Approved code that prints each canary (the token whole and in two pieces)."""

PIECE = 8


def canary_pieces(sent: Any) -> dict[str, int]:
    """For each kind, how many of its ``PIECE``-character pieces occur in ``sent`` (a text, or
    anything JSON-serialisable: its JSON text, whose escaped newlines are read as newlines)."""
    text = sent if isinstance(sent, str) else json.dumps(sent, ensure_ascii=False)
    text = text.replace("\\n", "\n")
    counts: dict[str, int] = {}
    for kind, secret in CANARIES.items():
        pieces = {secret[i : i + PIECE] for i in range(len(secret) - PIECE + 1)}
        pieces = {p for p in pieces if "\n" not in p}
        counts[kind] = sum(1 for p in pieces if p in text)
    return counts


def leaked(sent: Any) -> dict[str, int]:
    """The kinds with a piece in ``sent`` (empty: nothing leaked)."""
    return {kind: n for kind, n in canary_pieces(sent).items() if n}
