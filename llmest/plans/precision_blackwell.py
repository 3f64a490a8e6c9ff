"""NVIDIA's published Blackwell training runs of one model and layout in two precisions (BF16 beside per-tensor FP8,
per-tensor FP8 beside MXFP8, MXFP8 beside NVFP4), the layout search's speedup for each (``model_speedup``), and the
fit of each Blackwell recipe's efficiency to one pair (``fit_blackwell``; ``precision_time.FITTED_TO`` names it).

NVIDIA publishes no BF16 twin of an MXFP8 or NVFP4 run of a dense model on Blackwell, so the recipes are fitted in a
chain: per-tensor FP8 against BF16 (dgxc-benchmarking's GB200 tables), MXFP8 against per-tensor FP8 (the one
Megatron-Bridge table that shows both for one layout), NVFP4 against MXFP8 (Megatron-Bridge's Llama 3 70B rows).
Each is a ratio of two runs of the same layout, so neither the MFU convention nor the peak a table divides by
matters; the model's BF16 efficiency on Blackwell is ``layout_assumptions.UNCALIBRATED_EFFICIENCY`` (no Blackwell
BF16 run calibrates it), and a fitted low-precision efficiency is the share of the recipe's peak beside it."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core.i18n import N_
from ..formulas.model import preset
from .precision_pairs import predict
from .precision_time import FITTED_TO, LOW_PRECISION_EFFICIENCY
from .published_layouts import LayoutRun

_DGXC = ("NVIDIA/dgxc-benchmarking v25.05.04 (commit 1f6d9f4), {readme}: NeMo {nemo} on {gpus:,} GB200, {layout}; "
         "'Training step time (seconds per step)' {bf16} in BF16 and {low} in FP8, read in its GB200 tables; FP8 is "
         "NeMo's default fp8_recipe 'ds', per-tensor delayed scaling (scripts/performance/argument_parser.py, "
         "NeMo v2.3)")
_BRIDGE = ("NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md (commit 067f987), {container} NeMo "
           "container, {system}: {model} on {gpus:,} GPUs, {layout}; Tokens / sec / GPU {ref} in {ref_name} and {low} "
           "in {low_name}, the same layout")


@dataclass(frozen=True)
class PrecisionPair:
    """One model and layout run in two precisions: ``reference`` and ``precision`` are recipes of
    ``formulas.precision``; ``published`` the two figures, step seconds (``per_second`` False) or tokens a second
    a GPU (``per_second`` True)."""

    run: LayoutRun
    reference: str
    precision: str
    published: tuple
    per_second: bool

    @property
    def name(self) -> str:
        return self.run.name

    @property
    def published_speedup(self) -> float:
        ref, low = self.published
        return low / ref if self.per_second else ref / low


def _run(name, model, gpu, seq_len, sequences, layout, source, micro_batch=1) -> LayoutRun:
    schedule = "interleaved" if "vp" in layout else "1f1b"
    return LayoutRun(name, preset(model), hardware.gpu(gpu), seq_len, sequences,
                     dict(layout, micro_batch=micro_batch, recompute="none", zero=1), schedule, None, None, source,
                     tp_comm_overlap=True)


def _shown(layout, micro_batch, sequences) -> str:
    return " ".join(f"{k.upper()} {n}" for k, n in layout.items()) + f", MBS {micro_batch}, GBS {sequences}"


def _dgxc(model, label, gpus, seq_len, sequences, layout, bf16_s, fp8_s, readme, nemo):
    source = _DGXC.format(readme=readme, nemo=nemo, gpus=gpus, layout=_shown(layout, 1, sequences), bf16=bf16_s,
                          low=fp8_s)
    run = _run(f"{label}, {gpus:,} GB200, BF16/FP8 (NVIDIA)", model, "GB200 NVL72", seq_len, sequences, layout, source)
    return PrecisionPair(run, "bf16", "fp8-te", (bf16_s, fp8_s), per_second=False)


_NAMES = {"fp8-te": "FP8-CS", "mxfp8": "MXFP8", "nvfp4": "NVFP4"}


def _bridge(model, label, gpu, system, gpus, sequences, layout, reference, precision, figures, container,
            micro_batch=1):
    source = _BRIDGE.format(container=container, system=system, model=label, gpus=gpus,
                            layout=_shown(layout, micro_batch, sequences) + ", sequences of 8,192",
                            ref=f"{figures[0]:,}", ref_name=_NAMES[reference], low=f"{figures[1]:,}",
                            low_name=_NAMES[precision])
    run = _run(f"{label}, {gpus:,} {gpu.split()[0]}, {_NAMES[reference]}/{_NAMES[precision]} (NVIDIA)", model, gpu,
               8192, sequences, layout, source, micro_batch)
    return PrecisionPair(run, reference, precision, figures, per_second=True)


_405B = dict(tp=4, cp=2, pp=8, vp=8)
_340B = dict(tp=8, cp=1, pp=4, vp=12)
# Megatron-Bridge's "FP8-CS" is Transformer Engine's per-tensor current scaling, the workbook's "fp8-te" recipe (one
# scale per tensor; its amax taken in the step instead of from a history): the same bytes and the same FP8 peak.
PAIRS = {p.name: p for p in [
    # BF16 beside per-tensor FP8 on GB200: the fitted pair first, then the held-out ones.
    _dgxc("llama-3.1-405b", "Llama 3.1 405B", 128, 8192, 64, dict(_405B, dp=2), 9.347, 6.131, "llama3.1/README.md",
          "25.04.01"),
    _dgxc("llama-3.1-405b", "Llama 3.1 405B", 256, 8192, 128, dict(_405B, dp=4), 9.484, 6.183, "llama3.1/README.md",
          "25.04.01"),
    _dgxc("llama-3.1-405b", "Llama 3.1 405B", 512, 8192, 256, dict(_405B, dp=8), 9.508, 6.244, "llama3.1/README.md",
          "25.04.01"),
    # Per-tensor FP8 (current scaling) beside MXFP8, Megatron-Bridge 25.11: "FP8-CS (FP8-MX)" rows.
    _bridge("llama-3-8b", "Llama 3 8B", "GB200 NVL72", "DGX-GB200", 8, 128, dict(tp=1, cp=1, pp=1, dp=8), "fp8-te",
            "mxfp8", (31508, 29789), "25.11", micro_batch=2),
    _bridge("llama-3-8b", "Llama 3 8B", "GB300 NVL72", "DGX-GB300", 8, 128, dict(tp=1, cp=1, pp=1, dp=8), "fp8-te",
            "mxfp8", (37556, 36108), "25.11", micro_batch=2),
    _bridge("llama-3-8b", "Llama 3 8B", "B200", "DGX-B200", 8, 128, dict(tp=1, cp=1, pp=1, dp=8), "fp8-te", "mxfp8",
            (30624, 29521), "25.11", micro_batch=2),
    _bridge("llama-3.1-405b", "Llama 3.1 405B", "B200", "DGX-B200", 128, 64, dict(_405B, dp=2), "fp8-te", "mxfp8",
            (661, 624), "25.11"),
    # MXFP8 beside NVFP4, Megatron-Bridge 26.04.01 (FSDP 0, CP 1).
    _bridge("llama-3.1-70b", "Llama 3 70B", "GB200 NVL72", "DGX-GB200", 64, 256, dict(tp=2, cp=1, pp=4, dp=8, vp=5),
            "mxfp8", "nvfp4", (3712, 4864), "26.04.01"),
    _bridge("llama-3.1-70b", "Llama 3 70B", "GB300 NVL72", "DGX-GB300", 64, 256, dict(tp=1, cp=1, pp=4, dp=16, vp=5),
            "mxfp8", "nvfp4", (4864, 7296), "26.04.01"),
    _bridge("llama-3.1-405b", "Llama 3.1 405B", "GB200 NVL72", "DGX-GB200", 256, 1536,
            dict(tp=4, cp=1, pp=16, dp=4, vp=8), "mxfp8", "nvfp4", (800, 1184), "26.04.01"),
    _bridge("llama-3.1-405b", "Llama 3.1 405B", "GB300 NVL72", "DGX-GB300", 256, 1536,
            dict(tp=4, cp=1, pp=8, dp=8, vp=4), "fp8-te", "nvfp4", (1024, 1440), "26.04.01"),
]}


def model_speedup(pair: PrecisionPair, low_efficiency=None) -> tuple:
    """The model's step times for the pair's layout in its two recipes and their ratio (reference over recipe);
    ``low_efficiency`` overrides the recipe's fitted share of its peak."""
    reference = predict(pair.run, None if pair.reference == "bf16" else pair.reference)
    low = predict(pair.run, pair.precision, low_efficiency)
    return reference, low, float(reference["step_time_s"] / low["step_time_s"])


def fit_blackwell(precision) -> float:
    """The share of its peak the recipe's matmuls must reach on Blackwell for the model to give the published
    speedup of ``FITTED_TO[(precision, "Blackwell")]`` over its reference recipe, by bisection
    (``LOW_PRECISION_EFFICIENCY`` holds the result)."""
    key = (precision, "Blackwell")
    v.check_choice("precision", precision, sorted(rec for rec, gen in FITTED_TO if gen == "Blackwell"))
    pair = PAIRS[FITTED_TO[key]]
    low, high = 0.02, 1.0
    for _i in range(30):
        middle = (low + high) / 2
        faster = model_speedup(pair, middle)[2] > pair.published_speedup
        low, high = (low, middle) if faster else (middle, high)
    return (low + high) / 2


def fitted(pair: PrecisionPair) -> bool:
    """Whether the pair is the one its recipe's Blackwell efficiency is fitted to."""
    return FITTED_TO.get((pair.precision, "Blackwell")) == pair.name and (
        pair.precision, "Blackwell") in LOW_PRECISION_EFFICIENCY


# Why a held-out pair's speedup differs from the model's, where it differs by more than 5%.
_ULTRA = N_("the GB300's FP4 peak is 1.5 times the GB200's at the same FP8 and BF16 peaks, and the model, with one "
            "share of the FP4 peak fitted on the GB200, gives NVFP4 all of it; {published}: part of an NVFP4 step "
            "does not run at the FP4 peak (the recipe's quantisation with random Hadamard transforms and two-level "
            "scales, the layers it keeps in BF16), and the model has no term for it")
WHY = {
    "Llama 3 70B, 64 GB300, MXFP8/NVFP4 (NVIDIA)": (_ULTRA, N_(
        "NVIDIA's NVFP4 gain over MXFP8 on this layout grows only from 1.31 times on GB200 to 1.50 on GB300")),
    "Llama 3.1 405B, 256 GB300, FP8-CS/NVFP4 (NVIDIA)": (_ULTRA, N_(
        "NVIDIA's NVFP4 gain over per-tensor FP8 on this 405B is 1.41 times")),
    "Llama 3.1 405B, 256 GB200, MXFP8/NVFP4 (NVIDIA)": N_(
        "one share of the peak for every shape: fitted on Llama 3 70B (hidden 8,192), it leaves the 405B's wider "
        "matmuls (hidden 16,384) slower than they run; the model's steps are 23% (MXFP8) and 36% (NVFP4) longer "
        "than the published 61.4 s and 41.5 s, and the wider matmuls gain more from FP4 than the fitted ones"),
}
