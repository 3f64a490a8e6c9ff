"""Limits of plausibility for what a person types: no real run lies beyond them, so a value outside is a slip (7 for
7B, FLOP/s typed as TFLOPS, a digit too many) and is refused instead of answered.

They are much tighter than the library's own bounds (``_validate.TINY`` and ``HUGE``, 1e-30 to 1e30), which only
keep products finite. The library does not apply these; the surfaces do (the command line and the calculators), by
the library's parameter names, so that the same value of the same quantity is refused alike everywhere. A lower
limit refuses a positive value below it; zero and negative values are left to the library's message.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ._validate import InputError, plain, quote
from .i18n import N_, _


class Limit(NamedTuple):
    low: float | None   # a positive value below is refused
    high: float | None
    why: str            # appended to the message: why no input lies beyond


_GPUS = Limit(None, 10_000_000, N_(" (no cluster is near ten million GPUs)"))
_BATCH = Limit(None, 1_000_000, "")
_CONTEXT = Limit(None, 100_000_000, N_(" (the longest context windows hold about ten million)"))
_FEWEST = 100_000       # a count below is one typed without its B or T ("7" for 7B)
_LEAST_SHARE = 0.001    # an MFU or a yield under 0.1% is no real run

LIMITS = {
    "n_params": Limit(_FEWEST, 1e15, N_(" (fewer is a count typed without its B; the largest models hold a few "
                                        "trillion)")),
    "tokens": Limit(_FEWEST, 1e16, N_(" (fewer is a count typed without its B or T; the largest runs train on tens "
                                      "of trillions)")),
    "gpus": _GPUS,
    "dp": _GPUS,
    "tp": _GPUS,
    "pp": _GPUS,
    "seq_len": _CONTEXT,
    "prompt_tokens": _CONTEXT,
    "output_tokens": _CONTEXT,
    "batch": _BATCH,
    "global_batch_tokens": Limit(None, 1e10, N_(" (the largest runs step on a few tens of millions of tokens)")),
    "top": Limit(None, 1_000_000, ""),
    "micro_batch": _BATCH,
    "rank": Limit(None, 65_536, ""),
    "block_tokens": Limit(None, 65_536, N_(" tokens (servers page the KV cache in blocks of at most a few hundred)")),
    "requests_per_s": Limit(None, 10_000_000, N_(" (no service is near ten million requests a second)")),
    "days": Limit(0.01, 36_500, ""),
    "price_per_gpu_hour": Limit(None, 10_000, N_(" dollars per GPU-hour")),
    "tokens_per_param": Limit(0.01, 100_000, ""),
    # No accelerator is near 100 PFLOPS: a larger value is FLOP/s typed as TFLOPS.
    "peak_tflops": Limit(0.001, 100_000, N_(" TFLOPS (e.g. 200 for 200e12 FLOP/s)")),
    "mfu": Limit(_LEAST_SHARE, None, N_(" (a smaller MFU is no training run)")),
    "cleaning_yield": Limit(_LEAST_SHARE, None, N_(" (no cleaning keeps less of a crawl)")),
}


def bound(value) -> str:
    """A limit as messages and help texts write it: with thousands separators, a count of trillions in T."""
    if value >= 1e12:
        return f"{value / 1e12:,g}T"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def allowed(name: str) -> str:
    """What ``name`` allows: "<= high", ">= low" or "in [low, high]"."""
    low, high = LIMITS[name][:2]
    if low is not None and high is not None:
        return _("in {interval}").format(interval=f"[{bound(low)}, {bound(high)}]")
    return f">= {bound(low)}" if low is not None else f"<= {bound(high)}"


def _shown(value) -> str:
    if isinstance(value, int):
        if value.bit_length() > 200:
            return quote(value)
        digits = str(value)
        return f"{value:,}" if len(digits) <= 20 else f"{digits[0]}.{digits[1:3]}e+{len(digits) - 1}"
    return f"{value:g}"


def check_plausible(name: str, value, label: str | None = None) -> None:
    """Refuse ``value`` of the library parameter ``name`` outside its limits, by ``label`` (the caller's spelling:
    an option or a field). What is not a finite real number (text, NaN, inf) is left to the library's checks."""
    low, high, why = LIMITS[name]
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        return
    if (low is not None and 0 < value < low) or (high is not None and value > high):
        label = label or name
        raise InputError(label, _("{name} == {value}, must be {interval}.").format(
            name=label, value=_shown(value), interval=allowed(name) + (_(why) if why else "")))
