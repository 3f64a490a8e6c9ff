"""How a memory plan shows itself (``plans.plan_memory``): the bytes per GPU by part, whether they fit, the least
GPUs that hold them and what the activations assume."""

from __future__ import annotations

from ..core.i18n import N_, _, display_width, language
from ..core.units import UNITS, format_bytes, format_percent, show
from .table import Table
from ..core.report import Block, Report

# The parts as a reader reads them: in the breakdown's lines, the figures and the bars.
MEMORY_PART_NAMES = {"weights": N_("weights"), "master": N_("master"), "gradients": N_("gradients"),
                     "optimizer": N_("optimizer"), "adapters": N_("adapters"), "buffers": N_("buffers"),
                     "activations": N_("activations"), "kv_cache": N_("kv cache"), "overhead": N_("overhead"),
                     "critic": N_("critic"), "reference": N_("reference"), "reward": N_("reward model"),
                     "rollout": N_("rollout engine")}
RECOMPUTATION = {"none": N_("no recomputation"), "selective": N_("selective recomputation"),
                 "full": N_("full recomputation")}
TASK_NAMES = {"training": N_("training"), "inference": N_("inference"), "lora": "LoRA", "qlora": "QLoRA",
              "full": N_("full fine-tuning"), "dpo": "DPO", "ppo": "PPO", "grpo": "GRPO"}
# The models a post-training method keeps, as a reader names them.
MODEL_NAMES = {"policy": N_("policy"), "critic": N_("critic"), "reference": N_("reference"),
               "reward": N_("reward model"), "rollout": N_("rollout engine")}


def part_name(part: str) -> str:
    """The English names each part by its key, as ``plan["weights"]`` reads it; the Chinese by its name."""
    return part if language() == "en" else _(MEMORY_PART_NAMES[part])


def breakdown_table(breakdown) -> str:
    """One line a part with its bytes per GPU, then the total (and the CPU memory of offloaded states)."""
    def row(text, b):
        return text + " " * max(0, 12 - display_width(text)) + f" {format_bytes(b):>10}"

    lines = [row(part_name(p), b) for p, b in breakdown.parts.items() if b]
    gpus = _(", {gpus} GPUs").format(gpus=breakdown.gpus) if breakdown.gpus > 1 else ""
    lines.append(row(_("total"), breakdown.total) + "  " + _("per GPU") + gpus)
    if breakdown.cpu_total:
        lines += [row(part_name(p), b) + "  " + _("in CPU memory") for p, b in breakdown.cpu.items() if b]
        lines.append(row(_("CPU total"), breakdown.cpu_total) + "  " + _("per GPU's process"))
    if getattr(breakdown, "precision", ""):
        lines.append(precision_line(breakdown.precision))
    return "\n".join(lines)


def precision_line(name: str) -> str:
    """The precision recipe a breakdown's states and saved activations are in."""
    return _("states and saved activations in the {recipe} recipe (llmest.formulas.precision.RECIPES)").format(
        recipe=name)


def breakdown_block(breakdown) -> Block:
    """The breakdown as the chapters print it, and as a table for a page: part, bytes per GPU (and in CPU memory)."""
    rows = [(part_name(p), format_bytes(b), "") for p, b in breakdown.parts.items() if b]
    gpus = _(", {gpus} GPUs").format(gpus=breakdown.gpus) if breakdown.gpus > 1 else ""
    rows.append((_("total"), format_bytes(breakdown.total), _("per GPU") + gpus))
    rows += [(part_name(p), format_bytes(b), _("in CPU memory")) for p, b in breakdown.cpu.items() if b]
    if breakdown.cpu_total:
        rows.append((_("CPU total"), format_bytes(breakdown.cpu_total), _("per GPU's process")))
    if getattr(breakdown, "precision", ""):
        rows.append((_("precision"), breakdown.precision, precision_line(breakdown.precision)))
    return Block(breakdown_table(breakdown), (_("part"), _("bytes"), ""), tuple(rows))


def least_gpus_text(plan) -> str:
    """The least GPUs of a plan, with how they are split."""
    if plan.least_gpus is None:
        return _("none: {reason}").format(reason=plan.no_fit_reason)
    if plan.fine_tuning:
        return _("1: {task} here runs on a single GPU").format(task=TASK_NAMES[plan.task])
    if plan.task == "inference":
        return _("{n} (tensor parallelism over {n}, which divides the {heads} heads)").format(
            n=plan.least, heads=plan.model.num_heads)
    if plan.post_training and not plan.settings["colocate"]:
        return _("{gpus} (dp {dp} for each of the {models} models, each on its own GPUs, ZeRO-{zero})").format(
            gpus=plan.least_gpus, dp=plan.least, models=plan.other_gpus, zero=plan.settings["zero"])
    if plan.post_training:
        return _("{gpus} (dp {dp}, every model on the same GPUs, ZeRO-{zero})").format(
            gpus=plan.least_gpus, dp=plan.least, zero=plan.settings["zero"])
    zero = plan.settings["zero"]
    stage = _("ZeRO-{zero} sharding over dp").format(zero=zero) if zero else _("plain data parallelism (ZeRO-0)")
    split = "tp·pp·cp" if plan.settings.get("cp", 1) > 1 else "tp·pp"
    return _("{gpus} (dp {dp} × {split} {other}, {stage})").format(
        gpus=plan.least_gpus, dp=plan.least, split=split, other=plan.other_gpus, stage=stage)


def model_role(name: str, trained: bool) -> str:
    """What a model kept by a post-training method does: trained, frozen, or the rollout's inference."""
    return _("trained") if trained else _("inference") if name == "rollout" else _("frozen")


def models_block(plan) -> Block:
    """DPO, PPO, GRPO: each model the method keeps, trained or frozen, and its memory per GPU on its own."""
    rows = [(_(MODEL_NAMES[name]), model_role(name, trained), format_bytes(b.total))
            for name, (trained, b) in plan.models.items()]
    header = (_("model"), _("kept"), _("bytes per GPU on its own"))
    width, kinds = (max(display_width(row[i]) for row in rows) for i in (0, 1))
    text = "\n".join(name + " " * (width - display_width(name)) + "  " + kind + " " * (kinds - display_width(kind))
                     + f" {b:>10}" for name, kind, b in rows)
    return Block(text, header, tuple(rows))


def memory_report(plan, gpus_per_node: int = 8) -> Report:
    breakdown, usable = plan.breakdown, plan.usable_bytes
    name = plan.model.name or _("the model")
    each = breakdown.gpus > 1
    if plan.fits:
        verdict = _("fits each {gpu}") if each else _("fits one {gpu}")
    else:
        verdict = _("does not fit each {gpu}") if each else _("does not fit one {gpu}")
    lines = [_("{verdict} ({usable} usable, {margin} kept free)").format(
                 verdict=verdict.format(gpu=plan.gpu), usable=UNITS["bytes"].show(usable),
                 margin=UNITS["fraction"].show(plan.margin)),
             _("least GPUs that hold it: {least}").format(least=least_gpus_text(plan))]
    if plan.post_training:
        where = _("every model on the same GPUs") if plan.settings["colocate"] else \
            _("each model on its own {dp} GPUs").format(dp=plan.settings["dp"])
        lines.append(_("{task} keeps {n} models ({where}); trained parameters: {params}").format(
            task=_(TASK_NAMES[plan.task]), n=len(plan.models), where=where,
            params=show(plan.trainable_params, "count")))
        if "rollout" in plan.models:
            s = plan.settings
            text = _("rollout engine: its own copy of the weights and the KV cache of {n} sequences of {seq_len} "
                     "tokens per GPU").format(n=s["prompts"] * s.get("group", 1), seq_len=f"{s['seq_len']:,}")
            if s["colocate"]:
                text += _(", counted whole beside training (verl and OpenRLHF can free it while the policy trains)")
            lines.append(text)
    if plan.task in ("training", "full"):
        lines.append(_("GPUs that hold the states alone, sharded evenly (ZeRO-3): {n}").format(n=plan.state_gpus))
    if plan.fine_tuning:
        lines.append(_("trainable (adapter) parameters: {n}, rank {rank} on {targets}").format(
            n=show(plan.trainable_params, "count"), rank=plan.settings["rank"],
            targets=", ".join(plan.settings["targets"])))
    if plan.activations_note:
        lines.append(plan.activations_note)
    data = {"model": plan.model.name, "task": plan.task, "parts": breakdown.parts, "total": breakdown.total,
            "gpus": breakdown.gpus, "gpu": plan.gpu, "usable_bytes": usable, "fits": plan.fits,
            "least_gpus": plan.least_gpus, "trainable_params": plan.trainable_params}
    if plan.searched:
        data[f"least_{plan.searched}"] = plan.least
    if plan.task in ("training", "full"):
        data["state_gpus"] = plan.state_gpus
    if plan.post_training:
        data["colocate"] = plan.settings["colocate"]
        data["models"] = {name: {"trained": trained, "parts": b.parts, "bytes_per_gpu": b.total}
                          for name, (trained, b) in plan.models.items()}
    if plan.fine_tuning:
        data.update(targets=list(plan.settings["targets"]), base=plan.settings["base"])
    if plan.task != "inference":
        data["activations_per_gpu"] = plan.activation_bytes
    if plan.task in ("training", "full"):
        per_node = breakdown.cpu_per_node(gpus_per_node)
        data.update(cpu_parts=breakdown.cpu, cpu_bytes_per_gpu=breakdown.cpu_total, cpu_bytes_per_node=per_node,
                    gpus_per_node=gpus_per_node)
        if breakdown.cpu_total:
            lines.append(_("CPU memory: {per_gpu} per GPU's process, {per_node} per node of {n} GPUs").format(
                per_gpu=UNITS["bytes"].show(breakdown.cpu_total),
                per_node=UNITS["bytes"].show(per_node), n=gpus_per_node))
    title = _("{model}, {task}").format(model=name, task=_(TASK_NAMES[plan.task]))
    blocks = (breakdown_block(breakdown),) + ((models_block(plan),) if plan.post_training else ())
    return Report(title, data=data, blocks=blocks, lines=tuple(lines))


def variant_label(variant: dict) -> str:
    """A comparison's row as a reader names it: "ZeRO-3", "micro-batch 4", and other settings as typed:
    "offload=optimizer", "dp=8, ep=8"."""
    def one(name, value):
        if name == "zero":
            return f"ZeRO-{value}"
        if name == "micro_batch":
            return _("micro-batch {n}").format(n=value)
        if name == "recompute":
            return _(RECOMPUTATION[value])
        return f"{name}={value}"

    return ", ".join(one(name, value) for name, value in variant.items())


def comparison_report(comparison) -> Report:
    """A table: a row per variant, a column per part that any row holds, the total per GPU, the CPU memory where
    states are offloaded, the GPUs where they differ, and whether each fits."""
    rows = comparison.breakdowns
    parts = [p for p in rows[0].parts if any(b.parts.get(p) for b in rows)]
    cpu = any(b.cpu_total for b in rows)
    gpus = len({b.gpus for b in rows}) > 1
    labels = [variant_label(variant) for variant in comparison.variants]
    header = [_("setting"), *(part_name(p) for p in parts), _("total per GPU")]
    header += [_("CPU per GPU's process"), _("CPU per node of {n}").format(n=comparison.gpus_per_node)] * cpu
    header += [_("GPUs")] * gpus + [_("fits {gpu}").format(gpu=comparison.gpu)]
    cells = []
    for label, b in zip(labels, rows):
        row = [label, *(format_bytes(b.parts.get(p, 0)) for p in parts), format_bytes(b.total)]
        row += [format_bytes(b.cpu_total), format_bytes(b.cpu_per_node(comparison.gpus_per_node))] * cpu
        row += [str(b.gpus)] * gpus + [_("yes") if comparison.fits(b) else _("no")]
        cells.append(tuple(row))
    table = Table(tuple(header), tuple(cells))
    title = _("{model}, training, {margin} of each GPU kept free").format(
        model=comparison.model, margin=format_percent(comparison.margin))
    data = {"model": comparison.model, "settings": comparison.settings, "variants": list(comparison.variants),
            "labels": labels, "gpu": comparison.gpu, "usable_bytes": comparison.usable_bytes,
            "rows": [{"parts": b.parts, "total": b.total, "cpu_parts": b.cpu, "cpu_bytes_per_gpu": b.cpu_total,
                      "gpus": b.gpus, "fits": comparison.fits(b)} for b in rows]}
    return Report(title, data=data, blocks=(table,))
