"""Reading and writing quantities: "7B", "6.7e9", "7 billion", "65亿", "80GB", "512 KiB".

GB means 1e9 bytes and GiB 2**30 bytes, always. Parsers never evaluate their input."""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Callable

from ._validate import InputError, check_callable, check_text, checked, lookup, quote
from .clock import (DAYS_PER_YEAR, HOURS_PER_MONTH, SECONDS_PER_DAY, SECONDS_PER_HOUR,  # noqa: F401 (re-exported)
                    _SECONDS_PER_MONTH, gpu_hour_words, time_words)
from .i18n import C_, N_, NC_, _, language, spaced

COUNT_SCALES = {"": 1.0, "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
                "billion": 1e9, "t": 1e12, "tn": 1e12, "trillion": 1e12, "千": 1e3, "万": 1e4, "百万": 1e6,
                "千万": 1e7, "亿": 1e8, "十亿": 1e9, "百亿": 1e10, "千亿": 1e11, "万亿": 1e12}
BYTE_SCALES = {"b": 1.0, "byte": 1.0, "bytes": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15, "g": 1e9,
               "t": 1e12, "megabytes": 1e6, "gigabytes": 1e9, "terabytes": 1e12, "petabytes": 1e15,
               "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40, "pib": 2.0**50}
# Words a reader may add after a count ("7B params", "67亿个参数"), longer first ("个参数" is taken whole); no value.
COUNT_NOUNS = ("tokens per parameter", "tokens/parameter", "tokens per param", "tokens/param", "parameters",
               "parameter", "params", "param", "tokens", "token", "flops", "flop", "sequences", "sequence", "bytes",
               "个参数", "参数", "个词元", "词元", "条序列", "序列", "个字节", "字节", "个")

# Fullwidth forms, as a Chinese input method types them ("７Ｂ", "４２％", "１，０００"), read as their ASCII twins.
_HALFWIDTH = {0xFF01 + i: 0x21 + i for i in range(94)} | {0x3000: 0x20}


def halfwidth(text: str) -> str:
    """'４２％' -> '42%'."""
    return text.translate(_HALFWIDTH)

# The unit takes the rest, spaces included (the caller strips them): a lazy unit before "\s*$" backtracks
# quadratically on a long run of spaces.
_NUMBER_AND_UNIT = re.compile(
    r"^\s*(?P<number>[+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(?P<unit>[^\d\s].*)?$",
    re.IGNORECASE | re.DOTALL,
)
# The longest entry or size read: nothing a person types is longer, and no parser works on megabytes.
MAX_ENTRY = 200


def check_length(text: str, name: str) -> None:
    """Refuse text longer than MAX_ENTRY, before any work on it."""
    if len(text) > MAX_ENTRY:
        raise InputError(name, _("{name} == {text} is too long: {length} characters, where at most {most} are "
                                 "read.").format(name=name, text=quote(text), length=f"{len(text):,}", most=MAX_ENTRY))


def _finite(value: float, text: str, name: str) -> float:
    if not math.isfinite(value):
        raise InputError(name, _("{name} == {text} is too large, must be a finite number.").format(
            name=name, text=quote(text)))
    return value


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:e[+-]?\d+)?", re.IGNORECASE)


def _without_separators(number: str, text: str, name: str) -> str:
    """'1,310,359,552' -> '1310359552'. A comma separates thousands only: '15,2' is refused, never read as 152."""
    if "," in number and not _THOUSANDS.fullmatch(number):
        decimal = number.replace(",", ".")
        suggestion = _(" (for a decimal point type {decimal})").format(decimal=repr(decimal)) \
            if number.count(",") == 1 and "." not in number else ""
        raise InputError(name, _("{name} == {text}: a comma separates thousands, in groups of three such as \"1,000\" "
                                 "or \"1,234,567\"{suggestion}.").format(name=name, text=repr(text.strip()),
                                                                        suggestion=suggestion))
    return number.replace(",", "").replace("_", "")


def _split(text, name: str, example: str) -> tuple[float, str]:
    example = _(example)
    if not isinstance(text, str):
        raise InputError(name, _("{name} == {text}, must be text such as {example}.").format(
            name=name, text=quote(text), example=example))
    check_length(text, name)
    text = halfwidth(text)
    if any(ch.isdigit() and not ch.isascii() for ch in text):  # "١٢" would read as 12 unseen
        raise InputError(name, _("{name} == {text}: write the digits as 0-9, e.g. {example}.").format(
            name=name, text=quote(text), example=example))
    match = _NUMBER_AND_UNIT.match(text)
    if not text.strip():
        raise InputError(name, _("{name} is empty: type a number such as {example}.").format(name=name,
                                                                                              example=example))
    if not match:
        raise InputError(name, _("{name} == {text} is not a number: type something such as {example}.").format(
            name=name, text=repr(text), example=example))
    number = _without_separators(match["number"], text, name)
    unit = (match["unit"] or "").strip().lower()
    return _finite(float(number), text, name), unit


def parse_count(text, name: str = "value") -> float:
    """A count: "7B", "6.7e9", "7 billion", "1.2 T", "65亿", "7B params" or as Chinese shows it, "6.74B（67.4亿）"."""
    pair = re.fullmatch(r"\s*([^（(]+?)\s*[（(]([^)）]+)[)）]\s*", text) if isinstance(text, str) else None
    if pair:
        first, second = parse_count(pair[1], name), parse_count(pair[2], name)
        if not math.isclose(first, second, rel_tol=0.01):
            raise InputError(name, _("{name} == {text}: {first} and {second} are not the same count; type one.").format(
                name=name, text=repr(text), first=pair[1], second=pair[2]))
        return first
    value, unit = _split(text, name, N_('"7B", "6.7e9" or "7 billion"'))
    for noun in COUNT_NOUNS:
        if unit.endswith(noun):
            unit = unit[: -len(noun)].strip()
            break
    if unit not in COUNT_SCALES:
        allowed = _("K, M, B, T (or thousand, million, billion, trillion, 千, 万, 百万, 亿, 十亿, 万亿)")
        raise InputError(name, _("{name} == {text}: unknown suffix {suffix}, must be one of {allowed}.").format(
            name=name, text=repr(text), suffix=repr(unit), allowed=allowed))
    if value < 0:
        raise InputError(name, _("{name} == {text}: a count is never negative.").format(
            name=name, text=repr(text)))
    return _finite(value * COUNT_SCALES[unit], text, name)


def parse_bytes(text, name: str = "value") -> float:
    """A size such as "80GB", "80 GiB", "14 GB", "512 KiB"; a bare number is bytes. A size is never negative."""
    value, unit = _split(text, name, N_('"80GB" or "14 GiB"'))
    if unit and unit not in BYTE_SCALES:
        raise InputError(name, _("{name} == {text}: unknown unit {unit}, must be one of B, KB, MB, GB, TB, KiB, MiB, "
                                 "GiB, TiB.").format(name=name, text=repr(text), unit=repr(unit)))
    if value < 0:
        raise InputError(name, _("{name} == {text}, must be >= 0: a size is never negative.").format(
            name=name, text=repr(text)))
    return _finite(value * BYTE_SCALES.get(unit, 1.0), text, name)


def _real(value, name: str = "value") -> float:
    """A finite real number as a float (NumPy and SymPy numbers included); anything else is refused by name, so no
    display reads "nan GB". An int too large for a float is refused too, never an OverflowError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or type(value).__name__ in ("bool", "bool_"):
        raise InputError(name, f"{name} == {quote(value)}, must be a number.")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(name, f"{name} == {quote(value)} is too large, must be a finite number.") from None
    except (TypeError, ValueError):  # a SymPy symbol, say
        raise InputError(name, f"{name} == {quote(value)}, must be a number.") from None
    if not math.isfinite(number):
        raise InputError(name, f"{name} == {quote(value)}, must be a finite number.")
    return number


# Beyond these a number is written in scientific notation: "1e-320 B" or "2.5e17", not 300 digits.
_TINY, _HUGE = 1e-4, 1e15


def _significant(value: float, digits: int) -> str:
    """``digits`` significant figures, trailing zeros kept: 69.0B says the count is known to three figures."""
    value = float(f"{value:.{digits}g}")
    if value == 0:
        return "0"
    if not _TINY <= abs(value) < _HUGE:
        return format_flops(value, digits)
    decimals = max(digits - 1 - int(math.floor(math.log10(abs(value)))), 0)
    return f"{value:.{decimals}f}"


def _scaled(value: float, units, digits: int, separator: str) -> str | None:
    """The value in the largest unit in which it is at least 1 once rounded (so 999,999 is 1.00M, not 1000K)."""
    for suffix, scale in units:
        if float(_significant(abs(value) / scale, digits)) >= 1:
            return f"{_significant(value / scale, digits)}{separator}{suffix}"
    return None


@checked
def format_count(value: float, digits: int = 3) -> str:
    """6738415616 -> '6.74B'; 131072000 -> '131M'. In the Chinese edition the Chinese reading follows a count from
    10,000 on: '6.74B（67.4亿）'."""
    if abs(_real(value)) >= _HUGE:
        return format_flops(value, digits)
    units = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3))
    small = format_int(value) if float(value).is_integer() else _significant(value, digits)
    text = _scaled(value, units, digits, "") or small
    return f"{text}（{chinese_count(value, digits)}）" if language() == "zh" and abs(value) >= 1e4 else text


@checked
def chinese_count(value: float, digits: int = 3) -> str:
    """A count as a Chinese reader writes it: 7e9 -> '70亿', 6738415616 -> '67.4亿', 1.8e12 -> '1.8万亿'."""
    number = float(f"{_real(value):.{digits}g}")  # rounded first: 99,996,000 is 1亿, not 10000万
    if not abs(number) < 1e16:  # 1万万亿 and up (or past the largest float once rounded) reads best as 1e+16
        return format_number(_real(value))
    for name, scale in (("万亿", 1e12), ("亿", 1e8), ("万", 1e4)):
        if abs(number) >= scale:
            scaled = number / scale
            places = max(digits - 1 - math.floor(math.log10(abs(scaled))), 0)
            shown = f"{round(scaled, places):.{places}f}"
            return (shown.rstrip("0").rstrip(".") if places else shown) + name
    return format_number(number)


def format_int(value) -> str:
    """6738415616 -> '6,738,415,616'; from 1e15 on scientific, as format_flops writes it."""
    number = _real(value)
    if abs(number) >= _HUGE:
        return format_flops(number)
    return f"{round(number):,}"


def format_number(value) -> str:
    """A plain number: whole with separators from 100 up (or when whole), else three significant figures."""
    number = _real(value)
    return format_int(number) if abs(number) >= 100 or number.is_integer() else f"{number:.3g}"


@checked
def format_percent(value: float, decimals: int | None = None, signed: bool = False) -> str:
    """The one spelling of a percentage: 0.4 -> '40%', 0.3934 -> '39.3%', 0.05 -> '5%', never '40.0%' nor
    scientific (but below 0.0001% or from 1e15% on). Three significant figures, or ``decimals`` places before
    trailing zeros are dropped."""
    fraction = _real(value)
    if abs(fraction) >= _HUGE:  # scientific; 100 × the largest floats would overflow
        mantissa, exponent = format_flops(fraction).split("e")
        text = f"{mantissa}e{int(exponent) + 2}"
    else:
        percent = fraction * 100
        text = _significant(percent, 3) if decimals is None else f"{percent:.{decimals}f}"
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return ("+" if signed and not text.startswith("-") else "") + text + "%"


@checked
def format_bytes(value: float, digits: int = 3, binary: bool = False) -> str:
    """112e9 -> '112 GB'; with binary=True, 2**30 -> '1.00 GiB'."""
    units = (("PiB", 2.0**50), ("TiB", 2.0**40), ("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)) if binary \
        else (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3))
    value = _real(value)
    return _scaled(value, units, digits, " ") or f"{_significant(value, digits)} B"


@checked
def format_flops(value: float, digits: int = 3) -> str:
    """4.2e22 -> '4.2e22' (scientific: FLOP counts span too many orders of magnitude for suffixes)."""
    mantissa, exponent = f"{_real(value):.{digits - 1}e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def format_usd(value: float) -> str:
    """187000 -> '$187,000'; below $100, cents: 0.278 -> '$0.28'."""
    value = _real(value)
    if abs(value) >= _HUGE:
        return f"${format_flops(value)}"
    return f"${value:,.2f}" if abs(value) < 100 else f"${value:,.0f}"


@checked(format=check_callable, word=check_text)
def read_in_chinese(format: Callable[[float], str], word: str = "") -> Callable[[float], str]:
    """``format``, and in the Chinese edition the figure's 万/亿 reading after it from 10,000 on, as a count has it
    (until the figure turns scientific): 6300000 -> '6,300,000（630万）' (卡时 follows as the label), with ``word``
    where the figure carries its unit as a sign: 5576000 -> '$5,576,000（558万美元）'. English is ``format``'s own."""
    def formatted(value: float) -> str:
        text = format(value)
        if language() != "zh" or not 1e4 <= abs(_real(value)) < _HUGE:
            return text
        return f"{text}（{chinese_count(value)}{word}）"
    formatted.__name__ = formatted.__qualname__ = f"{format.__name__}_read_in_chinese"
    formatted.__doc__ = format.__doc__
    return formatted


@dataclass(frozen=True)
class Unit:
    format: Callable[[float], str]   # the number, as every surface writes it
    label: str = ""         # printed after the number; "" where the format carries the unit (GB, $, %)
    kind: str = ""          # units of one kind convert into each other by their scales
    scale: float = 1.0
    example: str = ""       # what to type: neutral, far from every answer asked in the unit (tests/test_exercises.py)
    name: str = ""          # how a message names the unit, with the words it takes
    words: tuple = ()       # how the source material writes the unit after a number
    entry_words: tuple = ()  # ((pattern, factor), ...): what a person types after a number, and what it multiplies
                             # the number by to reach the unit; a text instead of a factor refuses it with that reason
    entry_prefixes: tuple = ()  # the same, before the number ("$", "百分之")

    def show(self, value: float) -> str:
        """The number and its label: '7.6 days', '1 GPU', '4.2e22 FLOPs', '$1.2M', '39.3%'."""
        number, label = self.format(value), C_("unit", self.label)
        if number == "1" and label == self.label and " " not in label and "/" not in label and label.endswith("s"):
            label = label[:-1]  # 1 month, 1 GPU (a translated label has no plural)
        return spaced(number, label)


# The words a person types after a number, in English and Chinese (the grader matches them case-insensitively, at
# the end of the entry). Lengths of time, in seconds:
_GPU_MODEL = r"(?:nvidia\s*)?(?:[abhlv]\d{2,3}|rtx\s*\d{4})(?:\s*(?:sxm\d?|pcie|nvl))?(?:\s*\d+\s*gb)?s?"
SI_PREFIXES = {"": 1.0, "k": 1e3, "kilo": 1e3, "m": 1e6, "mega": 1e6, "g": 1e9, "giga": 1e9, "t": 1e12, "tera": 1e12,
               "p": 1e15, "peta": 1e15, "e": 1e18, "exa": 1e18, "z": 1e21, "zetta": 1e21}
_SI = r"(?P<si>kilo|mega|giga|tera|peta|exa|zetta|[kmgtpez])?"   # a word's group "si" multiplies by SI_PREFIXES
_TOKEN = r"(?:个\s*)?(?:tokens?|toks?|t|词元)"
_PER = r"\s*(?:/|per|a|each|每)\s*"
_DOLLARS = r"us\s*dollars?|dollars?|usd|美元|美金"
_NOT_DOLLARS = (r"元|块钱|rmb|cny|yuan|人民币|¥|￥|€|eur|euros?|£|gbp", N_("this asks for US dollars: type $ or 美元"))
_FLOP_PER_S = rf"{_SI}\s*flops?(?:\s*/\s*s(?:ec)?|\s+per\s+second)?|次(?:浮点)?(?:运算)?(?:/|每)秒"
_USD_BEFORE = ((r"us\s*\$|\$|usd", 1.0), _NOT_DOLLARS)

# GPU-hours and dollars carry their 万/亿 reading in Chinese as counts do: "6,300,000（630万）卡时", "$5,576,000（558万美元）".
_GPU_HOURS, _DOLLAR_AMOUNT = read_in_chinese(format_number), read_in_chinese(format_usd, "美元")

# One table of units: the material's figures, the exercises, the drills and the command line write each unit with
# its formatter here, and the grader reads an entry in it with its words. A value is in the unit's own terms: a
# fraction for "fraction", US dollars for "USD", days for "days" and hours of clock time for "hours" (the work of
# GPUs is "GPU-hours").
UNITS = {
    "count": Unit(format_count, example=N_('8.5e10 or "85B"')),
    "number": Unit(format_number, example=N_('3.5 or "1,200"')),
    "parameters": Unit(format_count, kind="parameters", example=N_('"85B" or 8.5e10'), name=N_("parameters")),
    "tokens": Unit(format_count, NC_("unit", "tokens"), words=("token", "tokens"),
                   example=N_('"4.5T tokens" or 4.5e12'),
                   name=N_("tokens")),
    "parameter-tokens": Unit(format_flops, kind="parameter-tokens", example=N_("3.3e21"),   # N·D
                             name=N_("parameter-tokens (N·D)")),
    "tokens/param": Unit(format_number, NC_("unit", "tokens per parameter"), words=("倍",),
                         example=N_('"45 tokens per parameter" or 45'),
                         name=N_("tokens per parameter (tokens/param; 倍)"),
                         entry_words=((rf"{_TOKEN}{_PER}(?:param(?:eter)?s?|参数)|倍|x|×", 1.0),)),
    "tokens/GB": Unit(format_count, NC_("unit", "tokens/GB"), words=("token/GB", "token"),
                      example=N_('"150M tokens/GB" or 1.5e8'), name=N_("tokens per GB (tokens/GB; token/GB)"),
                      entry_words=((rf"{_TOKEN}?{_PER}(?:gb|g)", 1.0),)),
    "tokens/s": Unit(format_number, NC_("unit", "tokens/s"), example=N_('"1,500 tokens/s" or 1500'),
                     name=N_("tokens per second (tokens/s; token/秒)"),
                     entry_words=((rf"{_TOKEN}?{_PER}(?:s|secs?|seconds?|秒钟?)|{_TOKEN}\s*每秒|tps|{_TOKEN}", 1.0),),
                     entry_prefixes=((r"每秒(?:钟)?", 1.0),)),
    "bytes": Unit(format_bytes, words=("GB", "MB", "TB", "KB"), example=N_('400 (GB) or "400 GB"'), name=N_("GB")),
    "bytes/param": Unit(format_number, NC_("unit", "bytes/param"), words=("N bytes", "字节"),
                        example=N_('"6 bytes/param" or 6'), name=N_("bytes per parameter (bytes/param; 字节)"),
                        entry_words=((rf"(?:bytes?|字节){_PER}(?:param(?:eter)?s?|参数)|bytes?|(?:个\s*)?字节", 1.0),)),
    "FLOPs": Unit(format_flops, NC_("unit", "FLOPs"), example=N_('"3.3e21 FLOPs" or 3.3e21'),
                  name=N_("FLOPs (FLOPs, GFLOPs ...)"), entry_words=((rf"{_SI}\s*flops?|次(?:浮点)?(?:运算)?", 1.0),)),
    "FLOP/s": Unit(format_flops, NC_("unit", "FLOP/s"), "FLOP/s", example=N_('"4.5e14 FLOP/s" or 4.5e14'),
                   name=N_("FLOP/s (FLOP/s, TFLOPS ...)"), entry_words=((_FLOP_PER_S, 1.0),)),
    "TFLOPS": Unit(format_number, NC_("unit", "TFLOPS"), "FLOP/s", 1e12, words=("TFLOPS",),
                   example=N_('"450 TFLOPS" or 450'),
                   name=N_("TFLOPS (TFLOPS, FLOP/s ...)"), entry_words=((_FLOP_PER_S, 1e-12),)),
    "seconds": Unit(format_number, NC_("unit", "seconds"), "time", 1, words=("秒",), example=N_('"45 seconds" or 45'),
                    name=N_("seconds (seconds, minutes, hours; 秒, 分钟, 小时, 天, 周, 个月)"),
                    entry_words=time_words(1)),
    "hours": Unit(format_number, NC_("unit", "hours"), "time", SECONDS_PER_HOUR, words=("小时",),
                  example=N_('"45 hours" or 45'),
                  name=N_("hours of clock time (hours, days, minutes; 秒, 分钟, 小时, 天, 周, 个月)"),
                  entry_words=time_words(SECONDS_PER_HOUR)),
    "days": Unit(format_number, NC_("unit", "days"), "time", SECONDS_PER_DAY, words=("天",),
                 example=N_('"41.5 days", "6 weeks" or 41.5'),
                 name=N_("days (days, weeks, hours, months; 秒, 分钟, 小时, 天, 周, 个月)"),
                 entry_words=time_words(SECONDS_PER_DAY)),
    "weeks": Unit(format_number, NC_("unit", "weeks"), "time", 7 * SECONDS_PER_DAY, words=("周",),
                  example=N_('"6 weeks" or 6'), name=N_("weeks (weeks, days, months; 秒, 分钟, 小时, 天, 周, 个月)"),
                  entry_words=time_words(7 * SECONDS_PER_DAY)),
    "months": Unit(format_number, NC_("unit", "months"), "time", _SECONDS_PER_MONTH, words=("个月", "月"),
                   example=N_('"5 months" or 5'),
                   name=N_("months (months, weeks, days, years; 秒, 分钟, 小时, 天, 周, 个月)"),
                   entry_words=time_words(_SECONDS_PER_MONTH)),
    "GPU-hours": Unit(_GPU_HOURS, NC_("unit", "GPU-hours"), words=("小时", "A100 小时", "GPU 小时", "卡时"),
                      example=N_('"1,850 GPU-hours" or 1850'),
                      name=N_("GPU-hours (GPU-hours, GPU-days, hours; 卡时, 小时)"),
                      entry_words=gpu_hour_words()),
    "GPUs": Unit(format_number, NC_("unit", "GPUs"), words=("x A100", "x H200", "+ A100", "张", "卡"),
                 example=N_('"37 GPUs" or 37'), name=N_("GPUs (GPUs, cards; 张卡)"),
                 entry_words=((rf"[x×*]?\s*(?:[张块台个片]\s*)?(?:{_GPU_MODEL}\s*)?(?:gpus?|cards?|devices?|显卡|卡)?",
                               1.0),)),
    "USD": Unit(_DOLLAR_AMOUNT, words=("$",), example=N_('"$2.7M", "$0.85" or 2.7e6'), name=N_("US dollars"),
                entry_words=((_DOLLARS, 1.0), _NOT_DOLLARS), entry_prefixes=_USD_BEFORE),
    "USD/month": Unit(_DOLLAR_AMOUNT, NC_("unit", "a month"), words=("/月",), example=N_('"$2,700 a month" or 2700'),
                      name=N_("US dollars a month ($ a month; 美元/月)"),
                      entry_words=((rf"(?:{_DOLLARS})?{_PER}(?:month|mo|月)|每月|{_DOLLARS}", 1.0), _NOT_DOLLARS),
                      entry_prefixes=_USD_BEFORE),
    "fraction": Unit(format_percent, words=("%",), example=N_('"7.5%" or 0.075'), name=N_("a percentage"),
                     entry_words=((r"%|percent|per\s*cent|pct", 0.01),), entry_prefixes=((r"百分之", 0.01),)),
    "epochs": Unit(format_number, NC_("unit", "epochs"), words=("epoch",), example=N_('"2.5 epochs" or 2.5'),
                   name=N_("epochs (epochs, passes; 轮)"),
                   entry_words=((r"(?:个\s*)?epochs?|pass(?:es)?|times|x|×|个?轮次?|遍|次", 1.0),)),
    "sequences": Unit(format_number, NC_("unit", "sequences"), example=N_('"450 sequences" or 450'),
                      name=N_("sequences")),
}


def show(value: float, unit: str) -> str:
    """A value as the exercises and drills display it: UNITS's spelling; in bytes from a TB up the GB beside it (the
    questions ask for GB), and a count from 10,000 up whole beside its short form (until it turns scientific)."""
    lookup("unit", unit, UNITS)
    number = _real(value)
    if unit == "bytes" and 1e12 <= number < 1e21:
        return f"{format_bytes(value)} ({number / 1e9:,.0f} GB)"
    if unit == "count":
        if abs(number) >= _HUGE:
            return format_count(value)
        if abs(number) >= 1e4:  # "6,738,415,616 (6.74B)"; in Chinese "6,738,415,616（67.4亿）"
            return f"{format_int(value)}（{chinese_count(value)}）" if language() == "zh" else \
                f"{format_int(value)} ({format_count(value)})"
        return format_int(value) if float(value).is_integer() else f"{value:,.4g}"
    return lookup("unit", unit, UNITS).show(value)
