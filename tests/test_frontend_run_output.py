"""The kernel's ``run_output`` for a widget view (``ViewPublisher``): live rate-limited and only
when the transcript changed, settled after the freezing update and before the widget closes,
redacted; the widget output carries the ``dsh_notebook`` run marker."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.kernel.showing import display
from dsh_notebook.kernel.showing.display import DisplayChoice, ViewPublisher
from dsh_notebook.kernel.showing.pump import LiveView
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import Settled

from .helpers.run_output import Recorder, Shell, bundle_of, text


class FakeTimer:
    made: list[FakeTimer] = []

    def __init__(self, delay: float, fn: Any, args: tuple[Any, ...]) -> None:
        self.delay, self.fn, self.args, self.daemon = delay, fn, args, False
        FakeTimer.made.append(self)

    def start(self) -> None:
        pass

    def fire(self) -> None:
        self.fn(*self.args)


def make(monkeypatch: pytest.MonkeyPatch) -> tuple[Recorder, LiveView, list[float]]:
    now = [100.0]
    FakeTimer.made = []
    monkeypatch.setattr("dsh_notebook.kernel.showing.display.threading.Timer", FakeTimer)
    monkeypatch.setattr("dsh_notebook.kernel.showing.display.time.monotonic", lambda: now[0])
    rec = Recorder()

    class Handle:
        display_id = "d1"
        update = staticmethod(rec.handle_update)

    publisher = ViewPublisher(Shell(), DisplayChoice("widget"), rec, rec, "c7")
    view = LiveView(Transcript("s", prompt="hi"), "widget", publisher, secrets=("SECRET",))
    publisher.handle = Handle()
    return rec, view, now


def sent(rec: Recorder) -> list[tuple[Any, ...]]:
    return [e for e in rec.events if e[0] == "run_output"]


def test_live_is_rate_limited_and_only_on_change(monkeypatch: pytest.MonkeyPatch) -> None:
    rec, view, now = make(monkeypatch)
    text(view.transcript, 0, "one SECRET ")
    view.publish(view, bundle_of(view))
    assert [e[1:4] for e in sent(rec)] == [("m1", "c7", "live")]  # the first one at once
    bundle = sent(rec)[0][4]
    assert "one ***" in bundle["text/markdown"] and "SECRET" not in str(bundle)
    text(view.transcript, 1, "two ")
    now[0] += 1.0
    view.publish(view, bundle_of(view))
    assert len(sent(rec)) == 1  # within 2 s: not yet, but the view is published again later
    view.publish(view, bundle_of(view))
    assert len(FakeTimer.made) == 1 and FakeTimer.made[0].delay == pytest.approx(1.05)
    view.dirty = False
    FakeTimer.made[0].fire()
    assert view.dirty  # the pump publishes it again
    now[0] += 1.5
    view.publish(view, bundle_of(view))
    assert len(sent(rec)) == 2 and "two" in sent(rec)[1][4]["text/markdown"]
    now[0] += 5
    view.publish(view, bundle_of(view))
    assert len(sent(rec)) == 2  # nothing changed: nothing sent


def test_settled_goes_after_the_freezing_update_and_before_close(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec, view, _ = make(monkeypatch)
    text(view.transcript, 0, "done SECRET")
    view.transcript.apply_local(Settled(finish_reason="completed"))
    view.settled = True
    rec.events.clear()
    view.publish(view, bundle_of(view))
    kinds = [e[0] for e in rec.events]
    assert kinds == ["display.update", "run_output", "widget.close"], kinds
    state, bundle = rec.events[1][3], rec.events[1][4]
    assert state == "settled"
    assert bundle["text/markdown"] == rec.events[0][1]  # the same transcript as the update
    assert "SECRET" not in str(bundle)
    # the static transcript keeps the run marker (the extension decorates its code blocks)
    assert rec.metadata == {"dsh_notebook": {"run": True, "model_id": "m1"}}


def test_the_widget_output_is_marked_as_a_dsh_run(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[dict[str, Any]] = []

    def fake_display(obj: Any, **kwargs: Any) -> Any:
        shown.append(kwargs)
        return object()

    monkeypatch.setattr("IPython.display.display", fake_display)
    rec = Recorder()
    display.open_view(Shell(), Transcript("s", prompt="hi"), DisplayChoice("widget"), rec, link=rec)
    assert shown[0]["metadata"] == {"dsh_notebook": {"run": True, "model_id": "m1"}}
    assert shown[0]["display_id"] is True


def test_no_live_markdown_is_rendered_while_no_page_extension_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec, view, _ = make(monkeypatch)
    rec.present = False
    text(view.transcript, 0, "one ")
    view.publish(view, bundle_of(view))
    assert sent(rec) == []
    view.settled = True
    view.publish(view, bundle_of(view))
    assert [e[3] for e in sent(rec)] == ["settled"]  # the settled one is always sent
