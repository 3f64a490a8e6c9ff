"""How chapter 5's findings on training a mixture of experts read (``llmest.plans.findings.moe`` works them
out)."""

from __future__ import annotations

from ...core.i18n import N_, _
from ...core.report import Report
from ...core.units import format_int, format_percent, read_in_chinese
from ..moe import term_rows
from ..table import Table

CHANGES = {"bf16": N_("BF16 matmuls instead of FP8"), "1f1b": N_("1F1B instead of DualPipe"),
           "no node limit": N_("each expert's copy sent apart (no node limit)"),
           "per-tensor fp8": N_("FP8 at the efficiency fitted to Transformer Engine's per-tensor FP8, not DeepSeek's "
                                "kernels'")}


def _hours(value: float) -> str:
    return read_in_chinese(format_int)(round(value))


def deepseek_v3_cost(f: dict) -> Report:
    step, inputs = f["figures"], f["inputs"]
    summary = _("DeepSeek-V3 on 2,048 H800: {published} GPU-hours per trillion tokens published, {model} by the "
                "model from its layout ({difference}); a step of {step} s against {published_step} s, MFU {mfu} "
                "against {published_mfu}").format(
        published=_hours(f["published_gpu_hours_per_trillion"]), model=_hours(step["gpu_hours_per_trillion"]),
        difference=format_percent(f["difference"], 1, signed=True), step=f"{step['step_s']:.1f}",
        published_step=f"{f['published_step_s']:.1f}", mfu=format_percent(step["mfu"], 1),
        published_mfu=format_percent(f["published_mfu"], 1))
    terms = Table((_("term"), _("seconds"), _("what it counts")), term_rows(step, inputs))
    base = step["gpu_hours_per_trillion"]
    undone = Table((_("with one choice changed"), _("GPU-hours per trillion tokens"), _("more")),
                   [(_(CHANGES[row["change"]]), _hours(row["gpu_hours_per_trillion"]),
                     format_percent(row["gpu_hours_per_trillion"] / base - 1, 0, signed=True)) for row in f["undone"]])
    return Report(summary, blocks=(terms, undone))
