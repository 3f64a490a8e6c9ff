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


def nvidia_h100_deepseek_v3(f: dict) -> Report:
    lay = f["layout"]
    shown_layout = " · ".join(f"{k.upper()} {lay[k]}" for k in ("tp", "pp", "dp", "vp", "ep"))
    summary = _("DeepSeek-V3 on {gpus} {gpu} (NVIDIA's recipe: {layout}, {precision}): {published} tokens/s a GPU "
                "published, {model} by the layout search's timing of its layout ({difference}); a step of {step} s "
                "against {published_step} s, MFU {mfu} against {published_mfu}").format(
        gpus=f"{f['gpus']:,}", gpu=f["gpu"], layout=shown_layout, precision=f["precision"],
        published=format_int(f["published_tokens_per_s_per_gpu"]),
        model=format_int(round(f["model_tokens_per_s_per_gpu"])),
        difference=format_percent(f["difference"], 1, signed=True), step=f"{f['step_s']:.1f}",
        published_step=f"{f['published_step_s']:.1f}", mfu=format_percent(f["mfu"], 1),
        published_mfu=format_percent(f["published_mfu"], 1))
    rows = [(_("compute"), f"{f['compute_s']:.1f}", _("the slowest stage's matmuls in {precision}, attention "
                                                       "recomputed").format(precision=f["precision"])),
            (_("+ pipeline bubble"), f"{f['bubble_s']:.1f}", _("interleaved, {chunks} model chunks a GPU").format(
                chunks=lay["vp"])),
            (_("+ all-to-all exposed"), f"{f['all_to_all_s']:.1f}",
             _("FP8 dispatch and BF16 combine over each GPU's network port")),
            (_("+ other communication exposed"), f"{f['other_exposed_s']:.1f}",
             _("tensor-, pipeline- and data-parallel")),
            (_("= step"), f"{f['step_s']:.1f}", _("published: {published} s").format(
                published=f"{f['published_step_s']:.1f}"))]
    notes = [_("The all-to-all: the recipe turns on Megatron-Core's overlap_moe_expert_parallel_comm, which runs one "
               "micro-batch's all-to-all beside another's compute as DualPipe does; the model leaves the interleaved "
               "schedule's all-to-all exposed. {hidden} s of its {total} s hidden gives the published step; all of "
               "it hidden, the step would be {all_hidden} s ({faster} tokens/s a GPU): the published run lies "
               "between.").format(hidden=f"{f['hidden_all_to_all_s']:.1f}", total=f"{f['all_to_all_s']:.1f}",
                                   all_hidden=f"{f['all_hidden_step_s']:.1f}",
                                   faster=format_int(round(f["model_tokens_per_s_per_gpu"] * f["step_s"]
                                                           / f["all_hidden_step_s"]))),
             _("Recomputation: the recipe recomputes the MLP and MLA's up-projections, not the attention scores "
               "that the model's selective recomputation repeats ({attention} s); the MLP's forward again is about "
               "{mlp} s more, which would widen the gap.").format(attention=f"{f['attention_recompute_s']:.1f}",
                                                                  mlp=f"{f['mlp_recompute_s']:.1f}"),
             _("Source: {source}").format(source=_(f["source"]))]
    return Report(summary, blocks=(Table((_("term"), _("seconds"), _("what it counts")), rows, notes=notes),))
