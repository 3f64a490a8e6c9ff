"""The command line's option types and parser plumbing, shared by the subcommands' parsers: whole numbers, reals
and counts within the limits of plausibility of the library parameter they feed (``llmest.core.limits``), names and
paths of bounded length, and subparsers that print one line on a bad option."""

from __future__ import annotations

import argparse
import math
import re

from ...catalog import hardware
from ...core._validate import InputError
from ...core.limits import LIMITS, allowed, bound, check_plausible
from ...core.units import parse_count

MAX_TEXT = 1_000            # characters of a name or a path


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text):,} characters)"


def _plausible(key: str, value, name: str):
    """``value`` within the limits of the library parameter ``key``, if it has limits (llmest.core.limits)."""
    if key in LIMITS:
        try:
            check_plausible(key, value, name)
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return value


def _whole(name: str, key: str = ""):
    """An argparse type: a whole number within the limits of ``key`` (or ``name``); smaller ones are the plans'."""
    key = key or name

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            if re.fullmatch(r"\s*\+?\d[\d_]*\s*", text):  # past int()'s 4,300 digits
                raise argparse.ArgumentTypeError(f"{name} == a number of {len(text.strip()):,} digits, must be "
                                                 f"{allowed(key) if key in LIMITS else 'smaller'}.") from None
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number (such as 8).") from None
        return _plausible(key, value, name)
    return whole


def _real(name: str, key: str = ""):
    """An argparse type: a finite number within the limits of ``key`` (or ``name``)."""
    key = key or name

    def real(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number.") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} == {_shown(text)}, must be a finite number.")
        return _plausible(key, value, name)
    return real


def _count(name: str, noun: str, suffixes: tuple, key: str):
    """An argparse type: a count such as "7B", "1.4T", "7e9", "70亿", within the limits of ``key``."""
    fewest = LIMITS[key].low

    def count(text: str) -> float:
        if len(text) > 60:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number such as 7B.")
        try:
            value = parse_count(text, "value")
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err).replace("value == ", "").replace("value is empty", "empty")) \
                from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} == {text.strip()!r}, must be a finite number.")
        if 0 < value < fewest:
            bare = re.fullmatch(r"\s*[\d.,_]+\s*", text)
            hint = " Did you mean " + " or ".join(text.strip() + s for s in suffixes) + "?" if bare else ""
            raise argparse.ArgumentTypeError(f"{name} == {value:,g}, fewer than {bound(fewest)} {noun}: too few "
                                             f"for a run this estimates.{hint}")
        return _plausible(key, value, name)
    return count


def _span(key: str, between: str = " to ") -> str:
    """The limits of ``key`` for a help text: "0.01 to 36,500"; "up to 10,000,000" for an upper one alone."""
    low, high, _ = LIMITS[key]
    return f"{bound(low)}{between}{bound(high)}" if low is not None else f"up to {bound(high)}"


def _count_help(suffixes: tuple, key: str) -> str:
    meant = " or ".join(f"7{s}" for s in suffixes)
    fewest = bound(LIMITS[key].low)
    return (f"from {_span(key)}; a count under {fewest} is taken for one typed without its suffix, and refused "
            f"(7: 'Did you mean {meant}?')")


def _text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: at most {MAX_TEXT:,} characters.")
    return text


def _targets(text: str) -> tuple:
    return tuple(name.strip() for name in _text(text).split(",") if name.strip())


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit status 2; 'llmest COMMAND --help' has the usage."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def _subparser(subparsers, name, func, help_, examples, settle=None):
    p = subparsers.add_parser(name, help=help_, description=help_, epilog="examples:\n" + examples,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=func, settle=settle)
    return p


def _gpu_option(p, default="A100 80GB", when=""):
    p.add_argument("--gpu", type=_text, default=None if when else default, metavar="GPU",
                   help=f"{when}one of: {', '.join(hardware.CATALOG)}; case and spaces do not matter "
                        f"(default {default})")
