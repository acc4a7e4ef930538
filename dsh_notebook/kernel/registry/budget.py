"""A run's budget: the tokens and seconds it may spend, and the step that crossed them.

:func:`run_budget` reads ``%%dsh --max-tokens N`` / ``--max-time SECONDS`` over the
``max_run_tokens`` / ``max_run_seconds`` settings (a value that is not a positive number is a
``ValueError`` of one line). :class:`BudgetMeter` follows the run's notifications on the host
thread, in order: it sums the tokens of every ``assistant/message`` ``usage`` (the run's own steps
and its subagents', the same sum the transcript's header shows) and, at each of those step
boundaries that would go on (the step asked for tools: the model is asked again after them),
says once which budget the run has now crossed and what it spent. A step that answers ends
its run by itself and is never stopped.

Guarantees: a budget is only ever checked at a step boundary (the model's reply is whole and
kept), never in the middle of one; :meth:`BudgetMeter.observe` returns a reason at most once.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...protocol import SESSION_EVENT, Notification
from ...transcript.nodes import UsageTotals

__all__ = ["OTHER_RUN_BUDGET", "BudgetMeter", "KernelSpend", "RunBudget", "run_budget"]

OTHER_RUN_BUDGET = (
    "Stopped: another run's budget restarted the runtime (there is no cancel on the wire); "
    "this session's history is kept."
)
"""The note of a run in flight when another run's budget stopped the runtime."""


@dataclass(frozen=True)
class RunBudget:
    """What one run may spend (``None``: no limit); ``kernel_tokens``: what all runs of this
    kernel together may spend (the ``max_kernel_tokens`` setting)."""

    tokens: int | None = None
    seconds: float | None = None
    kernel_tokens: int | None = None

    @property
    def limited(self) -> bool:
        return self.tokens is not None or self.seconds is not None or self.kernel_tokens is not None


class KernelSpend:
    """The tokens every run of this kernel spent so far (any thread; one per kernel)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens = 0

    def add(self, tokens: int) -> int:
        """Count ``tokens`` more; returns the new total."""
        with self._lock:
            self._tokens += max(tokens, 0)
            return self._tokens

    @property
    def tokens(self) -> int:
        with self._lock:
            return self._tokens


def _positive_tokens(value: str | int, flag: str) -> int:
    try:
        tokens = int(str(value).replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(f"{flag} takes a positive whole number of tokens, not {value!r}") from None
    if tokens <= 0:
        raise ValueError(f"{flag} takes a positive whole number of tokens, not {value!r}")
    return tokens


def _positive_seconds(value: str | int | float, flag: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"{flag} takes a positive number of seconds, not {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"{flag} takes a positive number of seconds, not {value!r}")
    return seconds


def run_budget(
    max_tokens: str | None,
    max_time: str | None,
    *,
    default_tokens: int | None = None,
    default_seconds: int | None = None,
    kernel_tokens: int | None = None,
    kernel_spent: int = 0,
) -> RunBudget:
    """The budget of a run: the cell's options, else the settings' defaults. A value that is
    not a positive number (``0`` included) raises ``ValueError`` naming the option, and so does
    a kernel whose ``kernel_tokens`` budget is spent already (``kernel_spent``)."""
    if kernel_tokens is not None:
        _positive_tokens(kernel_tokens, "DshMagics.max_kernel_tokens")
        if kernel_spent >= kernel_tokens:
            raise ValueError(
                f"this kernel spent its token budget: {kernel_spent:,} tokens "
                f"(DshMagics.max_kernel_tokens {kernel_tokens:,}); raise it or restart the kernel"
            )
    tokens = (
        _positive_tokens(max_tokens, "--max-tokens")
        if max_tokens is not None
        else (
            None
            if default_tokens is None
            else _positive_tokens(default_tokens, "DshMagics.max_run_tokens")
        )
    )
    seconds = (
        _positive_seconds(max_time, "--max-time")
        if max_time is not None
        else (
            None
            if default_seconds is None
            else _positive_seconds(default_seconds, "DshMagics.max_run_seconds")
        )
    )
    return RunBudget(tokens, seconds, kernel_tokens)


def _seconds_words(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 100 else f"{seconds:,.0f} s"


def _goes_on(message: object) -> bool:
    """The step asked for tools (a ``tool-call`` block): the model would be asked again."""
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool-call" for b in content
    )


class BudgetMeter:
    """Follows one run against its :class:`RunBudget` (host thread, in order).

    The clock starts at :meth:`start` (the run's turn on its session), so a run queued behind
    another is not charged for the wait."""

    def __init__(
        self,
        budget: RunBudget,
        clock: Callable[[], float] = time.monotonic,
        kernel: KernelSpend | None = None,
    ) -> None:
        """``kernel``: this kernel's spend, which every step's tokens are added to (and which
        ``budget.kernel_tokens`` bounds)."""
        self.budget = budget
        self.usage = UsageTotals()
        self._kernel = kernel
        self._clock = clock
        self._started: float | None = None
        self.crossed: str | None = None
        """Why the run was stopped (the reason :meth:`observe` returned), once it was."""

    def start(self) -> None:
        self._started = self._clock()

    @property
    def elapsed(self) -> float:
        return 0.0 if self._started is None else self._clock() - self._started

    def observe(self, notification: Notification) -> str | None:
        """The reason to stop the run now, once: this notification ends a model step
        (``assistant/message``) that asked for tools, and the run is past a budget. Else
        ``None``. Every step's tokens count, the answers' and subagents' too."""
        params = notification.params
        if notification.method != SESSION_EVENT or not isinstance(params, dict):
            return None
        event = params.get("event")
        if not isinstance(event, dict) or event.get("type") != "assistant/message":
            return None
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        usage = data.get("usage")
        before = self.usage.total_tokens
        if isinstance(usage, dict):
            self.usage.add(usage)
        kernel_spent = (
            None if self._kernel is None else self._kernel.add(self.usage.total_tokens - before)
        )
        if self.crossed is not None or not self.budget.limited:
            return None  # counted (the kernel's spend too), nothing (more) to stop
        if not _goes_on(data.get("message")):
            return None  # an answer: its run (or subagent) ends by itself, nothing to stop
        spent = self.usage.total_tokens
        budget = self.budget
        if budget.tokens is not None and spent >= budget.tokens:
            self.crossed = (
                f"Stopped by the token budget: {spent:,} tokens spent "
                f"(--max-tokens {budget.tokens:,}), after {_seconds_words(self.elapsed)}."
            )
        elif (
            budget.kernel_tokens is not None
            and kernel_spent is not None
            and kernel_spent >= budget.kernel_tokens
        ):
            self.crossed = (
                f"Stopped by the kernel's token budget: {kernel_spent:,} tokens spent by this "
                f"kernel (DshMagics.max_kernel_tokens {budget.kernel_tokens:,}), {spent:,} by "
                "this run."
            )
        elif budget.seconds is not None and self.elapsed >= budget.seconds:
            self.crossed = (
                f"Stopped by the time budget: {_seconds_words(self.elapsed)} spent "
                f"(--max-time {budget.seconds:g} s), {spent:,} tokens."
            )
        return self.crossed
