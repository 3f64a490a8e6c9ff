"""How fast a precision recipe's matmuls run on a GPU of the catalog: its peak (``formulas.precision``), the share of
it they reach (``LOW_PRECISION_EFFICIENCY``, one named constant a recipe and GPU generation, fitted to a published
BF16-beside-FP8 pair), and the speedup of the blocks' matmuls over BF16 that the layout search and the time plan
apply (``recipe_gemm_speedup``). The check of that speedup against every published pair is
``llmest.plans.findings.precision``."""

from __future__ import annotations

from ..catalog import hardware
from ..core import _validate as v
from ..formulas.precision import RECIPES, gemm_speedup, matmul_peak_flops_per_s, recipe
from .layout_assumptions import GENERATION, matmul_efficiency

# The share of the FP8 peak the blocks' matmuls reach, as the BF16 MATMUL_EFFICIENCY is of the BF16 peak: fitted
# (``findings.precision.fit_low_precision``) to the FP8 run of NVIDIA/dgxc-benchmarking v25.02 whose BF16 twin
# calibrates Hopper's BF16 efficiency (Llama 3.1 70B on 64 H100: 14.61 s a step in BF16, 10.46 s in FP8, the same
# layout); every other published pair is held out. 0.4382 of 1,979 TFLOPS is 867, 1.50 times the 576 that BF16's
# 0.5825 of 989.4 gives: FP8 doubles the peak but not the rate a training step's matmuls run at.
LOW_PRECISION_EFFICIENCY = {("fp8-te", "Hopper"): 0.4382}
FITTED_TO = {("fp8-te", "Hopper"): "Llama 3.1 70B, 64 H100 (NVIDIA)"}
# Blackwell, fitted in a chain to the speedup of one published pair each (``precision_blackwell.fit_blackwell``),
# beside the uncalibrated BF16 efficiency of 0.5: per-tensor FP8 to BF16 (Llama 3.1 405B on 128 GB200, NVIDIA/
# dgxc-benchmarking v25.05.04: 9.347 s a step in BF16, 6.131 in FP8, 1.52 times), MXFP8 to per-tensor FP8 (Llama 3
# 8B on 8 GB200, Megatron-Bridge 25.11: 31,508 tokens a second a GPU in FP8-CS, 29,789 in MXFP8, 0.95 times), NVFP4
# to MXFP8 (Llama 3 70B on 64 GB200, Megatron-Bridge 26.04.01: 3,712 and 4,864, 1.31 times). 0.4026 of the FP8 peak
# is 1.61 times BF16's 0.5 of its own; MXFP8 0.3681 of the same peak; NVFP4 0.2610 of twice that peak, 1.42 times
# MXFP8's rate: the FP4 peak doubles FP8's, a training step's matmuls gain far less.
LOW_PRECISION_EFFICIENCY.update({("fp8-te", "Blackwell"): 0.4026, ("mxfp8", "Blackwell"): 0.3681,
                                 ("nvfp4", "Blackwell"): 0.2610})
FITTED_TO.update({("fp8-te", "Blackwell"): "Llama 3.1 405B, 128 GB200, BF16/FP8 (NVIDIA)",
                  ("mxfp8", "Blackwell"): "Llama 3 8B, 8 GB200, FP8-CS/MXFP8 (NVIDIA)",
                  ("nvfp4", "Blackwell"): "Llama 3 70B, 64 GB200, MXFP8/NVFP4 (NVIDIA)"})
# A recipe and generation no published pair calibrates keep the Hopper pair's ratio of low-precision to BF16
# efficiency (0.4382 / 0.5825 = 0.75), an assumption: DeepSeek-V3's fine-grained FP8 on Hopper (no run of it beside
# BF16 is published), DeepSeek-V3's FP8 on Blackwell, and any recipe on a GPU of another generation.
UNCALIBRATED_RATIO = LOW_PRECISION_EFFICIENCY[("fp8-te", "Hopper")] / 0.5825


# The Blackwell GPUs of the catalog, for the low-precision efficiencies alone: the layout search's BF16 efficiency
# on them stays ``layout_assumptions.UNCALIBRATED_EFFICIENCY`` (no published Blackwell BF16 run calibrates it), and
# the recipes' efficiencies below are fitted beside it (B300 and GB300 are Blackwell Ultra: the same block-scaled
# tensor cores, a higher FP4 peak; their pairs are held out).
BLACKWELL = dict.fromkeys(("B200", "GB200 NVL72", "B300", "GB300 NVL72"), "Blackwell")


def _generation(gpu) -> str | None:
    name = hardware.gpu(gpu).name
    return GENERATION.get(name, BLACKWELL.get(name))


def low_precision_efficiency(precision, gpu) -> float:
    """The share of its peak a recipe's low-precision matmuls reach on a GPU: the fitted constant of its recipe and
    generation, or the BF16 efficiency times ``UNCALIBRATED_RATIO``; for "bf16", the BF16 efficiency."""
    r, g = recipe(precision), hardware.gpu(gpu)
    bf16 = matmul_efficiency(g.name)
    if r.matmul == "bf16":
        return bf16
    return LOW_PRECISION_EFFICIENCY.get((r.name, _generation(g)), bf16 * UNCALIBRATED_RATIO)


def is_calibrated(precision, gpu) -> bool:
    """Whether a published pair calibrates the recipe's efficiency on the GPU's generation (BF16 always is where
    the layout search's efficiency is)."""
    r = recipe(precision)
    return r.matmul == "bf16" or (r.name, _generation(gpu)) in LOW_PRECISION_EFFICIENCY


def recipe_gemm_speedup(precision, gpu, low_efficiency=None) -> float:
    """How many times faster than BF16 the blocks' matmuls run under a recipe on a GPU: (P_low · e_low) / (P_bf16 ·
    e_bf16), both efficiencies the fitted ones (``low_efficiency`` overrides the recipe's); 1 for BF16. A GPU without
    the recipe's tensor cores is refused by name."""
    r, g = recipe(precision), hardware.gpu(gpu)
    peak = matmul_peak_flops_per_s(r, g)
    if r.matmul == "bf16":
        return 1.0
    low = low_precision_efficiency(r, g) if low_efficiency is None else v.check_fraction("low_efficiency",
                                                                                         low_efficiency)
    return gemm_speedup(g.bf16_flops_per_s, matmul_efficiency(g.name), peak, low)


__all__ = ["BLACKWELL", "FITTED_TO", "LOW_PRECISION_EFFICIENCY", "RECIPES", "UNCALIBRATED_RATIO", "is_calibrated",
           "low_precision_efficiency", "recipe_gemm_speedup"]
