"""Checks for input that enters the library, with one message form everywhere.

Messages name the parameter, the value received and what is allowed, e.g.
``"n_gpus == 0, must be >= 1."`` or ``"'norm' == 'batchnorm', must be one of 'layernorm', 'rmsnorm'."``.
Formulas also accept SymPy expressions; those are not checked, since their sign may be unknown.
"""

from __future__ import annotations

import difflib
import math
import numbers


class InputError(ValueError):
    """Bad input. ``param`` is the name of the offending parameter, so a widget can show the message beside it."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param


def is_symbolic(value) -> bool:
    """True for SymPy objects, which the formulas pass through unchecked."""
    return type(value).__module__.startswith("sympy")


def _show(value) -> str:
    if isinstance(value, str):
        return repr(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_int(name: str, value, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum]; bools and floats with a fraction are refused."""
    if type(value) is int and value >= minimum and (maximum is None or value <= maximum):
        return value  # the common case, without the slower checks below
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)) or (
        isinstance(value, float) and not value.is_integer()
    ):
        raise InputError(name, f"{name} == {_show(value)}, must be an integer >= {minimum}.")
    value = int(value)
    if value < minimum:
        raise InputError(name, f"{name} == {value}, must be >= {minimum}.")
    if maximum is not None and value > maximum:
        raise InputError(name, f"{name} == {value}, must be <= {maximum}.")
    return value


def check_number(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
):
    """A real number (or an array of them) inside an interval; SymPy expressions pass through."""
    if is_symbolic(value):
        return value
    if isinstance(value, bool):
        raise InputError(name, f"{name} == {value}, must be a number.")
    if isinstance(value, (int, float)):
        values = [value]
    else:
        import numpy as np  # only for arrays, which mean NumPy is loaded already

        array = np.asarray(value)
        if array.dtype.kind not in "iuf":
            raise InputError(name, f"{name} == {_show(value)}, must be a number.")
        values = array.ravel().tolist()
    for x in values:
        if not math.isfinite(x):
            raise InputError(name, f"{name} == {_show(x)}, must be a finite number.")
        if (low is not None and (x <= low if low_open else x < low)) or (
                high is not None and (x >= high if high_open else x > high)):
            raise InputError(name, f"{name} == {_show(x)}, must be {_interval(low, high, low_open, high_open)}.")
    return value


def _interval(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    return f"{'<' if high_open else '<='} {high:g}"


def check_positive(name: str, value):
    """Sizes and counts in formulas: > 0 (numbers or arrays); SymPy expressions pass through."""
    if type(value) is int and value > 0:
        return value  # the common case, fast
    return check_number(name, value, low=0, low_open=True)


def check_sizes(**sizes) -> None:
    """check_positive for several named values at once."""
    for name, value in sizes.items():
        check_positive(name, value)


def check_bool(name: str, value) -> bool:
    if type(value) is bool:
        return value
    if type(value).__name__ == "bool" and type(value).__module__ == "numpy":  # numpy.bool_, from a widget or array
        return bool(value)
    raise InputError(name, f"{name} == {_show(value)}, must be True or False.")


def check_choice(name: str, value, choices) -> str:
    """One of ``choices``; an unknown value gets the close matches suggested."""
    choices = list(choices)
    if value in choices:
        return value
    allowed = ", ".join(repr(c) for c in choices)
    text = _squeeze(value)
    close = [str(c) for c in choices if text and text in _squeeze(c)]  # "H100" -> "H100 SXM", "H100 PCIe"
    close += [c for c in difflib.get_close_matches(str(value), [str(c) for c in choices], n=3, cutoff=0.5)
              if c not in close]
    close = close[:3]
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise InputError(name, f"{name} == {_show(value)}, must be one of {allowed}.{hint}")


def _squeeze(name) -> str:
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


def lookup(name: str, value, catalogue: dict):
    """The entry of a named catalogue (GPUs, presets, conventions, ...): by its name, or by one that differs only in
    case, spaces and punctuation ("h100 sxm", "A100-80GB"); an unknown name gets the close names suggested."""
    try:
        if value in catalogue:
            return catalogue[value]
    except TypeError:  # unhashable: not a name
        pass
    else:
        same = [key for key in catalogue if isinstance(value, str) and _squeeze(key) == _squeeze(value)]
        if len(same) == 1:
            return catalogue[same[0]]
    check_choice(name, value, catalogue)  # raises: the value is in no form a name of the catalogue
