"""Exercises: grading, messages for entries that are not numbers, hints, and the widget."""

import pytest

import llmest as le
from llmest import model as m
from llmest.exercises import EXERCISES, Exercise


def test_every_exercise_has_a_positive_answer_and_hints():
    assert EXERCISES
    for ex in EXERCISES.values():
        assert ex.expected() > 0 and ex.hints and ex.question.endswith(("?", ".", ")"))
        assert ex.check(ex.expected()).correct


def test_chapter_1_answers_come_from_the_library():
    assert le.exercise("1.2").expected() == 494_032_768  # Qwen2-0.5B, as transformers builds it
    assert le.exercise("1.5").expected() == le.count_params(le.preset("mixtral-8x22b")).active
    assert le.exercise("1.1").expected() == m.rule_params(2048, 24, 50000)


@pytest.mark.parametrize("entry, grade", [
    ("1.31B", "correct"), ("1.31e9", "correct"), ("1.3 billion", "correct"), ("13.1亿", "correct"),
    ("1B", "close"), ("2.2 billion", "close"), ("1.2 T", "wrong"), ("0.5B", "wrong"),
    ("", "empty"), (None, "empty"), ("abc", "invalid"), ("7X", "invalid"), ("-3", "invalid"), (0, "invalid"),
])
def test_grades(entry, grade):
    verdict = le.exercise("1.1").check(entry)
    assert verdict.grade == grade, verdict.message
    assert "Traceback" not in verdict.message


def test_a_wrong_answer_does_not_reveal_the_answer():
    ex = le.exercise("1.2")
    for entry in ("0.3B", "2B", "494M", "494,032,000"):
        assert "494,032,768" not in ex.check(entry).message


def test_messages_name_the_problem():
    ex = le.exercise("1.1")
    assert ex.check("abc").message.startswith("Could not read that: answer == 'abc' is not a number")
    assert "too low" in ex.check("1B").message and "too high" in ex.check("1.2T").message


def test_hints_come_one_at_a_time():
    ex = Exercise("9.9", "A question?", lambda: 1.0, hints=("first", "second"))
    assert ex.hint() == "Hint 1: first"
    assert ex.hint() == "Hint 1: first\nHint 2: second"
    assert ex.hint() == "Hint 1: first\nHint 2: second"


def test_unknown_exercise():
    with pytest.raises(le.InputError, match="exercise == '1.9'"):
        le.exercise("1.9")


def test_exercise_widget_grades_what_is_typed():
    pytest.importorskip("ipywidgets")
    box = le.exercise("1.6").widget()
    box.entry.value = "80.4M"
    box.check_button.click()
    assert "Correct" in box.verdict.value
    box.entry.value = "forty"
    box.check_button.click()
    assert "Could not read that" in box.verdict.value and "Traceback" not in box.verdict.value
    box.hint_button.click()
    assert "Hint 1" in box.hints.value
