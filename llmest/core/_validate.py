"""Checks for input that enters the library, with one message form everywhere.

Messages name the parameter, the value received and what is allowed, e.g.
``"n_gpus == 0, must be >= 1."`` or ``"'norm' == 'batchnorm', must be one of 'layernorm', 'rmsnorm'."``.
Formulas also accept SymPy expressions; those are not checked, since their sign may be unknown.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import inspect
import math
import numbers
import os

from .errors import InputError  # noqa: F401 (re-exported: the library's modules import it from here)
from .i18n import _

# Beyond these magnitudes no quantity of the workbook lies (the largest training runs are near 1e27 FLOPs), and a
# product or quotient of a few of them stays finite: a positive input below TINY or any above HUGE is refused.
TINY, HUGE = 1e-30, 1e30
# The most GPU counts a search may try one by one.
SEARCH_LIMIT = 100_000


def is_symbolic(value) -> bool:
    """True for SymPy objects, which the formulas pass through unchecked."""
    return type(value).__module__.startswith("sympy")


def quote(value, width: int = 80) -> str:
    """A value as a message quotes it, kept short: a long text or list is cut, an integer too long to print is
    given by its length, a float in ``%g``."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        digits = f"{int(value.bit_length() * 0.30103) + 1:,}"
        if value < 0:
            return _("a negative integer of about {digits} digits").format(digits=digits)
        return _("an integer of about {digits} digits").format(digits=digits)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, (list, tuple, dict, set)) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value):,} items"
    try:
        text = repr(value) if isinstance(value, (str, bytes)) else str(value)
    except (RecursionError, ValueError):  # a deeply nested list; an int too long for str()
        text = f"a {type(value).__name__}"
    half = width // 2 - 2
    return text if len(text) <= width else f"{text[:half]}...{text[-half:]}"  # the end of a path names the file


def plain(value):
    """A NumPy scalar as the Python number it holds (so int64 cannot wrap around); anything else unchanged."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def check_int(name: str, value, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum]; bools and floats with a fraction are refused."""
    if type(value) is int and value >= minimum and (maximum is None or value <= maximum):
        return value  # the common case, without the slower checks below
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)) or (
        isinstance(value, float) and not value.is_integer()
    ):
        raise InputError(name, _("{name} == {value}, must be an integer >= {minimum}.").format(
            name=name, value=quote(value), minimum=minimum))
    value = int(value)
    if value < minimum:
        raise InputError(name, _("{name} == {value}, must be >= {minimum}.").format(name=name, value=quote(value),
                                                                               minimum=minimum))
    if maximum is not None and value > maximum:
        raise InputError(name, _("{name} == {value}, must be <= {maximum}.").format(name=name, value=quote(value),
                                                                               maximum=maximum))
    return value


def _inside(x, low, high, low_open, high_open) -> bool:
    return math.isfinite(x) and abs(x) <= HUGE and not ((low is not None and (x <= low if low_open else x < low)) or
                                   (high is not None and (x >= high if high_open else x > high)))


def check_number(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
):
    """A real number (or a NumPy array of them) inside an interval and no larger than HUGE; SymPy expressions pass
    through. NumPy scalars come back as Python numbers."""
    if is_symbolic(value):
        return value
    value = plain(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        values = [value]
    elif type(value).__name__ == "ndarray":
        if value.dtype.kind not in "iuf":
            raise InputError(name, _("{name} == {value}, must be a number.").format(name=name, value=quote(value)))
        flat = value.ravel()
        if flat.size and all(_inside(float(x), low, high, low_open, high_open) for x in (flat.min(), flat.max())):
            return value  # all in range (and finite: a NaN makes min and max NaN), checked at array speed
        values = flat.tolist()
    else:  # a list would be read as an array by NumPy, and [7] * 3 repeats: only numbers and arrays are numbers
        raise InputError(name, _("{name} == {value}, must be a number.").format(name=name, value=quote(value)))
    for x in values:
        if isinstance(x, float) and not math.isfinite(x):
            raise InputError(name, _("{name} == {value}, must be a finite number.").format(name=name, value=quote(x)))
        if abs(x) > HUGE:
            raise InputError(name, _("{name} == {value}, must be at most {huge}.").format(name=name, value=quote(x),
                                                                                       huge=f"{HUGE:g}"))
        if (low is not None and (x <= low if low_open else x < low)) or (
                high is not None and (x >= high if high_open else x > high)):
            raise InputError(name, _("{name} == {value}, must be {interval}.").format(
                name=name, value=quote(x), interval=_interval(low, high, low_open, high_open)))
    return value


def _interval(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        bounds = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        return _("in {interval}").format(interval=bounds)
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    return f"{'<' if high_open else '<='} {high:g}"


def check_positive(name: str, value):
    """Sizes and counts in formulas: in [TINY, HUGE] (numbers or arrays); SymPy expressions pass through."""
    if (type(value) is int and 0 < value <= HUGE) or (type(value) is float and TINY <= value <= HUGE):
        return value  # the common cases, fast
    value = check_number(name, value, low=0, low_open=True)
    if not is_symbolic(value) and (value < TINY if isinstance(value, (int, float)) else (value < TINY).any()):
        raise InputError(name, _("{name} == {value}, must be at least {tiny} (smaller is zero here).").format(
            name=name, value=quote(value), tiny=f"{TINY:g}"))
    return value


def check_sizes(**sizes) -> None:
    """check_positive for several named values at once."""
    for name, value in sizes.items():
        check_positive(name, value)


def check_bool(name: str, value) -> bool:
    if type(value) is bool:
        return value
    if type(value).__name__ == "bool" and type(value).__module__ == "numpy":  # numpy.bool_, from a widget or array
        return bool(value)
    raise InputError(name, _("{name} == {value}, must be True or False.").format(name=name, value=quote(value)))


def check_text(name: str, value) -> str:
    if not isinstance(value, str):
        raise InputError(name, _("{name} == {value}, must be text.").format(name=name, value=quote(value)))
    return value


def check_callable(name: str, value):
    if not callable(value):
        raise InputError(name, _("{name} == {value}, must be a function.").format(name=name, value=quote(value)))
    return value


def check_choice(name: str, value, choices) -> str:
    """One of ``choices``; an unknown value gets the close matches suggested."""
    choices = list(choices)
    if value in choices:
        return value
    allowed = ", ".join(repr(c) for c in choices)
    text = _squeeze(value)[:200]
    close = [str(c) for c in choices if text and text in _squeeze(c)]  # "H100" -> "H100 SXM", "H100 PCIe"
    typed = value[:200] if isinstance(value, str) else quote(value)
    close += [c for c in difflib.get_close_matches(typed, [str(c) for c in choices], n=3, cutoff=0.5) if c not in close]
    close = close[:3]
    hint = _(" Did you mean {choices}?").format(choices=_(" or ").join(repr(c) for c in close)) if close else ""
    raise InputError(name, _("{name} == {value}, must be one of {allowed}.").format(
        name=name, value=quote(value), allowed=allowed) + hint)


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


# ----------------------------------------------------------------------------------------------------------------
# One rule per parameter name: a formula or plan decorated with @checked checks each argument it is given by the
# rule of its name, so "mfu" means the same in every function. Defaults are not checked: they are good.
# ----------------------------------------------------------------------------------------------------------------

def check_fraction(name: str, value):
    """A share of something that may be all of it but not none: (0, 1], e.g. an MFU or a cleaning yield."""
    if type(value) is float and TINY <= value <= 1:
        return value
    value = check_number(name, value, low=0, high=1, low_open=True)
    return check_positive(name, value)


def check_open_fraction(name: str, value):
    """A share strictly between none and all: (0, 1)."""
    return check_positive(name, check_number(name, value, low=0, high=1, low_open=True, high_open=True))


def check_margin(name: str, value):
    """A share kept free: [0, 1)."""
    return check_number(name, value, low=0, high=1, high_open=True)


def check_nonnegative(name: str, value):
    if type(value) in (int, float) and 0 <= value <= HUGE:
        return value
    return check_number(name, value, low=0)


def check_whole(name: str, value):
    """A count of whole things (GPUs, stages): an integer >= 1; in an array or a SymPy expression, only positive."""
    if type(value) is int and 1 <= value <= HUGE:
        return value
    value = plain(value)
    if is_symbolic(value) or type(value).__name__ == "ndarray":
        return check_positive(name, value)
    return check_int(name, value, maximum=int(HUGE))


_POSITIVE = ("n_params total_params tokens training_tokens unique_tokens flops budget_flops flops_per_token "
             "peak_flops_per_s bandwidth_bytes_per_s weight_bytes tokens_per_s tokens_per_s_per_replica "
             "requests_per_s tokens_per_request gpu_hours gpu_hours_ days run_hours interval_hours cleaned "
             "tokens_per_gb_ total_bytes kv_bytes_per_token hidden heads kv_heads head_dim ffn_hidden layers "
             "seq_len batch micro_batch vocab_size rows cols bytes_per_param bytes_per_value factor "
             "tokens_per_param adapter_params kv_lora_rank qk_rope_head_dim shard_params moe_layers inner bytes_read "
             "memory_bytes kv_bytes_per_sequence qk_width v_width index_heads index_head_dim")
RULES = {
    **{name: check_positive for name in _POSITIVE.split()},
    **{name: check_nonnegative for name in ("kv_bytes", "price_per_gpu_hour", "overhead_bytes",
                                             "activations_shared_bytes", "size_bytes", "attention_flops",
                                             "reduce_bucket_size", "prefetch_bucket_size", "max_live_parameters",
                                             "param_persistence_threshold", "gathered_params", "persistent_params")},
    **{name: check_whole for name in ("gpus", "chips", "stages", "micro_batches", "tp", "dp", "pp", "keep",
                                       "gpus_per_replica", "rank", "window", "cp", "ep", "top_k", "virtual_stages",
                                       "all_reduces", "prompt_tokens", "output_tokens", "block_tokens",
                                       "gpus_per_node")},
    **{name: check_bool for name in ("flash", "sequence_parallel", "with_attention", "binary", "signed",
                                        "fp32_norms", "overlap_comm", "all_reduce")},
    "digits": lambda name, value: check_int(name, value, minimum=1, maximum=17),  # what a float holds
    "decimals": lambda name, value: check_int(name, value, minimum=0, maximum=17),
    "limit": lambda name, value: check_int(name, value, maximum=SEARCH_LIMIT),
    "mfu": check_fraction, "cleaning_yield": check_fraction, "compute_efficiency": check_fraction,
    "efficiency": check_fraction, "prefill_efficiency": check_fraction, "share": check_open_fraction,
    "margin": check_margin,
}

def check_list(name: str, values, what: str = "values") -> list:
    """A non-empty list or tuple, as a list."""
    if not isinstance(values, (list, tuple)) or not values:
        raise InputError(name, _("{name} == {value}, must be a non-empty list of {what}.").format(
            name=name, value=quote(values), what=_(what)))
    return list(values)


@contextlib.contextmanager
def item_of(name: str, i: int):
    """An error about one item of the list ``name`` names the list, as the caller wrote it, and the item:
    "gpus[1]: gpu == 'H1OO', ..." (the check inside may call the value by its own name)."""
    try:
        yield
    except InputError as err:
        message = str(err) if str(err).startswith(f"{name}[") else f"{name}[{i}]: {err}"
        raise InputError(name, message) from None


def each(check, what: str = "values"):
    """A rule for a non-empty list of values, each checked by ``check``: ``n_params=[7e9, 70e9]``."""
    def rule(name, values):
        out = []
        for i, value in enumerate(check_list(name, values, what)):
            with item_of(name, i):
                out.append(check(name, value))
        return out

    return rule


def one_of(catalogue):
    """A rule for a name from ``catalogue``, checked where the caller gave it (so the message uses the caller's
    parameter) and passed on as given."""
    def check(name, value):
        lookup(name, value, catalogue)
        return value

    return check


# A formula may take a fractional sequence length (the one at which attention is a share of the FLOPs); a plan
# sizes real sequences, batches and adapters, so they are whole there.
WHOLE = {name: check_whole for name in ("seq_len", "batch", "micro_batch")}


def checked(func=None, **rules):
    """Check a function's arguments by RULES, or by ``rules`` (name -> checker) where this function means
    something else by a name (``recompute`` is a flag in FLOPs and a choice in memory)."""
    if func is None:
        return functools.partial(checked, **rules)
    params = inspect.signature(func).parameters
    names = list(params)
    optional = {name for name, p in params.items() if p.default is None}  # None there means "not given"
    # A trailing underscore keeps a parameter from shadowing a function (gpu_hours_); messages drop it.
    checks = [(i, name, name.rstrip("_"), rules.get(name) or RULES[name]) for i, name in enumerate(names)
              if name in rules or name in RULES]

    @functools.wraps(func)
    def with_checks(*args, **kwargs):
        if checks:
            args = list(args)
            for i, name, shown, check in checks:
                if i < len(args):
                    if not (args[i] is None and name in optional):
                        args[i] = check(shown, args[i])
                elif name in kwargs and not (kwargs[name] is None and name in optional):
                    kwargs[name] = check(shown, kwargs[name])
        return func(*args, **kwargs)

    return with_checks
