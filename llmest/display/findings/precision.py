"""How the findings on training precision read (``llmest.plans.findings.precision`` works them out): the recipes
side by side, and NVIDIA's published FP8-over-BF16 speedups beside the model's."""

from __future__ import annotations

from ...core.i18n import _
from ...core.report import Report
from ...core.units import format_number, format_percent
from ..table import Table


def _tflops(flops_per_s) -> str:
    return "–" if flops_per_s is None else format_number(flops_per_s / 1e12)


def _bytes(value) -> str:
    return format_number(round(value, 4))


def precision_recipes(f: dict) -> Report:
    rows = []
    for row in f["rows"]:
        speedup = "–" if row["gemm_speedup"] is None else (
            f"{row['gemm_speedup']:.2f}×" + ("" if row["calibrated"] else " " + _("(assumed)")))
        rows.append((row["recipe"], " + ".join(row["weights"]), row["master"] or "–", row["grads"], row["moments"],
                     row["saved_inputs"], _bytes(row["state_bytes_per_param"]), _bytes(row["saved_input_bytes"]),
                     _tflops(row["peak_flops_per_s"]), speedup))
    notes = [_("{recipe}: {source}").format(recipe=row["recipe"], source=_(row["source"])) for row in f["rows"]]
    notes.append(_("bytes per parameter with {optimizer}; a matmul input saved for backward takes the bytes shown "
                   "per value, scales included; the speedup is of the blocks' matmuls over BF16's on the {gpu}, "
                   "fitted to a published pair or assumed").format(optimizer=f["optimizer"], gpu=f["gpu"]))
    table = Table((_("recipe"), _("weights"), _("master"), _("gradients"), _("Adam moments"), _("saved inputs"),
                   _("bytes/param"), _("bytes/saved value"), _("matmul peak"), _("matmul speedup")), rows,
                  units={_("matmul peak"): "TFLOPS"}, notes=notes)
    return Report(_("Training precision recipes on the {gpu}").format(gpu=f["gpu"]), blocks=(table,))


def fp8_speedups(f: dict) -> Report:
    low_peak = f["low_flops_per_s"]
    rows = []
    for row in f["rows"]:
        use = _("fitted to it") if row["fitted"] else _("held out of the fit")
        rows.append((row["run"], row["layout"], f"{row['published_bf16_s']:.2f}", f"{row['published_fp8_s']:.2f}",
                     f"{row['published_speedup']:.2f}×", f"{row['model_bf16_s']:.2f}", f"{row['model_fp8_s']:.2f}",
                     f"{row['model_speedup']:.2f}×", format_percent(row["difference"], 1, signed=True),
                     format_percent(row["published_mfu_bf16_peak"], 1),
                     format_percent(row["published_mfu_bf16_peak"] * f["bf16_flops_per_s"] / low_peak, 1), use))
    notes = [_("{run}: {why}").format(run=row["run"], why=_(row["why"])) for row in f["rows"] if row["why"]]
    notes.append(_("MFU of the FP8 run counts 6·N·D and attention, against the BF16 peak ({bf16} TFLOPS, as most "
                   "reports quote it) and against the FP8 peak ({fp8} TFLOPS, as NVIDIA's tables quote it)").format(
        bf16=_tflops(f["bf16_flops_per_s"]), fp8=_tflops(low_peak)))
    notes.append(_("model: the blocks' matmuls at {efficiency} of the FP8 peak, {speedup}× their BF16 rate; "
                   "attention and the output layer stay BF16; communication, bubble and fixed costs unchanged").format(
        efficiency=format_percent(f["low_efficiency"], 1), speedup=f"{f['gemm_speedup']:.2f}"))
    table = Table((_("run"), "TP×CP×PP×DP", _("BF16 step"), _("FP8 step"), _("published speedup"),
                   _("model BF16 step"), _("model FP8 step"), _("model speedup"), _("difference"),
                   _("FP8 MFU (BF16 peak)"), _("FP8 MFU (FP8 peak)"), _("calibration")), rows,
                  units={_("BF16 step"): "s", _("FP8 step"): "s", _("model BF16 step"): "s",
                         _("model FP8 step"): "s"}, notes=notes)
    title = _("FP8 over BF16 on the {gpu}: NVIDIA's published step times (dgxc-benchmarking v25.02) beside the "
              "model's").format(gpu=f["gpu"])
    return Report(title, blocks=(table,))


def blackwell_speedups(f: dict) -> Report:
    rows = []
    for row in f["rows"]:
        use = _("fitted to it") if row["fitted"] else _("held out of the fit")
        ref, low = row["published"]
        shown = (f"{ref:.3f} s", f"{low:.3f} s") if not row["per_second"] else (
            format_number(ref), format_number(low))
        rows.append((row["run"], row["layout"], f"{row['reference']} → {row['precision']}", *shown,
                     f"{row['published_speedup']:.2f}×", f"{row['model_reference_s']:.2f}",
                     f"{row['model_low_s']:.2f}",
                     f"{row['model_speedup']:.2f}×", format_percent(row["difference"], 1, signed=True), use))
    notes = [_("{run}: {why}").format(run=row["run"], why=_why(row["why"])) for row in f["rows"] if row["why"]]
    notes.append(_("published: step seconds (NVIDIA/dgxc-benchmarking) or tokens a second a GPU (Megatron-Bridge's "
                   "tables), two runs of one layout; a speedup is their ratio, so no MFU convention or peak enters "
                   "it; fp8-te stands for per-tensor FP8, delayed or current scaling (FP8-CS)"))
    notes.append(_("model: the BF16 work at {bf16} of the BF16 peak (no Blackwell BF16 run calibrates it)").format(
        bf16=format_percent(f["bf16_efficiency"], 1)))
    notes += [_("model: {recipe} at {efficiency} of its peak, fitted to {run}").format(
        recipe=e["recipe"], efficiency=format_percent(e["efficiency"], 2), run=e["fitted_to"])
        for e in f["efficiencies"]]
    table = Table((_("run"), "TP×CP×PP×DP", _("recipes"), _("published, first"), _("published, second"),
                   _("published speedup"), _("model first step"), _("model second step"), _("model speedup"),
                   _("difference"), _("calibration")), rows,
                  units={_("model first step"): "s", _("model second step"): "s"}, notes=notes)
    title = _("Low precision on Blackwell: NVIDIA's published pairs beside the model's speedups")
    return Report(title, blocks=(table,))


def _why(why) -> str:
    """A held-out pair's explanation: a text, or [a template, the pair's own published figures] in the language."""
    if isinstance(why, str):
        return _(why)
    template, published = why
    return _(template).format(published=_(published))
