"""The demo analyst on the questions people ask of a data frame (:mod:`tests.frame_questions`,
issue 47): whole turns with the real notebook tools, every answer judged against pandas. A wrong
answer is the worst outcome: none is allowed, and at least 80 % must be right."""

from __future__ import annotations

import pytest

from .frame_questions import QUESTIONS, Question, ask, judge


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.prompt for q in QUESTIONS])
def test_no_answer_is_to_a_different_question(question: Question) -> None:
    verdict, why, answer = ask(question)
    assert verdict != "wrong", f"{why}\n\n{answer}"


def test_at_least_80_percent_are_right_and_none_wrong() -> None:
    verdicts = [ask(q)[0] for q in QUESTIONS]
    assert len(QUESTIONS) >= 60
    assert verdicts.count("wrong") == 0
    assert verdicts.count("right") >= 0.8 * len(QUESTIONS), verdicts


def test_the_judge_tells_a_different_question_from_a_decline() -> None:
    count = next(q for q in QUESTIONS if q.prompt == "How many trips were longer than 30 minutes?")
    # the unfiltered count (the first example) is wrong, an honest decline is not
    assert judge(count, "I counted the rows. The number of rows is **1,500**.", [])[0] == "wrong"
    declined = "I read the number of rows of `trips`, but I could not use 'longer than 30 minutes'"
    assert judge(count, declined, [])[0] == "declined"
