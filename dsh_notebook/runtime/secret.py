"""``Secret``: a ``str`` whose ``repr``, ``str`` and ``format`` are masked.

The API key travels as a :class:`Secret` from :class:`~dsh_notebook.client.HarnessConfig` into the
child environment and on to ``subprocess`` unchanged (``os.fsencode`` encodes the real characters),
so no frame on the way — including one a traceback-with-locals printer shows — holds a printable
plain key. Equality, hashing, ``len`` and encoding behave as for the plain string; call
:meth:`Secret.reveal` for the plain text where it is truly needed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MASK", "Secret", "redact"]

MASK = "***"


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
