"""Every public function and plan, called with bad values one parameter at a time, answers with an InputError that
names that parameter, or with a sane result (finite, not negative), never with another exception or nonsense.

Each function is first called with a good value for every parameter (so the fuzz tests the parameter, not a broken
baseline); then each parameter in turn gets each bad value of its kind, and a hypothesis test draws more.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import importlib
import inspect
import math
import numbers
import pkgutil
import resource
import signal

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import llmest

from llmest import InputError, memory, model, plans
from llmest.core.units import format_int
from llmest.formulas.mixers import Mixer
from llmest.formulas.readers.config_file import CONFIGS
from llmest.learn import drills

# What the fuzz does not call, each with its reason: a key ending in "." is a package and all below it, any other
# key a module or one callable ("module.name"). Every other public function and class of llmest is fuzzed.
PACKAGES_NOT_FUZZED = {
    "llmest.surfaces.": "the command line, widgets and app: tests/test_cli_fuzz.py and test_widget_fuzz.py fuzz them",
    "llmest.book.": "builds the book and its pages from the material; takes no reader's input",
    "llmest.__main__": "runs the command line",
    "llmest.learn.progress.": "reads and writes the reader's progress file (a file)",
    "llmest.catalog.corpora.measure": "reads the corpus samples from files and tokenizes them",
    "llmest.formulas.measure": "builds and runs PyTorch models (a kernel, and a GPU for cuda_peak_bytes)",
    "llmest.plans.findings.measure": "shows what formulas.measure measured on a PyTorch model",
    "llmest.display.": "shows a result that a plan or finding returned: its input is that result, checked there",
    "llmest.core._validate": "the checkers: each raises InputError under whatever name it is given",
    "llmest.core.limits": "check_plausible and its bounds: checkers, as in _validate",
    "llmest.core.errors": "InputError itself",
    "llmest.core.i18n": "set_language switches the whole process; N_, C_ and NC_ only mark text for translation",
    "llmest.core.registry": "the registry the exercises and drills are kept in, filled at import",
    "llmest.core.report": "Report, Block, Shows, Finding: the types every result is shown as",
    "llmest.formulas.readers.hf_build": "turns a parsed config.json into a ModelConfig: config_from_json reaches it",
    "llmest.formulas.readers.config_file.load": "a parsed config.json or a path: config_from_json/_file reach it",
    "llmest.formulas.readers.config_file.read_file": "reads a file: config_from_file is fuzzed with a catalogue file",
    "llmest.formulas.data.tokens_per_byte": "tokenizes text with tiktoken: tests/test_data.py",
    "llmest.formulas.data.measured_tokens_per_gb": "reads the measured corpus samples: tests/test_data.py",
    "llmest.formulas.data.measured_spread": "reads the measured corpus samples: tests/test_data.py",
    "llmest.core.units.halfwidth": "folds full-width characters of any text: tests/test_units.py",
    "llmest.core.units.check_length": "a checker of text length, as in _validate",
    "llmest.learn.course_mode.graded_mode": "switches the course's graded mode for the whole process",
    "llmest.learn.course_mode.withheld": "raises by design: what graded mode gives instead of an expected value",
    "llmest.graded_mode": "switches the course's graded mode for the whole process",
    "llmest.learn.worksheets.write_worksheet": "writes files into a folder",
    "llmest.learn.sealed.decide": "the sealed grade answers with AssertionError by design: tests/test_sealed.py",
    "llmest.learn.grading.assert_readable": "a graded notebook's visible test: AssertionError by design",
    "llmest.learn.drills.problem.template": "registers a drill template at import",
    "llmest.plans.layout_time.step_times": "takes the column arrays search_layouts builds: search_layouts reaches it",
    "llmest.plans.layout_time.slowest_rank_work": "takes the work of a layer and of the output layer that "
                                                  "search_layouts and moe_step compute: both reach it",
    "llmest.plans.findings.precision.fp8_speedups": "runs the layout search for 16 published layouts (~10 s, over the "
                                                    "fuzz's bound): tests/test_precision.py checks it and its refusal",
    "llmest.plans.precision_pairs.fit_low_precision": "bisects the layout search (~7 s): tests/test_precision.py",
    "llmest.plans.precision_pairs.predict": "takes a published run (a LayoutRun): fp8_speedups reaches it",
    "llmest.plans.findings.precision.blackwell_speedups": "runs the layout search for 22 published layouts (~15 s): "
                                                          "tests/test_precision.py checks it",
    "llmest.plans.precision_blackwell.fit_blackwell": "bisects the layout search (~8 s): tests/test_precision.py",
    "llmest.plans.precision_blackwell.model_speedup": "takes a published pair (a PrecisionPair): blackwell_speedups "
                                                      "reaches it",
    "llmest.plans.precision_blackwell.fitted": "takes a published pair (a PrecisionPair): blackwell_speedups "
                                               "reaches it",
    "llmest.formulas.deepseek_v4.refuse_compressed_attention": "a checker, as in _validate: its callers pass the "
                                                               "ModelConfig they checked",
}
RESULT = "a result that a function of the package returns, built from input checked there"
RECORD = "an entry of a catalogue written in the package, not a reader's input"
MATERIAL = "a piece of the course material (exercise, drill, card, verdict), written in the package"
CLASSES_NOT_FUZZED = {
    **dict.fromkeys(("BudgetEstimate", "MemoryComparison", "CorpusEstimate", "LayoutSearch", "MemoryBreakdown",
                     "MemoryPlan", "DecodeEstimate", "ServingEstimate", "RequestEstimate", "TimeEstimate",
                     "MfuEstimate", "TrainingEstimate", "ParamCount", "StateBytes", "MFURange", "DeepSeekV3Example",
                     "RLStepEstimate", "Rollout", "MoEStep", "CapacityPlan", "ReplicaFit", "DecodeStep",
                     "SpeculativeEstimate", "KvOptions", "KvOffload", "MoeDecode"),
                    RESULT),
    **dict.fromkeys(("GPU", "Network", "Run", "PublishedMFU", "LossFit", "TrainedModel", "Convention", "Optimizer",
                     "WeightFormat", "LayoutRun", "Unit", "Format", "Recipe", "HostLink", "PrecisionPair"), RECORD),
    **dict.fromkeys(("Part", "Problem", "Template", "Card", "Exercise", "Verdict"), MATERIAL),
}
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
    "qk_width": 576, "v_width": 512, "index_heads": 64, "index_head_dim": 128,
    "window": 4096, "size_bytes": 1e9, "cp": 1, "moe_layers": 24, "ep": 1, "top_k": 2, "shard_params": 1e9,
    "schedule": "1f1b", "virtual_stages": 2, "all_reduces": 4, "global_batch_tokens": 2**20, "overlap": 0.5,
    "compute_efficiency": 0.5, "top": 5, "inner": 4096, "all_reduce": True,
    "prompt_tokens": 512, "output_tokens": 128, "block_tokens": 16, "prefill_efficiency": 0.4,
    "efficiency": 0.4, "attention_flops": 1e9, "bytes_read": 14e9, "memory_bytes": 80e9, "kv_bytes_per_sequence": 5e8,
    "fp32_norms": True, "offload": "optimizer", "reduce_bucket_size": 5e8,
    "prefetch_bucket_size": 5e7, "max_live_parameters": 1e9, "param_persistence_threshold": 1e5,
    "gathered_params": 1.8e8, "persistent_params": 2.7e5, "overlap_comm": False, "gpus_per_node": 8,
    "models": ("llama-2-7b", "gpt-oss-120b"), "hidden_size": 4096, "num_layers": 32, "num_heads": 32, "scale": 86400,
    "seed": 7, "problem": lambda: drills.generate("training-days", 7), "problems": lambda: drills.drill_set(7, 3),
    "entry": "80 GB", "message": "8 GPU", "gpu_name": "A100 80GB", "per_param": memory.state_bytes_per_param,
    "run": "Megatron-LM 1T", "generation": "Ampere", "root": True, "optimal": True, "spends": True,
    "estimates": lambda: [plans.estimate_corpus(7e9)], "estimate": lambda: _corpus(),
    "steps": lambda: plans.memory_reductions(LLAMA, dp=8, micro_batch=4, seq_len=4096),
    "layouts": [(0, 64, 1, 1), (3, 64, 1, 1)], "found": lambda: _search(), "searches": lambda: [_search()],
    "row": lambda: _search().evaluate(tp=1, pp=1, dp=64, recompute="full"), "exact": 6_574_055_424,
    "rule": 6_573_522_944, "variants": [{"zero": 0}, {"zero": 3}], "settings": {"dp": 8}, "example": "zero",
    # Hybrid mixers, as Qwen3-Next's gated DeltaNet, Kimi Linear, Nemotron-H's Mamba-2, Jamba's Mamba and LFM2 size them
    "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_num_value_heads": 32, "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4, "linear_num_heads": 32, "linear_head_dim": 128, "mamba_n_heads": 128,
    "mamba_d_head": 64, "mamba_n_groups": 8, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_d_inner": 8192,
    "mamba_dt_rank": 256, "conv_L_cache": 3, "seq_lens": (4096, 131072),
    "mixer": lambda: Mixer.of("mamba2", mamba_n_heads=128, mamba_d_head=64, mamba_n_groups=8, mamba_d_state=128,
                              mamba_d_conv=4),
    # DeepSeek-V4's parts, as V4-Flash sizes them
    "rate": 4, "overlap": True, "streams": 4, "output_groups": 8, "output_lora_rank": 1024,
    "layer": 11_507_000_000, "format": lambda: format_int,  # a callable GOOD value is called for the value
    "prompts": 4, "group": 4, "colocate": True, "method": "grpo", "rollout_tp": 1,
    # A rollout's answers and decoding (formulas.rollout, plans.rl_step_plan)
    "mean_output_tokens": 100, "decode_efficiency": 0.74, "rollout_overhead": 2.0, "refit": True,
    "refit_bytes_per_s": 2.35e10, "mean_tokens": 100, "mean_square_tokens": 2e4, "longest_tokens": 128,
    "scale_tokens": 110, "max_tokens": 128, "clipped_share": 0.3, "decode_bytes": 1e12, "decode_flops": 1e15,
    # A MoE step's terms (formulas.moe_comm, plans.moe_plan)
    "nodes_per_token": 2, "sends": 3.5, "dispatch_bytes": 1.03125, "combine_bytes": 2, "seconds": 10.0,
    "imbalance": 1.1, "busy_share": 0.5, "forward_s": 1.0, "backward_s": 2.0, "weight_s": 1.0, "overlapped_s": 2.5,
    # Precision recipes (formulas.precision, plans.precision_time)
    "precision": "fp8-te", "low_efficiency": 0.45, "other_bytes": 1e9, "matmul_inputs": 1e8, "low_flops": 1e20,
    "bf16_flops": 1e19, "bf16_flops_per_s": 989.4e12, "low_flops_per_s": 1979e12, "attention_outputs": 1e7,
    # The capacity question (formulas.capacity, plans.capacity_plan)
    "ttft_s": 0.5, "tpot_s": 0.05, "prefix_hit_rate": 0.25, "disaggregated": True, "chunk_tokens": 2048,
    "link_bytes_per_s": 370e9, "latency_s": 10.2e-6, "base_latency_s": 6.6e-6, "step_latency_s": 0.6e-6,
    "decode_flops": 1e12, "prefill_flops": 1e13, "all_reduce_s": 1e-3, "service_s": 0.1, "utilisation": 0.5,
    "wait_budget_s": 0.05, "concurrency": 64, "time_in_system_s": 5.0,
    # Speculative decoding, the KV cache's precision and offload, MoE decoding (formulas.speculative,
    # formulas.moe_serving, plans.decode_step, plans.serving_features, plans.findings.serving)
    "acceptance": 0.85, "acceptances": (0.85, 0.9), "draft_tokens": 2, "verify_s": 0.01, "draft_step_s": 0.001,
    "target_step_s": 0.01, "speedup": 1.8, "experts": 256, "expert_bytes": 1e7, "matmul": "bf16",
    "tokens_per_sequence": 2, "routed": "batch", "roofline_share": 0.5, "kv_dtypes": ("bf16", "fp8"),
    "context_tokens": 4096, "batches": (1, 64), "cache_bytes": 1e9, "link": "PCIe 5.0 x16",
}


def _h100():
    from llmest.catalog import hardware
    return hardware.gpu("H100 SXM")


@functools.lru_cache(maxsize=None)
def _search():
    return plans.search_layouts(LLAMA, 64, "A100 80GB", 4096, 256 * 4096)


@functools.lru_cache(maxsize=None)
def _corpus():
    return plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5, mix={"chinese": 1.0})


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
    ("checkpoint_storage", "keeps"): (None, 5), ("generate", "key"): "training-days", ("title", "key"): False,
    ("chosen_topics", "topics"): ("memory",), ("gpu_peak", "name"): "A100 80GB", ("tflops_text", "name"): "A100 80GB",
    ("exercise", "key"): "1.2", ("trained", "model"): "LLaMA-7B", ("optimal_instead", "model"): "LLaMA-7B",
    ("moe_layer", "model"): "deepseek-v3", ("deck_summary", "example"): "mixed-precision AdamW",
    ("active_table", "models"): {"deepseek-v3": ("embeddings",)}, ("grouped_query", "model"): "llama-2-70b",
    ("latent_attention", "model"): "deepseek-v3", ("sparse_attention", "model"): "deepseek-v3.2-exp", ("mtp_module", "model"): "deepseek-v3",
    ("Mixer", "kind"): "short_conv", ("Mixer", "shape"): (("conv_L_cache", 3), ("conv_bias", False)), ("estimate_mfu", "gpu_hours"): 64 * 30 * 24, ("size_table", "rows"): [
        ("7B", 32, 4096, (6.5e9, 7.0e9), "llama-2-7b")], ("against_rule", "rows"): [(7e9, 100e9), (70e9, 1.4e12)],
    ("moe_step", "model"): "deepseek-v3", ("moe_step", "gpu"): "H800", ("moe_step", "gpus"): 2048,
    ("moe_step", "pp"): 16, ("moe_step", "ep"): 64, ("moe_step", "seq_len"): 4096,
    ("moe_step", "global_batch_tokens"): 15360 * 4096, ("moe_step", "precision"): "fp8-deepseek",
    ("deepseek_v3", "precision"): "fp8-deepseek",
    ("layout_memory", "micro_batches"): (8, 32), ("models_kept", "task"): "grpo", ("models_kept", "group"): 8,
    ("estimate_rl_step", "group"): 8, ("estimate_rl_step", "gpu"): "H100 SXM",
    ("matmul_peak_flops_per_s", "gpu"): lambda: _h100(),
    ("usable_recipes", "gpu"): lambda: _h100(), ("recipe_gemm_speedup", "gpu"): "H100 SXM",
    ("low_precision_efficiency", "gpu"): "H100 SXM", ("is_calibrated", "gpu"): "H100 SXM",
    ("estimate_time", "precision"): None, ("search_layouts", "precision"): None,
    ("search_layouts", "low_efficiency"): None, ("search_layouts", "overlap"): 0.5, ("recipe", "name"): "fp8-te",
    ("format_bytes_per_value", "name"): "fp8-1x128", ("tokenizers_crawl", "cleaning_yield"): (0.2, 0.3), ("count", "field"): "num_layers", ("count", "value"): 32, ("read_json", "text"): '{"n_layer": 12}',
    ("speculative_decode", "model"): "deepseek-v3", ("moe_decode", "model"): "deepseek-v3",
}


# Lookups in a named catalogue name the catalogue ("gpu == 'H1OO'"), which is what the caller looked up.
NAMED_AS = {("gpu", "name"): "gpu", ("price_per_gpu_hour", "name"): "gpu", ("gpu_price", "name"): "gpu", ("preset", "name"): "preset",
            ("fit", "name"): "fit", ("estimate_time", "model"): "n_params",  # "give n_params or model"
            ("exercise", "key"): "exercise", ("generate", "key"): "template", ("read_entry", "entry"): "answer",
            ("count", "value"): "num_layers", ("read_json", "text"): "config", ("gpu_peak", "name"): "gpu",
            ("tflops_text", "name"): "gpu", ("recipe", "name"): "precision",
            ("format_bytes_per_value", "name"): "format"}  # a config.json's count names its key  # "give n_params or model"
# Classes whose optional fields keep their defaults in the baseline (GOOD would make a mixture of latent-attention
# experts with no experts per token); each field is still fuzzed by the kind of its default.
DEFAULTS_KEPT = {"ModelConfig"}
# Parameters that only label the messages of a checker: not input to fuzz.
LABELS = {("parse_count", "name"), ("parse_bytes", "name"), ("config_from_file", "param"), ("count", "field"),
          ("read_json", "param"), ("read_json", "where"), ("count", "minimum"), ("count", "maximum"),
          ("check_config", "name"), ("ModelConfig", "name"), ("chinchilla", "name"), ("against_rule", "section"),
          ("deck_summary", "example"), ("trained", "name"), ("moe_layer", "name"),
          ("config_from_json", "param"), ("chinchilla_text", "name"),
          ("training_variants", "example")}  # the example of good variants that a refusal shows
# Formatters write a negative difference as readily as a positive figure.
SIGNED = {"answer_text", "format_count", "chinese_count", "format_bytes", "format_flops", "format_int", "format_number", "format_percent",
          "format_usd", "show"}


def qualified(func) -> str:
    """A callable's name with its module, less "llmest.": "plans.time_plan.estimate_mfu"."""
    return f"{func.__module__}.{func.__name__}".removeprefix("llmest.")


def good_value(func, param: inspect.Parameter):
    if func.__name__ in DEFAULTS_KEPT and param.default is not inspect.Parameter.empty:
        return param.default
    value = GOOD_FOR.get((qualified(func), param.name), GOOD_FOR.get((func.__name__, param.name),
                                                                     GOOD.get(param.name, param.default)))
    if value is inspect.Parameter.empty:
        raise KeyError(f"no good value for {qualified(func)}({param.name}): give it one in GOOD or GOOD_FOR")
    return value() if callable(value) and not inspect.isclass(value) else value


def not_fuzzed(name: str) -> str | None:
    """Why the module or callable ``name`` (with "llmest.") is not fuzzed, or None."""
    return next((why for key, why in PACKAGES_NOT_FUZZED.items()
                 if name == key or name.startswith(key if key.endswith(".") else f"{key}.")), None)


def _modules(package):
    """The package's modules, walked with pkgutil; a package not fuzzed is not even imported."""
    for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
        if not not_fuzzed(info.name + ("." if info.ispkg else "")):
            module = importlib.import_module(info.name)
            yield module
            if info.ispkg:
                yield from _modules(module)


def public_callables() -> dict:
    """Every public function and class defined in llmest, by its qualified name, less those not fuzzed: a new
    function is fuzzed without a list to update (and fails until each of its parameters has a good value)."""
    found = {}
    for module in (llmest, *_modules(llmest)):
        for name, obj in vars(module).items():
            if (name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj))
                    or obj.__module__ != module.__name__ or not_fuzzed(f"{module.__name__}.{name}")
                    or (inspect.isclass(obj) and name in CLASSES_NOT_FUZZED)):
                continue
            found[qualified(obj)] = obj
    return dict(sorted(found.items()))


FUNCTIONS = public_callables()


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


# Values of a kind the fuzz counts bad for a parameter that takes them by design, each with why: where one of the
# bad values is such a value, it may be answered (sanely) as well as refused by name, and still never escape.
TAKEN_BY_DESIGN = {
    ("read_entry", "entry"): (lambda value: type(value) in (int, float),
                              "an answer is a number (80) or text (\"80 GB\"): grading reads both"),
    ("training_variants", "settings"): (lambda value: isinstance(value, dict) and not value,
                                        "the settings that all variants share: none, compare_memory's default"),
    ("layer_activations", "seq_len"): (lambda value: isinstance(value, list) and bool(value) and all(
        type(x) is int and x > 0 for x in value), "one sequence length or a list of them, as chapter 5 gives them"),
    ("readers_words", "message"): (lambda value: isinstance(value, str), "any text: the message of a verdict"),
    ("read_in_chinese", "word"): (lambda value: isinstance(value, str), "any text: the unit after the reading"),
    ("moe_step", "nodes_per_token"): (lambda value: value is None, "None: no node limit, each expert's copy sent"),
    ("deepseek_v3", "nodes_per_token"): (lambda value: value is None, "None: no node limit, each expert's copy sent"),
    ("search_layouts", "nodes_per_token"): (lambda value: value is None,
                                            "None: no node limit, each expert's copy sent"),
    ("deepseek_v3", "low_efficiency"): (lambda value: value is None, "None: the recipe's fitted FP8 efficiency"),
}


def taken_by_design(func, param: str, value) -> bool:
    rule = TAKEN_BY_DESIGN.get((func.__name__, param))
    return bool(rule) and rule[0](value)


def bad_values(good, default=None, func=None, param: str = "") -> list[Bad]:
    """The bad values for a parameter whose good value is ``good``; None is not bad where it is the default, and a
    value the parameter takes by design (TAKEN_BY_DESIGN) need not be refused."""
    return [Bad(bad.value, False, bad.label) if bad.must and func and taken_by_design(func, param, bad.value) else bad
            for bad in _bad_values(good) if not (bad.value is None and default is None)]


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


# Findings whose figures include a signed error (the rule's count less the exact one).
SIGNED_FIGURES = {"rule_table", "departures_table", "versus_rule",
                  "published_post_training", "deepseek_v3_cost", "trtllm_h200", "mlperf_llama2",
                  "deepseek_serving", "mtp_speedup", "sglang_deepseek",
                  "nvidia_h100_deepseek_v3"}  # and the model's difference from a published figure


def insane(result, signed: bool = False) -> str | None:
    """Why a result is not a sane answer, or None; ``signed``: a negative figure is sane."""
    if isinstance(result, complex) or (isinstance(result, str) and result.lower() in ("nan", "inf")):
        return f"returned {result!r}"
    if isinstance(result, str) and any(word in result.lower() for word in ("nan", "inf ")):
        return f"returned {result!r}"
    for x in numbers_in(result):
        if not math.isfinite(x):
            return f"returned a non-finite figure ({x})"
        if x < 0 and not signed:
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
    reason = insane(result, func.__name__ in SIGNED_FIGURES) if not (func.__name__ in SIGNED and isinstance(result, str)) else None
    if reason:
        return "nonsense", reason
    if bad.must and not (func.__name__ in SIGNED and isinstance(bad.value, numbers.Real) and bad.value < 0):
        return "nonsense", f"answered {type(result).__name__}"
    return "sane", ""


def _cases():
    for name, func in FUNCTIONS.items():
        with contextlib.suppress(KeyError):  # test_the_good_baseline_gives_a_sane_answer reports it
            for param, good in fuzzed(func).items():
                yield from ((name, param, bad) for bad in bad_values(good, default_of(func, param), func, param))


CASES = list(_cases())
# Failures the fuzz found and this change did not fix, each with why; a fixed one must leave the list (the test
# fails while it stays), and any other failure fails.
KNOWN: dict = {}


def test_every_public_function_is_fuzzed():
    assert len(FUNCTIONS) >= 250, sorted(FUNCTIONS)
    assert len(CASES) > 12000


def test_every_parameter_has_a_good_value():
    """A new function's parameter with no good value by its name fails here, naming it, rather than go unfuzzed."""
    missing = []
    for func in FUNCTIONS.values():
        with contextlib.suppress(InputError):
            try:
                baseline(func)
            except KeyError as err:
                missing.append(err.args[0])
    assert not missing, "\n".join(missing)


def tally() -> tuple[collections.Counter, list[str]]:
    """Every call of the fuzz by its outcome, and the failures: ``python tests/test_api_fuzz.py`` prints them."""
    counts, failures = collections.Counter(), []
    for name, param, bad in CASES:
        func = FUNCTIONS[name]
        category, detail = outcome(func, baseline(func), param, bad)
        counts[category] += 1
        if category not in ("named", "sane"):
            failures.append(f"{name}({param}={bad.label}): {category}: {detail}")
    return counts, failures


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_good_baseline_gives_a_sane_answer(name):
    func = FUNCTIONS[name]
    assert insane(call(func, baseline(func)), func.__name__ in SIGNED_FIGURES) is None


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bad_values_are_refused_by_name(name):
    func = FUNCTIONS[name]
    kwargs = baseline(func)
    failures = []
    for param, good in fuzzed(func).items():
        for bad in bad_values(good, default_of(func, param), func, param):
            category, detail = outcome(func, kwargs, param, bad)
            if category not in ("named", "sane"):
                failures.append(f"{name}({param}={bad.label}): {category}: {detail}")
    if name in KNOWN:
        assert failures, f"{name} passes now: take it off KNOWN"
        pytest.xfail(f"{KNOWN[name]}: {len(failures)} failures, e.g. {failures[0]}")
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


NUMBER_PARAMS = sorted({(name, param) for name, param, bad in CASES if bad.label == "-1" and name not in KNOWN})
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
    must = not (isinstance(value, int) and not isinstance(value, bool) and value > 0
                or taken_by_design(func, param, value))
    category, detail = outcome(func, baseline(func), param, Bad(value, must=must))
    assert category in ("named", "sane"), f"{name}({param}={value!r}): {category}: {detail}"



# ----------------------------------------------------------------------------------------------------------------
# Contradictory or impossible input the fuzz of one parameter at a time does not reach (issue 35)
# ----------------------------------------------------------------------------------------------------------------

def _refused(call_it, param: str, *words: str):
    with pytest.raises(InputError) as err:
        call_it()
    assert err.value.param == param and all(word in str(err.value) for word in words), (err.value.param, err.value)


def test_contradictory_or_impossible_input_is_refused_by_name():
    from llmest import kv_cache, units
    from llmest.plans.layout_time import stage_layers
    from llmest.plans.memory_plan import training_states

    per_param = memory.state_bytes_per_param()
    _refused(lambda: plans.estimate_mfu(7e9, 1e12, gpu_hours=1), "gpu_hours", "over 1")
    _refused(lambda: plans.estimate_mfu(7e9, 1e12, gpus=1, days=1), "days", "over 1")
    _refused(lambda: plans.estimate_mfu(7e9, 1e12, gpu_hours=1e5, gpus=64, days=30), "gpu_hours", "disagrees")
    assert plans.estimate_mfu(7e9, 1e12, gpu_hours=64 * 30 * 24, gpus=64, days=30).mfu < 1
    _refused(lambda: kv_cache.sequences_that_fit(40e9, 140e9, 1e9), "weight_bytes", "do not fit")
    _refused(lambda: units.parse_count("-7B"), "value", "negative")
    for degree in ("dp", "tp", "pp", "cp", "ep"):
        for bad in (0, -1, 1.5, None):
            kwargs = {**dict(zero=1, dp=8, tp=1, pp=1, cp=1, ep=1), degree: bad}
            _refused(lambda: training_states(LLAMA, per_param, **kwargs), degree)
    _refused(lambda: stage_layers(LLAMA, -1), "pp")
    _refused(lambda: stage_layers(LLAMA, 33), "pp", "<= 32")
    _refused(lambda: stage_layers(None, 4), "cfg")
    assert stage_layers(LLAMA, 32) == 1
    for seed in (float("nan"), 1.5, -1, "7"):
        _refused(lambda: drills.generate("training-days", seed), "seed")
        _refused(lambda: drills.drill_set(seed), "seed")


def test_a_model_that_no_split_holds_says_so():
    from llmest.plans.findings import memory as findings

    text = str(findings.serving_gpus(formats=("bf16",), devices=("H200",), seq_len=2**20, batch=64))
    assert "None" not in text and "no tensor-parallel split holds it" in text


def test_an_integer_too_long_to_read_names_its_key():
    text = '{"model_type": "llama", "num_hidden_layers": ' + "9" * 10_000 + ', "text_config": {"x": [1]}}'
    _refused(lambda: model.config_from_json(text), "config", "num_hidden_layers", "10,000 digits")
    nested = '{"text_config": {"layer_types": [1, -' + "7" * 5_000 + ']}}'
    _refused(lambda: model.config_from_json(nested), "config", "text_config.layer_types[1]", "5,000 digits")


# ----------------------------------------------------------------------------------------------------------------
# What the fuzz takes by design (TAKEN_BY_DESIGN) is taken, and what is bad around it is still refused by name
# ----------------------------------------------------------------------------------------------------------------

def test_what_a_parameter_takes_by_design_is_answered_and_the_rest_refused():
    from llmest.catalog import hardware
    from llmest.learn.grading import read_entry
    from llmest.learn.verdict import readers_words
    from llmest.plans.comparison_plan import TRAINING_SETTINGS, training_variants
    from llmest.plans.findings import drills as findings
    from llmest.plans.layout_assumptions import GENERATION, UNCALIBRATED_EFFICIENCY, matmul_efficiency

    assert read_entry(7, "days") == 7 and read_entry(80, "bytes") == 80e9
    _refused(lambda: read_entry([7], "days"), "answer", "must be a number or text")
    _refused(lambda: read_entry(None, "days"), "answer", "must be a number or text")
    assert readers_words("answer == 'lots' is not a number") == "your answer 'lots' is not a number"
    assert readers_words("") == ""
    _refused(lambda: readers_words(None), "message", "must be text")
    assert training_variants([{"zero": 3}], {}, "") == [{"zero": 3}]
    assert training_variants([{"zero": 3}], {"dp": 8}, "") == [{"zero": 3}]
    _refused(lambda: training_variants([{"zero": 3}], {"english": 1.0}, ""), "settings", "'english'", "dp")
    _refused(lambda: training_variants([{"zero": 3}], [("dp", 8)], ""), "settings", "must be a dict")
    assert set(TRAINING_SETTINGS) >= {"zero", "dp", "micro_batch", "seq_len"}
    one, several = (findings.layer_activations(LLAMA, lengths).figures["lengths"] for lengths in (2048, [2048, 7]))
    assert one == several[:1] and several[1]["seq_len"] == 7
    _refused(lambda: findings.layer_activations(LLAMA, [2048, 0]), "seq_len")
    # The fitted efficiency by the GPU's generation; a GPU of the catalog no run calibrates takes the assumption
    # (nothing calls it with a name outside the catalog: the layout search and its calculator look the GPU up first).
    assert set(GENERATION) <= set(hardware.CATALOG)
    assert matmul_efficiency("h100 sxm") == matmul_efficiency("H100 SXM") != UNCALIBRATED_EFFICIENCY
    assert matmul_efficiency("B200") == UNCALIBRATED_EFFICIENCY
    _refused(lambda: matmul_efficiency("H1OO"), "gpu_name", "must be one of")
    _refused(lambda: matmul_efficiency(["H100 SXM"]), "gpu_name", "must be one of")


if __name__ == "__main__":
    COUNTS, FAILURES = tally()
    print("\n".join(FAILURES))
    print(f"{len(FUNCTIONS)} callables, {sum(COUNTS.values())} calls:", dict(COUNTS))
