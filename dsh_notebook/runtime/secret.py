"""``Secret``: a ``str`` whose ``repr``, ``str`` and ``format`` are masked.

The API key travels as a :class:`Secret` from :class:`~dsh_notebook.client.HarnessConfig` into the
child environment and on to ``subprocess`` unchanged (``os.fsencode`` encodes the real characters),
so no frame on the way — including one a traceback-with-locals printer shows — holds a printable
plain key. Equality, hashing, ``len`` and encoding behave as for the plain string; call
:meth:`Secret.reveal` for the plain text where it is truly needed.

:func:`redact` is the one way secrets are masked in what leaves the kernel (tool results for the
model, agent cells, transcripts, the page, exports, stores, error texts, what the magics print):
one policy, here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar, overload

__all__ = ["FRAGMENT_CHARS", "MASK", "Secret", "redact"]

MASK = "***"

FRAGMENT_CHARS = 8
"""A piece of a secret this long or longer is masked too by :func:`redact`; shorter pieces are
kept (too short to tell from ordinary text)."""


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


_T = TypeVar("_T")

_SEPARATOR = "\x00"
"""Joins the texts of a value for one scan; a piece of a secret never spans it (unless a secret
holds it: then each text is scanned on its own)."""


_BINARY_FIRST = frozenset("ibd")


def _binary(owner: dict[Any, Any], key: Any) -> bool:
    """Whether ``owner[key]`` is base64 bytes, not text: a MIME bundle's ``image/*`` entry (SVG is
    text and is scanned), an MCP image/audio content's ``data``, a resource's ``blob``. Base64
    cannot be searched for text (a figure whose pixels show the key still shows it)."""
    if not isinstance(key, str) or key[:1] not in _BINARY_FIRST:
        return False
    if key.startswith("image/"):
        return key != "image/svg+xml"
    if key == "blob":
        return True
    return key == "data" and owner.get("type") in ("image", "audio")


def _texts(value: Any, out: list[str]) -> None:
    """Append every string of ``value`` (JSON-like) that :func:`redact` masks to ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                out.append(k)
            if type(v) is str:  # the common leaf, without a call
                if not _binary(value, k):
                    out.append(v)
            elif isinstance(v, (str, dict, list, tuple)) and not _binary(value, k):
                _texts(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            if type(v) is str:
                out.append(v)
            elif isinstance(v, (str, dict, list, tuple)):
                _texts(v, out)


def _needles(plains: tuple[str, ...], min_chars: int) -> list[str]:
    """Strings of which every piece to mask holds at least one.

    A secret shorter than ``min_chars + 1`` is masked only whole: it is its own needle. For a
    longer one, a piece of ``min_chars`` or more starting at offset ``a`` holds the ``width``
    characters at the next multiple of ``step`` (at most ``step - 1`` further on, and
    ``step - 1 + width == min_chars``): about ``len / step`` needles instead of one per offset."""
    step = max(1, min_chars // 2)
    width = min_chars - step + 1
    needles: list[str] = []
    for plain in plains:
        if len(plain) <= min_chars:
            needles.append(plain)
        else:
            needles += [plain[i : i + width] for i in range(0, len(plain) - width + 1, step)]
    return needles


def _spans(text: str, plains: tuple[str, ...], min_chars: int) -> list[tuple[int, int]]:
    """The spans of ``text`` to mask, sorted and merged: each whole secret, and each longest
    stretch of ``min_chars`` or more characters that is also a stretch of a secret."""
    spans: list[tuple[int, int]] = []
    step = max(1, min_chars // 2)
    width = min_chars - step + 1
    for plain in plains:
        if len(plain) <= min_chars:  # whole occurrences only
            at = text.find(plain)
            while at >= 0:
                spans.append((at, at + len(plain)))
                at = text.find(plain, at + len(plain))
            continue
        for offset in range(0, len(plain) - width + 1, step):
            needle = plain[offset : offset + width]
            at = text.find(needle)
            while at >= 0:
                # grow around the needle while text and secret agree, aligned at this offset
                # (a needle the secret holds twice is tried at each of its offsets)
                start, end, low, high = at, at + width, offset, offset + width
                while start > 0 and low > 0 and text[start - 1] == plain[low - 1]:
                    start, low = start - 1, low - 1
                while end < len(text) and high < len(plain) and text[end] == plain[high]:
                    end, high = end + 1, high + 1
                if end - start >= min_chars:
                    spans.append((start, end))
                at = text.find(needle, at + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _mask_text(text: str, plains: tuple[str, ...], min_chars: int) -> str:
    spans = _spans(text, plains, min_chars)
    if not spans:
        return text
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts += [text[last:start], MASK]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _masked(value: Any, plains: tuple[str, ...], min_chars: int) -> Any:
    if isinstance(value, str):
        return _mask_text(value, plains, min_chars)
    if isinstance(value, dict):
        return {
            _masked(k, plains, min_chars): v if _binary(value, k) else _masked(v, plains, min_chars)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_masked(v, plains, min_chars) for v in value)
    return value


@overload
def redact(value: str, secrets: Iterable[str], min_chars: int = FRAGMENT_CHARS) -> str: ...
@overload
def redact(value: _T, secrets: Iterable[str], min_chars: int = FRAGMENT_CHARS) -> _T: ...
def redact(value: Any, secrets: Iterable[str], min_chars: int = FRAGMENT_CHARS) -> Any:
    """``value`` with every secret masked: the one masking policy of the package.

    ``value`` is a string or JSON-like (dicts, lists, tuples, strings, numbers); every string in
    it is masked, dict keys included, except base64 payloads (``image/*`` entries of a MIME
    bundle other than SVG, MCP image/audio ``data``, resource ``blob``).

    In a string, each whole secret and each stretch of ``min_chars`` (:data:`FRAGMENT_CHARS`)
    or more characters that is also a stretch of a secret becomes ``***``: a slice the code
    printed (``key[:12]``), a key printed in halves on two lines or in two outputs (each half
    is a stretch), a key cut by a cap. Shorter stretches are kept (a false positive would mask
    ordinary text); secrets shorter than 4 characters are ignored, ones of up to ``min_chars``
    are masked only whole. A masked string is never longer than it was.

    Guarantees: pure (``value`` is not changed; with nothing to mask it is returned as it is,
    not copied); a :class:`Secret` counts by its value. Cost: linear in the text — the strings
    are joined and searched once for about ``len(secret) / 4`` needles of 5 characters (C
    string search); only a hit costs a Python-level look at that spot, and a copy.
    """
    plains = tuple(
        p for p in (s.reveal() if isinstance(s, Secret) else str(s) for s in secrets) if len(p) >= 4
    )
    if not plains:
        return value
    if isinstance(value, str):
        texts = [value]
    else:
        texts = []
        _texts(value, texts)
    joined = texts if any(_SEPARATOR in p for p in plains) else [_SEPARATOR.join(texts)]
    needles = _needles(plains, min_chars)
    if not any(needle in text for text in joined for needle in needles):
        return value
    return _masked(value, plains, min_chars)
