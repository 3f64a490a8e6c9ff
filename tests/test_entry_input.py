"""Entries as people (and programs) type them: every one gets a verdict or a named message, quickly.

Guards against catastrophic backtracking (each call well under TIME_BOUND on 32,000 characters), against
exceptions other than InputError, and against verdicts on nonsense (0, nan, "1,2,3", a 5,000-digit integer)."""

import gc
import math
import re
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmest import drills, grading, units
from llmest.core._validate import InputError, quote
from llmest.learn.exercises import EXERCISES
from llmest.learn.flashcards import cards
from llmest.learn.grading import Verdict, read_entry
from llmest.core.units import COUNT_NOUNS, MAX_ENTRY, UNITS, parse_bytes, parse_count, show

TIME_BOUND = 0.2   # CPU seconds of this process (not wall time, which other work on the machine lengthens): far
#                    above a linear pass over 32,000 characters, far below a quadratic one


def _timed(call, *args):
    # The call's own time: a collection of the garbage other tests in this worker left (a pause of tenths of a
    # second in a large heap) is not part of reading an entry.
    gc.disable()
    start = time.process_time()
    try:
        outcome = call(*args)
    except InputError as err:
        outcome = err
    finally:
        took = time.process_time() - start
        gc.enable()
    assert took < TIME_BOUND, (f"{took:.2f} s", call.__name__, args[0][:20] if isinstance(args[0], str) else args)
    return outcome


# ---------------------------------------------------------------------------------------------------------------
# Long entries: refused by length at once, and every pattern linear even past the cap
# ---------------------------------------------------------------------------------------------------------------

# Runs that made the old patterns backtrack: digits, spaces, separators, powers of ten, Chinese numerals, brackets.
PIECES = ["1", " ", ",", ".", "1,", "1.", "1 ", "10^", "10^1", "x", "1x", "×10", "十", "一十", "(", "((", "1(", "1e",
          "a", "a ", "1 a", "GPU ", "h100", "h1001", "/ ", "per ", "每", "约 ", "1e1", "1_", "1,234", "\t\n"]
RUNS = [piece * (32_000 // len(piece)) for piece in PIECES]
WORST = RUNS + [run + "!" for run in RUNS]
WORST += ["1 a" + " " * 32_000 + "b", "7" + " " * 32_000 + "GB", "(" + "1" * 32_000 + ")", "9" * 32_000 + "e9 GB"]


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_a_long_entry_is_refused_by_its_length_at_once(unit):
    for entry in WORST:
        err = _timed(read_entry, entry, unit)
        assert isinstance(err, InputError) and err.param == "answer", err
        assert str(err).startswith("answer == ") and f"is too long: {len(entry):,} characters" in str(err)
        assert len(str(err)) < 200, "the message quotes the entry cut short"


def _patterns(module):
    return [value for value in vars(module).values() if isinstance(value, re.Pattern)] \
        + [pattern for value in vars(module).values() if isinstance(value, tuple) and len(value) == 2
           for pattern in value if isinstance(pattern, re.Pattern)]


def test_every_pattern_is_linear_in_the_length_of_the_text():
    # Beyond the cap as below it: each pattern, used as the grader uses it, takes linear time on the worst runs, on
    # the raw text and on the text as _normalise leaves it (for the units' words, which only ever see that).
    patterns = _patterns(grading) + _patterns(units)
    assert len(patterns) >= 10
    normalised = sorted({_timed(grading._normalise, entry) for entry in WORST})
    for entry in WORST + normalised:
        for pattern in patterns:
            for use in (pattern.match, pattern.search, pattern.fullmatch):
                _timed(use, entry)
    words = {pattern for unit in UNITS for table in grading._word_patterns(unit) for pattern, _ in table}
    for entry in {grading._normalise(run) for run in RUNS}:
        for pattern in words:
            _timed(pattern.search, entry)


def test_an_exercise_refuses_a_long_entry_with_a_message():
    verdict = _timed(EXERCISES["1.1"].check, "1" * 32_000)
    assert verdict.grade == "invalid" and "is too long: 32,000 characters" in verdict.message


# ---------------------------------------------------------------------------------------------------------------
# Tiny, zero, negative and non-finite numbers
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["1.1", "3.4", "5.1", "2.4", "3.6"])
@pytest.mark.parametrize("entry", ["1e-300", "5e-324", 1e-300, 5e-324, 1e-320, "0.0000000001"])
def test_a_tiny_positive_answer_is_far_too_low(key, entry):
    verdict = EXERCISES[key].check(entry)
    assert verdict.grade == "wrong" and "is too low, by more than 1,000×" in verdict.message, verdict.message
    assert len(verdict.message) < 120, verdict.message


@pytest.mark.parametrize("entry", ["1e300", 1e300, "1.7e308"])
def test_a_huge_answer_is_far_too_high(entry):
    for key in ("1.1", "3.4", "2.4"):
        verdict = EXERCISES[key].check(entry)
        assert verdict.grade == "wrong" and "is too high, by more than 1,000×" in verdict.message, verdict.message
        assert len(verdict.message) < 120, verdict.message


@pytest.mark.parametrize("entry, says", [
    ("0", "must be a positive, finite number"), ("-5", "a count is never negative"),
    ("1e400", "is too large, must be a finite number"), ("-1e400", "is too large, must be a finite number"),
    ("1e-400", "must be a positive, finite number"), ("nan", "is not a number"), ("inf", "is not a number"),
    (0, "must be a positive, finite number"), (-5, "must be a positive, finite number"),
    (float("nan"), "must be a positive, finite number"), (float("inf"), "must be a positive, finite number"),
    (-math.inf, "must be a positive, finite number"), (10**400, "an integer of about 401 digits, must be a positive"),
    (10**5000, "an integer of about 5,001 digits, must be a positive"), (np.float32("nan"), "must be a positive"),
], ids=quote)
def test_nonsense_numbers_get_what_is_allowed(entry, says):
    for unit in UNITS:
        with pytest.raises(InputError) as err:
            read_entry(entry, unit)
        assert err.value.param == "answer" and str(err.value).startswith("answer == ") and says in str(err.value)
    verdict = EXERCISES["1.1"].check(entry)
    assert verdict.grade == "invalid" and says in verdict.message


# ---------------------------------------------------------------------------------------------------------------
# Commas separate thousands, in the grader as in the parsers the command line uses
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [("1,234", 1234), ("1,234,567.5", 1_234_567.5), ("12,345", 12_345)])
def test_a_thousands_separator_is_read_alike_everywhere(text, value):
    assert parse_count(text) == value and read_entry(text, "count") == value and parse_bytes(text) == value
    assert parse_count(f"{text}B") == value * 1e9 and parse_bytes(f"{text} GB") == value * 1e9
    assert read_entry(f"{text} GB", "bytes") == value * 1e9 and read_entry(f"{text} days", "days") == value


@pytest.mark.parametrize("text", ["1,2,3", "12,34", "1,0,0", "1,,000", ",123", "1234,567", "1,234,56"])
def test_a_comma_elsewhere_is_refused_alike_everywhere(text):
    for read in (parse_count, parse_bytes, lambda t, name: read_entry(t, "count"),
                 lambda t, name: read_entry(t, "days")):
        with pytest.raises(InputError) as err:
            read(text, "answer")
        assert err.value.param == "answer" and repr(text) in str(err.value)
        assert "comma" in str(err.value) or "is not a number" in str(err.value)
    assert EXERCISES["1.1"].check(text).grade == "invalid"


def test_the_parsers_refuse_what_is_not_a_size_or_count():
    for text, says in [("1e400", "is too large"), ("9e307 T", "is too large"), ("1e308 PB", "is too large")]:
        for parse in (parse_count, parse_bytes):
            if parse is parse_count and "PB" in text:
                continue
            with pytest.raises(InputError, match=says) as err:
                parse(text, "--tokens")
            assert err.value.param == "--tokens" and repr(text) in str(err.value)
    with pytest.raises(InputError, match="must be >= 0: a size is never negative") as err:
        parse_bytes("-5 GB", "memory")
    assert err.value.param == "memory"
    assert parse_count("7B") == 7e9 and parse_count("1T") == 1e12 and parse_bytes("80GB") == 80e9


@pytest.mark.parametrize("value", [None, True, 7.0, float("nan"), 10**5000, [1], b"7B"], ids=quote)
def test_the_parsers_take_text_only(value):
    for parse in (parse_count, parse_bytes):
        with pytest.raises(InputError, match="must be text such as") as err:
            parse(value, "--params")
        assert err.value.param == "--params"


# ---------------------------------------------------------------------------------------------------------------
# Entries that are not text
# ---------------------------------------------------------------------------------------------------------------

NOT_NUMBERS = [[1, 2], {"a": 1}, (7,), 1j, np.complex128(1), True, False, np.bool_(True), b"7", object, set()]


@pytest.mark.parametrize("entry", NOT_NUMBERS, ids=repr)
def test_an_entry_that_is_no_number_gets_a_named_message(entry):
    for unit in UNITS:
        with pytest.raises(InputError, match="must be a number or text such as") as err:
            read_entry(entry, unit)
        assert err.value.param == "answer"
    for check in (EXERCISES["1.1"].check, drills.generate("training-days", 1, "easy").check):
        verdict = check(entry)
        assert verdict.grade == "invalid" and verdict.message.startswith("Could not read that: answer == ")


@pytest.mark.parametrize("number", [np.float64(7.6), np.int64(8), np.float32(7.6), np.int32(8)], ids=repr)
def test_numpy_numbers_are_numbers(number):
    ex = grading.Exercise("t", "A question?", lambda: float(number), "days", 0.05)
    assert ex.check(number).correct and read_entry(number, "days") == pytest.approx(float(number))


# ---------------------------------------------------------------------------------------------------------------
# Formatters: a named InputError or a short text, never OverflowError nor "nan GB"
# ---------------------------------------------------------------------------------------------------------------

FORMATS = [units.format_bytes, units.format_count, units.format_int, units.format_percent, units.format_number,
           units.format_flops, units.format_usd]
FORMATS += [unit.format for unit in UNITS.values()] + [unit.show for unit in UNITS.values()]
FORMATS += [lambda value, unit=unit: show(value, unit) for unit in UNITS]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True, "7", None, 10**400, 10**5000, 1j, [7]],
                         ids=quote)
def test_a_formatter_refuses_what_it_cannot_write(value):
    for format_ in FORMATS:
        with pytest.raises(InputError, match=r"^value == .*, must be a (finite )?number\.$") as err:
            format_(value)
        assert err.value.param == "value"


@pytest.mark.parametrize("value", [-5, -5e9, 1e-320, 5e-324, 1e300, -1e300, 1.7e308, 0, 10**20])
def test_a_formatter_writes_any_finite_number_in_short(value):
    for format_ in FORMATS:
        text = format_(value)
        assert isinstance(text, str) and len(text) <= 40 and not re.search(r"nan|inf", text, re.IGNORECASE), text
    assert units.format_count(1e300) == "1e300" and units.format_bytes(1e-320) == "1e-320 B"
    assert units.format_int(1e300) == "1e300" and units.format_percent(1e-9) == "1e-7%"


def test_flashcards_name_bad_topics():
    for topics in (5, math.nan, True, b"memory"):
        with pytest.raises(InputError, match="must be a topic or a list of them") as err:
            cards(topics)
        assert err.value.param == "topics"
    assert cards("memory") and all(card.topic == "memory" for card in cards(["memory"]))


# ---------------------------------------------------------------------------------------------------------------
# Fuzz: generated text, huge strings and mixtures of digits, separators and the units' own words
# ---------------------------------------------------------------------------------------------------------------

def _words() -> list:
    words = set(units.COUNT_SCALES) | set(units.BYTE_SCALES) | set(COUNT_NOUNS)
    for unit in UNITS.values():
        words |= set(unit.words) | set(re.findall(r'"([^"]+)"', unit.example))
        for table in (unit.entry_words, unit.entry_prefixes):
            words |= {w for pattern, _ in table for w in re.findall(r"[a-z\u4e00-\u9fff$%]+", pattern)}
    return sorted(w for w in words if w)


TOKENS = [*"0123456789", "1234", ",", ".", "_", " ", "   ", "e", "e-", "+", "-", "10^", "×", "x", "*", "**", "⁹", "⁻",
          "一", "二", "两", "十", "万", "亿", "(", ")", "约", "每卡", "per GPU", "左右", "１", "\u3000", "\n", "·", "$",
          "%", "~", "/", *_words()]
ENTRIES = st.one_of(
    st.text(),
    st.lists(st.sampled_from(TOKENS), max_size=12).map("".join),
    st.builds(lambda piece, n, tail: piece * n + tail, st.sampled_from(TOKENS), st.integers(1, 32_000),
              st.sampled_from(["", "!", " GB", " days", ")"])).map(lambda text: text[:40_000]),
)
CHECKS = [ex.check for _, ex in sorted(EXERCISES.items())]
CHECKS += [drills.generate(key, 1, "easy").check for key in sorted(drills.TEMPLATES)]


@settings(max_examples=150, deadline=None)
@given(ENTRIES)
def test_any_text_gets_a_verdict_or_a_named_message_quickly(entry):
    for check in CHECKS:
        verdict = _timed(check, entry)
        assert isinstance(verdict, Verdict) and isinstance(verdict.message, str) and verdict.message.strip()
        assert len(verdict.message) < 500 and not re.search(r"\b(nan|inf)\b", verdict.message), verdict.message
    for unit in UNITS:
        value = _timed(read_entry, entry, unit)
        if isinstance(value, InputError):
            assert value.param == "answer" and str(value).startswith("answer ")
        else:
            assert math.isfinite(value) and value > 0, (entry, unit, value)


@pytest.mark.parametrize("entry", ["١٢", "٧B", "१२ GB"])
def test_digits_other_than_0_to_9_are_refused_not_read(entry):
    with pytest.raises(InputError, match="write the digits as 0-9") as err:
        parse_count(entry)
    assert err.value.param == "value"
    assert "0-9" in EXERCISES["1.1"].check(entry).message


def test_a_bare_number_of_a_thousand_or_more_gets_no_unit_hint():
    key, exercise = next((k, e) for k, e in EXERCISES.items() if e.unit == "count" and e.expected() > 1e9)
    for entry in ("1234567", "5000"):
        assert "Did you mean" not in exercise.check(entry).message, key
    assert "Did you mean" in exercise.check(f"{exercise.expected() / 1e9:.3g}").message, key


@pytest.mark.parametrize("topics", [5, 1.5, True, b"memory", {"memory": 1}])
def test_drill_topics_that_are_not_names_are_refused_by_name(topics):
    with pytest.raises(InputError, match="must be a topic or a list of them") as err:
        drills.drill_set(0, 3, topics)
    assert err.value.param == "topics"


@settings(max_examples=60, deadline=None)
@given(ENTRIES)
def test_the_exercise_box_names_an_unreadable_entry_as_the_reader_sees_it(entry):
    # The library's message names its parameter ("answer == 'lots'"); the box, with no name beside the entry, says
    # "your answer 'lots'". Quickly, whatever the entry holds.
    widgets = pytest.importorskip("llmest.surfaces.widgets")
    import html as html_

    if "answer" in entry:
        return  # the message quotes the entry: its own words are not the message's
    for check in CHECKS[::4]:
        verdict = check(entry)
        start = time.process_time()
        shown = html_.unescape(re.sub(r"<[^>]*>", "", widgets.verdict_html(verdict)))
        assert time.process_time() - start < TIME_BOUND
        assert "answer ==" not in shown, shown
        if verdict.message.startswith("Could not read that: answer "):
            assert shown.startswith("Could not read that: your answer "), shown


def test_an_entry_is_a_number_or_text_and_anything_else_is_refused_by_name():
    # The contract the API fuzz holds read_entry to (its TAKEN_BY_DESIGN): a number is an answer in the unit asked
    # (7 days, 7 GB), as the text "7 days" is; None, a list, a flag or a dict is no answer, refused by its name.
    assert read_entry(7, "days") == read_entry("7 days", "days") == 7.0
    assert read_entry(7, "bytes") == read_entry("7 GB", "bytes") == 7e9
    for entry in (None, [7], ["7 days"], True, {"days": 7}):
        with pytest.raises(InputError, match="must be a number or text such as") as err:
            read_entry(entry, "days")
        assert err.value.param == "answer"
