"""A run in progress keeps its live transcript, marked interrupted (issue 24, item 5): the
ledger's record of it, the skipped cell's note, and the note when nothing was kept."""

from __future__ import annotations

import time
from pathlib import Path

from dsh_notebook.kernel.options.settings import KernelSettings
from dsh_notebook.kernel.persistence.kept import INTERRUPTED, keepable, skipped_bundle
from dsh_notebook.kernel.persistence.ledger import PromptLedger
from dsh_notebook.kernel.run import Frontend, RunOptions, plan_run
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import ApprovalRequested

KEY = "sk-live-transcript-key-0123456789"


def live_transcript() -> Transcript:
    transcript = Transcript("s", prompt=f"count the rows, the key is {KEY}")
    transcript.apply_local(
        ApprovalRequested(request_id="a1", session_id="s", tool_name="run_python")
    )
    return transcript


def test_the_live_transcript_is_kept_masked_and_read_back_as_interrupted(tmp_path: Path) -> None:
    ledger = PromptLedger(tmp_path)
    bundle, variables = keepable(live_transcript(), (KEY,))
    assert KEY not in str(bundle) and KEY[:12] not in str(bundle)  # every exit is masked
    before = time.time()
    assert ledger.keep_transcript("s", "p", bundle, variables, interrupted=True)
    kept = ledger.kept("s", "p")
    assert kept is not None and kept.interrupted
    assert kept.time is not None and kept.time >= before - 1
    assert "awaiting a decision" in kept.bundle["text/markdown"]
    # the settled transcript replaces it, and is not interrupted
    assert ledger.keep_transcript("s", "p", {"text/plain": "settled"}, [])
    settled = ledger.kept("s", "p")
    assert settled is not None and not settled.interrupted


def test_a_skipped_interrupted_transcript_says_so_and_a_settled_one_does_not() -> None:
    bundle, _ = keepable(live_transcript(), ())
    shown = skipped_bundle(bundle, ["rows"], "s", interrupted=True, kept_at=0.0)
    assert shown["text/markdown"].startswith(f"> **dsh** {INTERRUPTED}.")
    assert shown["text/plain"].startswith(f"dsh: {INTERRUPTED}.")
    assert "awaiting a decision" in shown["text/markdown"]  # the card as it was
    assert "`rows`" in shown["text/markdown"]  # what its approved code had made
    settled = skipped_bundle(bundle, [], "s")
    assert INTERRUPTED not in settled["text/markdown"] + settled["text/plain"]


def test_the_skip_note_never_claims_a_transcript_in_the_saved_notebook() -> None:
    plan = plan_run(
        "hi",
        RunOptions(),
        session_id="nb-x",
        settings=KernelSettings(),
        frontend=Frontend(terminal=False, stdin=True),
        namespace={},
        errors={},
        execution_count=1,
        answered_before=lambda session, prompt: True,
    )
    assert plan.skipped is not None and "already answered" in plan.skipped
    assert "saved notebook" not in plan.skipped
