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
# A recipe and generation no published pair calibrates keep the calibrated pair's ratio of low-precision to BF16
# efficiency (0.4382 / 0.5825 = 0.75), an assumption: DeepSeek-V3's fine-grained FP8 on Hopper (no run of it beside
# BF16 is published), and MXFP8 and NVFP4 on Blackwell (NVIDIA's Blackwell tables give no BF16 twin of an FP8 run).
UNCALIBRATED_RATIO = LOW_PRECISION_EFFICIENCY[("fp8-te", "Hopper")] / 0.5825


def _generation(gpu) -> str | None:
    return GENERATION.get(hardware.gpu(gpu).name)


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


__all__ = ["FITTED_TO", "LOW_PRECISION_EFFICIENCY", "RECIPES", "UNCALIBRATED_RATIO", "is_calibrated",
           "low_precision_efficiency", "recipe_gemm_speedup"]
