"""What masking costs per MB: today's key-only ``redact`` beside the whole policy (issue 49 item 2).

    python bench/masking.py [--repeat 7]

The same inputs, masked two ways, best of ``--repeat`` runs, in ms per MB of text:

- ``key only``: ``redact(value, (key,))`` — what every exit did before (the key's pieces);
- ``policy``: ``redact(value, Masking)`` with the key, the secret-looking variables of a typical
  environment (three tokens, a password) and every credential shape — what every exit does now;
- ``policy + pattern``: the same with one pattern of the person's (``EMP-\\d{6}``).

Inputs (1 MB each): ``prose`` (assistant text: words, code, URLs, hex ids, e-mail addresses),
``output`` (a tool result as JSON-like lists of stream texts: numbers, a DataFrame's repr,
``https://`` links), ``figure`` (a saved transcript's markdown: half prose, half an inlined
``data:image/png;base64,`` figure), and ``hit`` (``prose`` with one of each canary in it, so a
copy is made). Nothing to mask returns the value itself, so the clean cases measure the scan.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import random
import time
from collections.abc import Callable
from typing import Any

from dsh_notebook.runtime import Masking, redact

MB = 1_000_000
KEY = "sk-bench-7f3a9c2e5b1d4068a9e7c3f10b"
ENVIRON = {
    "WAREHOUSE_TOKEN": "wh-tok-5d8e1f0a9b7c3e2d4f6a8b0c",
    "GITHUB_TOKEN": "ghp_B3nch0GitHub1Token2Value3abcdefghij",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBENCHKEYZZ",
    "DB_PASSWORD": "correct-horse-battery",
    "HOME": "/home/person",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def prose(size: int, rng: random.Random) -> str:
    words = [
        "the",
        "revenue",
        "region",
        "fell",
        "behind",
        "in",
        "March",
        "compared",
        "with",
        "last",
        "year",
        "see",
        "https://example.com/report?id=42",
        "commit",
        "{h}",
        "df.groupby('region').sum()",
        "user@example.com",
        "AKIA",
        "is",
        "not",
        "a",
        "key",
        "3.14159",
        "2026-12-04",
        "ASIA",
        "sales",
    ]
    out: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(words).replace("{h}", hashlib.sha1(str(n).encode()).hexdigest())
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def output(size: int, rng: random.Random) -> list[dict[str, Any]]:
    frame = "\n".join(f"{i:>5}  {rng.random():.6f}  north  https://x.io/{i}" for i in range(40))
    chunks = []
    n = 0
    while n < size:
        chunks.append({"name": "stdout", "text": frame})
        n += len(frame)
    return chunks


def figure(size: int, rng: random.Random) -> str:
    png = base64.b64encode(rng.randbytes(size * 3 // 8)).decode()
    return f"{prose(size // 2, rng)}\n\n[f1]: data:image/png;base64,{png}\n"


def hit(size: int, rng: random.Random) -> str:
    text = prose(size, rng)
    canaries = (ENVIRON["WAREHOUSE_TOKEN"], "AKIAZ3CANARY7Q2XW4PL", ENVIRON["GITHUB_TOKEN"],
                "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
                "-----END PRIVATE KEY-----", KEY[:12])  # fmt: skip
    step = len(text) // (len(canaries) + 1)
    for i, c in enumerate(canaries, 1):
        text = f"{text[: i * step]} {c} {text[i * step :]}"
    return text


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(49)
    inputs = {"prose": prose(MB, rng), "output": output(MB, rng), "figure": figure(MB, rng),
              "hit": hit(MB, rng)}  # fmt: skip
    key_named = [(KEY, "DEEPSEEK_API_KEY")]
    arms = {
        "key only": lambda: (KEY,),
        "policy": lambda: Masking.build(key_named, environ=ENVIRON),
        "policy + pattern": lambda: Masking.build(
            key_named, environ=ENVIRON, patterns=[r"EMP-\d{6}"]
        ),
    }
    print(f"{'input':8} " + " ".join(f"{a:>18}" for a in arms) + "   (ms per MB, best of "
          f"{args.repeat})")  # fmt: skip
    for name, value in inputs.items():
        cells = []
        for build in arms.values():
            # the policy is built per exit call in the kernel: its build is counted too
            seconds = best(lambda build=build, value=value: redact(value, build()), args.repeat)
            cells.append(f"{seconds * 1000:>18.2f}")
        print(f"{name:8} " + " ".join(cells))


if __name__ == "__main__":
    main()
