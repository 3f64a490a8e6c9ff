"""Chapter 5's findings: the interview questions' worked answers (what serving a model takes, the sheet's memory
reductions one after another, a layer's activations against the sequence, where plain data parallelism stops, a
cost and a training run worked step by step, the material's training estimate, a run's checkpoints) and the memory
by micro-batch (``llmest.display.findings.drills`` writes them). The layouts are in ``layouts``."""

from __future__ import annotations

from ...catalog import hardware
from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import drills as shown
from ...formulas.compute import (DAYS_PER_YEAR, RESUME_CHECKPOINT_BYTES_PER_PARAM, checkpoint_bytes,
                                 checkpoint_storage_bytes, cost, flops_params, gpu_hours, gpu_seconds,
                                 tokens_per_second_per_gpu, training_days, training_flops)
from ...formulas.data import chinchilla_tokens
from ...formulas.memory import (LORA_TARGETS, MEMORY_MARGIN, WEIGHT_FORMATS, lora_params, model_layer_activation_bytes,
                                state_bytes_per_param, training_state_bytes)
from ...formulas.model import config_from
from ..memory_plan import MemoryBreakdown, inference_memory, min_gpus, training_memory, usable_bytes
from ..time_plan import estimate_training


def _model(cfg):
    """A model's name for the figures (None: the display says "the model")."""
    return cfg.name or None


def _list(name, value, check) -> list:
    """One value or a list of them, each checked: a list."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be one value or a non-empty list of them.")
    return [check(name, x) for x in values]


def _formats(name, weights) -> list:
    return _list(name, weights, v.one_of(WEIGHT_FORMATS))


@v.checked(weights=_formats, **v.WHOLE)
def serving_memory(model, gpu="A100 80GB", *, weights="bf16", seq_len=2048, batch=1) -> Finding:
    """Serving ``batch`` sequences of ``seq_len`` tokens with the weights in each format of ``weights`` (one or a
    list): the weights and KV cache in all, and the least GPUs that hold them with tensor parallelism (``min_gpus``
    over ``inference_memory``; None when no split does), with the memory on each."""
    cfg = config_from(model)
    rows = []
    for fmt in _formats("weights", weights):  # the default too
        gpus = min_gpus(lambda n: inference_memory(cfg, weights=fmt, seq_len=seq_len, batch=batch, tp=n), gpu)
        plan = inference_memory(cfg, weights=fmt, seq_len=seq_len, batch=batch, tp=gpus or 1)
        rows.append(dict(weights=fmt, weight_bytes=plan["weights"] * plan.gpus, kv_bytes=plan["kv_cache"] * plan.gpus,
                         gpus=gpus, per_gpu_bytes=plan.total))
    return Finding(dict(model=_model(cfg), gpu=hardware.gpu(gpu).name, seq_len=seq_len, batch=batch, formats=rows),
                   shown.serving_memory)


def _steps(name, steps):
    if not isinstance(steps, dict) or not steps or not all(isinstance(label, str) and isinstance(plan, MemoryBreakdown)
                                                            for label, plan in steps.items()):
        raise v.InputError(name, f"{name} == {v.quote(steps)}, must be a dict of name: MemoryBreakdown (what "
                                 "plans.memory_reductions returns).")
    return steps


@v.checked(steps=_steps)
def reductions(steps, gpu="A100 80GB", margin=MEMORY_MARGIN) -> Finding:
    """Per named plan of ``steps`` (name -> MemoryBreakdown, e.g. ``plans.memory_reductions``): its memory per GPU
    and whether it fits a GPU with ``margin`` kept free."""
    usable = usable_bytes(gpu, margin)
    return Finding(dict(gpu=hardware.gpu(gpu).name, margin=margin, usable_bytes=usable,
                        steps=[dict(name=label, memory_bytes=plan.total, fits=plan.total <= usable)
                               for label, plan in steps.items()]), shown.reductions)


@v.checked(seq_len=lambda name, value: _list(name, value, v.check_whole), micro_batch=v.check_whole)
def layer_activations(model, seq_len, micro_batch=1) -> Finding:
    """The activations one layer keeps for backward at each sequence length of ``seq_len`` (one or a list), eager
    against FlashAttention."""
    cfg = config_from(model)
    rows = []
    for n in seq_len:
        eager = model_layer_activation_bytes(cfg, micro_batch, n, flash=False)
        flash = model_layer_activation_bytes(cfg, micro_batch, n, flash=True)
        rows.append(dict(seq_len=n, eager_bytes=eager, flash_bytes=flash, ratio=eager / flash))
    return Finding(dict(model=_model(cfg), micro_batch=micro_batch, lengths=rows), shown.layer_activations)


@v.checked
def plain_data_parallel(gpu="A100 80GB", margin=MEMORY_MARGIN, convention="mixed", optimizer="adamw") -> Finding:
    """Where plain data parallelism stops: the parameters whose training states alone fill a GPU's usable memory."""
    usable, per_param = usable_bytes(gpu, margin), state_bytes_per_param(convention, optimizer).total
    return Finding(dict(gpu=hardware.gpu(gpu).name, margin=margin, convention=convention, optimizer=optimizer,
                        usable_bytes=usable, bytes_per_param=per_param, params=usable / per_param),
                   shown.plain_data_parallel)


@v.checked
def cost_steps(n_params, tokens, gpu="A100 80GB", mfu=0.4, price_per_gpu_hour=2.0) -> Finding:
    """A pre-training cost worked step by step: FLOPs = 6·N·D, GPU-hours at the GPU's dense BF16 peak and
    ``mfu``, and the bill at ``price_per_gpu_hour``."""
    g = hardware.gpu(gpu)
    flops = training_flops(n_params, tokens)
    hours = gpu_hours(flops, g.bf16_flops_per_s, mfu)
    return Finding(dict(n_params=n_params, tokens=tokens, gpu=g.name, peak_flops_per_s=g.bf16_flops_per_s, mfu=mfu,
                        price_per_gpu_hour=price_per_gpu_hour, flops=flops, gpu_hours=hours,
                        cost=cost(hours, price_per_gpu_hour)), shown.cost_steps)


@v.checked(**v.WHOLE)
def training_steps(n_params, tokens, gpu="A100 80GB", mfu=0.4, gpus=256, convention="mixed",
                   optimizer="adamw") -> Finding:
    """Pre-training worked step by step: FLOPs = 6·N·D, GPU-seconds and GPU-hours at the GPU's dense BF16 peak and
    ``mfu``, the days on one GPU and on ``gpus``, and the training states per parameter and in all."""
    g = hardware.gpu(gpu)
    peak = g.bf16_flops_per_s
    flops = training_flops(n_params, tokens)
    one_gpu_days = training_days(flops, 1, peak, mfu)
    states = state_bytes_per_param(convention, optimizer)
    return Finding(dict(
        n_params=n_params, tokens=tokens, gpu=g.name, peak_flops_per_s=peak, mfu=mfu, gpus=gpus,
        convention=convention, optimizer=optimizer, flops=flops, gpu_seconds=gpu_seconds(flops, peak, mfu),
        gpu_hours=gpu_hours(flops, peak, mfu), one_gpu_days=one_gpu_days, one_gpu_years=one_gpu_days / DAYS_PER_YEAR,
        days=training_days(flops, gpus, peak, mfu),
        state_bytes=[states.weights, states.master, states.grads, states.optimizer], bytes_per_param=states.total,
        states_bytes=training_state_bytes(n_params, states.total)), shown.training_steps)


def _targets(name, targets):
    if not isinstance(targets, (list, tuple)) or not targets or not all(isinstance(t, str) for t in targets):
        raise v.InputError(name, f"{name} == {v.quote(targets)}, must be a list of projection names.")
    return list(targets)


@v.checked(targets=_targets, **v.WHOLE)
def lora_adapters(model, rank=64, targets=LORA_TARGETS) -> Finding:
    """The LoRA adapters of rank ``rank`` on the ``targets`` projections of every layer, in parameters."""
    return Finding(dict(model=_model(config_from(model)), rank=rank, targets=list(targets),
                        params=lora_params(model, rank, list(targets))), shown.lora_adapters)


@v.checked
def chinchilla(n_params, tokens, name=None) -> Finding:
    """The tokens Chinchilla's rule (20 a parameter) gives a model of ``n_params``, against the ``tokens`` it saw;
    ``name``: the model's (None: "the model")."""
    if name is not None and not isinstance(name, str):
        raise v.InputError("name", f"name == {v.quote(name)}, must be the model's name as text.")
    return Finding(dict(n_params=n_params, tokens=tokens, name=name, rule_tokens=chinchilla_tokens(n_params),
                        tokens_per_param=tokens / n_params), shown.chinchilla)


@v.checked(**v.WHOLE)
def training_estimate(model, tokens, gpus, gpu="A100 80GB", mfu=0.5, zero=3, micro_batch=1, seq_len=4096,
                      recompute="full", peak_flops_per_s=None) -> Finding:
    """The material's ``estimate_training`` worked out: what it assumed, the model's matmul parameters, the days
    with and without the time margin, the memory per GPU against the usable memory, and the tokens a second each GPU
    must be fed."""
    cfg = config_from(model)
    assumed = dict(zero=zero, micro_batch=micro_batch, seq_len=seq_len, recompute=recompute)
    plan = estimate_training(cfg, tokens, gpus, gpu, mfu=mfu, peak_flops_per_s=peak_flops_per_s, **assumed)
    low, high = plan.days_with_margin
    return Finding(dict(model=_model(cfg), tokens=tokens, gpus=gpus, gpu=hardware.gpu(gpu).name, mfu=mfu,
                        peak_flops_per_s=peak_flops_per_s, assumed=assumed, flops_params=flops_params(cfg),
                        days=plan.days, days_low=low, days_high=high, memory_bytes=plan.memory.total,
                        usable_bytes=plan.usable_bytes, fits=plan.fits,
                        tokens_per_s_per_gpu=tokens_per_second_per_gpu(tokens, plan.days, gpus)),
                   shown.training_estimate)


@v.checked
def checkpoints(n_params, run_hours, interval_hours, keep=5) -> Finding:
    """A resumable checkpoint (weights, FP32 master copy and moments) and the disk for a run's checkpoints saved
    every ``interval_hours``: all of them, or the last ``keep``."""
    return Finding(dict(n_params=n_params, run_hours=run_hours, interval_hours=interval_hours, keep=keep,
                        bytes_per_param=RESUME_CHECKPOINT_BYTES_PER_PARAM,
                        checkpoint_bytes=checkpoint_bytes(n_params, RESUME_CHECKPOINT_BYTES_PER_PARAM),
                        all_bytes=checkpoint_storage_bytes(n_params, run_hours, interval_hours),
                        kept_bytes=checkpoint_storage_bytes(n_params, run_hours, interval_hours, keep=keep)),
                   shown.checkpoints)


def _sizes(name, sizes) -> list:
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise v.InputError(name, f"{name} == {v.quote(sizes)}, must be a list of micro-batch sizes.")
    return [v.check_whole(name, b) for b in sizes]


@v.checked(sizes=_sizes, **v.WHOLE)
def micro_batch_memory(model, *, zero=3, dp=8, seq_len=4096, sizes=(1, 2, 4, 8)) -> Finding:
    """Memory per GPU by micro-batch of ``sizes`` (``training_memory`` with ZeRO ``zero`` over ``dp`` GPUs): eager
    attention, FlashAttention, and FlashAttention with full recomputation; and what does not grow with the
    micro-batch (the states, ZeRO's buffers and the runtime)."""
    cfg = config_from(model)
    sizes = _sizes("sizes", sizes)  # the default too

    def per_gpu(micro_batch, flash, recompute="none"):
        return training_memory(cfg, zero=zero, dp=dp, micro_batch=micro_batch, seq_len=seq_len, flash=flash,
                               recompute=recompute).total

    static = sum(b for part, b in training_memory(cfg, zero=zero, dp=dp, micro_batch=1, seq_len=seq_len,
                                                  flash=True).parts.items() if part != "activations")
    rows = [dict(micro_batch=b, eager_bytes=per_gpu(b, False), flash_bytes=per_gpu(b, True),
                 recompute_bytes=per_gpu(b, True, "full")) for b in sizes]
    return Finding(dict(model=_model(cfg), zero=zero, dp=dp, seq_len=seq_len, static_bytes=static, sizes=rows),
                   shown.micro_batch_memory)
