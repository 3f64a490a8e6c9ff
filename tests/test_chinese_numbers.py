"""Counts as a Chinese reader writes them (70亿 beside 7B in the Chinese edition), read back by every entry point."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmest import InputError
from llmest.learn.exercises import get as exercise
from llmest.core.i18n import speaking
from llmest.core.units import chinese_count, format_count, parse_count


@pytest.mark.parametrize("value, reading", [
    (7e9, "70亿"), (6_738_415_616, "67.4亿"), (70e9, "700亿"), (1.8e12, "1.8万亿"), (15e12, "15万亿"),
    (2.05e7, "2050万"), (50_257, "5.03万"), (99_996_000, "1亿"), (999, "999"), (-3e8, "-3亿"),
    (9.99e15, "9990万亿"), (1e16, "1e16"), (-1.795e308, "-1.79e308"),  # past 万亿 units, and past the largest float
])
def test_a_count_reads_as_a_chinese_reader_writes_it(value, reading):
    assert chinese_count(value) == reading


def test_the_chinese_edition_shows_both_readings_and_the_english_one_only_its_own():
    with speaking("zh"):
        assert format_count(7e9) == "7.00B（70亿）" and format_count(512) == "512"
    assert format_count(7e9) == "7.00B"


@given(st.floats(min_value=1e4, max_value=1e15))
def test_both_readings_are_read_back_as_the_count(value):
    with speaking("zh"):
        shown = format_count(value)
    assert parse_count(chinese_count(value)) == pytest.approx(value, rel=5e-3)
    assert parse_count(shown) == pytest.approx(value, rel=5e-3)


def test_two_readings_that_disagree_are_refused():
    with pytest.raises(InputError, match="are not the same count"):
        parse_count("7B（80亿）", "params")


def test_an_exercise_takes_the_count_as_the_chinese_edition_shows_it():
    ex = exercise("1.1")
    with speaking("zh"):
        shown = format_count(ex.expected())
    assert "亿" in shown and ex.check(shown).correct and ex.check(chinese_count(ex.expected())).correct
