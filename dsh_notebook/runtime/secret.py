"""``Secret``: a ``str`` whose ``repr``, ``str`` and ``format`` are masked.

The API key travels as a :class:`Secret` from :class:`~dsh_notebook.client.HarnessConfig` into the
child environment and on to ``subprocess`` unchanged (``os.fsencode`` encodes the real characters),
so no frame on the way — including one a traceback-with-locals printer shows — holds a printable
plain key. Equality, hashing, ``len`` and encoding behave as for the plain string; call
:meth:`Secret.reveal` for the plain text where it is truly needed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FRAGMENT_CHARS", "MASK", "Secret", "redact", "redact_fragments"]

MASK = "***"

FRAGMENT_CHARS = 8
"""A piece of a secret this long or longer is masked too by :func:`redact_fragments`."""


class Secret(str):
    """A secret string: ``repr``/``str``/``format`` show ``***``; everything else is the value."""

    __slots__ = ()

    def __new__(cls, value: str = "") -> Secret:
        # str(Secret) is the mask: wrapping a Secret again must keep its value, not the mask
        plain = str.__str__(value) if isinstance(value, Secret) else value
        return super().__new__(cls, plain)

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return format(MASK, spec)

    def reveal(self) -> str:
        """The plain value (a plain ``str``). Never log it."""
        return str.__str__(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Secret, (self.reveal(),))


def redact(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """``text`` with every occurrence of each non-trivial secret replaced by ``***``."""
    for secret in secrets:
        plain = secret.reveal() if isinstance(secret, Secret) else secret
        if len(plain) >= 4 and plain in text:
            text = text.replace(plain, MASK)
    return text


def _plain(secret: str) -> str:
    return secret.reveal() if isinstance(secret, Secret) else secret


def redact_fragments(
    text: str, secrets: tuple[str, ...] | list[str], min_chars: int = FRAGMENT_CHARS
) -> str:
    """:func:`redact`, and every piece of ``min_chars`` or more characters of a secret masked too.

    A capped text may cut a key in two (``sk-abc…`` before a truncation marker, the tail after
    ``[… N earlier chars cut]``) or print a slice of it; each such piece becomes ``***``. The
    result is never longer than ``text`` (every replaced span is at least 4 characters long).
    Pieces shorter than ``min_chars`` are kept (a false positive would mask ordinary text).
    Cost: one substring test per ``min_chars``-gram of each secret; a scan of ``text`` only when
    one is found.
    """
    text = redact(text, secrets)
    for secret in secrets:
        plain = _plain(secret)
        if len(plain) <= min_chars or len(plain) < 4:
            continue
        grams = {plain[i : i + min_chars] for i in range(len(plain) - min_chars + 1)}
        if not any(gram in text for gram in grams):
            continue
        pieces: list[str] = []
        start = i = 0
        while i <= len(text) - min_chars:
            if text[i : i + min_chars] not in grams:
                i += 1
                continue
            end = i + min_chars  # grow the piece while it is still part of the secret
            while end < len(text) and text[i : end + 1] in plain:
                end += 1
            pieces += [text[start:i], MASK]
            start = i = end
        text = "".join(pieces) + text[start:]
    return text
