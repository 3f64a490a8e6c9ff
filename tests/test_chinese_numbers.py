"""Counts as a Chinese reader writes them (70亿 beside 7B in the Chinese edition), read back by every entry point;
GPU-hours and dollars with the same reading; and no space after a full-width bracket or punctuation mark."""

import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmest import InputError
from llmest.learn import drills, flashcards
from llmest.learn.exercises import get as exercise
from llmest.learn.grading import read_entry
from llmest.core.i18n import _, spaced, speaking, tidy
from llmest.core.units import UNITS, chinese_count, format_count, parse_count, show


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


# ---- spacing: no space after a full-width bracket or punctuation mark --------------------------------------------

# A space Chinese does not take: after full-width punctuation, or between two Chinese characters (a chapter's number
# and its title aside: "第3章 反向预算").
FULLWIDTH_THEN_SPACE = re.compile(r"[（）、，。：；！？] (?=\S)|[\u4e00-\u9fff](?<!章) [\u4e00-\u9fff]")


def test_a_label_follows_a_full_width_bracket_without_a_space():
    with speaking("zh"):
        assert UNITS["tokens"].show(235e9) == "235B（2350亿）token"
        assert UNITS["tokens"].show(512) == "512 token"  # Latin letters and digits stay spaced
        assert tidy("235B（2350亿） token，共 3 轮。 (a) 每个") == "235B（2350亿）token，共 3 轮。(a) 每个"
        assert tidy("8.91 天 与 8.91 天 相差；见第3章 反向预算") == "8.91 天与 8.91 天相差；见第3章 反向预算"
        assert spaced("7B", "模型") == "7B 模型" and spaced("7B（70亿）", "模型") == "7B（70亿）模型"
    assert UNITS["tokens"].show(235e9) == "235B tokens" and tidy("a（b） c") == "a（b） c"  # English as it was


def test_a_translated_text_filled_in_keeps_the_rule():
    """The catalog writes "{tokens} token"; a count from 10,000 up ends in its reading's bracket."""
    with speaking("zh"):
        assert _("How many for {tokens} tokens?").format(tokens=format_count(1.4e12)) == \
            "1.40T（1.4万亿）token 共需多少？"
        assert _("How many for {tokens} tokens?").format(tokens=format_count(512)) == "512 token 共需多少？"


def test_a_verdict_does_not_space_a_chinese_unit_from_the_next_word():
    """The verdict's "{shown} 与 {expected} 相差" read "8.91 天 与 8.91 天 相差" with a unit written in Chinese."""
    ex = exercise("3.2")  # days
    with speaking("zh"):
        shown = show(ex.expected(), ex.unit)
        message = ex.check(shown).message
    assert shown.endswith(" 天") and f"{shown}与 {shown}相差不超过" in message, message


def _drill_texts():
    for key in drills.TEMPLATES:
        for level in drills.LEVELS:
            for seed in range(2):
                problem = drills.generate(key, seed, level)
                parts = [(part.question, part.answer_text, *part.steps) for part in problem.parts]
                yield key, (problem.question, problem.hint or "", problem.answer_text, *problem.steps,
                            *(text for texts in parts for text in texts))


def test_no_chinese_drill_text_has_a_space_after_full_width_punctuation():
    found = []
    with speaking("zh"):
        for key, texts in _drill_texts():
            found += [(key, text[max(m.start() - 20, 0): m.end() + 10]) for text in texts
                      for m in FULLWIDTH_THEN_SPACE.finditer(text)]
        found += [("card", text) for card in flashcards.cards() for text in (card.front, card.back)
                  if FULLWIDTH_THEN_SPACE.search(text)]
    assert not found, found[:10]


# ---- GPU-hours and dollars carry their 万/亿 reading in Chinese, as counts do -----------------------------------

@pytest.mark.parametrize("value, unit, english, chinese", [
    (6_300_000, "GPU-hours", "6,300,000 GPU-hours", "6,300,000（630万）卡时"),   # the material's "630 万 GPU 小时"
    (82_432, "GPU-hours", "82,432 GPU-hours", "82,432（8.24万）卡时"),          # LLaMA-7B's A100-hours
    (9_999, "GPU-hours", "9,999 GPU-hours", "9,999 卡时"),                     # below 10,000: no reading
    (5_576_000, "USD", "$5,576,000", "$5,576,000（558万美元）"),               # DeepSeek-V3's $5.576M
    (19_000_000, "USD", "$19,000,000", "$19,000,000（1900万美元）"),           # the material's "1900 万"
    (2.5, "USD", "$2.50", "$2.50"),
    (2e15, "USD", "$2e15", "$2e15"),                                           # scientific: no reading
    (27_000, "USD/month", "$27,000 a month", "$27,000（2.7万美元）每月"),
])
def test_gpu_hours_and_dollars_read_in_chinese_and_english_is_unchanged(value, unit, english, chinese):
    assert show(value, unit) == english
    with speaking("zh"):
        assert show(value, unit) == chinese


@given(st.floats(min_value=1e4, max_value=9.9e14), st.sampled_from(["GPU-hours", "USD", "USD/month"]))
def test_the_grader_reads_a_figure_with_its_reading_as_shown(value, unit):
    with speaking("zh"):
        shown, bare = show(value, unit), UNITS[unit].format(value)
        assert "（" in shown
        assert read_entry(shown, unit) == pytest.approx(value, rel=1e-3)
        assert read_entry(bare, unit) == pytest.approx(value, rel=1e-3)


def test_an_exercise_in_gpu_hours_takes_its_answer_as_the_chinese_edition_shows_it():
    ex = exercise("5.4")  # GPT-3 on V100s: 1,750,000 GPU-hours, 175万 as the material writes 630 万
    with speaking("zh"):
        shown = show(ex.expected(), ex.unit)
        assert shown == "1,750,000（175万）卡时" and ex.check(shown).correct and ex.check("175万卡时").correct


def test_the_command_line_reads_gpu_hours_and_dollars_in_chinese_only():
    args = ["time", "--params", "175B", "--tokens", "300B", "--gpu", "V100", "--gpus", "1024"]
    chinese, english = (subprocess.run([sys.executable, "-m", "llmest", "--lang", lang, *args], capture_output=True,
                                       text=True, check=True).stdout for lang in ("zh", "en"))
    assert "1,750,000（175万）卡时" in chinese and "$5,250,000（525万美元）" in chinese
    assert not FULLWIDTH_THEN_SPACE.search(chinese)
    assert "1,750,000 GPU-hours" in english and "$5,250,000 at $3.00" in english and "万" not in english
