"""Text that can always be sent: no surrogate code points in a prompt nor in what a cell shows.

A Python ``str`` may hold surrogate code points (U+D800 to U+DFFF) that UTF-8 cannot encode: file
names read with ``surrogateescape`` (``os.listdir`` of a non-UTF-8 name gives ``"a\\udcffb"``),
JSON with escaped half pairs, a ``__repr__`` that builds text from bytes. One such character in
a ``{var}`` value used to make sending the whole prompt fail with a ``UnicodeEncodeError``
traceback. :func:`replace_lone_surrogates` makes such text encodable while changing nothing else;
:func:`encodable` does it for every string of a JSON-like value (a display bundle, a widget
snapshot), so the runtime's text (a JSON ``"\\ud800"`` escape decodes to a lone surrogate) never
breaks a kernel message, which jupyter_client packs as UTF-8.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

__all__ = ["REPLACEMENT_CHARACTER", "encodable", "replace_lone_surrogates"]

T = TypeVar("T")

REPLACEMENT_CHARACTER = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with every surrogate code point made valid, so ``text.encode("utf-8")`` works.

    A high surrogate directly followed by a low one (the UTF-16 spelling of one character, as in
    ``"\\ud83d\\ude00"``) becomes that character (``"😀"``); every other surrogate becomes
    U+FFFD. Text without surrogates is returned as it is (the same object), so the common case
    costs one regex scan. Never raises.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def encodable(value: T) -> T:
    """``value`` with :func:`replace_lone_surrogates` applied to every string in it: dict keys
    and values, list and tuple items, nested to any depth. Other values are kept as they are.

    A copy is made only along the path to a string that changed; a value without surrogates is
    returned as it is (the same object). Never raises."""
    return _encodable(value)  # type: ignore[no-any-return]


def _encodable(value: Any) -> Any:
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, dict):
        items = [(_encodable(k), _encodable(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        changed = [_encodable(v) for v in value]
        if all(v is v0 for v, v0 in zip(changed, value, strict=True)):
            return value
        return changed if isinstance(value, list) else tuple(changed)
    return value
