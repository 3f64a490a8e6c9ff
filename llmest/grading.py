"""Grading an answer: an Exercise (a question, the answer computed by llmest, a tolerance suited to an estimate,
hints on demand), its Verdict, and reading an entry as a person types it, in English or Chinese.

"约 4 张卡", "15.2 天", "2 weeks", "9.3万 卡时", "93,483 GPU-hours", "67亿", "42％", "$1.2M", "120万美元",
"4.2 × 10^22 FLOPs", and the grader's own displays, such as "5.07 TB (5,073 GB)" or "1,310,359,552 (1.31B)".
``read_entry(entry, unit)`` gives the value in the unit's own terms: bytes, a fraction for percent, US dollars,
days, GPU-hours, GPUs, tokens per second, FLOPs or epochs. It never evaluates its input. ``ex.check(answer)``
never shows a traceback and never reveals the answer before it is found.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

from ._validate import InputError
from .units import _NUMBER_AND_UNIT, format_percent, halfwidth, parse_bytes, parse_count, show

# What to type, by unit: shown as the entry's placeholder and when the entry is empty. Each is neutral: more than 2×
# from the answer of every exercise and shown drill in its unit, and read by read_entry (tests/test_exercises.py).
_GB_EXAMPLE = "1.2 GB"
ENTRY_EXAMPLES = {"count": '8.5e10 or "85B"', "bytes": f'1.2 (GB) or "{_GB_EXAMPLE}"', "percent": '"7.5%" or 0.075',
                  "usd": '"$2.7M", "$0.85" or 2.7e6', "days": '"41.5 days", "6 weeks" or 41.5',
                  "hours": '"1,850 GPU-hours" or 1850', "gpus": '"37 GPUs" or 37',
                  "tokens/s": '"1,500 tokens/s" or 1500', "flops": '"3.3e21 FLOPs" or 3.3e21',
                  "epochs": '"2.5 epochs" or 2.5'}

# How a message names each unit, and the words it takes ("GPU-hours" count work; "hours" alone also time).
UNIT_NAMES = {"count": "a count", "bytes": "GB", "percent": "a percentage", "usd": "US dollars",
              "days": "days (days, weeks, hours, months; 天, 周, 小时)",
              "hours": "GPU-hours (GPU-hours, hours, days; 卡时, 小时, 天)", "gpus": "GPUs (GPUs, cards; 张卡)",
              "tokens/s": "tokens per second (tokens/s; token/秒)", "flops": "FLOPs (FLOPs, GFLOPs ...)",
              "epochs": "epochs (epochs, passes; 轮)"}


def entry_placeholder(unit: str) -> str:
    """The hint inside an empty entry box: 'e.g. 41.5 days, 6 weeks or 41.5'."""
    return "e.g. " + ENTRY_EXAMPLES[unit].replace('"', "")


# Lengths of time in days, with the words for them.
_TIME = ((r"hours?|hrs?|h|个?小时|钟头", 1 / 24), (r"days?|d|天|日", 1.0), (r"weeks?|wks?|个?(?:星期|礼拜)|周", 7.0),
         (r"months?|个月", 365.25 / 12), (r"years?|yrs?|年", 365.25))
_GPU = r"(?:gpus?|cards?|卡|(?:nvidia\s*)?[abhlv]\d{2,3}s?)"   # an "A100-hour" is a GPU-hour
_GPU_TIME = [(rf"{_GPU}\s*[-·・ ]?\s*(?:{words})", days * 24) for words, days in _TIME] + [(rf"{_GPU}\s*时", 1.0)]
_GPU_MODEL = r"(?:nvidia\s*)?(?:[abhlv]\d{2,3}|rtx\s*\d{4})(?:\s*(?:sxm\d?|pcie|nvl))?(?:\s*\d+\s*gb)?s?"
_SI = {"": 1.0, "k": 1e3, "kilo": 1e3, "m": 1e6, "mega": 1e6, "g": 1e9, "giga": 1e9, "t": 1e12, "tera": 1e12,
       "p": 1e15, "peta": 1e15, "e": 1e18, "exa": 1e18, "z": 1e21, "zetta": 1e21}
_TOKEN = r"(?:个\s*)?(?:tokens?|toks?|t|词元)"
_NOT_DOLLARS = r"元|块钱|rmb|cny|yuan|人民币|¥|￥|€|eur|euros?|£|gbp"
_GPU_TIME_IN_DAYS = "GPU-hours measure work, not time: divide them by the number of GPUs for the hours each runs"

# The words that may follow (or, for a few, precede) a number in each unit, and what they multiply it by to reach
# the unit; a string instead of a factor refuses the entry with that reason.
SUFFIXES = {
    "days": [(p, _GPU_TIME_IN_DAYS) for p, _ in _GPU_TIME] + [(words, days) for words, days in _TIME],
    "hours": _GPU_TIME + [(words, days * 24) for words, days in _TIME],
    "gpus": [(rf"[x×*]?\s*(?:[张块台个片]\s*)?(?:{_GPU_MODEL}\s*)?(?:gpus?|cards?|devices?|显卡|卡)?", 1.0)],
    "tokens/s": [(rf"{_TOKEN}?\s*(?:/|per|a|每)\s*(?:s|secs?|seconds?|秒钟?)|{_TOKEN}\s*每秒|tps|{_TOKEN}", 1.0)],
    "flops": [(r"(?P<si>kilo|mega|giga|tera|peta|exa|zetta|[kmgtpez])?\s*flops?|次(?:浮点)?(?:运算)?", None)],
    "epochs": [(r"(?:个\s*)?epochs?|pass(?:es)?|times|x|×|个?轮次?|遍|次", 1.0)],
    "percent": [(r"%|percent|per\s*cent|pct", 0.01)],
    "usd": [(r"us\s*dollars?|dollars?|usd|美元|美金", 1.0), (_NOT_DOLLARS, "this asks for US dollars: type $ or 美元")],
}
PREFIXES = {"usd": [(r"us\s*\$|\$|usd", 1.0), (_NOT_DOLLARS, "this asks for US dollars: type $ or 美元")],
            "percent": [(r"百分之", 0.01)], "tokens/s": [(r"每秒(?:钟)?", 1.0)]}

# What people type around an estimate: "~140 GB", "约 15 天", "70 GB 左右", "140 GB per GPU", "每卡 70 GB".
_APPROXIMATELY = re.compile(r"^\s*(?:~|≈|about|around|roughly|approx\.?|approximately|circa|ca\.|大约|大概|约为|约|差不多)"
                            r"\s*|\s*(?:左右|上下|or so)\s*$", re.IGNORECASE)
_PER_GPU = re.compile(r"^\s*每(?:张|个|块)?(?:卡|gpu)\s*|\s*(?:(?:per|a|each)\s+(?:gpu|card)|/\s*(?:gpu|卡)|each|"
                      r"每(?:张|个|块)?(?:卡|gpu))\s*$", re.IGNORECASE)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_POWER_OF_TEN = re.compile(r"(?:(\d[\d.,]*)\s*[x×*·]\s*)?10\s*(?:(?:\^|\*\*)\s*([+-]?\d+)|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_PARENTHESIS = re.compile(r"^(?P<first>[^()]+?)\s*\((?P<second>[^()]+)\)\s*$")
_BARE = re.compile(r"\s*[+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*", re.IGNORECASE)


def read_entry(entry, unit: str) -> float:
    """The value of an entry in ``unit``: a number, or text such as "6.7B", "15.2 天" or "$1.2M".

    A bare number is GB where GB are asked for (a bare 7.15e10 is bytes), and percent above 1 ("42" is 42%)."""
    if isinstance(entry, str):
        value = _read_text(entry, unit)
    elif isinstance(entry, bool):
        raise InputError("answer", f"answer == {entry!r}, must be a number or text such as {ENTRY_EXAMPLES[unit]}.")
    else:
        try:
            value = _bare(float(entry), unit)
        except (TypeError, ValueError):
            raise InputError("answer", f"answer == {entry!r}, must be a number or text such as "
                                       f"{ENTRY_EXAMPLES[unit]}.") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError("answer", f"answer == {entry!r}, must be a positive, finite number.")
    if unit == "gpus" and not value.is_integer():
        shown = entry.strip() if isinstance(entry, str) else entry
        raise InputError("answer", f"answer == {shown!r}: a number of GPUs is a whole number, such as "
                                   f"{ENTRY_EXAMPLES[unit]}.")
    return value


def _bare(value: float, unit: str) -> float:
    if unit == "bytes" and abs(value) < 1e6:
        return value * 1e9
    if unit == "percent" and value > 1:
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


def _normalise(text: str) -> str:
    text = halfwidth(text).strip()
    for _ in range(2):  # "约 70 GB 每卡": either order
        text = _PER_GPU.sub("", _APPROXIMATELY.sub("", text)).strip()
    text = _NUMERAL.sub(_numeral, text, count=1)

    def power(m):
        exponent = m.group(2) or m.group(3).translate(_SUPERSCRIPTS)
        return f"{m.group(1) or '1'}e{exponent}"
    return _POWER_OF_TEN.sub(power, text)


def _read_text(entry: str, unit: str) -> float:
    text = _normalise(entry)
    both = _PARENTHESIS.match(text)
    if not both:
        return _read_one(text, unit, entry)
    if not re.search(r"\d", both["second"]):  # "1.2 (GB)": a unit in brackets
        return _read_one(f"{both['first']} {both['second']}", unit, entry)
    # "5.07 TB (5,073 GB)": the same figure twice, as the grader displays it; they must agree. The one written with
    # more digits is the finer.
    first, second = (_read_one(both[part], unit, entry) for part in ("first", "second"))
    if abs(first / second - 1) > 0.01:
        raise InputError("answer", f"answer == {entry!r}: {both['first']} and {both['second']} are not the same "
                                   "figure; type one of them.")
    digits = [len(re.findall(r"\d", both[part])) for part in ("first", "second")]
    return second if digits[1] > digits[0] else first


def _read_one(text: str, unit: str, entry: str) -> float:
    if _BARE.fullmatch(text):
        return _bare(parse_count(text, "answer"), unit)
    if unit in ("count", "bytes"):
        _a_number_first(text, unit, entry)
        value = (parse_count if unit == "count" else parse_bytes)(text, "answer")  # their messages list suffixes
        if unit == "bytes" and value < 1e6 and re.fullmatch(r".*\d\s*(b|bytes?)", text, re.IGNORECASE):
            raise InputError("answer", f"answer == {entry.strip()!r} means bytes, and this question asks for GB: "
                                       f"type the number of GB, or add the unit, as in \"{_GB_EXAMPLE}\".")
        return value
    rest, factor = _strip_words(text, unit, entry)
    _a_number_first(rest, unit, entry)
    try:
        return parse_count(rest, "answer") * factor
    except InputError:
        raise InputError("answer", f"answer == {entry.strip()!r} is not a number of {UNIT_NAMES[unit]}: type "
                                   f"something such as {ENTRY_EXAMPLES[unit]}.") from None


def _a_number_first(text: str, unit: str, entry: str) -> None:
    if not _NUMBER_AND_UNIT.match(text):
        of = "" if unit == "count" else f" of {UNIT_NAMES[unit]}"
        raise InputError("answer", f"answer == {entry.strip()!r} is not a number{of}: type something such as "
                                   f"{ENTRY_EXAMPLES[unit]}.")


def _strip_words(text: str, unit: str, entry: str) -> tuple[str, float]:
    """The number's text without the unit's words, and the factor the words stand for."""
    factor = 1.0
    for table, anchored in ((PREFIXES, r"^\s*(?:{})\s*"), (SUFFIXES, r"(?<![a-z])\s*(?:{})\s*$")):
        for words, meaning in table.get(unit, ()):
            match = re.search(anchored.format(words), text, re.IGNORECASE)
            if match and match.group().strip():
                if isinstance(meaning, str):
                    raise InputError("answer", f"answer == {entry.strip()!r}: {meaning}.")
                factor *= _SI[(match.groupdict().get("si") or "").lower()] if meaning is None else meaning
                text = text[:match.start()] + text[match.end():]
                break
    return text, factor


# Outside the tolerance but within this factor of the answer, an estimate is "close".
CLOSE_FACTOR = 2.0


def _size_of_miss(factor: float) -> str:
    """How far off, coarsely: a finer figure, with the value entered, would give the answer away."""
    if factor < 10:
        return f"{CLOSE_FACTOR:g} to 10×"
    return "10 to 1,000×" if factor < 1000 else "more than 1,000×"


def _unit_hint(entry, value: float, expected: float) -> str:
    """' Did you mean 6.6B?' for a bare 6.6 where billions are asked for: the unit only, no closer than "close"."""
    if isinstance(entry, str) and not re.fullmatch(r"\s*[\d.,_eE+-]+\s*", entry):
        return ""
    for suffix, scale in (("K", 1e3), ("M", 1e6), ("B", 1e9), ("T", 1e12)):
        if 1 / CLOSE_FACTOR <= value * scale / expected <= CLOSE_FACTOR:
            return f" Did you mean {value:g}{suffix}?"
    return ""


@dataclass(frozen=True)
class Verdict:
    grade: str      # "correct", "close", "wrong", "empty" or "invalid"
    message: str

    @property
    def correct(self) -> bool:
        return self.grade == "correct"

    def __repr__(self) -> str:
        return self.message


# Notebook interfaces, registered by llmest.widgets when it loads: grading imports no interface, so the widgets
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
    _hints_shown: int = field(default=0, repr=False)

    def expected(self) -> float:
        return float(self.answer())

    def _fmt(self, value: float) -> str:
        return show(value, self.unit)

    def check(self, answer) -> Verdict:
        """Grade an answer: a number, or text such as "6.7B", "15.2 天" or "$1.2M". A miss gets its direction and
        a coarse size, never a figure from which the answer follows."""
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return Verdict("empty", f"No answer yet: give a number, such as {ENTRY_EXAMPLES[self.unit]}.")
        try:
            value = read_entry(answer, self.unit)
        except InputError as err:
            return Verdict("invalid", f"Could not read that: {err}")
        expected = self.expected()
        ratio = value / expected
        shown = self._fmt(value)
        direction = "high" if ratio > 1 else "low"
        if self.rel_tol == 0:  # a count that must be exact, such as a number of GPUs
            if value == expected:
                return Verdict("correct", f"Correct: {shown}.")
            return Verdict("wrong",
                           f"Not yet: {shown} is too {direction}; this asks for the exact count.{self._try_hint}")
        if self.minimum and value < expected:
            return Verdict("wrong", f"Not enough: {shown} is too low; this asks for the least that works, and "
                                    f"fewer is not enough.{self._try_hint}")
        exact = self.rel_tol < 1e-4  # "count it exactly"
        if abs(ratio - 1) <= self.rel_tol:
            if exact:
                return Verdict("correct", f"Correct: {shown}, exactly.")
            return Verdict("correct", f"Correct: {shown} is within {format_percent(self.rel_tol, 1)} of "
                                      f"{self._fmt(expected)}.")
        if 1 / CLOSE_FACTOR <= ratio <= CLOSE_FACTOR:
            relative = " (relative, not percentage points)" if self.unit == "percent" else ""
            wanted = "the exact count" if exact else f"within {format_percent(self.rel_tol, 1)} of the answer{relative}"
            return Verdict("close", f"Close: {shown} is too {direction}, within {CLOSE_FACTOR:g}×; this exercise asks "
                                    f"for {wanted}.{self._try_hint}")
        hint = _unit_hint(answer, value, expected) if self.unit == "count" else ""
        return Verdict("wrong", f"Not yet: {shown} is too {direction}, by {_size_of_miss(max(ratio, 1 / ratio))}."
                                f"{hint}{self._try_hint}")

    @property
    def _try_hint(self) -> str:
        return " Try a hint." if self.hints else ""

    def hint(self) -> str:
        """The next hint (they stay shown once revealed)."""
        if not self.hints:
            return "No hints for this one."
        self._hints_shown = min(self._hints_shown + 1, len(self.hints))
        return "\n".join(f"Hint {i + 1}: {h}" for i, h in enumerate(self.hints[: self._hints_shown]))

    def __repr__(self) -> str:
        return f"Exercise {self.key}: {self.question}"

    def widget(self):
        """The exercise box (question, entry, Check and Hint, the verdict) that llmest.widgets registers."""
        if "exercise" not in INTERFACES:
            raise RuntimeError("the exercise box is part of llmest.widgets, which needs ipywidgets: import it first")
        return INTERFACES["exercise"](self)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget())
