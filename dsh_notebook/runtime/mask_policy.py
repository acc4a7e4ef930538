"""What :func:`~dsh_notebook.runtime.secret.redact` masks: a :class:`Masking`.

One policy, three sources, each masked span named by a label:

- **named values**: the API key (``DEEPSEEK_API_KEY``) and the values of environment variables
  whose names look secret (:data:`SECRET_ENV_NAMES`: ``*_TOKEN``, ``*_SECRET``, ``*_KEY``,
  ``*PASSWORD*``, ``*_PAT``; ``DshMagics.secret_env_names`` replaces the list). Each whole value
  and each piece of :data:`~dsh_notebook.runtime.secret.FRAGMENT_CHARS` or more of it reads
  ``[masked: WAREHOUSE_TOKEN]``. Values shorter than :data:`ENV_MIN_CHARS` are left alone
  (``1``, ``true``, ``enabled`` are not secrets, and masking them would mask ordinary text);
- **credential shapes** (:mod:`.shapes`): AWS access key ids and secret keys, GitHub, GitLab and
  Slack tokens, private key blocks, JWTs, the password of ``user:password@`` in a URL, whoever's
  they are: ``[masked: AWS access key]``;
- **the person's patterns** (``DshMagics.mask_patterns``, regexes): ``[masked: mask_patterns[0]]``.

A :class:`Masking` is a frozen value, cheap to build (the environment is read when it is built, so
a token exported later counts from the next build); the kernel builds one per exit call
(``NotebookAgent.secrets()``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

__all__ = [
    "ENV_MIN_CHARS",
    "SECRET_ENV_NAMES",
    "Masking",
    "compile_patterns",
    "mask_label",
    "secret_environment",
]

SECRET_ENV_NAMES: tuple[str, ...] = ("*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*", "*_PAT")
"""Names (``fnmatch`` patterns, case-insensitive) of environment variables whose values are
masked by default."""

ENV_MIN_CHARS = 8
"""An environment value shorter than this is not masked (too short to tell from ordinary text)."""


def mask_label(name: str) -> str:
    """What a masked span reads: ``[masked: NAME]``."""
    return f"[masked: {name}]"


def secret_environment(
    names: Iterable[str] = SECRET_ENV_NAMES, environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, str], ...]:
    """``(value, name)`` of each variable of ``environ`` (default: ``os.environ``) whose name
    matches one of ``names`` and whose value has :data:`ENV_MIN_CHARS` characters or more,
    sorted by name (so a value two variables hold is named after the first)."""
    patterns = [n.upper() for n in names if n]
    env = os.environ if environ is None else environ
    found: list[tuple[str, str]] = []
    for name in sorted(env):
        value = env[name]
        if len(value) >= ENV_MIN_CHARS and any(fnmatchcase(name.upper(), p) for p in patterns):
            found.append((value, name))
    return tuple(found)


def compile_patterns(patterns: Iterable[str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The person's patterns compiled, each with its label (``mask_patterns[i]``).

    Raises ``ValueError`` with one line naming the pattern when one does not compile or matches
    the empty string (it would mask between every two characters)."""
    compiled: list[tuple[re.Pattern[str], str]] = []
    for i, source in enumerate(patterns):
        try:
            pattern = re.compile(source)
        except re.error as exc:
            raise ValueError(f"mask_patterns[{i}] is not a regular expression: {exc}") from None
        if pattern.match(""):
            raise ValueError(f"mask_patterns[{i}] matches the empty text: it would mask nothing")
        compiled.append((pattern, f"mask_patterns[{i}]"))
    return tuple(compiled)


@dataclass(frozen=True)
class Masking:
    """Everything :func:`~dsh_notebook.runtime.secret.redact` masks, each with its label.

    ``values``: ``(value, name)`` pairs (a value may be a
    :class:`~dsh_notebook.runtime.secret.Secret`), masked whole and by pieces; ``shapes``: whether
    credential shapes are masked; ``patterns``: the person's compiled patterns with their labels
    (:func:`compile_patterns`)."""

    values: tuple[tuple[str, str], ...] = ()
    shapes: bool = True
    patterns: tuple[tuple[re.Pattern[str], str], ...] = ()
    private: tuple[str, ...] = ()
    """The person's private name patterns (``DshMagics.private``): not masked here (their
    values are among ``values``), read by the notebook tools that list and describe values."""

    @classmethod
    def build(
        cls,
        named: Iterable[tuple[str | None, str]] = (),
        *,
        env_names: Iterable[str] = SECRET_ENV_NAMES,
        environ: Mapping[str, str] | None = None,
        patterns: Iterable[str] = (),
        shapes: bool = True,
        private: Iterable[str] = (),
    ) -> Masking:
        """The policy for this moment: the ``named`` values (``(value, name)``; ``None`` or empty
        values skipped), then the secret-looking variables of the environment, each value once
        (under its first name), and the person's ``patterns`` (see :func:`compile_patterns`)."""
        seen: set[str] = set()
        values: list[tuple[str, str]] = []
        for value, name in (*named, *secret_environment(env_names, environ)):
            plain = str.__str__(value) if value else ""
            if plain and plain not in seen:
                seen.add(plain)
                values.append((value or "", name))
        return cls(tuple(values), shapes, compile_patterns(patterns), tuple(private))

    def __bool__(self) -> bool:
        return bool(self.values or self.shapes or self.patterns)
