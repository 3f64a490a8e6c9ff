"""Grading an answer: an Exercise (a question, the answer computed by llmest, a tolerance suited to an estimate,
hints on demand), its Verdict, and reading an entry as a person types it, in English or Chinese.

"约 4 张卡", "15.2 天", "2 weeks", "9.3万 卡时", "93,483 GPU-hours", "67亿", "42％", "$1.2M", "120万美元",
"4.2 × 10^22 FLOPs", and the grader's own displays, such as "5.07 TB (5,073 GB)" or "1,310,359,552 (1.31B)".
``read_entry(entry, unit)`` reads any unit of ``units.UNITS``, with the words and the example its entry there
gives, and returns the value in the unit's own terms: bytes, a fraction for "fraction", US dollars, days, GPU-hours,
FLOPs ... It never evaluates its input. ``ex.check(answer)``
never shows a traceback and never reveals the answer before it is found.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Callable

from ..core._validate import InputError, check_choice, quote
from .course_mode import FEEDBACK, _GRADED, graded_mode, withheld  # noqa: F401  (re-exported)
from .verdict import ANSWER_LABEL, Verdict, readers_words  # noqa: F401  (re-exported)
from ..core.i18n import N_, _
from ..core.units import (SI_PREFIXES, UNITS, _NUMBER_AND_UNIT, check_length, format_percent, halfwidth, parse_bytes,
                          parse_count, show)


def entry_placeholder(unit: str) -> str:
    """The hint inside an empty entry box: 'e.g. 41.5 days, 6 weeks or 41.5'."""
    check_choice("unit", unit, UNITS)
    return _("e.g. {example}").format(example=_example(unit).replace('"', ""))


def _example(unit: str) -> str:
    """What to type in ``unit``, in the language shown: '"37 GPUs" or 37'."""
    return _(UNITS[unit].example)


# Every pattern here takes time linear in the entry's length (tests/test_entry_input.py times them on 32,000
# characters): _normalise makes each run of spaces one, so that no "\s*" tried at many places scans a long run; a
# pattern tried at every place either ends at "$" or enters a run of digits at its start only.
# What people type around an estimate: "~140 GB", "约 15 天", "70 GB 左右", "140 GB per GPU", "每卡 70 GB"; each a
# pair (before the number, after it).
_APPROXIMATELY = (re.compile(r"(?:~|≈|about|around|roughly|approx\.?|approximately|circa|ca\.|大约|大概|约为|约|差不多)",
                             re.IGNORECASE),
                  re.compile(r"(?:左右|上下|or so)$", re.IGNORECASE))
_PER_GPU = (re.compile(r"每(?:张|个|块)?(?:卡|gpu)", re.IGNORECASE),
            re.compile(r"(?:(?:per|a|each) (?:gpu|card)|/ ?(?:gpu|卡)|each|每(?:张|个|块)?(?:卡|gpu))$", re.IGNORECASE))
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_POWER_OF_TEN = re.compile(r"(?<![\d.,])(?:(\d[\d.,]*) ?[x×*·] ?)?(?<![\d.,])10 ?(?:(?:\^|\*\*) ?([+-]?\d+)|"
                           r"([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
# "5.07 TB (5,073 GB)", "1.2 (GB)", and "25.0M(2500万) tokens": a figure with its twin, its unit after both.
_PARENTHESIS = re.compile(r"^(?P<first>[^()]*)\((?P<second>[^()]*)\)(?P<after>[^()\d]*)$")
_BARE = re.compile(r"[+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE)


def read_entry(entry, unit: str) -> float:
    """The value of an entry in ``unit``: a number, or text such as "6.7B", "15.2 天" or "$1.2M".

    A bare number is GB where GB are asked for (a bare 7.15e10 is bytes), and percent above 1 ("42" is 42%)."""
    check_choice("unit", unit, UNITS)
    example = _example(unit)
    if isinstance(entry, str):
        check_length(entry, "answer")
        value = _read_text(entry, unit)
    elif isinstance(entry, bool) or not isinstance(entry, numbers.Real) or type(entry).__name__ in ("bool", "bool_"):
        raise InputError("answer", _("answer == {entry}, must be a number or text such as {example}.").format(
            entry=quote(entry), example=example))
    else:
        try:
            value = _bare(float(entry), unit)
        except OverflowError:  # an int beyond any float
            value = math.inf
    if not math.isfinite(value) or value <= 0:
        raise InputError("answer", _("answer == {entry}, must be a positive, finite number.").format(
            entry=quote(entry)))
    if unit == "GPUs" and not value.is_integer():
        shown = entry.strip() if isinstance(entry, str) else entry
        raise InputError("answer", _("answer == {entry}: a number of GPUs is a whole number, such as {example}.")
                         .format(entry=repr(shown), example=example))
    return value


def _bare(value: float, unit: str) -> float:
    if unit == "bytes" and abs(value) < 1e6:
        return value * 1e9
    if unit == "fraction" and value > 1:
        return value / 100
    return value


# Small counts in Chinese numerals before a unit: "两周", "三天", "四张卡", "十二张卡" (1 to 99).
_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_NUMERAL = re.compile(r"^([一二两三四五六七八九])?(十)?([一二三四五六七八九])?(?=\s*[^\d\s.,])")


def _numeral(m) -> str:
    tens, ten, ones = m.groups()
    if ten:
        return str(10 * _DIGITS.get(tens, 1) + _DIGITS.get(ones, 0))
    return str(_DIGITS[tens]) if tens and not ones else m.group()


def _trim(text: str, words: tuple) -> str:
    """The text without the words before and after its number (a pair of patterns)."""
    before, after = words
    if match := before.match(text):
        text = text[match.end():].lstrip()
    if match := after.search(text):
        text = text[:match.start()].rstrip()
    return text


def _normalise(text: str) -> str:
    text = " ".join(halfwidth(text).split())
    for _pass in range(2):  # "约 70 GB 每卡": either order
        text = _trim(_trim(text, _APPROXIMATELY), _PER_GPU)
    text = _NUMERAL.sub(_numeral, text, count=1)

    def power(m):
        exponent = m.group(2) or m.group(3).translate(_SUPERSCRIPTS)
        return f"{m.group(1) or '1'}e{exponent}"
    return _POWER_OF_TEN.sub(power, text)


def _read_text(entry: str, unit: str) -> float:
    text = _normalise(entry)
    both = _PARENTHESIS.fullmatch(text)
    if both:
        after = both["after"].strip()
        both = {part: f"{both[part].strip()} {after}".strip() if after and re.search(r"\d", both[part]) else
                both[part].strip() for part in ("first", "second")}
    if not both or not both["first"] or not both["second"]:
        return _read_one(text, unit, entry)
    if not re.search(r"\d", both["second"]):  # "1.2 (GB)": a unit in brackets
        return _read_one(f"{both['first']} {both['second']}", unit, entry)
    # "5.07 TB (5,073 GB)": the same figure twice, as the grader displays it; they must agree. The one written with
    # more digits is the finer.
    first, second = (_read_one(both[part], unit, entry) for part in ("first", "second"))
    if abs(first / second - 1) > 0.01:
        raise InputError("answer", _("answer == {entry}: {first} and {second} are not the same figure; type one of "
                                     "them.").format(entry=repr(entry), first=both["first"], second=both["second"]))
    digits = [len(re.findall(r"\d", both[part])) for part in ("first", "second")]
    return second if digits[1] > digits[0] else first


def _read_one(text: str, unit: str, entry: str) -> float:
    if _BARE.fullmatch(text):
        return _bare(parse_count(text, "answer"), unit)
    if unit == "bytes" or not UNITS[unit].entry_words:  # a count: parse_count and parse_bytes list their suffixes
        _a_number_first(text, unit, entry)
        value = (parse_bytes if unit == "bytes" else parse_count)(text, "answer")
        if unit == "bytes" and value < 1e6 and re.search(r"\d ?(?:b|bytes?)$", text, re.IGNORECASE):
            gb = re.findall(r'"[^"]+"', _example("bytes"))[-1]  # what a bare number of bytes should have been
            raise InputError("answer", _("answer == {entry} means bytes, and this question asks for GB: type the "
                                         "number of GB, or add the unit, as in {example}.").format(
                                             entry=repr(entry.strip()), example=gb))
        return value
    rest, factor = _strip_words(text, unit, entry)
    _a_number_first(rest, unit, entry)
    try:
        return parse_count(rest, "answer") * factor
    except InputError:
        raise _not_a_number(unit, entry) from None


def _a_number_first(text: str, unit: str, entry: str) -> None:
    if not _NUMBER_AND_UNIT.match(text):
        raise _not_a_number(unit, entry)


def _not_a_number(unit: str, entry: str) -> InputError:
    """The error for an entry that does not start with a number, or whose words are not the unit's."""
    values = {"entry": repr(entry.strip()), "name": _(UNITS[unit].name), "example": _example(unit)}
    if UNITS[unit].name:
        return InputError("answer", _("answer == {entry} is not a number of {name}: type something such as "
                                      "{example}.").format(**values))
    return InputError("answer", _("answer == {entry} is not a number: type something such as {example}.").format(
        **values))


@functools.cache
def _word_patterns(unit: str) -> tuple:
    """The unit's words before the number (matched at the start) and after it (at the end), compiled once."""
    words_of = UNITS[unit]
    return tuple(tuple((re.compile(anchored.format(words), re.IGNORECASE), meaning) for words, meaning in table)
                 for table, anchored in ((words_of.entry_prefixes, r"\s*(?:{})\s*"),
                                         (words_of.entry_words, r"(?<![a-z])\s*(?:{})\s*$")))


def _strip_words(text: str, unit: str, entry: str) -> tuple[str, float]:
    """The number's text without the unit's words, and the factor the words stand for."""
    factor = 1.0
    for table, at in zip(_word_patterns(unit), ("match", "search")):
        for pattern, meaning in table:
            match = getattr(pattern, at)(text)
            if match and match.group().strip():
                if isinstance(meaning, str):
                    raise InputError("answer", _("answer == {entry}: {reason}.").format(entry=repr(entry.strip()),
                                                                                        reason=_(meaning)))
                factor *= meaning * SI_PREFIXES[(match.groupdict().get("si") or "").lower()]
                text = text[:match.start()] + text[match.end():]
                break
    return text, factor


# Outside the tolerance but within this factor of the answer, an estimate is "close".
CLOSE_FACTOR = 2.0


def _size_of_miss(factor: float) -> str:
    """How far off, coarsely: a finer figure, with the value entered, would give the answer away."""
    if factor < 10:
        return _("{close} to 10×").format(close=f"{CLOSE_FACTOR:g}")
    return _("10 to 1,000×") if factor < 1000 else _("more than 1,000×")


def _unit_hint(entry, value: float, expected: float) -> str:
    """' Did you mean 6.6B?' for a bare 6.6 where billions are asked for: the unit only, no closer than "close"."""
    if isinstance(entry, str) and not re.fullmatch(r"\s*[\d.,_eE+-]+\s*", entry) or abs(value) >= 1000:
        return ""  # a unit, or a number too large to be a count of thousands or billions typed bare
    for suffix, scale in (("K", 1e3), ("M", 1e6), ("B", 1e9), ("T", 1e12)):
        if 1 / CLOSE_FACTOR <= value * scale / expected <= CLOSE_FACTOR:
            return _(" Did you mean {value}?").format(value=f"{value:g}{suffix}")
    return ""


def _read_answer(answer, unit: str):
    """An answer's value in ``unit``, or the Verdict for an empty or unreadable one."""
    if answer is None:  # the answer cell as a chapter gives it, before the reader answers
        return Verdict("empty", _("No answer yet: run the exercise cell above and answer in its box, or set answer = "
                                  "a number here, such as {example}, and run this cell.").format(
                                      example=_example(unit)))
    if isinstance(answer, str) and not answer.strip():
        return Verdict("empty", _("No answer yet: give a number, such as {example}.").format(example=_example(unit)))
    try:
        return read_entry(answer, unit)
    except InputError as err:
        return Verdict("invalid", _("Could not read that: {error}").format(error=err))


def assert_readable(answer, unit: str) -> None:
    """The visible test of a graded answer: one is given and reads as a number in ``unit``; nothing about its value.
    Raises AssertionError with the exercise box's message."""
    value = _read_answer(answer, unit)
    if isinstance(value, Verdict):
        raise AssertionError(value.shown)


# Notebook interfaces, registered by llmest.surfaces.widgets when it loads: grading imports no interface, so the widgets
# depend on grading and not the other way round.
INTERFACES: dict[str, Callable] = {}


@dataclass
class Exercise:
    key: str
    question: str
    answer: Callable[[], float]
    unit: str = "count"
    rel_tol: float = 0.05
    hints: tuple = ()
    minimum: bool = False   # the answer is the least that works (GPUs to hold or finish): fewer is never right
    values: dict = field(default_factory=dict, repr=False)  # the {placeholders} of question and hints, filled in
    _hints_shown: int = field(default=0, repr=False)

    def __post_init__(self):
        check_choice("unit", self.unit, UNITS)
        # The English as written (the catalog's key), then filled in: question and hints read as English.
        self._templates = (self.question, tuple(self.hints))
        if self.values:
            self.question = self.question.format(**self.values)
            self.hints = tuple(h.format(**self.values) for h in self.hints)

    @property
    def shown_question(self) -> str:
        """The question in the language shown."""
        return self._shown(self._templates[0], self.question)

    @property
    def shown_hints(self) -> tuple:
        return tuple(self._shown(t, h) for t, h in zip(self._templates[1], self.hints))

    def _shown(self, template: str, english: str) -> str:
        translated = _(template)
        if translated == template:
            return english
        return translated.format(**self.values) if self.values else translated

    def __getattribute__(self, name):
        # In graded mode the expected value is not handed out, by expected() or by the answer it is computed from.
        if name == "answer" and _GRADED["on"]:
            return withheld
        return object.__getattribute__(self, name)

    def expected(self) -> float:
        return float(self.answer())

    def _fmt(self, value: float) -> str:
        return show(value, self.unit)

    def check(self, answer) -> Verdict:
        """Grade an answer: a number, or text such as "6.7B", "15.2 天" or "$1.2M". A miss gets its direction and
        a coarse size, never a figure from which the answer follows."""
        value = _read_answer(answer, self.unit)
        if isinstance(value, Verdict):
            return value
        if _GRADED["on"] and _GRADED["feedback"] == "none":
            return Verdict("received", _("Read as {shown}: it is graded when you submit.").format(
                shown=self._fmt(value)))
        expected = float(object.__getattribute__(self, "answer")())
        if _GRADED["on"]:   # right or wrong, and no direction
            right = abs(value / expected - 1) <= self.rel_tol and not (self.minimum and value < expected)
            return Verdict("correct", _("Correct: {shown}.").format(shown=self._fmt(value))) if right else \
                Verdict("wrong", _("Not yet: {shown} is not within this exercise's tolerance.").format(
                    shown=self._fmt(value)))
        ratio = value / expected  # 0 or inf for an entry beyond the floats' range around the answer
        miss = max(ratio, 1 / ratio) if 0 < ratio < math.inf else math.inf
        said = {"shown": self._fmt(value), "direction": _("too high") if ratio > 1 else _("too low"),
                "hint": self._try_hint}
        if self.rel_tol == 0:  # a count that must be exact, such as a number of GPUs
            if value == expected:
                return Verdict("correct", _("Correct: {shown}.").format(**said))
            return Verdict("wrong", _("Not yet: {shown} is {direction}; this asks for the exact count.{hint}")
                           .format(**said))
        if self.minimum and value < expected:
            return Verdict("wrong", _("Not enough: {shown} is too low; this asks for the least that works, and fewer "
                                      "is not enough.{hint}").format(**said))
        exact = self.rel_tol < 1e-4  # "count it exactly"
        tolerance = format_percent(self.rel_tol, 1)
        if abs(ratio - 1) <= self.rel_tol:
            if exact:
                return Verdict("correct", _("Correct: {shown}, exactly.").format(**said))
            return Verdict("correct", _("Correct: {shown} is within {tolerance} of {expected}.").format(
                tolerance=tolerance, expected=self._fmt(expected), **said))
        if 1 / CLOSE_FACTOR <= ratio <= CLOSE_FACTOR:
            relative = _(" (relative, not percentage points)") if self.unit == "fraction" else ""
            wanted = _("the exact count") if exact else _("within {tolerance} of the answer{relative}").format(
                tolerance=tolerance, relative=relative)
            return Verdict("close", _("Close: {shown} is {direction}, within {factor}×; this exercise asks for "
                                      "{wanted}.{hint}").format(factor=f"{CLOSE_FACTOR:g}", wanted=wanted, **said))
        unit_hint = _unit_hint(answer, value, expected) if self.unit == "count" else ""
        return Verdict("wrong", _("Not yet: {shown} is {direction}, by {miss}.{unit_hint}{hint}").format(
            miss=_size_of_miss(miss), unit_hint=unit_hint, **said))

    def assert_form(self, answer) -> None:
        """A visible test for an autograder: an answer is given and reads as a number in this exercise's unit.
        Says nothing of whether it is right. Raises AssertionError with the exercise box's message."""
        assert_readable(answer, self.unit)

    def assert_ok(self, answer) -> None:
        """A hidden test for an autograder: the answer is right within the exercise's tolerance. Raises
        AssertionError with the message the exercise box shows (a direction and a coarse size, never the answer)."""
        verdict = self.check(answer)
        if not verdict.correct:
            raise AssertionError(verdict.shown)

    @property
    def _try_hint(self) -> str:
        return _(" Try a hint.") if self.hints else ""

    def hint(self) -> str:
        """The next hint (they stay shown once revealed)."""
        if not self.hints:
            return _("No hints for this one.")
        self._hints_shown = min(self._hints_shown + 1, len(self.hints))
        return "\n".join(_("Hint {number}: {hint}").format(number=i + 1, hint=h)
                         for i, h in enumerate(self.shown_hints[: self._hints_shown]))

    @property
    def title(self) -> str:
        """'Exercise 1.2: the question', in the language shown."""
        return _("Exercise {key}: {question}").format(key=self.key, question=self.shown_question)

    def __repr__(self) -> str:
        return self.title

    def widget(self):
        """The exercise box (question, entry, Check and Hint, the verdict) that llmest.surfaces.widgets registers."""
        if "exercise" not in INTERFACES:
            raise RuntimeError("the exercise box is part of llmest.widgets, which needs ipywidgets: import it first")
        return INTERFACES["exercise"](self)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget())
