"""What the ``%dsh`` and ``%%dsh`` magics print, masked at one place.

Every text a magic's call prints on its own thread goes through the one masking policy
(:func:`~dsh_notebook.runtime.redact` with the secrets ``NotebookAgent.secrets()`` names) on its
way out, whatever command or helper printed it: :func:`masked_output` puts a filter on
``sys.stdout`` and ``sys.stderr`` for the length of the call, and masks the message of a
``UsageError`` that leaves it. A command therefore prints as it likes (a card's code in ``%dsh
pending``, an id the person typed, a path the runtime answered) and no piece of a secret reaches
the cell's output, which the notebook saves.

Guarantees:

* **Line by line.** Text is masked a whole line at a time (a line is held until its newline, a
  ``flush`` or the end of the call): a key printed in pieces on one line, in several ``write``
  calls, is masked as one stretch; pieces on separate lines are each masked when they are
  :data:`~dsh_notebook.runtime.secret.FRAGMENT_CHARS` long or longer (the policy's rule). A
  line printed before a long wait (``%dsh undo``, ``%dsh wait``) is shown before the wait.
* **Only the calling thread.** Writes of other threads (the UI pump, the runtime's host) pass
  through untouched and unheld, so nothing another thread prints is delayed or moved into this
  cell. After the call, the filter passes everything through; it takes itself off the ``sys``
  streams when it is still the one installed there (else it stays, inert, under whoever
  replaced it since).
* **Errors.** A ``UsageError`` that leaves the call has its message masked and cut to
  :data:`ERROR_MAX` characters (a message quotes the person's words; a word is quoted short
  already, see :func:`~.line_args.quoted`; this is the last bound).
* :func:`shown` masks a text for an exit of the call that is not a stream (the stdin prompt of
  an approval asked during ``%%dsh --wait`` or ``%dsh wait``), with the secrets of the
  innermost :func:`masked_output` active on this thread; outside one, with none.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from IPython.core.error import UsageError

from ...runtime import redact
from ...runtime.secret import Secrets as Masked

__all__ = ["ERROR_MAX", "masked_output", "shown"]

ERROR_MAX = 400
"""The longest ``UsageError`` message a magic's call lets out (characters)."""

Secrets = Callable[[], Masked]

_active = threading.local()  # .secrets: a list, the innermost call's last


def _current() -> Masked:
    stack: list[Secrets] = getattr(_active, "secrets", [])
    return stack[-1]() if stack else ()


def shown(text: str) -> str:
    """``text`` masked with the secrets of the :func:`masked_output` call this thread is in (as
    it is, outside one)."""
    secrets = _current()
    return redact(text, secrets) if secrets else text


def _no_secrets() -> tuple[str, ...]:
    return ()


class _MaskedStream:
    """A text stream that masks, line by line, what ``owner`` writes to ``target``."""

    def __init__(self, target: TextIO, owner: threading.Thread, secrets: Secrets) -> None:
        self._target = target
        self._owner = owner
        self._secrets = secrets
        self._held: list[str] = []  # the owner's unfinished line
        self._open = True

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, …: the target's
        return getattr(self._target, name)

    def _mine(self) -> bool:
        return self._open and threading.current_thread() is self._owner

    def write(self, text: str) -> int:
        if not self._mine():
            return self._target.write(text)
        end = text.rfind("\n")
        if end < 0:
            self._held.append(text)
            return len(text)
        lines = "".join([*self._held, text[: end + 1]])
        self._held = [text[end + 1 :]] if end + 1 < len(text) else []
        self._target.write(redact(lines, self._secrets()))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def _release(self) -> None:
        if self._held:
            held, self._held = "".join(self._held), []
            self._target.write(redact(held, self._secrets()))

    def flush(self) -> None:  # a prompt without a newline (``input()``) is shown now
        if self._mine():
            self._release()
        self._target.flush()

    def close_filter(self) -> None:
        """Write what is held (masked) and pass everything through from now on, holding
        nothing of the call: whatever took this stream meanwhile (a logging handler made
        during the call keeps ``sys.stderr``) keeps neither the agent nor its secrets."""
        self._release()
        self._open = False
        self._secrets = _no_secrets


@contextmanager
def masked_output(secrets: Secrets) -> Iterator[None]:
    """Mask what this thread prints (``sys.stdout``, ``sys.stderr``) and the ``UsageError``
    that leaves, for the length of the ``with`` block; ``secrets`` is asked at each line (a key
    typed during the call counts). See the module's guarantees."""
    owner = threading.current_thread()
    stdout = _MaskedStream(sys.stdout, owner, secrets)
    stderr = _MaskedStream(sys.stderr, owner, secrets)
    sys.stdout, sys.stderr = stdout, stderr
    stack: list[Secrets] = getattr(_active, "secrets", None) or []
    _active.secrets = stack
    stack.append(secrets)
    try:
        yield
    except UsageError as exc:
        message = redact(str(exc), secrets())
        if len(message) > ERROR_MAX:
            message = message[: ERROR_MAX - 1] + "…"
        raise UsageError(message) from None
    finally:
        stack.pop()
        for name, stream in (("stdout", stdout), ("stderr", stderr)):
            stream.close_filter()
            if getattr(sys, name) is stream:
                setattr(sys, name, stream._target)
