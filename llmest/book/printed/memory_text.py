"""What the memory chapter prints, in the language shown: the activations under each setting, the states' GPU counts,
ZeRO's traffic, buffers and offload, the KV cache by model, the runtime's overhead and the least GPUs of a plan.

Each text or table is built from the formulas of ``llmest.memory`` and ``llmest.zero`` and the plans of
``llmest.plans``; the English reads as the chapter printed it, every figure formatted by ``llmest.core.units``.
"""

from __future__ import annotations

from ...core import _validate as v
from ...catalog import hardware
from ...formulas import memory as mem
from ... import plans
from ...core._validate import InputError
from ...core.i18n import N_, _, display_width
from ...formulas.model import config_from
from ...plans.memory_plan import RECOMPUTATION, MemoryPlan
from ...display.table import Table
from ...core.units import format_bytes, format_count, format_int, format_percent
from ...formulas.zero import ZERO_DEFAULTS, zero_buffer_bytes

# The activation settings compared, as training_memory takes them: eager attention, fused, fused and recomputed.
ACTIVATION_SETTINGS = {N_("no recomputation"): dict(recompute="none", flash=False),
                       "FlashAttention": dict(recompute="none", flash=True),
                       N_("FlashAttention + full recomputation"): dict(recompute="full", flash=True)}


@v.checked
def activations_table(model, micro_batch=8, seq_len=4096) -> Table:
    """Activation memory per GPU of one micro-batch under each of ACTIVATION_SETTINGS, the output layer's logits
    apart, and how much full recomputation saves against none."""
    cfg = config_from(model)
    totals = [mem.activations_per_gpu(cfg, micro_batch, seq_len, **kw) for kw in ACTIVATION_SETTINGS.values()]
    logits = mem.output_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.vocab_size)
    rows = [(_(label), format_bytes(total)) for label, total in zip(ACTIVATION_SETTINGS, totals)]
    rows.append((_("of which the output layer (logits)"), format_bytes(logits)))
    ratio = _("no recomputation / full recomputation: {ratio}×").format(ratio=f"{totals[0] / totals[-1]:.0f}")
    return Table((_("setting"), _("activations per GPU")), rows, notes=(ratio,))


def selective_recompute_text() -> str:
    """Korthikanti et al.'s published savings of selective recomputation, one line a model."""
    return "\n".join(_("{model}: {saved} of activation memory saved for {extra} more FLOPs").format(
        model=model, saved=format_percent(saved, 0), extra=format_percent(extra, 1))
        for model, (saved, extra) in mem.SELECTIVE_RECOMPUTE_PUBLISHED.items())


@v.checked
def state_gpus_text(n_params, bytes_per_param=16, gpu="A100 80GB", margin=mem.MEMORY_MARGIN) -> str:
    """The GPUs that hold the training states alone, sharded evenly, with nothing kept free and with ``margin``."""
    return _("the states alone, nothing kept free: {bare} GPUs; with {margin} free: {kept} GPUs").format(
        bare=plans.state_gpus(n_params, bytes_per_param, gpu), margin=format_percent(margin),
        kept=plans.state_gpus(n_params, bytes_per_param, gpu, margin))


def _training_plan(plan) -> MemoryPlan:
    if not isinstance(plan, MemoryPlan) or plan.task != "training":
        raise InputError("plan", f"plan == {v.quote(plan)}, must be a training plan of plans.plan_memory.")
    return plan


def least_gpus_text(plan) -> str:
    """The least GPUs of a training plan (``plans.plan_memory``) with the activations of its micro-batch."""
    s = _training_plan(plan).settings
    shape = dict(micro_batch=s["micro_batch"], seq_len=f"{s['seq_len']:,}")
    if plan.least_gpus is None:
        return _("with the activations of micro-batch {micro_batch} × {seq_len} tokens: {reason}").format(
            **shape, reason=plan.no_fit_reason)
    return _("with the activations of micro-batch {micro_batch} × {seq_len} tokens: {gpus} GPUs").format(
        **shape, gpus=plan.least_gpus)


def _gpu_family(gpu: str) -> str:
    """A GPU's name without its memory, as counts name it ("2 A100s")."""
    return hardware.gpu(gpu).name.split()[0]


def planner_text(plan) -> str:
    """A training plan's activations per GPU and least GPUs, with what they assume (recomputation, attention)."""
    s = _training_plan(plan).settings
    attention = "FlashAttention" if s["flash"] else _("eager attention")
    shape = dict(recompute=_(RECOMPUTATION[s["recompute"]]), attention=attention, model=plan.model.name,
                 params=format_count(plan.trainable_params), activations=format_bytes(plan.breakdown["activations"]),
                 micro_batch=s["micro_batch"], seq_len=f"{s['seq_len']:,}")
    if plan.least_gpus is None:
        return _("the planner, {recompute}, {attention}: {model} ({params} parameters), {activations} of activations "
                 "per GPU for {micro_batch} × {seq_len} tokens: {reason}").format(**shape, reason=plan.no_fit_reason)
    return _("the planner, {recompute}, {attention}: {model} ({params} parameters), {activations} of activations per "
             "GPU for {micro_batch} × {seq_len} tokens: {gpus} {gpu}s").format(**shape, gpus=plan.least_gpus,
                                                                               gpu=_gpu_family(plan.gpu))


@v.checked
def shared_activations_text(n_params=7e9, activations_shared_bytes=50e9, gpu="A100 80GB", zero=2) -> str:
    """The material's corrected count: the least GPUs for ``n_params``' states at a ZeRO stage with a fixed batch's
    activations shared out over them (``plans.zero_gpus``)."""
    gpus = plans.zero_gpus(n_params, gpu, zero=zero, activations_shared_bytes=activations_shared_bytes)
    mantissa, exponent = f"{n_params:.0e}".split("e")
    # 7e9 parameters and 50 GB of activations, written as the material writes them
    shape = dict(params=f"{mantissa}e{int(exponent)}", activations=f"{activations_shared_bytes / 1e9:g} GB")
    if gpus is None:
        return _("the correction: {params} parameters, {activations} of activations shared out over the GPUs: no "
                 "count up to {limit} holds them").format(**shape, limit=f"{plans.GPU_SEARCH_LIMIT:,}")
    return _("the correction: {params} parameters, {activations} of activations shared out over the GPUs: "
             "{gpus} {gpu}s").format(**shape, gpus=gpus, gpu=_gpu_family(gpu))


@v.checked
def data_parallel_traffic_text(n_params, bytes_per_value=2) -> str:
    """Bytes each GPU sends per step at each ZeRO stage, and ZeRO-3's against plain data parallelism."""
    traffic = [mem.data_parallel_traffic_bytes(n_params, bytes_per_value, zero) for zero in range(4)]
    lines = [_("ZeRO-{zero}: {bytes} per GPU per step").format(zero=zero, bytes=f"{format_bytes(b):>8}")
             for zero, b in enumerate(traffic)]
    ratio = f"{traffic[3] / traffic[0]:.2f}" if traffic[0] else "-"
    return "\n".join([*lines, _("ZeRO-3 / plain data parallel: {ratio}").format(ratio=ratio)])


def zero_defaults_text() -> str:
    """DeepSpeed's ZeRO buffer settings by default, in elements."""
    return _("DeepSpeed's defaults, in elements: {defaults}").format(
        defaults={k: f"{x:.0e}" for k, x in ZERO_DEFAULTS.items()})


def largest_module_text(model) -> str:
    """A model's largest module, which ZeRO-3 gathers whole, against the cookbook's gathered parameters."""
    cfg = config_from(model)
    cookbook = zero_buffer_bytes(3, 0, ZERO_DEFAULTS["max_live_parameters"])
    return _("{model}'s largest module: {params} parameters; the cookbook's ZeRO-3 gathered parameters, "
             "stage3_max_live_parameters in BF16: {bytes}").format(
        model=cfg.name, params=format_count(plans.largest_module_params(cfg)), bytes=format_bytes(cookbook))


def zero1_bucket_text(model="gpt2", dp=2) -> str:
    """What ZeRO-1 saves in states against the reduce bucket it allocates, for a small model on ``dp`` GPUs."""
    small = {zero: plans.training_memory(model, zero=zero, dp=dp) for zero in (0, 1)}
    saved = sum(small[0][p] - small[1][p] for p in ("master", "optimizer"))
    return _("{model} on {dp} GPUs: ZeRO-1 saves {saved} of states and allocates a {bucket} bucket: {total} per GPU "
             "against {plain} without ZeRO").format(
        model=config_from(model).name, dp=dp, saved=format_bytes(saved), bucket=format_bytes(small[1]["buffers"]),
        total=format_bytes(small[1].total), plain=format_bytes(small[0].total))


def kv_cache_table(models=("llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"), seq_len=131072) -> Table:
    """The KV cache of one sequence by model, in BF16: its attention, its windowed layers, the first token's and
    ``seq_len`` tokens'."""
    if not isinstance(models, (list, tuple)) or not models:
        raise InputError("models", f"models == {v.quote(models)}, must be a list of models (presets or configs).")
    v.check_int("seq_len", seq_len)
    rows = []
    for i, model in enumerate(models):
        try:
            cfg = config_from(model)
        except InputError as err:
            raise InputError("models", f"models[{i}]: {err}") from None
        windows = (_("{local} of {layers}").format(local=cfg.local_layers, layers=cfg.num_layers)
                   if cfg.local_layers else _("none"))
        rows.append((cfg.name, cfg.attention_kind, windows, format_bytes(mem.kv_cache_bytes_for(cfg, 1)),
                     format_bytes(mem.kv_cache_bytes_for(cfg, seq_len))))
    return Table((_("model"), _("attention"), _("windowed layers"), _("first token"),
                  _("{tokens} tokens").format(tokens=f"{seq_len:,}")), rows)


def runtime_overhead_text() -> str:
    """The runtime's memory per GPU before any tensor, and the share kept free on top."""
    low, high = mem.RUNTIME_OVERHEAD_BYTES
    return _("runtime overhead per GPU: {low} to {high}; then keep {margin} free for temporaries and "
             "fragmentation").format(low=format_bytes(low), high=format_bytes(high),
                                     margin=format_percent(mem.MEMORY_MARGIN))


@v.checked
def states_line(n_params) -> str:
    """The training states of ``n_params`` parameters (mixed-precision AdamW) and their weights in BF16."""
    return _("{params} parameters: states {states}, BF16 weights {weights}").format(
        params=f"{format_count(n_params):>4}", states=f"{format_bytes(mem.training_state_bytes(n_params)):>8}",
        weights=f"{format_bytes(mem.weight_bytes(n_params, 2)):>8}")


# The settings whose activations per layer the chapter writes as a multiple of s·b·h, as layer_activation_bytes
# takes them (t: the tensor-parallel GPUs).
FACTOR_SETTINGS = {N_("tensor parallel"): dict(tp="t"),
                   N_("TP + sequence parallel"): dict(tp="t", sequence_parallel=True),
                   N_("FlashAttention or selective"): dict(flash=True),
                   N_("full recomputation"): dict(recompute="full")}


def activation_factors_text() -> str:
    """Korthikanti et al.'s activations of a GPT-style layer under each of FACTOR_SETTINGS, in SymPy, as bytes per
    s·b·h (s tokens, b sequences, h hidden, a heads, t tensor-parallel GPUs)."""
    import sympy  # only here: the factors are formulas

    s, b, h, a, t = sympy.symbols("s b h a t", positive=True)
    lines = []
    for label, kw in FACTOR_SETTINGS.items():
        kw = {name: t if value == "t" else value for name, value in kw.items()}
        factor = sympy.simplify(mem.layer_activation_bytes(s, b, h, a, **kw) / (s * b * h))
        lines.append(f"{_pad(_(label), 28)} {factor}  × sbh")
    return "\n".join(lines)


def _pad(text: str, width: int) -> str:
    """``text`` filled with spaces to ``width`` columns, a Chinese character taking two."""
    return text + " " * max(0, width - display_width(text))


def serving_gpus_text(model="llama-2-70b", formats=("bf16", "int8", "int4"), devices=("H200", "B200", "MI300X"),
                      seq_len=4096, batch=16) -> str:
    """The fewest GPUs that serve ``model``, its weights and the KV cache of ``batch`` sequences of ``seq_len``
    tokens split by tensor parallelism (``plans.min_gpus``), for each weight format on each GPU (the plans check
    each setting)."""
    for name, names in (("formats", formats), ("devices", devices)):
        if not isinstance(names, (list, tuple)) or not names or not all(isinstance(x, str) for x in names):
            raise InputError(name, _("{name} == {value}, must be a list of names.").format(
                name=name, value=v.quote(names)))
    lines = []
    for fmt in formats:
        for gpu in devices:
            n = plans.min_gpus(lambda tp, fmt=fmt: plans.inference_memory(model, weights=fmt, seq_len=seq_len,
                                                                          batch=batch, tp=tp), gpu)
            lines.append(_("{weights} on {gpu}: {n} GPU(s)").format(weights=_pad(fmt, 5), gpu=_pad(gpu, 10), n=n))
    return "\n".join(lines)


@v.checked
def kv_per_token_line(model, seq_len=2048, batch=32) -> str:
    """A model's attention and KV heads, its KV cache per token and for ``batch`` sequences of ``seq_len``."""
    cfg = config_from(model)
    return _("{model} {attention} {kv_heads} KV heads × {head_dim}: {per_token} per token, {total} for {batch} × "
             "{seq_len} tokens").format(
        model=f"{cfg.name:<12}", attention=cfg.attention_kind, kv_heads=f"{cfg.num_kv_heads:>3}",
        head_dim=f"{cfg.head_dim:>3}", per_token=f"{format_bytes(mem.kv_cache_bytes_for(cfg, 1), binary=True):>10}",
        total=f"{format_bytes(mem.kv_cache_bytes_for(cfg, seq_len, batch)):>8}", batch=batch, seq_len=f"{seq_len:,}")


@v.checked
def bubble_line(stages, micro_batches) -> str:
    """The share of a pipeline's time its GPUs idle, ``stages`` deep with ``micro_batches`` micro-batches."""
    return _("p = {stages}, m = {micro_batches}: idle {idle}").format(
        stages=stages, micro_batches=f"{micro_batches:>2}",
        idle=format_percent(mem.pipeline_bubble(stages, micro_batches), 0))


@v.checked
def mla_cache_text(model="deepseek-v3") -> str:
    """The bytes a token of an MLA model would cache with a key and a value per head (BF16), against its latent."""
    cfg = config_from(model)
    if not cfg.v_head_dim:
        raise InputError("model", f"model == {v.quote(model)} has no MLA latent: its KV cache is per head already.")
    per_head = cfg.num_layers * cfg.num_heads * (cfg.head_dim + cfg.v_head_dim) * 2
    latent = mem.kv_cache_bytes_for(cfg, 1)
    return _("{per_head} bytes a token against {latent}: {ratio}x").format(
        per_head=f"{per_head:,}", latent=f"{latent:,}", ratio=f"{per_head / latent:.0f}")


@v.checked
def lora_shapes_text(model="llama-2-70b", rank=16, target_sets=(("q_proj", "v_proj"),
                                                                ("q_proj", "k_proj", "v_proj", "o_proj"))) -> str:
    """A LoRA adapter's parameters on each target matrix of one layer, then the whole model's for each set of
    targets."""
    cfg = config_from(model)
    if not isinstance(target_sets, (list, tuple)) or not all(isinstance(t, (list, tuple)) for t in target_sets):
        raise InputError("target_sets", f"target_sets == {v.quote(target_sets)}, must be a list of lists of matrix "
                                        "names (q_proj, v_proj, ...).")
    counts = []
    for i, targets in enumerate(target_sets):
        try:
            counts.append(mem.lora_params(cfg, rank, targets))
        except InputError as err:
            raise InputError("target_sets", f"target_sets[{i}]: {err}") from None
    lines = [_("{target} {fan_in} → {fan_out} rank {rank}: {params}").format(
        target=f"{target:<10}", fan_in=f"{fan_in:>6}", fan_out=f"{fan_out:<6}", rank=rank,
        params=f"{format_int(mem.lora_matrix_params(rank, fan_in, fan_out)):>9}")
        for target, (fan_in, fan_out) in mem.target_shapes(cfg).items()]
    for targets, count in zip(target_sets, counts):
        names = "+".join(target.split("_")[0] for target in targets)
        lines.append(_("{targets} {params} adapter parameters").format(targets=f"{names:<10}",
                                                                       params=f"{format_count(count):>6}"))
    return "\n".join(lines)


@v.checked
def gpu_memory_line(gpu, margin=mem.MEMORY_MARGIN) -> str:
    """A GPU's memory on its label, what it exposes, and what is usable with ``margin`` kept free."""
    g = hardware.gpu(gpu)
    return _("{gpu} label {label}   exposes {exposes} usable with {margin} free: {usable}").format(
        gpu=f"{g.name:<10}", label=f"{format_bytes(g.label_bytes):>7}", exposes=_pad(g.memory_text, 22),
        margin=format_percent(margin), usable=format_bytes(plans.usable_bytes(gpu, margin)))


def key_numbers_text() -> str:
    """The chapter's numbers to remember: training states, 70B's weights, KV per token and a 70B QLoRA."""
    kv = [format_bytes(mem.kv_cache_bytes_for(name, 1), binary=True) for name in ("llama-2-7b", "llama-2-70b")]
    numbers = [
        (_("7B training states"), format_bytes(mem.training_state_bytes(7e9))),
        (_("70B training states"), format_bytes(mem.training_state_bytes(70e9))),
        (_("70B weights in BF16 / INT4"), f"{format_bytes(mem.weight_bytes(70e9, 2))} / "
                                          f"{format_bytes(mem.weight_bytes(70e9, 0.5))}"),
        (_("KV per token: Llama-2-7B, Llama-2-70B"), _("{first}, {second}").format(first=kv[0], second=kv[1])),
        (_("QLoRA of Llama-2-70B, rank 64, all projections"), format_bytes(plans.qlora_memory("llama-2-70b").total)),
    ]
    return "\n".join(f"{_pad(label, 40)} {value}" for label, value in numbers)
