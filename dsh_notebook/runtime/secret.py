"""``Secret``: a ``str`` whose ``repr``, ``str`` and ``format`` are masked.

The API key travels as a :class:`Secret` from :class:`~dsh_notebook.client.HarnessConfig` into the
child environment and on to ``subprocess`` unchanged (``os.fsencode`` encodes the real characters),
so no frame on the way — including one a traceback-with-locals printer shows — holds a printable
plain key. Equality, hashing, ``len`` and encoding behave as for the plain string; call
:meth:`Secret.reveal` for the plain text where it is truly needed.

:func:`redact` is the one way secrets are masked in what leaves the kernel (tool results for the
model, agent cells, transcripts, the page, exports, stores, error texts, what the magics print):
one policy, here, with what it masks described by a :class:`~.mask_policy.Masking` (named
values, credential shapes of :mod:`.shapes`, the person's patterns).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from .mask_policy import Masking, mask_label
from .shapes import protected_spans, shape_spans, without_protected

__all__ = ["FRAGMENT_CHARS", "MASK", "Masking", "Secret", "Secrets", "redact"]

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

Secrets = Iterable[str] | Masking
"""What :func:`redact` masks: the kernel's :class:`~.mask_policy.Masking`, or plain strings."""

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


def _value_spans(
    text: str, plains: tuple[str, ...], labels: tuple[str, ...], min_chars: int
) -> list[tuple[int, int, str]]:
    """The spans of ``text`` that hold a secret value, with its label: each whole secret, and
    each longest stretch of ``min_chars`` or more characters that is also a stretch of one."""
    spans: list[tuple[int, int, str]] = []
    step = max(1, min_chars // 2)
    width = min_chars - step + 1
    for plain, label in zip(plains, labels, strict=True):
        if len(plain) <= min_chars:  # whole occurrences only
            at = text.find(plain)
            while at >= 0:
                spans.append((at, at + len(plain), label))
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
                    spans.append((start, end, label))
                at = text.find(needle, at + 1)
    return spans


@dataclass(frozen=True)
class _Policy:
    """One call's masking, prepared: values and labels, needles, shapes, patterns."""

    plains: tuple[str, ...]
    labels: tuple[str, ...]
    min_chars: int
    shapes: bool = False
    patterns: tuple[tuple[re.Pattern[str], str], ...] = ()

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """The spans of ``text`` to mask, sorted and merged (the first span's label wins), none
        touching an inlined ``data:…;base64,`` run."""
        spans = _value_spans(text, self.plains, self.labels, self.min_chars)
        if self.shapes:
            spans += [(b, e, mask_label(kind)) for b, e, kind in shape_spans(text)]
        for pattern, label in self.patterns:
            spans += [(*m.span(), label) for m in pattern.finditer(text) if m.end() > m.start()]
        if not spans:
            return spans
        protected = protected_spans(text)
        if protected:
            spans = [s for s in spans if not any(s[0] < e and b < s[1] for b, e in protected)]
        spans.sort()
        merged: list[tuple[int, int, str]] = []
        for start, end, label in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2])
            else:
                merged.append((start, end, label))
        return merged

    def may_hit(self, texts: list[str]) -> bool:
        """Whether some text may need masking (``False`` only when none does). Inlined
        figures are not scanned (nothing in them is masked)."""
        texts = [without_protected(t) for t in texts]
        needles = _needles(self.plains, self.min_chars)
        if any(needle in text for text in texts for needle in needles):
            return True
        if self.shapes and any(shape_spans(t) for t in texts):
            return True
        return any(p.search(t) for p, _ in self.patterns for t in texts)


def _mask_text(text: str, policy: _Policy) -> str:
    spans = policy.spans(text)
    if not spans:
        return text
    parts: list[str] = []
    last = 0
    for start, end, label in spans:
        parts += [text[last:start], label]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _masked(value: Any, policy: _Policy) -> Any:
    if isinstance(value, str):
        return _mask_text(value, policy)
    if isinstance(value, dict):
        return {
            _masked(k, policy): v if _binary(value, k) else _masked(v, policy)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_masked(v, policy) for v in value)
    return value


def _policy(secrets: Iterable[str] | Masking, min_chars: int) -> _Policy:
    if isinstance(secrets, Masking):
        named = [(_plain(v), mask_label(n)) for v, n in secrets.values]
        named = [(p, label) for p, label in named if len(p) >= 4]
        return _Policy(
            tuple(p for p, _ in named), tuple(label for _, label in named), min_chars,
            secrets.shapes, tuple((p, mask_label(n)) for p, n in secrets.patterns),
        )  # fmt: skip
    plains = tuple(p for p in (_plain(s) for s in secrets) if len(p) >= 4)
    return _Policy(plains, (MASK,) * len(plains), min_chars)


def _plain(secret: str) -> str:
    return secret.reveal() if isinstance(secret, Secret) else str(secret)


@overload
def redact(value: str, secrets: Secrets, min_chars: int = FRAGMENT_CHARS) -> str: ...
@overload
def redact(value: _T, secrets: Secrets, min_chars: int = FRAGMENT_CHARS) -> _T: ...
def redact(value: Any, secrets: Secrets, min_chars: int = FRAGMENT_CHARS) -> Any:
    """``value`` with every secret masked: the one masking policy of the package.

    ``value`` is a string or JSON-like (dicts, lists, tuples, strings, numbers); every string in
    it is masked, dict keys included, except base64 payloads (``image/*`` entries of a MIME
    bundle other than SVG, MCP image/audio ``data``, resource ``blob``).

    ``secrets`` is a :class:`~.mask_policy.Masking` (named values, credential shapes, the
    person's patterns: the kernel's policy) or plain strings (masked as ``***``).

    In a string, each whole secret and each stretch of ``min_chars`` (:data:`FRAGMENT_CHARS`)
    or more characters that is also a stretch of a secret becomes its label
    (``[masked: DEEPSEEK_API_KEY]``, ``***`` for a plain string): a slice the code printed
    (``key[:12]``), a key printed in halves on two lines or in two outputs (each half is a
    stretch), a key cut by a cap. Shorter stretches are kept (a false positive would mask
    ordinary text); secrets shorter than 4 characters are ignored, ones of up to ``min_chars``
    are masked only whole. With a :class:`~.mask_policy.Masking`, each credential shape
    (:mod:`.shapes`) and each match of the person's patterns becomes its label too. Nothing
    inside a ``data:…;base64,`` run is masked (an inlined figure stays a valid PNG).

    Length: masked with plain strings, a string is never longer than it was; a label may be
    longer than what it replaces (``[masked: GITHUB_TOKEN]`` for an 8-character piece), so an
    exit with a cap cuts after masking (``notebook_tools.masking.mask_result``).

    Guarantees: pure (``value`` is not changed; with nothing to mask it is returned as it is,
    not copied); a :class:`Secret` counts by its value. Cost: linear in the text — the strings
    are joined and searched once for about ``len(secret) / 4`` needles of 5 characters (C
    string search) and for each shape's literal cues; a shape's regex runs only over a text
    holding one of its cues, the person's patterns over every text; only a hit costs a
    Python-level look at that spot, and a copy (``bench/masking.py`` measures it per MB).
    """
    policy = _policy(secrets, min_chars)
    if not (policy.plains or policy.shapes or policy.patterns):
        return value
    if isinstance(value, str):
        texts = [value]
    else:
        texts = []
        _texts(value, texts)
    joined = texts if any(_SEPARATOR in p for p in policy.plains) else [_SEPARATOR.join(texts)]
    if not policy.may_hit(joined):
        return value
    return _masked(value, policy)
