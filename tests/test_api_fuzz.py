"""Every public function and plan, called with bad values one parameter at a time, answers with an InputError that
names that parameter, or with a sane result (finite, not negative), never with another exception or nonsense.

Each function is first called with a good value for every parameter (so the fuzz tests the parameter, not a broken
baseline); then each parameter in turn gets each bad value of its kind, and a hypothesis test draws more.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import numbers
import resource
import signal

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llmest import InputError, comm, compute, data, hardware, kv_cache, memory, model, params, plans, runs, units, zero
from llmest.formulas.readers.config_file import CONFIGS
from llmest.plans.findings import compute as compute_findings
from llmest.plans.findings import memory as memory_findings

MODULES = (params, model, kv_cache, memory, zero, comm, compute, data, hardware, runs, plans, units, compute_findings,
           memory_findings)
# Functions that take text, not numbers, or that do not take input at all; each is fuzzed elsewhere.
ELSEWHERE = {"tokens_per_byte", "measured_tokens_per_gb", "measured_spread", "halfwidth", "check_length"}
CONFIG = str(CONFIGS / "llama-2-7b.json")

LLAMA = model.preset("llama-2-7b")
# A good value for each parameter name, where the name alone says what it is.
GOOD = {
    "hidden": 4096, "n_heads": 32, "heads": 32, "n_kv_heads": 8, "kv_heads": 8, "head_dim": 128, "vocab_size": 32000,
    "dim": 4096, "ffn_hidden": 11008, "num_experts": 8, "total_params": 7e9, "layers": 32, "cfg": LLAMA,
    "model": LLAMA, "gpu": "A100 80GB", "n_params": 7e9, "tokens": 1e12, "flops": 4.2e22, "budget_flops": 1e23,
    "gpus": 64, "days": 30, "mfu": 0.4, "peak_flops_per_s": 312e12, "price_per_gpu_hour": 2.0, "seq_len": 2048,
    "batch": 4, "micro_batch": 1, "micro_batches": 16, "stages": 4, "dp": 8, "tp": 1, "pp": 1, "zero": 1,
    "rank": 16, "rows": 4096, "cols": 4096, "bytes_per_param": 16, "bytes_per_value": 2, "weight_bytes": 14e9,
    "kv_bytes": 1e9, "kv_bytes_per_token": 5e5, "bandwidth_bytes_per_s": 2.0e12, "tokens_per_s": 1000,
    "tokens_per_request": 500, "tokens_per_s_per_replica": 2000, "requests_per_s": 10, "gpus_per_replica": 1,
    "flops_per_token": 4.2e10, "chips": 64, "gpu_hours": 1e5, "gpu_hours_": 1e5, "adapter_params": 4e6,
    "run_hours": 720, "interval_hours": 6, "keep": 3, "share": 0.1, "training_tokens": 1e12, "unique_tokens": 5e11,
    "tokens_per_gb_": 2.8e8, "cleaned": 3e12, "cleaning_yield": 0.25, "language": "english", "total_bytes": 3e11,
    "memory": 30e9, "margin": 0.2, "fraction": 0.4, "value": 1234.5, "decimals": 1, "digits": 3, "task": "training",
    "mix": {"english": 1.0}, "text": "7B", "unit": "bytes", "with_attention": True, "tokens_per_param": 20,
    "overhead_bytes": 5e8, "limit": 64, "activations_shared_bytes": 1e9, "factor": 40,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "window": 4096, "size_bytes": 1e9, "cp": 1, "moe_layers": 24, "ep": 1, "top_k": 2, "shard_params": 1e9,
    "schedule": "1f1b", "virtual_stages": 2, "all_reduces": 4, "global_batch_tokens": 2**20, "overlap": 0.5,
    "compute_efficiency": 0.5, "top": 5, "inner": 4096, "all_reduce": True,
    "prompt_tokens": 512, "output_tokens": 128, "block_tokens": 16, "prefill_efficiency": 0.4,
    "efficiency": 0.4, "attention_flops": 1e9, "bytes_read": 14e9, "memory_bytes": 80e9, "kv_bytes_per_sequence": 5e8,
    "fp32_norms": True, "offload": "optimizer", "reduce_bucket_size": 5e8,
    "prefetch_bucket_size": 5e7, "max_live_parameters": 1e9, "param_persistence_threshold": 1e5,
    "gathered_params": 1.8e8, "persistent_params": 2.7e5, "overlap_comm": False, "gpus_per_node": 8,
    "models": ("llama-2-7b", "gpt-oss-120b"),
}
# Where a name means different things in different functions.
GOOD_FOR = {
    ("preset", "name"): "llama-2-7b", ("gpu", "name"): "A100 80GB", ("price_per_gpu_hour", "name"): "A100 80GB",
    ("gpu_price", "name"): "A100 80GB", ("fit", "name"): "hoffmann", ("estimate_time", "model"): None, ("estimate_time", "seq_len"): None,
    ("config_from_file", "path"): CONFIG,
    ("config_from_json", "text"): '{"model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, '
                                  '"n_embd": 768, "n_layer": 12, "n_head": 12}',
    ("config_from_file", "param"): "path", ("config_from_json", "param"): "text", ("parse_bytes", "name"): "text",
    ("parse_count", "name"): "text", ("cost", "price_per_gpu_hour"): 2.0,
    ("sharded_state_bytes", "per_param"): memory.state_bytes_per_param(),
    ("offloaded_state_bytes", "per_param"): memory.state_bytes_per_param(),
    ("training_memory", "offload"): "none",
    ("min_gpus", "plan"): lambda: lambda n: plans.training_memory(LLAMA, zero=3, dp=n),
    ("fits", "memory"): lambda: plans.training_memory(LLAMA, zero=3, dp=8),
    ("config_from", "model"): "llama-2-7b", ("parse_bytes", "text"): "80 GB", ("parse_count", "text"): "7B",
    ("show", "value"): 2.5e9, ("format_int", "value"): 1234, ("plan_memory", "model"): "llama-2-7b",
    ("search_layouts", "micro_batch_sizes"): (1, 2), ("search_layouts", "gpus"): 16,
    ("compare_memory", "variants"): [{"zero": 0}, {"zero": 3}],
    ("bubbles", "micro_batches"): (1, 4, 16), ("decode_limits", "gpus"): ["A100 80GB", "H100 SXM"],
    ("gpu_memory", "gpus"): ["A100 80GB", "H100 SXM"], ("largest_batches", "prompts"): (256, 1024),
    ("least_gpus", "variants"): [{"micro_batch": 1}, {"micro_batch": 2}], ("mla_cache", "model"): "deepseek-v3",
    ("planner", "variants"): [{"zero": 2}, {"zero": 3}], ("states", "n_params"): (7e9, 70e9),
    ("checkpoint_storage", "keeps"): (None, 5),
}


# Lookups in a named catalogue name the catalogue ("gpu == 'H1OO'"), which is what the caller looked up.
NAMED_AS = {("gpu", "name"): "gpu", ("price_per_gpu_hour", "name"): "gpu", ("gpu_price", "name"): "gpu", ("preset", "name"): "preset",
            ("fit", "name"): "fit", ("estimate_time", "model"): "n_params"}  # "give n_params or model"
# Parameters that only label the messages of a checker: not input to fuzz.
LABELS = {("parse_count", "name"), ("parse_bytes", "name"), ("config_from_file", "param"),
          ("config_from_json", "param"), ("chinchilla_text", "name")}
# Formatters write a negative difference as readily as a positive figure.
SIGNED = {"format_count", "chinese_count", "format_bytes", "format_flops", "format_int", "format_number", "format_percent",
          "format_usd", "show"}


def good_value(func, param: inspect.Parameter):
    key = (func.__name__, param.name)
    value = GOOD_FOR.get(key, GOOD.get(param.name, param.default))
    if value is inspect.Parameter.empty:
        raise KeyError(f"no good value for {func.__name__}({param.name})")
    return value() if callable(value) else value


def public_functions():
    seen = {}
    for module in MODULES:
        for name in getattr(module, "__all__", None) or dir(module):
            func = getattr(module, name, None)
            if (inspect.isfunction(func) and not name.startswith("_") and name not in ELSEWHERE
                    and func.__module__.startswith(module.__name__)):
                seen[name] = func
    return dict(sorted(seen.items()))


FUNCTIONS = public_functions()


def baseline(func) -> dict:
    return {p.name: good_value(func, p) for p in inspect.signature(func).parameters.values()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


def fuzzed(func) -> dict:
    """The parameters to fuzz, with their good values."""
    return {name: good for name, good in baseline(func).items() if (func.__name__, name) not in LABELS}


def default_of(func, param: str):
    return inspect.signature(func).parameters[param].default


def call(func, kwargs: dict):
    return func(**kwargs)


# ----------------------------------------------------------------------------------------------------------------
# The bad values, by the kind of the good value they replace
# ----------------------------------------------------------------------------------------------------------------

class Bad:
    """A bad value and whether it must be refused (``must``) or may instead give a sane result."""

    def __init__(self, value, must: bool = True, label: str | None = None):
        self.value, self.must, self.label = value, must, label or repr(value)[:40]


WRONG_TYPES = [Bad(None), Bad("7"), Bad([7]), Bad({"a": 1}), Bad(1 + 2j), Bad(b"7")]
NUMBER_BAD = [*WRONG_TYPES, Bad(True), Bad(False), Bad(float("nan")), Bad(float("inf")), Bad(float("-inf")),
              Bad(-1), Bad(-1e-9), Bad(0, must=False), Bad(10 ** 400, must=False, label="10**400"),
              Bad(1e-320, must=False), Bad(1e308, must=False), Bad(10 ** 5000, must=False, label="10**5000"),
              Bad(np.float64("nan"), label="np.nan"), Bad(np.array([1.0, -1.0]), label="array with a negative")]
TEXT_BAD = [Bad(None), Bad(7), Bad(["a"]), Bad(True), Bad("no such thing"), Bad(""), Bad("x" * 300, label="300 x")]
BOOL_BAD = [Bad(None), Bad("no"), Bad("yes"), Bad(2), Bad(0.5), Bad([True])]
MODEL_BAD = [Bad(None), Bad(7), Bad(["llama-2-7b"]), Bad("no-such-model"), Bad(True)]
DICT_BAD = [Bad(None), Bad(7), Bad(["english"]), Bad({"klingon": 1.0}), Bad({"english": float("nan")}),
            Bad({"english": -1.0}), Bad({})]


def bad_values(good, default=None) -> list[Bad]:
    """The bad values for a parameter whose good value is ``good``; None is not bad where it is the default."""
    return [bad for bad in _bad_values(good) if not (bad.value is None and default is None)]


def _bad_values(good) -> list[Bad]:
    if isinstance(good, bool):
        return BOOL_BAD
    if isinstance(good, numbers.Real):
        return NUMBER_BAD
    if isinstance(good, str):
        return TEXT_BAD
    if isinstance(good, dict):
        return DICT_BAD
    if isinstance(good, model.ModelConfig):
        return MODEL_BAD
    if isinstance(good, (list, tuple)) and any(item is not None for item in good):
        return list_bad(next(item for item in good if item is not None))
    return WRONG_TYPES


def list_bad(item) -> list[Bad]:
    """A list of values: not a list, an empty one, or a list holding a bad value of the kind of its items."""
    inside = [Bad([bad.value], bad.must, f"[{bad.label}]") for bad in _bad_values(item) if bad.value is not None]
    return [Bad(None), Bad(7), Bad("7"), Bad([]), *inside]


# ----------------------------------------------------------------------------------------------------------------
# What counts as sane
# ----------------------------------------------------------------------------------------------------------------

def numbers_in(result, depth=0):
    """Every real number inside a result: dataclasses, dicts, tuples and lists are opened."""
    if depth > 4:
        return
    if isinstance(result, bool) or result is None or isinstance(result, str):
        return
    if isinstance(result, numbers.Real):
        yield float(result) if abs(result) < 1e308 or isinstance(result, float) else math.inf
    elif isinstance(result, np.ndarray):
        yield from (float(x) for x in result.ravel()) if result.dtype.kind in "iuf" else ()
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            if f.name != "model":  # the model a result names was checked when it was built
                yield from numbers_in(getattr(result, f.name), depth + 1)
    elif isinstance(getattr(result, "figures", None), dict):  # a chapter's finding: its figures
        yield from numbers_in(result.figures, depth + 1)
    elif isinstance(result, dict):
        for value in result.values():
            yield from numbers_in(value, depth + 1)
    elif isinstance(result, (tuple, list)):
        for value in result:
            yield from numbers_in(value, depth + 1)


def insane(result) -> str | None:
    """Why a result is not a sane answer, or None."""
    if isinstance(result, complex) or (isinstance(result, str) and result.lower() in ("nan", "inf")):
        return f"returned {result!r}"
    if isinstance(result, str) and any(word in result.lower() for word in ("nan", "inf ")):
        return f"returned {result!r}"
    for x in numbers_in(result):
        if not math.isfinite(x):
            return f"returned a non-finite figure ({x})"
        if x < 0:
            return f"returned a negative figure ({x:g})"
    return None


class Slow(Exception):
    pass


@contextlib.contextmanager
def bounded(seconds: float = 2.0, extra_bytes: int = 2 * 2 ** 30):
    """A call that runs away (a loop per layer of 10**12 layers, a string of 10**9 copies) stops with Slow or
    MemoryError instead of taking the machine with it."""
    def stop(*_):
        raise Slow(f"over {seconds:g} s")

    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * resource.getpagesize()
    limits = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + extra_bytes, limits[1]))
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, limits)


def names(func, param: str, err: InputError) -> bool:
    """Whether an error names the parameter as the caller spelled it: ``mix['english']`` names mix, and a trailing
    underscore (``gpu_hours_``, kept from shadowing a function) is dropped."""
    expected = NAMED_AS.get((func.__name__, param), param.rstrip("_"))
    return err.param == expected or err.param.startswith(f"{expected}[")


def outcome(func, kwargs: dict, param: str, bad: Bad) -> tuple[str, str]:
    """(category, detail): 'named' (an InputError naming the parameter), 'unnamed' (an InputError naming another),
    'sane', 'nonsense' (a result to input that must be refused, or an insane result) or 'escape' (another error)."""
    try:
        with bounded():
            result = call(func, {**kwargs, param: bad.value})
    except InputError as err:
        return ("named", "") if names(func, param, err) else ("unnamed", f"InputError({err.param!r}): {err}")
    except RecursionError:
        return "escape", "RecursionError"
    except Exception as err:  # noqa: BLE001 - the point is to see what escapes
        return "escape", f"{type(err).__name__}: {str(err)[:120]}"
    reason = insane(result) if not (func.__name__ in SIGNED and isinstance(result, str)) else None
    if reason:
        return "nonsense", reason
    if bad.must and not (func.__name__ in SIGNED and isinstance(bad.value, numbers.Real) and bad.value < 0):
        return "nonsense", f"answered {type(result).__name__}"
    return "sane", ""


def _cases():
    for name, func in FUNCTIONS.items():
        with contextlib.suppress(KeyError):  # test_the_good_baseline_gives_a_sane_answer reports it
            for param, good in fuzzed(func).items():
                yield from ((name, param, bad) for bad in bad_values(good, default_of(func, param)))


CASES = list(_cases())


def test_every_public_function_is_fuzzed():
    assert len(FUNCTIONS) >= 95, sorted(FUNCTIONS)
    assert len(CASES) > 1500


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_good_baseline_gives_a_sane_answer(name):
    func = FUNCTIONS[name]
    assert insane(call(func, baseline(func))) is None


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bad_values_are_refused_by_name(name):
    func = FUNCTIONS[name]
    kwargs = baseline(func)
    failures = []
    for param, good in fuzzed(func).items():
        for bad in bad_values(good, default_of(func, param)):
            category, detail = outcome(func, kwargs, param, bad)
            if category not in ("named", "sane"):
                failures.append(f"{name}({param}={bad.label}): {category}: {detail}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_numpy_scalars_count_as_numbers(name):
    func = FUNCTIONS[name]
    kwargs = baseline(func)
    expected = call(func, kwargs)
    for param, good in kwargs.items():
        if isinstance(good, numbers.Real) and not isinstance(good, bool):
            scalar = np.int64(good) if isinstance(good, int) else np.float64(good)
            assert call(func, {**kwargs, param: scalar}) == expected, param


NUMBER_PARAMS = sorted({(name, param) for name, param, bad in CASES if bad.label == "-1"})
GENERATED = st.one_of(
    st.floats(max_value=-1e-300), st.sampled_from([math.nan, math.inf, -math.inf]),
    st.integers(max_value=-1), st.integers(min_value=10 ** 309), st.complex_numbers(min_magnitude=1e-3),
    st.text(max_size=20), st.lists(st.integers(), max_size=3), st.none(), st.booleans(),
)


@settings(max_examples=1500, deadline=None)
@given(case=st.sampled_from(NUMBER_PARAMS), value=GENERATED)
def test_generated_bad_numbers_are_refused_by_name(case, value):
    name, param = case
    func = FUNCTIONS[name]
    assume(not (value is None and default_of(func, param) is None))  # None there means "not given"
    must = not (isinstance(value, int) and not isinstance(value, bool) and value > 0)
    category, detail = outcome(func, baseline(func), param, Bad(value, must=must))
    assert category in ("named", "sane"), f"{name}({param}={value!r}): {category}: {detail}"
