"""NVIDIA's published BF16-beside-FP8 training runs on H100 (NVIDIA/dgxc-benchmarking v25.02, commit 8f5cbb3: each
README gives the step time of the same model and layout in BF16 and in FP8, NeMo 24.12 on DGX H100), the layout
search's prediction of each under a precision recipe (``predict``), and the fit of the FP8 efficiency to the pair of
``precision_time.FITTED_TO`` (``fit_low_precision``). The BF16 runs are ``published_layouts.RUNS``; the FP8 step
times are ``FP8_STEP_S`` here. ``findings.precision`` shows them side by side."""

from __future__ import annotations

from ..core import _validate as v
from ..core.i18n import N_, _
from ..formulas.precision import recipe
from . import search_layouts
from .precision_time import FITTED_TO
from .published_layouts import RUNS, LayoutRun, _dgxc, _gpt

# GPT-3 175B as NVIDIA's benchmark trains it (nemo_megatron/README_175b.md: TP 4, PP 8, VP 12, MBS 1, sequences of
# 2,048, 128 GPUs and a batch of 256; the GPT-2 vocabulary padded to 50,688 for TP 4); BF16 8.309 s a step.
GPT3_175B = _dgxc("GPT-3 175B, 128 H100 (NVIDIA)", _gpt(96, 12288, 96, vocab=50688, name="GPT-3 175B"), 128, 2048, 256,
                  dict(tp=4, cp=1, pp=8, dp=4, vp=12), 8.309, "nemo_megatron/README_175b.md", "interleaved")
# The FP8 twin of each BF16 run: the step time read in the same README's FP8 table, same layout and batch.
FP8_STEP_S = {
    "Llama 3.1 8B, 8 H100 (NVIDIA)": 9.44,
    "Llama 3.1 70B, 64 H100 (NVIDIA)": 10.46,
    "Llama 3.1 70B, 2,048 H100 (NVIDIA)": 10.99,
    "Llama 3.1 405B, 576 H100 (NVIDIA)": 11.00,
    "Llama 3.1 405B, 2,304 H100 (NVIDIA)": 11.20,
    "Nemotron-4 15B, 64 H100 (NVIDIA)": 2.048,
    "Nemotron-4 340B, 128 H100 (NVIDIA)": 3.16,
    GPT3_175B.name: 5.626,
}
PAIRS = {name: RUNS.get(name, GPT3_175B) for name in FP8_STEP_S}
# Why a held-out pair's speedup differs from the model's, term by term, where it differs by more than 5%.
WHY = {
    "Llama 3.1 405B, 576 H100 (NVIDIA)": N_(
        "model 1.55 s a step slower in FP8 (12.55 s against 11.00), BF16 within 1%: of the published runs, 405B's FP8 "
        "run alone sends the tensor-parallel reduce-scatters after two of its four matmuls in FP8 (llama3.1/"
        "configure.sh sets proj_fprop.fp8_buf and fc2_fprop.fp8_buf for 405B only), halving bytes whose overlap "
        "takes SMs from the matmuls (24 and 8 of 132 in its yaml); the model counts its 2.44 s of tensor-parallel "
        "traffic a step as hidden and free in both precisions, so it cannot give FP8 that gain"),
    "Llama 3.1 405B, 2,304 H100 (NVIDIA)": N_("as on 576 GPUs: FP8 buffers for two tensor-parallel reduce-scatters, "
                                              "which the model does not see"),
}


def predict(run: LayoutRun, precision=None, low_efficiency=None) -> dict:
    """The layout search's row for the run's published layout, in BF16 (precision None) or under a recipe."""
    found = search_layouts(run.model, run.gpus, run.gpu, run.seq_len, run.sequences * run.seq_len,
                           schedule=run.schedule, tp_comm_overlap=run.tp_comm_overlap,
                           recomputations=run.recomputations, margin=0.0, precision=precision,
                           low_efficiency=low_efficiency)
    return found.evaluate(**run.layout)


def fit_low_precision(precision="fp8-te", generation="Hopper") -> float:
    """The share of its peak the recipe's matmuls must reach for the model to give the FP8 step time of
    ``FITTED_TO[(precision, generation)]``, by bisection (``LOW_PRECISION_EFFICIENCY`` holds the result). The
    Blackwell recipes are fitted to published speedups instead (``precision_blackwell.fit_blackwell``)."""
    v.check_choice("generation", generation, sorted({gen for (_rec, gen), name in FITTED_TO.items() if name in PAIRS}))
    key = (recipe(precision).name, generation)
    if key not in FITTED_TO:
        raise v.InputError("precision", _("precision == {value}: no published pair calibrates it on {generation}; "
                                          "fitted: {fitted}.").format(
            value=v.quote(precision), generation=generation,
            fitted=", ".join(f"{rec} ({gen})" for rec, gen in FITTED_TO)))
    name = FITTED_TO[key]
    run, target = PAIRS[name], FP8_STEP_S[name]
    low, high = 0.05, 1.0
    for _i in range(30):
        middle = (low + high) / 2
        low, high = (middle, high) if predict(run, key[0], middle)["step_time_s"] > target else (low, middle)
    return (low + high) / 2
