"""No piece of the API key leaves the kernel, at any exit of agent output: the one masking
function (:func:`dsh_notebook.runtime.redact`), then each exit fed the canary (what the three
prints of an approved ``run_python`` write, see :mod:`tests.canary`): the tool result for the
model, the agent cell, the live widget state, the static transcripts, ``run_output`` to the
page, the runtime's stderr in an error, and, in a kernel with the fake runtime, ``%dsh export``,
the kept transcript and the conversations index. The real-kernel path is
``tests/test_key_pieces_kernel.py``."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.kernel.showing.display import DisplayChoice, ViewPublisher
from dsh_notebook.kernel.showing.pump import LiveView
from dsh_notebook.notebook_tools.masking import mask_result
from dsh_notebook.notebook_tools.mcp_shapes import ImageBlock, TextBlock, ToolResult
from dsh_notebook.runtime import Secret, redact
from dsh_notebook.runtime.process import StderrTail
from dsh_notebook.runtime.secret import MASK
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import Note, RunError

from .canary import HALF, KEY, PRINTED, key_pieces
from .helpers.kernel import run_cell
from .helpers.run_output import Recorder, Shell, bundle_of, text

LABEL = "[masked: DEEPSEEK_API_KEY]"
"""What the key reads as in a kernel (the kernel's policy names it)."""

# -- the function ------------------------------------------------------------------------------


def test_the_three_prints_are_masked_whole() -> None:
    assert key_pieces(PRINTED) > 0
    assert redact(PRINTED, (KEY,)) == "***\n***\n***\n***\n"
    # the halves in two outputs (two strings), and a slice inside a word
    halves = [{"name": "stdout", "text": KEY[:HALF]}, {"name": "stdout", "text": KEY[HALF:]}]
    assert redact(halves, (KEY,)) == [{"name": "stdout", "text": MASK}] * 2
    assert redact(f"x{KEY[3:14]}y", (KEY,)) == "x***y"


def test_pieces_shorter_than_eight_and_short_secrets() -> None:
    assert redact(f"{KEY[:7]} and {KEY[-7:]}", (KEY,)) == f"{KEY[:7]} and {KEY[-7:]}"
    assert redact(f"{KEY[:7]}{KEY[20:]}", (KEY,)) == f"{KEY[:7]}{MASK}"
    assert redact("a pin 1234 here, 12345 there", ["1234", "", "ab"]) == (
        "a pin *** here, ***5 there"
    )
    assert redact("pin 1234567 but not 123456", ["1234567"]) == "pin *** but not 123456"
    assert redact("nothing to hide", []) == "nothing to hide"
    assert redact(f"x {KEY} y", [Secret(KEY)]) == "x *** y"  # by its value, not its str()


def test_two_secrets_and_a_secret_that_repeats_a_stretch() -> None:
    other = "another-secret-value-42"
    assert redact(f"{KEY[:10]} {other[5:15]}", (KEY, other)) == "*** ***"
    # "defgh" twice in the secret: each piece is grown at the offset it agrees with
    twice = "abcdefghXabcdefghY"
    assert redact("--bcdefghX--bcdefghY--cdefghY", (twice,)) == "--***--***--cdefghY"


def test_only_base64_payloads_are_not_searched() -> None:
    png = base64.b64encode(KEY.encode()).decode()
    value = {
        "output_type": "display_data",
        "data": {"image/png": KEY, "image/svg+xml": f"<text>{KEY}</text>", "text/plain": KEY},
        "content": [{"type": "image", "data": png}, {"type": "audio", "data": KEY},
                    {"type": "text", "data": KEY}, {"blob": KEY, "text": KEY}],
        KEY: (KEY[:12], 1, None),
    }  # fmt: skip
    masked = redact(value, (KEY,))
    assert masked["data"] == {"image/png": KEY, "image/svg+xml": "<text>***</text>",
                              "text/plain": MASK}  # fmt: skip
    assert masked["content"] == [{"type": "image", "data": png}, {"type": "audio", "data": KEY},
                                 {"type": "text", "data": MASK}, {"blob": KEY, "text": MASK}]  # fmt: skip
    assert masked[MASK] == (MASK, 1, None)
    assert value["data"]["text/plain"] == KEY  # pure: the given value is not changed


def test_a_clean_value_is_returned_as_it_is() -> None:
    value = {"items": [{"text": "fine"}] * 3, "image/png": KEY}
    assert redact(value, (KEY,)) is value
    # a secret holding the separator the texts are joined with: each text is searched alone
    holder = "abcd\x00efgh"
    texts = ["abcd", "efgh"]
    assert redact(texts, (holder,)) is texts
    assert redact([f"x{holder}"], (holder,)) == ["x***"]


def test_random_texts_keep_no_piece_and_never_grow() -> None:
    rng = random.Random(7)
    alphabet = "abcdef0123456789 -\nsk"
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 6)):
            parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))))
            start = rng.randint(0, len(KEY) - 1)
            parts.append(KEY[start : start + rng.randint(1, len(KEY))])
        sample = "".join(parts)
        masked = redact(sample, (KEY,))
        assert key_pieces(masked) == 0, (sample, masked)
        assert len(masked) <= len(sample)


# -- the exits ---------------------------------------------------------------------------------


def test_tool_result_for_the_model() -> None:
    png = base64.b64encode(b"\x89PNG").decode()
    result = ToolResult(
        (
            TextBlock(f"stdout:\n{PRINTED}"),
            ImageBlock(png),
            TextBlock(f"parts: {KEY[:HALF]} and {KEY[HALF:]}"),
        )
    )
    masked = mask_result(result, (KEY,))
    assert key_pieces(json.dumps(masked.wire())) == 0
    assert masked.content[1] == result.content[1]


def canary_transcript() -> Transcript:
    """A transcript where agent output repeats the prints: the answer, an error and a note."""
    transcript = Transcript("s", prompt="go")
    text(transcript, 0, f"I printed:\n{PRINTED}")
    transcript.apply_local(Note(text=f"note {KEY[:12]}"))
    transcript.apply_local(RunError(message=f"provider said {KEY[:12]}", detail=PRINTED, hint=None))
    return transcript


@pytest.mark.parametrize("fmt", ["widget", "markdown", "text"])
def test_live_widget_state_and_static_transcripts(fmt: str) -> None:
    view = LiveView(canary_transcript(), fmt, lambda view, bundle: None, secrets=(KEY,))
    assert key_pieces(view.transcript.snapshot()) > 0  # the canary is there to be masked
    assert key_pieces(bundle_of(view)) == 0  # the live snapshot (widget) or the transcript
    view.settled = True
    assert key_pieces(bundle_of(view)) == 0  # the static transcript that is saved


class FinalRecorder(Recorder):
    def update(self, snapshot: Any, final: bool = False) -> None:
        self.events.append(("widget.update", snapshot))


@pytest.mark.parametrize("keep_widget", [False, True])
def test_run_output_to_the_page_and_the_final_widget_state(keep_widget: bool) -> None:
    rec = FinalRecorder()

    class Handle:
        display_id = "d1"
        update = staticmethod(rec.handle_update)

    choice = DisplayChoice("widget", keep_widget=keep_widget)
    publisher = ViewPublisher(Shell(), choice, rec, rec, "c7")
    view = LiveView(canary_transcript(), "widget", publisher, secrets=(KEY,))
    publisher.handle = Handle()
    view.publish(view, bundle_of(view))  # live: the snapshot to the widget, run_output "live"
    view.settled = True
    view.publish(view, bundle_of(view))  # settled: the transcript (or the kept widget's final state)
    assert len(rec.events) >= 3, rec.events
    assert key_pieces([list(e) for e in rec.events]) == 0


def test_the_runtimes_stderr_in_an_error() -> None:
    tail = StderrTail(secrets=(Secret(KEY),))
    tail.feed(f"auth failed:\n{PRINTED}".encode())
    assert key_pieces(tail.text()) == 0 and MASK in tail.text()


def test_export_kept_transcript_and_index_in_a_kernel(
    ip: InteractiveShell,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fake runtime answers with the prints (an agent that repeats what it read); the
    prompt names a slice (the conversations index keeps the first prompt)."""
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    run_cell(ip, "-s canary", f"[[reply:{PRINTED}]] mine starts {KEY[:12]}, go")
    shown = capsys.readouterr()
    assert "I printed" not in shown.out and LABEL in shown.out  # the static transcript (text)
    assert key_pieces(shown.out + shown.err) == 0
    target = tmp_path / "t.md"
    ip.run_line_magic("dsh", f"export canary --to {target}")
    ip.run_line_magic("dsh", "export canary --format json")
    exported = capsys.readouterr().out
    ip.run_line_magic("dsh", "export canary --format text")
    plain = capsys.readouterr().out
    assert LABEL in plain and key_pieces(plain) == 0 and not plain.startswith("**dsh**")
    assert LABEL in target.read_text() and f'"final_response": "{LABEL}\\n{LABEL}' in exported
    assert key_pieces(target.read_text()) == 0 and key_pieces(exported) == 0
    stored = {
        str(path.relative_to(tmp_path)): path.read_text()
        for path in (tmp_path / "home" / "dsh_notebook").rglob("*")
        if path.is_file()
    }
    kinds = {name.split("/")[2] for name in stored}
    assert {"ledger", "conversations"} <= kinds, sorted(stored)
    assert {name: key_pieces(body) for name, body in stored.items()} == dict.fromkeys(stored, 0)
    assert any(LABEL in json.loads(body).get("bundle", {}).get("text/plain", "")
               for body in stored.values() if '"bundle"' in body)  # fmt: skip
