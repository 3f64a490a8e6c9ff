"""How chapter 5's worked answers read (``llmest.plans.findings.drills`` works them out); the layouts are in
``layouts``."""

from __future__ import annotations

import math
import re

from ...core.i18n import _, display_width
from ...core.report import Report
from ...core.units import UNITS, format_bytes, format_count, format_flops, format_int, format_percent, read_in_chinese
from ..common import TRUE_FALSE
from ..table import Table


def one_gpu(gpu: str) -> str:
    """One GPU of a kind as a sentence names it: "an A100 80GB", "a B200" (一张 A100 80GB)."""
    return (_("an {gpu}") if gpu[:1] in "AEFHILMNORSX8" else _("a {gpu}")).format(gpu=gpu)


def _chip(gpu: str) -> str:
    """A GPU as a count names it, without its memory: A100 for the A100 80GB."""
    return re.sub(r" \d+GB$", "", gpu)


def _size(n_params) -> str:
    """A model's size as it is named: 70B, 175B (not 70.0B)."""
    return re.sub(r"\.0+(?=\D)", "", format_count(n_params))


def _sci(value: float) -> str:
    """A large count as a formula writes it: 175e9, 3e12."""
    exponent = 3 * math.floor(math.log10(value) / 3) if value >= 1 else 0
    return f"{value / 10 ** exponent:g}e{exponent}" if exponent else f"{value:g}"


def _hours(hours: float) -> str:
    """A length of time for a sentence: minutes below an hour, days for whole days, hours otherwise."""
    if hours < 1:
        return _("{n} minutes").format(n=f"{hours * 60:g}")
    if hours % 24 == 0:
        return _("{n} days").format(n=f"{hours / 24:g}")
    return _("{n} hours").format(n=f"{hours:g}")


def _tflops(flops_per_s: float) -> str:
    return f"{flops_per_s / 1e12:.0f}"


def _flops_step(f: dict) -> str:
    return _("1. FLOPs = 6 × {n_params} × {tokens} = {flops}").format(
        n_params=_sci(f["n_params"]), tokens=_sci(f["tokens"]), flops=format_flops(f["flops"]))


def serving_memory(f: dict) -> Report:
    lines = []
    for row in f["formats"]:
        figures = dict(weights=row["weights"], weight_bytes=format_bytes(row["weight_bytes"]),
                       kv_bytes=format_bytes(row["kv_bytes"]), gpu=f["gpu"], n=row["gpus"],
                       per_gpu=format_bytes(row["per_gpu_bytes"]))
        if row["gpus"] is None:
            line = _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; no tensor-parallel split holds them on "
                     "{gpu}")
        elif row["gpus"] > 1:
            line = _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; {n} {gpu} with tensor parallelism, "
                     "{per_gpu} on each")
        else:
            line = _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; one {gpu}, {per_gpu} in all")
        lines.append(line.format(**figures))
    return Report("", lines=tuple(lines))


def reductions(f: dict) -> Report:
    width = max(display_width(step["name"]) for step in f["steps"]) + 3
    line = _("{memory} per GPU; fits {one_gpu} with {margin} free: {fits}")
    return Report("", lines=tuple(step["name"] + " " * (width - display_width(step["name"])) + line.format(
        memory=f"{format_bytes(step['memory_bytes']):>10}", one_gpu=one_gpu(f["gpu"]),
        margin=format_percent(f["margin"], 0), fits=_(TRUE_FALSE[step["fits"]])) for step in f["steps"]))


def layer_activations(f: dict) -> Report:
    line = _("{seq_len} tokens: one layer keeps {eager} eager, {flash} with FlashAttention ({ratio}×)")
    return Report("", lines=tuple(line.format(
        seq_len=f"{row['seq_len']:>6}", eager=f"{format_bytes(row['eager_bytes']):>8}",
        flash=f"{format_bytes(row['flash_bytes']):>8}", ratio=f"{row['ratio']:.1f}") for row in f["lengths"]))


def plain_data_parallel(f: dict) -> Report:
    return Report("", lines=(_("{usable} usable / {per_param} bytes = {params} parameters, before any activations")
                             .format(usable=format_bytes(f["usable_bytes"]), per_param=f"{f['bytes_per_param']:g}",
                                     params=format_count(f["params"])),))


def cost_steps(f: dict) -> Report:
    return Report("", lines=(
        _flops_step(f),
        _("2. {gpu}-hours at {peak} TFLOPS and {mfu} MFU = {hours}").format(
            gpu=f["gpu"], peak=_tflops(f["peak_flops_per_s"]), mfu=format_percent(f["mfu"], 0),
            hours=read_in_chinese(format_int)(f["gpu_hours"])),
        _("3. at ${price} an hour: {cost}").format(price=f"{f['price_per_gpu_hour']:g}",
                                                   cost=UNITS["USD"].format(f["cost"]))))


def training_steps(f: dict) -> Report:
    chip = _chip(f["gpu"])
    return Report("", lines=(
        _flops_step(f),
        _("2. GPU-seconds = FLOPs / ({peak} TFLOPS × {mfu}) = {seconds}").format(
            peak=_tflops(f["peak_flops_per_s"]), mfu=format_percent(f["mfu"], 0), seconds=format_int(f["gpu_seconds"])),
        _("3. GPU-hours = GPU-seconds / 3,600 = {hours}").format(hours=read_in_chinese(format_int)(f["gpu_hours"])),
        _("4. One {gpu}: {days} days = {years} years").format(gpu=chip, days=format_int(f["one_gpu_days"]),
                                                             years=f"{f['one_gpu_years']:.1f}"),
        _("5. {n} {gpu}s: {days} days").format(n=f["gpus"], gpu=chip, days=f"{f['days']:.1f}"),
        _("6. States: {parts} = {total} bytes a parameter -> {states}").format(
            parts=" + ".join(f"{b:g}" for b in f["state_bytes"]), total=f"{f['bytes_per_param']:g}",
            states=format_bytes(f["states_bytes"]))))


def lora_adapters(f: dict) -> Report:
    return Report("", lines=(_("adapters: rank {rank} on {n} projections = {params} parameters").format(
        rank=f["rank"], n=len(f["targets"]), params=format_count(f["params"])),))


def chinchilla(f: dict) -> Report:
    return Report("", lines=(
        _("Chinchilla's rule would give a {size} model {rule} tokens; {name} saw {per} per parameter.").format(
            size=_size(f["n_params"]), rule=format_count(f["rule_tokens"]), name=f["name"] or _("the model"),
            per=f"{f['tokens_per_param']:.1f}"),))


def training_estimate(f: dict) -> Report:
    return Report("", lines=(
        _("assumed: {settings} (FlashAttention on)").format(
            settings=", ".join(f"{k}={value}" for k, value in f["assumed"].items())),
        _("{model} has {n} parameters in its matmuls (the article rounds to {rounded})").format(
            model=f["model"] or _("the model"), n=format_count(f["flops_params"]),
            rounded=format_count(f["flops_params"], 1)),
        _("{days} days by the formula, {low}-{high} with the margin; {memory} per GPU of {usable} usable: fits "
          "{fits}").format(days=f"{f['days']:.1f}", low=f"{f['days_low']:.1f}", high=f"{f['days_high']:.1f}",
                           memory=format_bytes(f["memory_bytes"]), usable=format_bytes(f["usable_bytes"]),
                           fits=_(TRUE_FALSE[f["fits"]])),
        _("every GPU must be fed {rate} tokens a second").format(rate=f"{f['tokens_per_s_per_gpu']:,.0f}")))


def checkpoints(f: dict) -> Report:
    return Report("", lines=(
        _("a {size} resumable checkpoint: {checkpoint}; every {interval} for {run}, keeping all: {all}, keeping "
          "the last {keep}: {kept}").format(
            size=_size(f["n_params"]), checkpoint=format_bytes(f["checkpoint_bytes"]),
            interval=_hours(f["interval_hours"]), run=_hours(f["run_hours"]), all=format_bytes(f["all_bytes"]),
            keep=f["keep"], kept=format_bytes(f["kept_bytes"])),))


def micro_batch_memory(f: dict) -> Report:
    rows = [(str(row["micro_batch"]), *(format_bytes(row[k]) for k in ("eager_bytes", "flash_bytes",
                                                                        "recompute_bytes"))) for row in f["sizes"]]
    caption = _("static (states, ZeRO-{zero}'s buffers, runtime) per GPU: {static}").format(
        zero=f["zero"], static=format_bytes(f["static_bytes"]))
    return Report("", blocks=(Table((_("micro-batch"), _("eager attention"), "FlashAttention", _("+ checkpointing")),
                                    rows, caption=caption),))
