"""One state of a run's transcript and its renderings, each made at most once.

A :class:`Rendering` holds one snapshot of a transcript (one ``seq``) and the secrets to mask;
each form of it (the masked snapshot, the markdown transcript, its one-line companion, the
plain-text transcript) is rendered the first time it is asked for and then reused. A settle
asks for the same state several times (the IOPub update, the page extension's ``run_output``,
the copy kept for Restart & Run All): they share one snapshot and one markdown render.

:func:`published_bundle` is the pure choice of what a view publishes from a rendering.

Guarantees: every string handed out is masked (:func:`~dsh_notebook.runtime.redact`) and
encodes as UTF-8 (lone surrogates become U+FFFD); the snapshot is never changed (callers must
not change what they are given either: it is shared). Not thread-safe: the pump thread (which
owns the transcript) makes and reads renderings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...context.sanitize import encodable
from ...runtime import redact
from ...transcript import Transcript, markdown_companion
from ...transcript.markdown import render_markdown
from ...transcript.schema import Snapshot
from ...transcript.text import render_text, summary_line

if TYPE_CHECKING:
    from ...runtime.secret import Secrets

__all__ = ["PLAIN_KEY", "Rendering", "published_bundle", "rendering_of"]

PLAIN_KEY = "text/x-dsh-plain"
"""The key of the whole plain-text transcript in :attr:`Rendering.interrupted` (never a MIME
type anything is shown as)."""


@dataclass(frozen=True)
class Rendering:
    """One snapshot of a transcript, rendered lazily, each form once (see the module docstring)."""

    seq: int
    """The transcript's ``seq`` the snapshot was taken at."""
    snapshot: Snapshot
    """Unmasked; read-only."""
    secrets: Secrets = ()

    @cached_property
    def masked_snapshot(self) -> Snapshot:
        """The snapshot, masked (what the widget is sent)."""
        return encodable(redact(self.snapshot, self.secrets))

    @cached_property
    def markdown(self) -> str:
        """The static transcript as sanitized markdown, masked."""
        return encodable(redact(render_markdown(self.snapshot), self.secrets))

    @cached_property
    def companion(self) -> str:
        """The one-line ``text/plain`` kept beside :attr:`markdown`, masked."""
        return encodable(redact(markdown_companion(summary_line(self.snapshot)), self.secrets))

    @cached_property
    def text(self) -> str:
        """The whole plain-text transcript, masked (its first line is the summary line)."""
        return encodable(redact(render_text(self.snapshot), self.secrets))

    @cached_property
    def interrupted(self) -> dict[str, str]:
        """The copy of a run in progress for where it cannot go on (the ledger's live keep,
        shown after a restart; the page's ``live`` run output, what a save keeps and a
        restarted page shows): ``text/markdown``, its one-line ``text/plain`` companion and
        the whole plain text (``text/x-dsh-plain``), masked; nothing in them reads as waiting
        (``closed_view(interrupted=True)``, issue 48)."""
        markdown = render_markdown(self.snapshot, interrupted=True)
        companion = markdown_companion(summary_line(self.snapshot, interrupted=True))
        text = render_text(self.snapshot, interrupted=True)
        return {
            "text/markdown": encodable(redact(markdown, self.secrets)),
            "text/plain": encodable(redact(companion, self.secrets)),
            PLAIN_KEY: encodable(redact(text, self.secrets)),
        }


def rendering_of(transcript: Transcript, secrets: Secrets = ()) -> Rendering:
    """A rendering of ``transcript``'s state now (one snapshot; nothing rendered yet)."""
    return Rendering(transcript.seq, transcript.snapshot(), secrets)


def published_bundle(rendering: Rendering, fmt: str, settled: bool) -> dict[str, Any]:
    """What a view of format ``fmt`` publishes: a live ``widget`` view its (masked) snapshot,
    a ``text`` view the plain-text transcript, any other the markdown transcript with its
    one-line ``text/plain`` companion."""
    if fmt == "widget" and not settled:
        return {"snapshot": rendering.masked_snapshot}
    if fmt == "text":
        return {"text/plain": rendering.text}
    return {"text/markdown": rendering.markdown, "text/plain": rendering.companion}
