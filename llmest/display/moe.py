"""How a MoE training step reads (``llmest.plans.moe_plan.moe_step``): its terms on the slowest rank, each with what
it assumes, the step, GPU-hours per trillion tokens and MFU."""

from __future__ import annotations

from ..core.i18n import _
from ..core.report import Report
from ..core.units import format_bytes, format_int, format_percent, read_in_chinese
from .table import Table


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def term_rows(f: dict, inputs: dict) -> list:
    """The step's terms as (term, seconds, what it counts) rows, in the order they add up."""
    return [
        (_("matmuls in {precision}").format(precision=inputs["precision"]), _s(f["low_precision_s"]),
         _("the blocks' work at {rate}, its other kernels included").format(
             rate=f"{f['low_precision_flops_per_s'] / 1e12:,.0f} TFLOP/s")),
        (_("+ BF16 matmuls"), _s(f["bf16_s"]), _("attention, output head, router at {rate}").format(
            rate=f"{f['bf16_flops_per_s'] / 1e12:,.0f} TFLOP/s")),
        (_("+ SMs lent to the all-to-all"), _s(f["communication_sms_s"]),
         _("{lent} of the GPU's {sms} SMs run the communication kernels").format(
             lent=inputs["communication_sms"], sms=inputs["gpu_sms"])),
        (_("+ the slowest stage"), _s(f["stage_imbalance_s"]),
         _("whole layers per stage; the output head and MTP module on one rank")),
        (_("+ expert imbalance"), _s(f["imbalance_s"]),
         _("the busiest GPU gets {factor}× the mean tokens, on {share} of the compute (routed experts)").format(
             factor=inputs["imbalance"], share=format_percent(f["expert_s"] / (f["compute_s"] - f["imbalance_s"]), 0))),
        (_("+ pipeline bubble"), _s(f["bubble_s"]),
         _("{schedule}, {m} micro-batches a step").format(schedule=inputs["schedule"], m=f["micro_batches"])),
        (_("+ all-to-all exposed"), _s(f["exposed_all_to_all_s"]),
         _("of {total}: {network} over the network, {nvlink} over NVLink a step").format(
             total=_s(f["all_to_all_s"]), network=format_bytes(f["network_bytes"]),
             nvlink=format_bytes(f["nvlink_bytes"]))),
        (_("+ data-parallel gradients exposed"), _s(f["exposed_dp_s"]),
         _("of {total} ({bytes} a GPU)").format(total=_s(f["dp_s"]), bytes=format_bytes(f["dp_bytes"]))),
        (_("= step"), _s(f["step_s"]), ""),
    ]


def moe_step_report(step) -> Report:
    f, inputs = step.figures, step.inputs
    title = _("{model} on {gpus} {gpu}: PP {pp} × DP {dp}, EP {ep}").format(
        model=f["model"] or _("the model"), gpus=f"{f['gpus']:,}", gpu=f["gpu"], pp=f["pp"], dp=f["dp"], ep=f["ep"])
    table = Table((_("term"), _("seconds"), _("what it counts")), term_rows(f, inputs))
    lines = (_("GPU-hours per trillion tokens: {hours}; MFU {mfu} (against the BF16 peak)").format(
        hours=read_in_chinese(format_int)(round(f["gpu_hours_per_trillion"])), mfu=format_percent(f["mfu"], 1)),)
    return Report(title, blocks=(table,), lines=lines, data={**f, **inputs})
