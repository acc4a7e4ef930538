"""The demo analyst on the natural questions of :mod:`tests.analyst_questions`: each answer
holds the value pandas computes for the question's reading (whole turns, real notebook tools,
no runtime)."""

from __future__ import annotations

import pytest

from .analyst_questions import QUESTIONS, Question, check


@pytest.mark.parametrize(
    "question",
    QUESTIONS,
    ids=[q.prompt if isinstance(q.prompt, str) else q.prompt[0] for q in QUESTIONS],
)
def test_the_answer_is_the_computation_asked_for(question: Question) -> None:
    why, answer = check(question)
    assert why is None, f"{why}\n\n{answer}"
