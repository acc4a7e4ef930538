"""A turn that computes a reading (:mod:`.reading`): one approved ``run_python`` of its pandas
(:mod:`.reading_code`), then the answer read back from that call's output only."""

from __future__ import annotations

from ..scripted_model import Step
from . import compose
from .reading import Reading
from .reading_code import reading_program, y_label
from .results import error_line, printed_text, read_number, read_printed, unread_answer, value_text
from .turn import Turn, say

__all__ = ["reading_answer", "reading_step"]


def reading_step(turn: Turn, reading: Reading) -> Step:
    """Compute a reading in the kernel (approved ``run_python``), then answer from its output."""
    code = reading_program(reading)
    if not turn.offers("run_python"):
        return say("`run_python` is turned off in this kernel, so I cannot compute in it.")
    ran = turn.done("run_python")
    if not ran and turn.parent is not None:
        return say(
            "I am a subagent and cannot ask for approval, so I did not run code in your kernel; "
            'ask without "in the background" to compute this.'
        )
    if not ran:
        return turn.call(
            "run_python",
            {"code": code},
            f"I will compute {reading.describe()} in your kernel with `run_python` (it asks for "
            "your approval).",
        )
    result = ran[-1].result or ""
    if ran[-1].is_error or error_line(result):
        return say(unread_answer(result or "no output"))
    return say(reading_answer(reading, result))


def reading_answer(reading: Reading, result: str) -> str:
    said = reading.describe()
    if reading.by is None or (reading.trend and reading.group is None):
        number = read_number(value_text(result) or "")
        if number is None:
            return unread_answer(result)
        unit = f" per {reading.grain}" if reading.trend else ""
        return compose.reading_value(number, read=said, why=reading.why, unit=unit)
    items = read_printed(printed_text(result) or "")
    if items is None:
        return (
            f"I computed {said} in your kernel (the `run_python` call above shows it), but it "
            "has more rows than I can read back from the tool's output, so I state no numbers "
            "from it."
        )
    if reading.trend:
        slopes = compose.trend_answer(items, value=reading.measure, unit=f"per {reading.grain}")
        return f"I read {said}.\n\n{slopes}"
    drew = ""
    if reading.plot is not None:
        drew = (
            f"I drew it as a {reading.plot} chart ({reading.by} across, {y_label(reading)} up); "
            "the figure is under the `run_python` call above."
        )
    return compose.reading_groups(
        items, read=said, by=str(reading.by), label=y_label(reading), best=reading.best,
        time_order=reading.grain is not None and reading.best is None, why=reading.why, drew=drew,
    )  # fmt: skip
