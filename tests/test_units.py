"""Parsing and formatting quantities."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmest as le


@pytest.mark.parametrize("text, value", [
    ("7B", 7e9), ("6.7e9", 6.7e9), ("7 billion", 7e9), ("1.2 T", 1.2e12), ("1.4T tokens", 1.4e12),
    ("6,738,415,616", 6_738_415_616), ("65亿", 6.5e9), ("201M", 2.01e8), ("7b params", 7e9), (" 12k ", 12e3),
    # the Chinese scales, and the fullwidth forms a Chinese input method types
    ("3千", 3e3), ("9.3万", 9.3e4), ("1.2百万", 1.2e6), ("5千万", 5e7), ("1.5十亿", 1.5e9), ("4百亿", 4e10),
    ("1.4千亿", 1.4e11), ("2万亿", 2e12), ("67亿个参数", 6.7e9), ("2600亿个词元", 2.6e11), ("６７亿", 6.7e9),
    ("７Ｂ", 7e9), ("１，０００", 1000),
])
def test_parse_count(text, value):
    assert le.parse_count(text) == pytest.approx(value)


@pytest.mark.parametrize("text, value", [
    ("80GB", 80e9), ("80 GiB", 80 * 2**30), ("14 gb", 14e9), ("512 KiB", 512 * 1024), ("1.2 TB", 1.2e12),
    ("1000", 1000),
])
def test_parse_bytes(text, value):
    assert le.parse_bytes(text) == pytest.approx(value)


@pytest.mark.parametrize("text, message", [
    ("", "answer is empty: type a number such as"),
    ("abc", "answer == 'abc' is not a number"),
    ("7X", "unknown suffix 'x'"),
    ("__import__('os')", "is not a number"),
    (None, "answer == None, must be text"),
])
def test_parse_count_rejects_with_a_message(text, message):
    with pytest.raises(le.InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        le.parse_count(text, name="answer")
    assert err.value.param == "answer"


def test_parse_bytes_rejects_unknown_units():
    with pytest.raises(le.InputError, match="unknown unit 'gbit'"):
        le.parse_bytes("80 Gbit")


@pytest.mark.parametrize("value, text", [
    (6_738_415_616, "6.74B"), (131_072_000, "131M"), (7e12, "7.00T"), (999, "999"), (1_557_611_200, "1.56B"),
])
def test_format_count(value, text):
    assert le.format_count(value) == text


def test_format_bytes():
    assert le.format_bytes(112e9) == "112 GB"
    assert le.format_bytes(2**30, binary=True) == "1.00 GiB"
    assert le.format_int(6738415616) == "6,738,415,616"


@given(st.floats(1, 1e15))
def test_format_then_parse_round_trips(value):
    assert le.parse_count(le.format_count(value)) == pytest.approx(value, rel=5e-3)


def test_halfwidth_reads_fullwidth_forms():
    assert le.units.halfwidth("４２％，７Ｂ\u3000") == "42%,7B "


@pytest.mark.parametrize("text, value", [("93,483", 93_483), ("1,310,359,552", 1_310_359_552), ("1,234.5", 1234.5),
                                         ("1,000", 1000), ("2,000B", 2e12)])
def test_a_comma_separates_thousands(text, value):
    assert le.parse_count(text) == value


@pytest.mark.parametrize("text", ["-7B", "-1,000", "-0.5 million"])
def test_a_negative_count_is_refused_as_a_negative_size_is(text):
    with pytest.raises(le.InputError, match="never negative") as err:
        le.parse_count(text, "n_params")
    assert err.value.param == "n_params"


@pytest.mark.parametrize("parse, text, suggestion", [
    (le.parse_count, "15,2", "for a decimal point type '15.2'"), (le.parse_count, "1,00", "type '1.00'"),
    (le.parse_count, "1,0,0", ""), (le.parse_count, "12,34,567", ""), (le.parse_bytes, "15,2 GB", "type '15.2'"),
])
def test_a_comma_that_is_not_a_thousands_separator_is_refused(parse, text, suggestion):
    # "15,2" is 15.2 where the comma is the decimal mark; reading it as 152 would be 10× off without a word.
    with pytest.raises(le.InputError, match="a comma separates thousands, in groups of three") as err:
        parse(text, name="answer")
    assert err.value.param == "answer" and repr(text) in str(err.value) and suggestion in str(err.value)


# ---------------------------------------------------------------------------------------------------------------
# One table of units: every surface writes a unit with its formatter there, and the grader reads it back
# ---------------------------------------------------------------------------------------------------------------

from pathlib import Path  # noqa: E402

from llmest import drills, material  # noqa: E402
from llmest.learn.exercises import EXERCISES  # noqa: E402
from llmest.learn.grading import read_entry  # noqa: E402
from llmest.core.units import UNITS, format_percent, show  # noqa: E402


def test_every_unit_the_exercises_drills_and_figures_use_is_in_the_table():
    graded = {ex.unit for ex in EXERCISES.values()}
    graded |= {drills.generate(key, seed, level).unit for key in drills.TEMPLATES for level in drills.LEVELS
               for seed in range(3)}
    assert graded <= set(UNITS), graded - set(UNITS)
    stated = {u for f in material.figures() for u in (f.unit, f.stated_unit)}
    assert stated <= set(UNITS), stated - set(UNITS)
    assert material.UNITS is UNITS, "the material's boxes use the one table"


def test_each_unit_has_an_example_and_the_words_units_of_a_kind_share():
    for key, unit in UNITS.items():
        alternatives = re.split(r',\s+(?=")|\s+or\s+', unit.example)
        assert all(read_entry(a.strip('"'), key) > 0 for a in alternatives), key
    # Units of one kind read each other's words: "3 days" is 72 hours, "2 weeks" 0.46 months, "450 TFLOPS" 4.5e14.
    assert read_entry("3 days", "hours") == 72 and read_entry("90 minutes", "hours") == 1.5
    assert read_entry("2 weeks", "days") == 14 and read_entry("14 天", "weeks") == 2
    assert read_entry("2 weeks", "months") == pytest.approx(14 / (365 / 12))
    assert read_entry("1 year", "months") == pytest.approx(12) and read_entry("2 hours", "seconds") == 7200
    assert read_entry("450 TFLOPS", "FLOP/s") == 4.5e14 and read_entry("4.5e14 FLOP/s", "TFLOPS") == 450
    assert read_entry("2 PFLOPS", "TFLOPS") == 2000


def test_clock_hours_and_gpu_hours_are_different_units():
    # GPU-hours are work: 256 GPUs for 10 hours are 2,560 GPU-hours. Clock time refuses them, GPU-hours take both.
    assert read_entry("2,560 GPU-hours", "GPU-hours") == 2560 and read_entry("10 hours", "GPU-hours") == 10
    for unit in ("hours", "days", "seconds", "weeks", "months"):
        with pytest.raises(le.InputError, match="GPU-hours measure work, not time"):
            read_entry("2,560 GPU-hours", unit)
    assert UNITS["hours"].show(10) == "10 hours" and UNITS["GPU-hours"].show(2560) == "2,560 GPU-hours"


_VALUES = [0.0123, 0.42, 1, 7.6, 93.5, 999.6, 14_000, 6.7e9, 5.073e12, 4.2e22]


def _is_value_of(unit, value) -> bool:
    """Leaves out what no answer is: more than 100%, a fraction of a GPU, bytes below a MB."""
    return not (unit == "fraction" and value > 1 or unit == "GPUs" and not float(value).is_integer()
                or unit == "bytes" and value < 1e6)


@pytest.mark.parametrize("unit, value", [(u, x) for u in sorted(UNITS) for x in _VALUES if _is_value_of(u, x)])
def test_each_formatter_is_read_back_by_the_grader(unit, value):
    cents = 0.005 if unit.startswith("USD") else 0
    for text in (show(value, unit), UNITS[unit].show(value)):
        assert read_entry(text, unit) == pytest.approx(value, rel=5e-3, abs=cents), text


@pytest.mark.parametrize("figure", material.figures(), ids=lambda f: f.key)
def test_every_figure_a_material_box_shows_is_read_back_by_the_grader(figure):
    # What a box shows a reader (the material's figure, the recomputed one in both units) is what a person may
    # type back into an exercise of that unit.
    shown = [(figure.compared, figure.stated_unit), (figure.recomputed, figure.unit)]
    shown += [(v, figure.stated_unit) for v in figure.bounds if isinstance(v, (int, float))]
    shown = [(float(v), u) for v, u in shown if float(v) > 0 and not (u == "bytes" and v < 1e6)]
    for value, unit in shown:
        text = figure._fmt(value, unit)
        cents = 0.005 if unit.startswith("USD") else 0
        assert read_entry(text, unit) == pytest.approx(value, rel=5e-3, abs=cents), (figure.key, text)


@pytest.mark.parametrize("fraction, text", [
    (0.4, "40%"), (0.3934, "39.3%"), (0.05, "5%"), (1.0, "100%"), (0.000123, "0.0123%"), (0.42, "42%"),
    (-0.0393, "-3.93%"), (0, "0%"),
])
def test_a_percentage_has_one_spelling(fraction, text):
    assert format_percent(fraction) == text
    if fraction > 0:
        assert read_entry(text, "fraction") == pytest.approx(fraction, rel=5e-3)


def test_format_percent_with_decimals_matches_python_but_drops_trailing_zeros():
    assert format_percent(0.4, 0) == f"{0.4:.0%}" and format_percent(0.213, 0) == "21%"
    assert format_percent(0.42, 1) == "42%" and format_percent(0.3934, 1) == "39.3%"
    assert format_percent(0.039, 1, signed=True) == "+3.9%" and format_percent(-0.039, 1, signed=True) == "-3.9%"


# A format spec that makes a percentage (":.0%", ":+.1%", ":6.1%") or a value times 100 written before "%".
_PERCENT_BY_HAND = re.compile(r":[<>^+ -]?\d*(?:\.\d+)?%\}|\*\s*100\b[^{}\n]*\}\s*%|\*\s*100\b[^\n]*:\.\d+[fg]\}%")


def test_no_module_outside_units_formats_a_percentage_itself():
    root = Path(le.__file__).parent
    offenders = [f"{path.relative_to(root)}:{i}: {line.strip()}"
                 for path in sorted(root.rglob("*.py")) if path.name != "units.py" or path.parent != root
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if _PERCENT_BY_HAND.search(line)]
    assert not offenders, "\n".join(offenders)


def test_the_percent_check_catches_a_percentage_written_by_hand():
    for line in ['f"{mfu:.0%}"', 'f"{x:+.1%}"', 'f"{n / t:6.1%}"', 'f"{value * 100:.3g}%"', 'f"{v * 100:.1f}%"']:
        assert _PERCENT_BY_HAND.search(line), line
    assert not _PERCENT_BY_HAND.search('f"width:{100 * b / scale:.3f}%;"')
