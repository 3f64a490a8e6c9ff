"""Chapter 2's findings: memory in training and serving (``llmest.display.findings.memory`` writes them): bytes per
parameter, the training states, activations, the least GPUs of a training run, ZeRO and pipelines, then weights, the
KV cache, adapters, serving and the GPUs' memory."""

from __future__ import annotations

from ...catalog import hardware
from ...core import _validate as v
from ...core._validate import InputError
from ...core.report import Finding
from ...display.findings import memory as shown
from ...formulas import memory as mem
from ...formulas.hybrid_cache import hybrid_cache_bytes_for, state_bytes_per_sequence
from ...formulas.model import config_from, count_params
from ...formulas.zero import ZERO_DEFAULTS, zero_buffer_bytes
from ..memory_plan import (GPU_SEARCH_LIMIT, inference_memory, largest_module_params, min_gpus, qlora_memory,
                           training_memory, usable_bytes, zero_gpus)
from ..memory_task_plan import plan_memory
from ..memory_plan import state_gpus as gpus_for_states
from ..comparison_plan import training_variants
from . import configs, gpu_names


# ----------------------------------------------------------------------------------------------------------------
# Bytes per parameter
# ----------------------------------------------------------------------------------------------------------------

def conventions(optimizer: str = "adamw") -> Finding:
    """Bytes per parameter of each training state under each convention, for one optimizer, and who uses it."""
    rows = []
    for name, convention in mem.CONVENTIONS.items():
        s = mem.state_bytes_per_param(name, optimizer)
        rows.append(dict(convention=name, weights=s.weights, master=s.master, grads=s.grads, optimizer=s.optimizer,
                         total=s.total, used_by=convention.used_by))
    return Finding(dict(optimizer=optimizer, rows=rows), shown.conventions)


def _choices(name, values, catalogue) -> list:
    """A list of names from ``catalogue`` (all of them for None), each checked under the caller's parameter."""
    if values is None:
        return list(catalogue)

    def check(_name, value):
        v.lookup(name, value, catalogue)
        return value

    return v.each(check)(name, values)


def state_bytes_by_optimizer(optimizers=None, conventions=None) -> Finding:
    """Bytes per parameter of all training states: one row per convention, one column per optimizer."""
    optimizers = _choices("optimizers", optimizers, mem.OPTIMIZERS)
    conventions = _choices("conventions", conventions, mem.CONVENTIONS)
    rows = [dict(convention=c, totals=[mem.state_bytes_per_param(c, o).total for o in optimizers])
            for c in conventions]
    return Finding(dict(optimizers=optimizers, conventions=conventions, rows=rows), shown.state_bytes_by_optimizer)


def weight_formats(model="llama-2-70b") -> Finding:
    """Bytes per parameter of each weight format, constants included, and a model's weights in each."""
    cfg = config_from(model)
    rows = [dict(format=name, bytes_per_param=fmt.bytes_per_param, bytes=mem.model_weight_bytes(cfg, name),
                 note=fmt.note) for name, fmt in mem.WEIGHT_FORMATS.items()]
    return Finding(dict(model=cfg.name, rows=rows), shown.weight_formats)


# ----------------------------------------------------------------------------------------------------------------
# The training states
# ----------------------------------------------------------------------------------------------------------------

@v.checked(n_params=v.each(v.check_positive))
def states(n_params) -> Finding:
    """The training states of each of ``n_params`` (mixed-precision AdamW, 16 bytes a parameter) and their weights
    in BF16."""
    return Finding(dict(rows=[dict(n_params=n, states=mem.training_state_bytes(n), weights=mem.weight_bytes(n, 2))
                              for n in n_params]), shown.states)


@v.checked
def state_gpus(n_params, bytes_per_param=16, gpu="A100 80GB", margin=mem.MEMORY_MARGIN) -> Finding:
    """The GPUs that hold the training states alone, sharded evenly, with nothing kept free and with ``margin``."""
    return Finding(dict(n_params=n_params, bytes_per_param=bytes_per_param, gpu=hardware.gpu(gpu).name, margin=margin,
                        bare=gpus_for_states(n_params, bytes_per_param, gpu),
                        kept=gpus_for_states(n_params, bytes_per_param, gpu, margin)), shown.state_gpus)


# ----------------------------------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------------------------------

# The settings whose activations per layer the chapter writes as a multiple of s·b·h, as layer_activation_bytes
# takes them (t: the tensor-parallel GPUs); display.findings.memory names them.
FACTOR_SETTINGS = {"tensor parallel": dict(tp="t"), "TP + sequence parallel": dict(tp="t", sequence_parallel=True),
                   "FlashAttention or selective": dict(flash=True), "full recomputation": dict(recompute="full")}


def activation_factors() -> Finding:
    """Korthikanti et al.'s activations of a GPT-style layer under each of FACTOR_SETTINGS, worked out in SymPy, as
    bytes per s·b·h (s tokens, b sequences, h hidden, a heads, t tensor-parallel GPUs): the factors as text."""
    import sympy  # only here: the factors are formulas

    s, b, h, a, t = sympy.symbols("s b h a t", positive=True)
    rows = []
    for setting, kw in FACTOR_SETTINGS.items():
        kw = {name: t if value == "t" else value for name, value in kw.items()}
        rows.append(dict(setting=setting,
                         factor=str(sympy.simplify(mem.layer_activation_bytes(s, b, h, a, **kw) / (s * b * h)))))
    return Finding(dict(rows=rows), shown.activation_factors)


# The activation settings compared, as training_memory takes them: eager attention, fused, fused and recomputed.
ACTIVATION_SETTINGS = {"no recomputation": dict(recompute="none", flash=False),
                       "FlashAttention": dict(recompute="none", flash=True),
                       "FlashAttention + full recomputation": dict(recompute="full", flash=True)}


@v.checked
def activations(model, micro_batch=8, seq_len=4096) -> Finding:
    """Activation memory per GPU of one micro-batch under each of ACTIVATION_SETTINGS, the output layer's logits
    apart, and the activations with none over those with full recomputation."""
    cfg = config_from(model)
    rows = [dict(setting=setting, **kw, bytes=mem.activations_per_gpu(cfg, micro_batch, seq_len, **kw))
            for setting, kw in ACTIVATION_SETTINGS.items()]
    return Finding(dict(model=cfg.name, micro_batch=micro_batch, seq_len=seq_len, rows=rows,
                        logits=mem.output_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.vocab_size),
                        ratio=rows[0]["bytes"] / rows[-1]["bytes"]), shown.activations)


def selective_recompute() -> Finding:
    """Korthikanti et al.'s published savings of selective recomputation: the activation memory saved and the FLOPs
    added, by model."""
    return Finding(dict(rows=[dict(model=model, saved=saved, extra=extra)
                              for model, (saved, extra) in mem.SELECTIVE_RECOMPUTE_PUBLISHED.items()]),
                   shown.selective_recompute)


# ----------------------------------------------------------------------------------------------------------------
# The least GPUs of a training run
# ----------------------------------------------------------------------------------------------------------------

def _training_plans(model, variants, gpu, margin, settings) -> dict:
    """``plans.plan_memory("training", model, **settings, **variant)`` for each variant, as figures: the activations
    of its micro-batch, what they assume, and the least GPUs, or why none holds it."""
    cfg = config_from(model)
    usable_bytes(gpu, margin)  # checks the GPU and the margin before the variants
    rows = []
    for i, variant in enumerate(training_variants(variants, settings, "[dict(micro_batch=1), dict(micro_batch=4)]")):
        with v.item_of("variants", i):
            plan = plan_memory("training", cfg, gpu=gpu, margin=margin, **settings, **variant)
        s = plan.settings
        reason = None if plan.least_gpus is not None else "no_zero" if not s["zero"] else "limit"
        rows.append(dict(variant=variant, micro_batch=s["micro_batch"], seq_len=s["seq_len"], zero=s["zero"],
                         recompute=s["recompute"], flash=s["flash"], activations=plan.breakdown["activations"],
                         least_gpus=plan.least_gpus, no_fit=reason))
    name = hardware.gpu(gpu).name
    return dict(model=cfg.name, params=count_params(cfg).total, gpu=name, gpu_family=name.split()[0], margin=margin,
                settings=dict(settings), search_limit=GPU_SEARCH_LIMIT, rows=rows)


@v.checked(**v.WHOLE)
def least_gpus(model, variants, *, gpu="A100 80GB", margin=mem.MEMORY_MARGIN, **settings) -> Finding:
    """The least GPUs of a training run (``plans.plan_memory``) for each variant of its settings (a dict of the
    settings it changes: ``[dict(micro_batch=b) for b in (1, 2, 4)]``), with the activations of its micro-batch."""
    return Finding(_training_plans(model, variants, gpu, margin, settings), shown.least_gpus)


@v.checked(**v.WHOLE)
def planner(model, variants, *, gpu="A100 80GB", margin=mem.MEMORY_MARGIN, **settings) -> Finding:
    """What the planner (``plans.plan_memory``) finds for each variant of a training run's settings: its
    activations per GPU and least GPUs, with what they assume (recomputation, attention)."""
    return Finding(_training_plans(model, variants, gpu, margin, settings), shown.planner)


@v.checked
def shared_activations(n_params=7e9, activations_shared_bytes=50e9, gpu="A100 80GB", zero=2) -> Finding:
    """The material's corrected count: the least GPUs for ``n_params``' states at a ZeRO stage with a fixed batch's
    activations shared out over them (``plans.zero_gpus``)."""
    name = hardware.gpu(gpu).name
    return Finding(dict(n_params=n_params, activations_shared_bytes=activations_shared_bytes, gpu=name,
                        gpu_family=name.split()[0], zero=zero, search_limit=GPU_SEARCH_LIMIT,
                        gpus=zero_gpus(n_params, gpu, zero=zero, activations_shared_bytes=activations_shared_bytes)),
                   shown.shared_activations)


# ----------------------------------------------------------------------------------------------------------------
# ZeRO and pipelines
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def data_parallel_traffic(n_params, bytes_per_value=2) -> Finding:
    """Bytes each GPU sends per step at each ZeRO stage, and ZeRO-3's against plain data parallelism."""
    traffic = [mem.data_parallel_traffic_bytes(n_params, bytes_per_value, zero) for zero in range(4)]
    return Finding(dict(n_params=n_params, bytes_per_value=bytes_per_value, traffic=traffic,
                        ratio=traffic[3] / traffic[0] if traffic[0] else None), shown.data_parallel_traffic)


def zero_defaults() -> Finding:
    """DeepSpeed's ZeRO buffer settings by default, in elements."""
    return Finding(dict(defaults=dict(ZERO_DEFAULTS)), shown.zero_defaults)


@v.checked
def largest_module(model) -> Finding:
    """A model's largest module, which ZeRO-3 gathers whole, against the cookbook's gathered parameters
    (stage3_max_live_parameters in BF16)."""
    cfg = config_from(model)
    live = ZERO_DEFAULTS["max_live_parameters"]
    return Finding(dict(model=cfg.name, params=largest_module_params(cfg), max_live_parameters=live,
                        cookbook_bytes=zero_buffer_bytes(3, 0, live)), shown.largest_module)


@v.checked
def zero1_bucket(model="gpt2", dp=2) -> Finding:
    """What ZeRO-1 saves in states against the reduce bucket it allocates, for a small model on ``dp`` GPUs."""
    small = {zero: training_memory(model, zero=zero, dp=dp) for zero in (0, 1)}
    return Finding(dict(model=config_from(model).name, dp=dp,
                        saved=sum(small[0][p] - small[1][p] for p in ("master", "optimizer")),
                        bucket=small[1]["buffers"], total=small[1].total, plain=small[0].total), shown.zero1_bucket)


@v.checked(micro_batches=v.each(v.check_whole))
def bubbles(stages, micro_batches) -> Finding:
    """The share of a pipeline's time its GPUs idle, ``stages`` deep, with each of ``micro_batches``."""
    return Finding(dict(stages=stages, rows=[dict(micro_batches=m, idle=mem.pipeline_bubble(stages, m))
                                             for m in micro_batches]), shown.bubbles)


# ----------------------------------------------------------------------------------------------------------------
# The KV cache
# ----------------------------------------------------------------------------------------------------------------

@v.checked(**v.WHOLE)
def kv_per_token(models, seq_len=2048, batch=32) -> Finding:
    """Each model's attention and KV heads, its KV cache per token and for ``batch`` sequences of ``seq_len``."""
    rows = [dict(model=cfg.name, attention=cfg.attention_kind, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim,
                 per_token=mem.kv_cache_bytes_for(cfg, 1), total=mem.kv_cache_bytes_for(cfg, seq_len, batch))
            for cfg in configs("models", models)]
    return Finding(dict(seq_len=seq_len, batch=batch, rows=rows), shown.kv_per_token)


def kv_cache(models=("llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"), seq_len=131072) -> Finding:
    """The KV cache of one sequence by model, in BF16: its attention, its windowed layers, the first token's and
    ``seq_len`` tokens'."""
    cfgs = configs("models", models)
    v.check_int("seq_len", seq_len)
    rows = [dict(model=cfg.name, attention=cfg.attention_kind, local_layers=cfg.local_layers, layers=cfg.num_layers,
                 first_token=mem.kv_cache_bytes_for(cfg, 1), tokens=mem.kv_cache_bytes_for(cfg, seq_len))
            for cfg in cfgs]
    return Finding(dict(seq_len=seq_len, rows=rows), shown.kv_cache)


def hybrid_cache(models=("llama-3.1-70b", "deepseek-v3", "qwen3-next-80b-a3b"), seq_lens=(131072, 1048576)) -> Finding:
    """The cache of one sequence by model, in BF16 (a hybrid's recurrent state in FP32, as transformers keeps it):
    the layers with attention, what each token adds, the constant state of the other layers, and the whole cache at
    each length (``hybrid_cache.hybrid_cache_bytes_for``)."""
    cfgs = configs("models", models)
    lengths = v.each(v.check_whole)("seq_lens", seq_lens)
    rows = [dict(model=cfg.name, attention_layers=cfg.attention_layers, layers=cfg.num_layers,
                 per_token=mem.kv_cache_bytes_for(cfg, 1), state=state_bytes_per_sequence(cfg),
                 caches=[hybrid_cache_bytes_for(cfg, n) for n in lengths]) for cfg in cfgs]
    return Finding(dict(seq_lens=lengths, rows=rows), shown.hybrid_cache)


@v.checked
def mla_cache(model="deepseek-v3") -> Finding:
    """The bytes a token of an MLA model would cache with a key and a value per head (BF16), against its latent."""
    cfg = config_from(model)
    if not cfg.v_head_dim:
        raise InputError("model", f"model == {v.quote(model)} has no MLA latent: its KV cache is per head already.")
    per_head = cfg.num_layers * cfg.num_heads * (cfg.head_dim + cfg.v_head_dim) * 2
    latent = mem.kv_cache_bytes_for(cfg, 1)
    return Finding(dict(model=cfg.name, per_head=per_head, latent=latent, ratio=per_head / latent), shown.mla_cache)


# ----------------------------------------------------------------------------------------------------------------
# Adapters, serving and the GPUs' memory
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def lora_shapes(model="llama-2-70b", rank=16, target_sets=(("q_proj", "v_proj"),
                                                           ("q_proj", "k_proj", "v_proj", "o_proj"))) -> Finding:
    """A LoRA adapter's parameters on each target matrix of one layer, then the whole model's for each set of
    targets."""
    cfg = config_from(model)
    if not isinstance(target_sets, (list, tuple)) or not target_sets or not all(
            isinstance(t, (list, tuple)) for t in target_sets):
        raise InputError("target_sets", f"target_sets == {v.quote(target_sets)}, must be a list of lists of matrix "
                                        "names (q_proj, v_proj, ...).")
    sets = []
    for i, targets in enumerate(target_sets):
        try:
            sets.append(dict(targets=list(targets), params=mem.lora_params(cfg, rank, targets)))
        except InputError as err:
            raise InputError("target_sets", f"target_sets[{i}]: {err}") from None
    shapes = [dict(target=target, fan_in=fan_in, fan_out=fan_out, params=mem.lora_matrix_params(rank, fan_in, fan_out))
              for target, (fan_in, fan_out) in mem.target_shapes(cfg).items()]
    return Finding(dict(model=cfg.name, rank=rank, shapes=shapes, sets=sets), shown.lora_shapes)


@v.checked(formats=v.each(v.one_of(mem.WEIGHT_FORMATS)), devices=gpu_names, **v.WHOLE)
def serving_gpus(model="llama-2-70b", formats=("bf16", "int8", "int4"), devices=("H200", "B200", "MI300X"),
                 seq_len=4096, batch=16) -> Finding:
    """The fewest GPUs that serve ``model``, its weights and the KV cache of ``batch`` sequences of ``seq_len``
    tokens split by tensor parallelism (``plans.min_gpus``), for each weight format on each GPU (the plans check
    each setting)."""
    rows = [dict(weights=fmt, gpu=gpu, gpus=min_gpus(lambda tp, fmt=fmt: inference_memory(
        model, weights=fmt, seq_len=seq_len, batch=batch, tp=tp), gpu)) for fmt in formats for gpu in devices]
    return Finding(dict(model=config_from(model).name, seq_len=seq_len, batch=batch, rows=rows), shown.serving_gpus)


def runtime_overhead() -> Finding:
    """The runtime's memory per GPU before any tensor, and the share kept free on top."""
    low, high = mem.RUNTIME_OVERHEAD_BYTES
    return Finding(dict(low=low, high=high, margin=mem.MEMORY_MARGIN), shown.runtime_overhead)


@v.checked(gpus=gpu_names)
def gpu_memory(gpus, margin=mem.MEMORY_MARGIN) -> Finding:
    """Each of ``gpus``' memory on its label, what it exposes, and what is usable with ``margin`` kept free."""
    rows = []
    for name in gpus:
        g = hardware.gpu(name)
        rows.append(dict(gpu=g.name, label_bytes=g.label_bytes, memory_bytes=g.memory_bytes,
                         usable=usable_bytes(name, margin)))
    return Finding(dict(margin=margin, rows=rows), shown.gpu_memory)


def key_numbers() -> Finding:
    """The chapter's numbers to remember: training states, 70B's weights, KV per token and a 70B QLoRA."""
    return Finding(dict(states_7b=mem.training_state_bytes(7e9), states_70b=mem.training_state_bytes(70e9),
                        weights_70b_bf16=mem.weight_bytes(70e9, 2), weights_70b_int4=mem.weight_bytes(70e9, 0.5),
                        kv_7b=mem.kv_cache_bytes_for("llama-2-7b", 1), kv_70b=mem.kv_cache_bytes_for("llama-2-70b", 1),
                        qlora_70b=qlora_memory("llama-2-70b").total), shown.key_numbers)
