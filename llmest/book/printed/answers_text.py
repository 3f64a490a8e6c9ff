"""Worked answers of the interview questions as a reader sees them, in the language shown: what serving a model
takes, the sheet's memory reductions applied one after another, a layer's activations against the sequence, where
plain data parallelism stops, a cost worked step by step, the material's training estimate and a run's checkpoints.
Each composes the plans and writes its figures with the formatters of ``llmest.core.units``."""

from __future__ import annotations

import math
import re
import unicodedata

from ...core import _validate as v
from ...catalog import hardware
from ...formulas.compute import (DAYS_PER_YEAR, RESUME_CHECKPOINT_BYTES_PER_PARAM, checkpoint_bytes,
                                 checkpoint_storage_bytes, cost, flops_params, gpu_hours, gpu_seconds,
                                 tokens_per_second_per_gpu, training_days, training_flops)
from ...formulas.data import chinchilla_tokens
from ...core.i18n import _
from ...formulas.memory import (LORA_TARGETS, MEMORY_MARGIN, WEIGHT_FORMATS, lora_params, model_layer_activation_bytes,
                                state_bytes_per_param, training_state_bytes)
from ...formulas.model import config_from
from ...core.units import format_bytes, format_count, format_flops, format_int, format_percent, format_usd
from ...plans.memory_plan import (MemoryBreakdown, inference_memory, min_gpus, qlora_memory, training_memory,
                                  usable_bytes)
from ...display.common import TRUE_FALSE as FITS
from ...plans.time_plan import estimate_training


def one_gpu(gpu) -> str:
    """One GPU of a kind as a sentence names it: "an A100 80GB", "a B200" (一张 A100 80GB)."""
    name = hardware.gpu(gpu).name
    return (_("an {gpu}") if name[:1] in "AEFHILMNORSX8" else _("a {gpu}")).format(gpu=name)


def _width(text: str) -> int:
    """The terminal columns ``text`` takes, a wide (Chinese) character taking two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@v.checked(weights=v.one_of(WEIGHT_FORMATS), **v.WHOLE)
def serving_memory_text(model, gpu="A100 80GB", *, weights="bf16", seq_len=2048, batch=1) -> str:
    """Serving ``batch`` sequences of ``seq_len`` tokens: the weights and KV cache in all, and the least GPUs that
    hold them with tensor parallelism (``min_gpus`` over ``inference_memory``), with the memory on each."""
    cfg = config_from(model)
    gpus = min_gpus(lambda n: inference_memory(cfg, weights=weights, seq_len=seq_len, batch=batch, tp=n), gpu)
    plan = inference_memory(cfg, weights=weights, seq_len=seq_len, batch=batch, tp=gpus or 1)
    figures = dict(weights=weights, weight_bytes=format_bytes(plan["weights"] * plan.gpus),
                   kv_bytes=format_bytes(plan["kv_cache"] * plan.gpus), gpu=hardware.gpu(gpu).name, n=gpus,
                   per_gpu=format_bytes(plan.total))
    if gpus is None:
        return _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; no tensor-parallel split holds them on "
                 "{gpu}").format(**figures)
    if gpus > 1:
        return _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; {n} {gpu} with tensor parallelism, "
                 "{per_gpu} on each").format(**figures)
    return _("{weights}: weights {weight_bytes}, KV cache {kv_bytes}; one {gpu}, {per_gpu} in all").format(**figures)


@v.checked(**v.WHOLE)
def memory_reductions(model, *, dp=8, micro_batch=4, seq_len=4096) -> dict:
    """The sheet's four answers to "how do you reduce training memory?" applied one after another, each named in
    the language shown: plain data parallelism over ``dp`` GPUs with eager attention, + FlashAttention, + full
    recomputation (gradient checkpointing), + ZeRO-3 over the same GPUs (``training_memory``); and QLoRA instead
    (``qlora_memory``), which answers for fine-tuning only. Name -> MemoryBreakdown per GPU."""
    cfg = config_from(model)
    setup = dict(dp=dp, micro_batch=micro_batch, seq_len=seq_len)
    return {
        _("plain data parallel"): training_memory(cfg, flash=False, **setup),
        _("+ FlashAttention"): training_memory(cfg, flash=True, **setup),
        _("+ gradient checkpointing"): training_memory(cfg, flash=True, recompute="full", **setup),
        _("+ ZeRO-3 over {dp} GPUs").format(dp=dp): training_memory(cfg, flash=True, recompute="full", zero=3, **setup),
        _("QLoRA instead (fine-tuning)"): qlora_memory(cfg, micro_batch=micro_batch, seq_len=seq_len),
    }


@v.checked
def reductions_text(steps, gpu="A100 80GB", margin=MEMORY_MARGIN) -> str:
    """One line per named plan of ``steps`` (name -> MemoryBreakdown, e.g. ``memory_reductions``): its memory per
    GPU and whether it fits a GPU with ``margin`` kept free."""
    if not isinstance(steps, dict) or not steps or not all(isinstance(name, str) and isinstance(plan, MemoryBreakdown)
                                                            for name, plan in steps.items()):
        raise v.InputError("steps", f"steps == {v.quote(steps)}, must be a dict of name: MemoryBreakdown (what "
                                    "memory_reductions returns).")
    usable = usable_bytes(gpu, margin)
    width = max(_width(name) for name in steps) + 3
    line = _("{memory} per GPU; fits {one_gpu} with {margin} free: {fits}")
    return "\n".join(name + " " * (width - _width(name)) + line.format(
        memory=f"{format_bytes(plan.total):>10}", one_gpu=one_gpu(gpu), margin=format_percent(margin, 0),
        fits=_(FITS[plan.total <= usable])) for name, plan in steps.items())


@v.checked(**v.WHOLE)
def layer_activations_text(model, seq_len, micro_batch=1) -> str:
    """The activations one layer keeps for backward at ``seq_len`` tokens, eager against FlashAttention."""
    cfg = config_from(model)
    eager = model_layer_activation_bytes(cfg, micro_batch, seq_len, flash=False)
    flash = model_layer_activation_bytes(cfg, micro_batch, seq_len, flash=True)
    return _("{seq_len} tokens: one layer keeps {eager} eager, {flash} with FlashAttention ({ratio}×)").format(
        seq_len=f"{seq_len:>6}", eager=f"{format_bytes(eager):>8}", flash=f"{format_bytes(flash):>8}",
        ratio=f"{eager / flash:.1f}")


@v.checked
def plain_data_parallel_text(gpu="A100 80GB", margin=MEMORY_MARGIN, convention="mixed", optimizer="adamw") -> str:
    """Where plain data parallelism stops: the parameters whose training states alone fill a GPU's usable memory."""
    usable, per_param = usable_bytes(gpu, margin), state_bytes_per_param(convention, optimizer).total
    return _("{usable} usable / {per_param} bytes = {params} parameters, before any activations").format(
        usable=format_bytes(usable), per_param=f"{per_param:g}", params=format_count(usable / per_param))


def _size(n_params) -> str:
    """A model's size as it is named: 70B, 175B (not 70.0B)."""
    return re.sub(r"\.0+(?=\D)", "", format_count(n_params))


def _sci(value: float) -> str:
    """A large count as a formula writes it: 175e9, 3e12."""
    exponent = 3 * math.floor(math.log10(value) / 3) if value >= 1 else 0
    return f"{value / 10 ** exponent:g}e{exponent}" if exponent else f"{value:g}"


@v.checked
def cost_steps_text(n_params, tokens, gpu="A100 80GB", mfu=0.4, price_per_gpu_hour=2.0) -> str:
    """A pre-training cost worked step by step: FLOPs = 6·N·D, GPU-hours at the GPU's dense BF16 peak and
    ``mfu``, and the bill at ``price_per_gpu_hour``."""
    g = hardware.gpu(gpu)
    flops = training_flops(n_params, tokens)
    hours = gpu_hours(flops, g.bf16_flops_per_s, mfu)
    return "\n".join([
        _("1. FLOPs = 6 × {n_params} × {tokens} = {flops}").format(n_params=_sci(n_params), tokens=_sci(tokens),
                                                                  flops=format_flops(flops)),
        _("2. {gpu}-hours at {peak} TFLOPS and {mfu} MFU = {hours}").format(
            gpu=g.name, peak=f"{g.bf16_flops_per_s / 1e12:.0f}", mfu=format_percent(mfu, 0), hours=format_int(hours)),
        _("3. at ${price} an hour: {cost}").format(price=f"{price_per_gpu_hour:g}",
                                                   cost=format_usd(cost(hours, price_per_gpu_hour)))])


def _chip(gpu) -> str:
    """A GPU as a count names it, without its memory: A100 for the A100 80GB."""
    return re.sub(r" \d+GB$", "", hardware.gpu(gpu).name)


@v.checked(**v.WHOLE)
def training_steps_text(n_params, tokens, gpu="A100 80GB", mfu=0.4, gpus=256, convention="mixed",
                        optimizer="adamw") -> str:
    """Pre-training worked step by step: FLOPs = 6·N·D, GPU-seconds and GPU-hours at the GPU's dense BF16 peak and
    ``mfu``, the days on one GPU and on ``gpus``, and the training states per parameter and in all."""
    peak = hardware.gpu(gpu).bf16_flops_per_s
    flops = training_flops(n_params, tokens)
    one_gpu_days = training_days(flops, 1, peak, mfu)
    states = state_bytes_per_param(convention, optimizer)
    parts = (states.weights, states.master, states.grads, states.optimizer)
    return "\n".join([
        _("1. FLOPs = 6 × {n_params} × {tokens} = {flops}").format(n_params=_sci(n_params), tokens=_sci(tokens),
                                                                  flops=format_flops(flops)),
        _("2. GPU-seconds = FLOPs / ({peak} TFLOPS × {mfu}) = {seconds}").format(
            peak=f"{peak / 1e12:.0f}", mfu=format_percent(mfu, 0), seconds=format_int(gpu_seconds(flops, peak, mfu))),
        _("3. GPU-hours = GPU-seconds / 3,600 = {hours}").format(hours=format_int(gpu_hours(flops, peak, mfu))),
        _("4. One {gpu}: {days} days = {years} years").format(gpu=_chip(gpu), days=format_int(one_gpu_days),
                                                             years=f"{one_gpu_days / DAYS_PER_YEAR:.1f}"),
        _("5. {n} {gpu}s: {days} days").format(n=gpus, gpu=_chip(gpu),
                                               days=f"{training_days(flops, gpus, peak, mfu):.1f}"),
        _("6. States: {parts} = {total} bytes a parameter -> {states}").format(
            parts=" + ".join(f"{b:g}" for b in parts), total=f"{states.total:g}",
            states=format_bytes(training_state_bytes(n_params, states.total)))])


@v.checked(**v.WHOLE)
def lora_adapters_text(model, rank=64, targets=LORA_TARGETS) -> str:
    """The LoRA adapters of rank ``rank`` on the ``targets`` projections of every layer, in parameters."""
    if not isinstance(targets, (list, tuple)) or not targets or not all(isinstance(t, str) for t in targets):
        raise v.InputError("targets", f"targets == {v.quote(targets)}, must be a list of projection names.")
    return _("adapters: rank {rank} on {n} projections = {params} parameters").format(
        rank=rank, n=len(targets), params=format_count(lora_params(model, rank, list(targets))))


@v.checked
def chinchilla_text(n_params, tokens, name="the model") -> str:
    """The tokens Chinchilla's rule (20 a parameter) gives a model of ``n_params``, against the ``tokens`` it saw."""
    return _("Chinchilla's rule would give a {size} {rule} tokens; {name} saw {per} per parameter.").format(
        size=_size(n_params), rule=format_count(chinchilla_tokens(n_params)), name=name,
        per=f"{tokens / n_params:.1f}")


@v.checked(**v.WHOLE)
def training_estimate_text(model, tokens, gpus, gpu="A100 80GB", mfu=0.5, zero=3, micro_batch=1, seq_len=4096,
                           recompute="full", peak_flops_per_s=None) -> str:
    """The material's ``estimate_training`` as a reader sees it: what it assumed, the model's matmul parameters,
    the days with and without the time margin, the memory per GPU against the usable memory, and the tokens a
    second each GPU must be fed."""
    cfg = config_from(model)
    assumed = dict(zero=zero, micro_batch=micro_batch, seq_len=seq_len, recompute=recompute)
    plan = estimate_training(cfg, tokens, gpus, gpu, mfu=mfu, peak_flops_per_s=peak_flops_per_s, **assumed)
    n = flops_params(cfg)
    low, high = plan.days_with_margin
    return "\n".join([
        _("assumed: {settings} (FlashAttention on)").format(settings=", ".join(f"{k}={v}" for k, v in assumed.items())),
        _("{model} has {n} parameters in its matmuls (the article rounds to {rounded})").format(
            model=cfg.name or _("the model"), n=format_count(n), rounded=format_count(n, 1)),
        _("{days} days by the formula, {low}-{high} with the margin; {memory} per GPU of {usable} usable: fits "
          "{fits}").format(days=f"{plan.days:.1f}", low=f"{low:.1f}", high=f"{high:.1f}",
                           memory=format_bytes(plan.memory.total), usable=format_bytes(plan.usable_bytes),
                           fits=_(FITS[plan.fits])),
        _("every GPU must be fed {rate} tokens a second").format(
            rate=f"{tokens_per_second_per_gpu(tokens, plan.days, gpus):,.0f}")])


def _hours(hours: float) -> str:
    """A length of time for a sentence: minutes below an hour, days for whole days, hours otherwise."""
    if hours < 1:
        return _("{n} minutes").format(n=f"{hours * 60:g}")
    if hours % 24 == 0:
        return _("{n} days").format(n=f"{hours / 24:g}")
    return _("{n} hours").format(n=f"{hours:g}")


@v.checked
def checkpoint_text(n_params, run_hours, interval_hours, keep=5) -> str:
    """A resumable checkpoint (weights, FP32 master copy and moments) and the disk for a run's checkpoints saved
    every ``interval_hours``: all of them, or the last ``keep``."""
    return _("a {size} resumable checkpoint: {checkpoint}; every {interval} for {run}, keeping all: {all}, keeping "
             "the last {keep}: {kept}").format(
        size=_size(n_params), checkpoint=format_bytes(checkpoint_bytes(n_params,
                                                                              RESUME_CHECKPOINT_BYTES_PER_PARAM)),
        interval=_hours(interval_hours), run=_hours(run_hours),
        all=format_bytes(checkpoint_storage_bytes(n_params, run_hours, interval_hours)), keep=keep,
        kept=format_bytes(checkpoint_storage_bytes(n_params, run_hours, interval_hours, keep=keep)))
