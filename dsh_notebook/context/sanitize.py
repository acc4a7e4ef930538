"""Text that can always be sent: no surrogate code points in anything we put into a prompt.

A Python ``str`` may hold surrogate code points (U+D800 to U+DFFF) that UTF-8 cannot encode: file
names read with ``surrogateescape`` (``os.listdir`` of a non-UTF-8 name gives ``"a\\udcffb"``),
JSON with escaped half pairs, a ``__repr__`` that builds text from bytes. One such character in
a ``{var}`` value used to make sending the whole prompt fail with a ``UnicodeEncodeError``
traceback. :func:`replace_lone_surrogates` makes such text encodable while changing nothing else.
"""

from __future__ import annotations

import re

__all__ = ["REPLACEMENT_CHARACTER", "replace_lone_surrogates"]

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
