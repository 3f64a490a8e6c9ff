"""Exercises: grading, messages for entries that are not numbers, hints, and the widget."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import drills
from llmest import model as m
from llmest.learn.exercises import EXERCISES
from llmest.learn.grading import Exercise, entry_placeholder, read_entry
from llmest.core.units import UNITS


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


# ---------------------------------------------------------------------------------------------------------------
# A verdict never gives the answer away
# ---------------------------------------------------------------------------------------------------------------

# Ratios of entry to answer inside each size of miss, away from the edges of the sizes and of "did you mean 6.6B?".
MISSES = (1.4, 1.8, 3, 7, 20, 300, 5000)


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_a_miss_says_only_the_direction_and_a_coarse_size(key):
    # Two answers 3% apart, on the same side of the entry and inside the same size of miss, must get the same
    # message: then nothing in it follows from the answer beyond its direction and the size of the miss.
    ex = EXERCISES[key]
    expected = ex.expected()
    for ratio in MISSES + tuple(1 / r for r in MISSES):
        entry = ex._fmt(expected * ratio)
        verdict = ex.check(entry)
        if verdict.grade not in ("close", "wrong"):
            continue
        moved = Exercise(ex.key, ex.question, lambda: expected * 1.03, ex.unit, ex.rel_tol, ex.hints, ex.minimum)
        assert moved.check(entry).message == verdict.message, (entry, verdict.message)


def test_the_verdict_on_1_4_does_not_reveal_the_answer():
    ex = le.exercise("1.4")
    verdict = ex.check("1")
    assert verdict.message.startswith("Not yet: 1 is too low, by more than 1,000×"), verdict.message
    for number in re.findall(r"\d[\d,.]*(?:e\d+)?", verdict.message):
        assert not ex.check(number.replace(",", "")).correct, (number, verdict.message)
    assert "%" not in ex.check("14B").message.split(";")[0], "a close verdict gives no percentage off"
    assert "Did you mean 6.6B?" in ex.check("6.6").message, "a bare 6.6 where billions are asked for: the unit only"


@pytest.mark.parametrize("key", sorted(drills.TEMPLATES))
def test_drills_verdicts_give_no_figure_away(key):
    for level in drills.LEVELS:
        p = drills.generate(key, 3, level)
        for ratio in MISSES + tuple(1 / r for r in MISSES):
            entry = p.exercise._fmt(p.answer * ratio)
            message = p.check(entry).message
            if p.check(entry).grade in ("close", "wrong"):
                numbers = set(re.findall(r"\d[\d,.]*", message.replace(entry, "")))
                assert numbers <= {"2", "10", "1,000", "25"}, message  # 25%: the drills' tolerance


# ---------------------------------------------------------------------------------------------------------------
# Units: each exercise takes its answer in the unit its question asks for, in the words a person uses
# ---------------------------------------------------------------------------------------------------------------

# The words of a question's ask, and the unit they call for; the first that matches rules.
ASKS = [(r"in seconds", "seconds"), (r"GPU-hours", "GPU-hours"), (r"how many days", "days"), (r"how many GB|in GB", "bytes"),
        (r"how many (GPUs|A100s|H100s)", "GPUs"), (r"how many FLOPs", "FLOPs"), (r"\bMFU\b|percent", "fraction"),
        (r"tokens per second", "tokens/s"), (r"epochs", "epochs"),
        (r"parameters|hidden size|sequence length|batch size|tokens|compute-optimal N", "count")]


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_each_exercise_asks_one_question_the_grader_can_grade(key):
    # One number is graded: a second ask ("..., and is it inside the range ...?") would go ungraded.
    question = EXERCISES[key].question
    assert not re.search(r"\?.*\?|, and (is|does|are|do|would|should|which|whether)\b|\bwhether\b", question), \
        question


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_each_exercise_has_the_unit_its_question_asks_for(key):
    question = EXERCISES[key].question
    ask = question[[m.start() for m in re.finditer(r"(?i)\b(how many|what|which|count its|in GB\?)", question)][-1]:]
    unit = next(unit for words, unit in ASKS if re.search(words, ask, re.IGNORECASE))
    assert EXERCISES[key].unit == unit, ask


@pytest.mark.parametrize("key", sorted(k for k, ex in EXERCISES.items() if ex.unit == "bytes"))
def test_a_verdict_in_bytes_shows_the_gb_the_question_asks_for(key):
    # 4.5's answer is 1.04e12 bytes: its question asks "how many GB", so the verdict must show 1,041 GB, not only
    # "1.04 TB"; and the grader must read that display back.
    ex = EXERCISES[key]
    assert re.search(r"how many GB|in GB", ex.question, re.IGNORECASE)
    verdict = ex.check(ex.expected())
    assert verdict.correct
    figures = [float(n.replace(",", "")) for n in re.findall(r"(\d[\d,]*(?:\.\d+)?) GB\b", verdict.message)]
    assert figures and all(f == pytest.approx(ex.expected() / 1e9, rel=0.01) for f in figures), verdict.message
    assert ex.check(ex._fmt(ex.expected())).correct


# The answer as a person types it in each unit, in English and in Chinese (v: the answer in the unit's terms).
TYPED = {"count": lambda v: [f"{v / 1e9:.10g}B", f"{v / 1e8:.10g}亿", f"约 {v:.10g}"],
         "bytes": lambda v: [f"{v / 1e9:.4g} GB", f"约 {v / 1e9:.4g} GB", f"{v / 1e12:.4g} TB"],
         "fraction": lambda v: [f"{v * 100:.4g}%", f"{v * 100:.4g}％", f"约 {v * 100:.4g}%"],
         "days": lambda v: [f"{v:.4g} days", f"{v:.4g} 天", f"{v * 24:.4g} hours", f"{v / 7:.4g} 周"],
         "GPU-hours": lambda v: [f"{v:,.0f} GPU-hours", f"{v / 1e4:.4g}万 卡时", f"{v / 24:.4g} GPU-days"],
         "GPUs": lambda v: [f"{v:.0f} GPUs", f"约 {v:.0f} 张卡", f"{v:.0f}卡"],
         "tokens/s": lambda v: [f"{v:.4g} tokens/s", f"{v:.4g} tokens per second", f"每秒 {v:.4g} 个 token"],
         "FLOPs": lambda v: [f"{v:.4e} FLOPs", f"{v / 1e8:.4g}亿 FLOPs", f"{v / 1e9:.4g} GFLOPs"],
         "epochs": lambda v: [f"{v:.4g} epochs", f"{v:.4g} 轮"],
         "seconds": lambda v: [f"{v:.4g} seconds", f"{v:.4g} 秒", f"约 {v:.4g} seconds"]}


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_every_exercise_takes_its_answer_in_the_words_of_its_unit(key):
    ex = EXERCISES[key]
    for entry in [ex._fmt(ex.expected()), *TYPED[ex.unit](ex.expected())]:
        assert ex.check(entry).correct, (entry, ex.check(entry).message)


def _exercise(unit, answer, rel_tol=0.05):
    return Exercise("t", "A question?", lambda: answer, unit, rel_tol)


@pytest.mark.parametrize("unit, answer, entries", [
    # 6·7e9·1e12 FLOPs / (312e12 × 0.4) / 3,600 s = 93,483 A100-hours (the material's exercise 1, seed 000)
    ("GPU-hours", 93_483, ["93,483 GPU-hours", "93483", "9.3万 卡时", "约 9.35万卡时", "93.5K GPU-hours", "3,895 GPU-days",
                       "93,483 A100-hours", "9.35万 GPU小时", "93,483 hours"]),
    # the same run on 256 GPUs: 93,483 / 256 / 24 = 15.2 days
    ("days", 15.2, ["15.2 天", "约 15 天", "15.2 days", "365 hours", "365 小时", "2.2 weeks", "2.2 周", "0.5 months",
                    "15.2"]),
    ("days", 14, ["2 weeks", "约 2 周", "2 个星期", "336 hours", "14 d"]),
    ("GPU-hours", 72, ["3 GPU-days", "3 卡天", "72 小时", "72 h", "72 A100-hours"]),
    ("GPUs", 4, ["4 GPUs", "约 4 张卡", "4 张 A100", "4卡", "4 A100s", "4 x A100 80GB", "4块GPU", "４", "4"]),
    ("count", 6.7e9, ["67亿", "6.7B", "6.7 billion", "约 67 亿个参数", "６.７Ｂ", "6,700,000,000 (6.70B)", "6.7e9",
                      "6.7 × 10^9", "6.7×10⁹", "6.7十亿", "6700百万"]),
    ("fraction", 0.42, ["42％", "42%", "约 42%", "42 percent", "0.42", "42", "百分之42", "42.0%"]),
    ("USD", 1.2e6, ["$1.2M", "120万美元", "1.2 million dollars", "US$1,200,000", "1.2M USD", "约 120 万美元"]),
    ("bytes", 140e9, ["140 GB", "约 140 GB", "140GB", "0.14 TB", "140", "每卡 140 GB", "140 GB per GPU", "~140G",
                      "130 GiB"]),
    ("tokens/s", 450, ["450 tokens/s", "450 tok/s", "450 tokens per second", "每秒 450 个 token", "450 token/秒",
                       "约 450 tokens/s"]),
    ("FLOPs", 4.2e22, ["4.2e22 FLOPs", "4.2 × 10^22 FLOPs", "4.2×10²²", "42 ZFLOPs", "42,000 EFLOPs",
                       "4.2e22", "4.2×10²² 次浮点运算"]),
    ("epochs", 8, ["8 epochs", "8 轮", "8 遍", "8×", "8x", "8 passes", "约 8 个 epoch"]),
])
def test_each_unit_takes_its_answer_in_english_and_chinese(unit, answer, entries):
    ex = _exercise(unit, answer)
    for entry in entries:
        assert ex.check(entry).correct, (entry, ex.check(entry).message)


@pytest.mark.parametrize("key", ["2.1", "2.3", "2.7", "5.3"])
def test_a_number_of_gpus_is_taken_with_its_word(key):
    ex = le.exercise(key)
    n = int(ex.expected())
    for entry in (f"{n} GPUs", f"约 {n} 张卡", f"{n} cards", f"{n}"):
        assert ex.check(entry).correct, (entry, ex.check(entry).message)
    assert ex.check(f"{n + 1} GPUs").grade == "wrong"


@pytest.mark.parametrize("entry", ["1.05 GPUs", "2.9", 2.9, "3.5 张卡", "2.5 A100s"])
def test_a_number_of_gpus_is_a_whole_number(entry):
    # An exercise's and a drill's GPU count alike: a fraction of a GPU is not read, not graded near the answer.
    drill = next(drills.generate(key, 1, "easy") for key in drills.TEMPLATES
                 if drills.generate(key, 1, "easy").unit == "GPUs")
    for verdict in (le.exercise("2.1").check(entry), le.exercise("5.3").check(entry), drill.check(entry)):
        assert verdict.grade == "invalid", verdict.message
        assert verdict.message.startswith("Could not read that: answer == ") and \
            "a number of GPUs is a whole number" in verdict.message


def test_counts_take_the_nouns_of_their_question():
    assert le.exercise("4.4").check("3,000 tokens per parameter").correct
    assert le.exercise("3.5").check(f"{le.exercise('3.5').expected():.0f} tokens").correct
    assert le.exercise("3.7").check(f"{le.exercise('3.7').expected():.0f} sequences").correct


def test_gpu_hours_are_not_days():
    verdict = _exercise("days", 15.2).check("365 GPU-hours")
    assert verdict.grade == "invalid" and "divide them by the number of GPUs" in verdict.message
    assert _exercise("USD", 1.2e6).check("120万元").grade == "invalid", "元 alone is yuan, not dollars"


# Where the grader's displays keep three figures; every exercise and drill answer lies inside.
DISPLAYED = {"count": (1, 1e15), "bytes": (1e6, 1e17), "fraction": (0.02, 1), "USD": (1, 1e10), "days": (0.01, 1e4),
             "GPU-hours": (0.1, 1e9), "GPUs": (1, 1e5), "tokens/s": (0.1, 1e7), "FLOPs": (1, 1e30),
             "epochs": (0.01, 1e3)}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(DISPLAYED)), st.floats(0, 1), st.sampled_from([1 / 1000, 1 / 3, 3, 30, 1e4]))
def test_the_grader_reads_its_own_displays(unit, where, far):
    low, high = DISPLAYED[unit]
    whole = round if unit == "GPUs" else float  # a number of GPUs is a whole number
    x = whole(low * (high / low) ** where)
    ex = _exercise(unit, x)
    assert ex.check(ex._fmt(x)).correct, (ex._fmt(x), ex.check(ex._fmt(x)).message)
    if low <= x * far <= high:
        assert ex.check(ex._fmt(whole(x * far))).grade in ("wrong", "close"), ex._fmt(x * far)


@pytest.mark.parametrize("unit, shown, value", [
    ("bytes", "5.07 TB (5,073 GB)", 5.073e12), ("count", "1,310,359,552 (1.31B)", 1_310_359_552),
    ("fraction", "42.0%", 0.42), ("USD", "$1.2M", 1.2e6), ("GPU-hours", "93,483 hours", 93_483),
    ("days", "7.6 days", 7.6), ("GPUs", "14 GPUs", 14), ("tokens/s", "450 tokens/s", 450),
    ("FLOPs", "4.2e22 FLOPs", 4.2e22), ("epochs", "2.99 epochs", 2.99),
])
def test_the_displays_read_back(unit, shown, value):
    assert _exercise(unit, value, rel_tol=0.01).check(shown).correct
    assert "not the same figure" in _exercise("bytes", 5e12).check("5.07 TB (9 GB)").message


def test_every_drills_answer_as_shown_grades_correct():
    for key in drills.TEMPLATES:
        for level in drills.LEVELS:
            for seed in range(5):
                p = drills.generate(key, seed, level)
                assert p.check(p.answer_text).correct, (p.answer_text, p.check(p.answer_text).message)


# ---------------------------------------------------------------------------------------------------------------
# Entry examples are neutral, and garbage gets a message
# ---------------------------------------------------------------------------------------------------------------

def _example_values(unit):
    """Every figure an entry example of the unit shows, read as the grader reads it."""
    alternatives = re.split(r',\s+(?=")|\s+or\s+', UNITS[unit].example)
    return [read_entry(a.strip().strip('"'), unit) for a in alternatives]


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_entry_examples_are_far_from_every_answer_in_their_unit(unit):
    examples = _example_values(unit)
    assert examples and entry_placeholder(unit).startswith("e.g. ")
    # Every exercise, and the drills chapter 5 shows (its drill set, timed session and worksheet).
    answers = [(ex.key, ex.expected()) for ex in EXERCISES.values() if ex.unit == unit]
    shown = [*drills.drill_set(2026, 3), *drills.drill_set(2026, 5, level="medium"),
             *drills.drill_set(7, 12, "memory,compute"), drills.generate("training-days", 1, "easy")]
    answers += [(p.template, p.answer) for p in shown if p.unit == unit]
    for value in examples:
        for key, answer in answers:
            assert not 1 / 2 <= value / answer <= 2, f"the {unit} example {value:g} is near {key}'s answer"


GARBAGE = ["abc", "1e400", "-3", "nan", [1, 2], "7 apples", "7 8", "0", True, {"a": 1}]


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_every_exercise_explains_what_it_cannot_read(key):
    ex = EXERCISES[key]
    for entry in GARBAGE:
        verdict = ex.check(entry)
        assert verdict.grade == "invalid", (entry, verdict.message)
        assert verdict.message.startswith("Could not read that: answer == ") and "Traceback" not in verdict.message
        # Any figure in the message is the entry's own or one of the unit's (neutral) examples.
        rest = verdict.message.replace(repr(entry), "").replace(UNITS[ex.unit].example, "")
        assert not re.search(r"\d", rest), verdict.message
    empty = ex.check("")
    assert empty.grade == "empty" and UNITS[ex.unit].example in empty.message


@pytest.mark.parametrize("unit, answer, entry", [
    ("days", 14, "两周"), ("days", 3, "三天"), ("days", 14, "约两周"), ("GPU-hours", 72, "七十二小时"), ("GPUs", 4, "四张卡"),
    ("GPUs", 12, "十二张卡"), ("days", 20, "二十天"), ("days", 35, "三十五天"), ("epochs", 2, "两轮"),
])
def test_small_counts_in_chinese_numerals(unit, answer, entry):
    assert _exercise(unit, answer, rel_tol=0).check(entry).correct, _exercise(unit, answer).check(entry).message


@pytest.mark.parametrize("entry", ["4.6 days", "4.6 天", "2 weeks", "90 minutes"])
def test_a_length_of_time_for_gpu_hours_is_named_as_such(entry):
    """A run's days are not its GPU-hours: read as work, "4.6 days" would be 110 GPU-hours and marked "too low"."""
    verdict = _exercise("GPU-hours", 93_483).check(entry)
    assert not verdict.correct and "too low" not in verdict.message
    assert "that is a length of time; the question asks GPU-hours" in verdict.message
