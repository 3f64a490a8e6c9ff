"""The assert-style checks an autograder's test cells call: exercise(key).assert_form(answer) in the visible part,
assert_ok(answer) in the hidden part, each raising with the message the exercise box shows."""

import html
import re

import pytest

from llmest.learn.exercises import EXERCISES
from llmest.learn.exercises import get as exercise
from llmest.core.units import show

pytest.importorskip("ipywidgets")
from llmest.surfaces.widgets import exercise_widget  # noqa: E402

KEYS = sorted(EXERCISES)


def shown_in_the_box(ex, entry: str) -> str:
    """The verdict the exercise box shows for ``entry``, as text."""
    box = exercise_widget(ex)
    box.entry.value = entry
    box.check_button.click()
    return html.unescape(re.sub(r"<[^>]*>", "", box.verdict.value))


def failure(check, answer) -> str:
    with pytest.raises(AssertionError) as err:
        check(answer)
    return str(err.value)


@pytest.mark.parametrize("key", KEYS)
def test_the_right_answer_passes_both_checks(key):
    ex = exercise(key)
    right = show(ex.expected(), ex.unit)
    ex.assert_form(right)
    ex.assert_ok(right)


@pytest.mark.parametrize("key", KEYS)
def test_a_wrong_answer_passes_the_form_and_fails_the_value_with_the_boxs_message(key):
    ex = exercise(key)
    wrong = show(ex.expected() * 10, ex.unit)
    ex.assert_form(wrong)
    message = failure(ex.assert_ok, wrong)
    assert message == shown_in_the_box(ex, wrong)
    assert message.startswith(("Not yet", "Close", "Not enough")) and show(ex.expected(), ex.unit) not in message


@pytest.mark.parametrize("key", KEYS)
def test_no_answer_or_an_unreadable_one_fails_the_form(key):
    ex = exercise(key)
    assert failure(ex.assert_form, None).startswith("No answer yet")
    message = failure(ex.assert_form, "lots")
    assert message == shown_in_the_box(ex, "lots") and "your answer 'lots'" in message and "answer ==" not in message
    assert failure(ex.assert_ok, None) == failure(ex.assert_form, None)
