"""The demo analyst: a small rule-based model (no LLM) that answers data questions for real.

Without ``DEEPSEEK_API_KEY`` the kernel's demo model server routes every *untagged* prompt here
(prompts tagged ``[[scenario:NAME]]`` still get the scripted scenarios the tests use). The
analyst recognizes a documented set of question types (:mod:`.intents`), matches names against
what really exists in the kernel (:mod:`.names`), works through the notebook tools and the
runtime's own tools one call per reply (:mod:`.respond`, :mod:`.plans`, :mod:`.scripts`) and
answers only from the results it got back (:mod:`.compose`). Standard library only: pandas runs
inside the kernel, through ``run_python``.

One concept per module:

* :mod:`.turn` - the request as a turn: prompt, offered tools, tool calls with results.
* :mod:`.intents` - the question types and :func:`recognize`.
* :mod:`.names` - the kernel's variables and a frame's columns, and matching words to them.
* :mod:`.reading` - the reading contract: a question about a frame as an explicit reading
  (measure, statistic, conditions, grouping or time grain, best and runner-up, trend, plot),
  every content word accounted for; what it cannot read is named, never dropped.
* :mod:`.reading_code` - the pandas for a reading.
* :mod:`.plans` - the ``run_python`` programs: idiomatic pandas whose last line is the result.
* :mod:`.results` - reading that result back from the tool result's text.
* :mod:`.explain` - explaining a cell's error (Ask dsh) from the kernel's real names.
* :mod:`.fix` - Fix with dsh: the one-line change as an ``edit_cell``, then ``run_cells``.
* :mod:`.scripts` - scripts written with ``write`` and run with ``bash``.
* :mod:`.compose` - the answer texts.
* :mod:`.respond` - the next step (:func:`respond`, a scripted-model step factory).
"""

from ..scripted_model import Script
from .compose import HELP, REJECTED
from .intents import Intent, recognize
from .respond import next_step, respond

__all__ = [
    "ANALYST_SCENARIO",
    "HELP",
    "REJECTED",
    "Intent",
    "analyst_script",
    "next_step",
    "recognize",
    "respond",
]

#: The scenario name the analyst is registered under on the demo model server.
ANALYST_SCENARIO = "analyst"


def analyst_script() -> Script:
    """The analyst as a script: :func:`respond` answers every step of a turn."""
    return Script(
        steps=(respond,), description="the demo analyst (untagged prompts)", repeat_last=True
    )
