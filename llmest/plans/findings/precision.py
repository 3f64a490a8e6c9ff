"""Chapters 2 and 3's findings on training precision: the recipes side by side (which tensor is kept in which format,
bytes per parameter, the peak its matmuls run at on a GPU), and the FP8-over-BF16 speedups of NVIDIA's published
H100 recipes beside the layout search's for the same layouts (``llmest.display.findings.precision`` writes them).

The published pairs and the fit are ``plans.precision_pairs``; one pair calibrates the FP8 efficiency
(``precision_time.FITTED_TO``), the others are held out."""

from __future__ import annotations

from ...catalog import hardware
from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import precision as shown
from ...formulas.precision import FORMATS, RECIPES, matmul_peak_flops_per_s, recipe, recipe_state_bytes
from .. import precision_blackwell as blackwell
from ..layout_assumptions import matmul_efficiency
from ..precision_pairs import FP8_STEP_S, PAIRS, WHY, predict
from ..precision_time import (FITTED_TO, LOW_PRECISION_EFFICIENCY, is_calibrated, low_precision_efficiency,
                              recipe_gemm_speedup)


def fp8_speedups(precision="fp8-te") -> Finding:
    """Each published pair: the BF16 and FP8 step times, the published speedup, the model's for the same layout, and
    the difference; the model's terms (compute, bubble, exposed communication); the FP8 run's MFU against the BF16
    and against the FP8 peak, published and modelled; whether the pair was fitted or held out."""
    r = recipe(precision)
    fitted = {name for (rec, _gen), name in FITTED_TO.items() if rec == r.name}
    rows = []
    for name, run in PAIRS.items():
        bf16, low = predict(run), predict(run, r.name)
        published_bf16, published_low = run.published_step_s, FP8_STEP_S[name]
        lay = run.layout
        model_mfu_low = float(low["mfu"])
        rows.append(dict(
            run=name, layout=f"{lay['tp']}×{lay['cp']}×{lay['pp']}×{lay['dp']}", gpus=run.gpus,
            published_bf16_s=published_bf16, published_fp8_s=published_low,
            published_speedup=published_bf16 / published_low,
            model_bf16_s=float(bf16["step_time_s"]), model_fp8_s=float(low["step_time_s"]),
            model_speedup=float(bf16["step_time_s"] / low["step_time_s"]),
            terms={kind: [float(bf16[kind]), float(low[kind])] for kind in ("compute_s", "bubble_s",
                                                                           "exposed_comm_s")},
            published_mfu_bf16_peak=model_mfu_low * float(low["step_time_s"]) / published_low,
            model_mfu_bf16_peak=model_mfu_low,
            fitted=name in fitted, why=WHY.get(name, "")))
    for row in rows:
        row["difference"] = row["model_speedup"] / row["published_speedup"] - 1
    g = PAIRS[next(iter(PAIRS))].gpu
    return Finding(dict(precision=r.name, gpu=g.name, bf16_flops_per_s=g.bf16_flops_per_s,
                        low_flops_per_s=matmul_peak_flops_per_s(r, g), low_efficiency=low_precision_efficiency(r, g),
                        gemm_speedup=recipe_gemm_speedup(r, g), rows=rows), shown.fp8_speedups)


@v.checked
def precision_recipes(gpu="H100 SXM", optimizer="adamw") -> Finding:
    """Every recipe side by side: the format of each tensor, the bytes per parameter of the training states, the
    peak its matmuls run at on ``gpu`` (None where the GPU lacks the tensor cores) and the modelled speedup of the
    blocks' matmuls over BF16 (calibrated or assumed), with its source."""
    g = hardware.gpu(gpu)
    rows = []
    for name, r in RECIPES.items():
        try:
            peak, speedup = matmul_peak_flops_per_s(r, g), recipe_gemm_speedup(r, g)
        except v.InputError:
            peak = speedup = None
        states = recipe_state_bytes(r, optimizer)
        rows.append(dict(recipe=name, weights=[r.weights, *r.extra_weight_copies], master=r.master, grads=r.grads,
                         moments=r.moments, saved_inputs=r.saved_inputs, matmul=r.matmul,
                         matmul_inputs=r.matmul_inputs, state_bytes_per_param=states.total,
                         states=dict(weights=states.weights, master=states.master, gradients=states.grads,
                                     optimizer=states.optimizer),
                         saved_input_bytes=FORMATS[r.saved_inputs].bytes_per_value, peak_flops_per_s=peak,
                         gemm_speedup=speedup, calibrated=peak is not None and is_calibrated(r, g),
                         source=r.source, note=r.note))
    return Finding(dict(gpu=g.name, optimizer=optimizer, rows=rows), shown.precision_recipes)


def blackwell_speedups() -> Finding:
    """NVIDIA's published Blackwell pairs (``plans.precision_blackwell``): each layout's two recipes, the published
    figures (step seconds or tokens a second a GPU) and speedup, the model's step times and speedup, the difference,
    and whether the pair was fitted or held out; with the fitted efficiency of each recipe."""
    rows = []
    for name, pair in blackwell.PAIRS.items():
        reference, low, speedup = blackwell.model_speedup(pair)
        lay = pair.run.layout
        rows.append(dict(
            run=name, gpu=pair.run.gpu.name, layout=f"{lay['tp']}×{lay['cp']}×{lay['pp']}×{lay['dp']}",
            reference=pair.reference, precision=pair.precision, published=list(pair.published),
            per_second=pair.per_second, published_speedup=pair.published_speedup,
            model_reference_s=float(reference["step_time_s"]), model_low_s=float(low["step_time_s"]),
            model_speedup=speedup, difference=speedup / pair.published_speedup - 1,
            fitted=blackwell.fitted(pair), why=_why(blackwell.WHY.get(name, "")), source=pair.run.source))
    efficiencies = [dict(recipe=rec, efficiency=LOW_PRECISION_EFFICIENCY[(rec, gen)], fitted_to=name)
                    for (rec, gen), name in FITTED_TO.items() if gen == "Blackwell"]
    return Finding(dict(generation="Blackwell", bf16_efficiency=matmul_efficiency("GB200 NVL72"),
                        efficiencies=efficiencies, rows=rows), shown.blackwell_speedups)


def _why(why):
    """A held-out pair's explanation as JSON keeps it: a text, or [template, the pair's own published figures]."""
    return list(why) if isinstance(why, tuple) else why
