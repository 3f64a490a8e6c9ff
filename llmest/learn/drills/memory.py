"""Drill templates on memory (chapter 2)."""

from __future__ import annotations

from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ... import plans
from ...core.i18n import N_, _
from ...core.units import format_bytes, format_int, format_percent
from ...core.units import format_count, format_flops
from .problem import (CLUSTER, KV_MODELS, MFUS, PARAMS, SHAPES, Part, _A, _Regenerate, _a, _chained, _n, _pick,
                      _problem, _size, gpu_peak, template, tflops_text)

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S21 = N_("chapter 2, §2.1 (02_memory.ipynb#cell-id=d633d166)")
S22 = N_("chapter 2, §2.2 (02_memory.ipynb#cell-id=a5a119c9)")
S_PARALLEL = N_("chapter 2, Parallel strategies (02_memory.ipynb#cell-id=58be6083)")
S2_SERVING = N_("chapter 2, Serving: weights and quantisation (02_memory.ipynb#cell-id=cc59844e)")
S2_KV = N_("chapter 2, The KV cache (02_memory.ipynb#cell-id=e99710b6)")
S2_LORA = N_("chapter 2, LoRA and QLoRA (02_memory.ipynb#cell-id=11f2a9f5)")
S41 = N_("chapter 4, §4.1 (04_data_and_tokens.ipynb#cell-id=9d9488e5)")


# What is shown for a weight format that its name does not say, and for the parts that ZeRO shards.
FORMATS = {"int4-plain": N_("4 bits per parameter (ignore the scales)"),
           "int4": N_("4 bits with an fp16 scale and a 4-bit zero point per group of 128"),
           "nf4-dq": N_("NF4 with double quantisation (an 8-bit constant per block of 64, an fp32 one per 256 blocks)")}
SHARDED = {"weights": N_("weights"), "master": N_("master"), "gradients": N_("gradients"),
           "optimizer": N_("optimizer")}
ZERO_SHARDS = {1: N_("ZeRO-{stage} shards the optimizer states and the master copy (12 bytes) over {dp} GPUs"),
               2: N_("ZeRO-{stage} shards the optimizer states, the master copy and the gradients (14 bytes) over "
                     "{dp} GPUs"),
               3: N_("ZeRO-{stage} shards all 16 bytes, the weights too, over {dp} GPUs")}
# mem.CONVENTIONS[...].used_by of the setups the drills use, for the catalog (a test checks they are the same).
USED_BY = {"mixed": N_("mixed precision as the ZeRO paper counts it, with 16-bit gradients; the material's convention"),
           "megatron-bf16": N_("Megatron-LM with bf16: gradients accumulated and all-reduced in fp32"),
           "fp32": N_("plain PyTorch with fp32 parameters; autocast (AMP) computes in bf16 but stores these"),
           "bf16": N_("a plain PyTorch optimizer on a model cast to bf16: no master copy, states in bf16"),
           "bf16-fp32-states": N_("a configuration: bf16 parameters and gradients, an optimizer told to keep fp32 "
                                  "states")}


@template("weight-memory", "memory")
def _weight_memory(rng, level):
    n = _pick(rng, level, *PARAMS)
    fmt = _pick(rng, level, ["bf16", "int4-plain"], ["bf16", "int8", "int4-plain"], ["int4", "nf4-dq", "fp32"])
    per_param = 0.5 if fmt == "int4-plain" else mem.WEIGHT_FORMATS[fmt].bytes_per_param
    described = _(FORMATS[fmt]) if fmt in FORMATS else fmt.upper()
    answer = mem.weight_bytes(n, per_param)
    hint = _("Bytes = parameters × bytes per parameter (BF16 2, INT8 1, 4-bit 0.5, plus any scales).")
    if level == "hard":
        parts = (Part(_("How many bytes a parameter is that, scales included?"), per_param, "bytes/param",
                      (_("WEIGHT_FORMATS[{fmt}].bytes_per_param = {per_param}; {cite}").format(
                          fmt=repr(fmt), per_param=f"{per_param:.4g}", cite=_(S2_SERVING)),), tolerance=0.1),
                 Part(_("How much memory do the weights take? (GB)"), answer, "bytes",
                      (_("weight_bytes(N, bytes_per_param) = {n} × {per_param} = {weights}; {cite}").format(
                          n=_size(n), per_param=f"{per_param:.4g}", weights=format_bytes(answer),
                          cite=_(S2_SERVING)),)))
        return _chained("weight-memory", level,
                        _("{Model}-parameter model is stored in {format}.").format(Model=_A(_size(n)),
                                                                                   format=described),
                        dict(n=n, bytes_per_param=per_param), parts, hint)
    return _problem(
        "weight-memory", level,
        _("How much memory do the weights of {model}-parameter model take in {format}? (GB)").format(
            model=_a(_size(n)), format=described),
        dict(n=n, bytes_per_param=per_param), answer, "bytes",
        [_("Bytes per parameter: {per_param}").format(per_param=f"{per_param:.4g}"),
         _("{n} × {per_param} bytes = {weights}").format(n=_size(n), per_param=f"{per_param:.4g}",
                                                         weights=format_bytes(answer))],
        hint)


@template("training-states", "memory")
def _training_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    convention = _pick(rng, level, ["mixed"], ["mixed", "fp32", "bf16"], ["megatron-bf16", "bf16-fp32-states"])
    per_param = mem.state_bytes_per_param(convention, "adamw")
    answer = mem.training_state_bytes(n, per_param.total)
    setup = dict(model=_a(_size(n)), convention=convention, used_by=_(USED_BY[convention]))
    copies = dict(weights=f"{per_param.weights:g}", master=f"{per_param.master:g}", grads=f"{per_param.grads:g}",
                  moments=f"{per_param.optimizer:g}", total=f"{per_param.total:g}")
    states = _("{n} × {total} bytes = {states}").format(n=_size(n), total=copies["total"], states=format_bytes(answer))
    if level == "hard":
        parts = (Part(_("How many bytes a parameter do the weights, master copy, gradients and moments take?"),
                      per_param.total, "bytes/param",
                      (_("state_bytes_per_param(convention, 'adamw'): weights {weights} + master copy {master} + "
                         "gradients {grads} + moments {moments} = {total}; {cite}").format(**copies, cite=_(S21)),)),
                 Part(_("How much memory is that for the whole model, unsharded? (GB)"), answer, "bytes",
                      (_("training_state_bytes(N, bytes_per_param) = {states}; {cite}").format(states=states,
                                                                                              cite=_(S21)),)))
        return _chained("training-states", level,
                        _("Training {model} model with AdamW in the '{convention}' setup ({used_by}).").format(**setup),
                        dict(n=n, convention=convention), parts,
                        _("Add the bytes of each copy, then multiply by the parameters."))
    return _problem(
        "training-states", level,
        _("Training {model} model with AdamW in the '{convention}' setup ({used_by}). How much memory do the "
          "weights, gradients and optimizer states take before activations, unsharded? (GB)").format(**setup),
        dict(n=n, convention=convention), answer, "bytes",
        [_("Weights {weights} + master copy {master} + gradients {grads} + moments {moments} = {total} bytes per "
           "parameter").format(**copies), states],
        _("Add the bytes of each copy: weights, master copy (if any), gradients, and AdamW's two moments."))


@template("zero-per-gpu", "memory")
def _zero_per_gpu(rng, level):
    n = _pick(rng, level, *PARAMS)
    stage = _pick(rng, level, [3], [1, 2, 3], [1, 2, 3])
    dp = _pick(rng, level, [8], [8, 16, 64], [24, 48, 96])
    per_param = mem.state_bytes_per_param("mixed", "adamw")
    parts = mem.sharded_state_bytes(n, per_param, stage, dp)
    answer = sum(parts.values())
    if not plans.fits(answer, "A100 80GB"):
        raise _Regenerate  # a layout nobody would choose: more than an 80 GB GPU holds with 20% free
    shards = [(_(SHARDED[part]), format_bytes(value)) for part, value in parts.items()]
    hint = _("Stage 1 shards optimizer states + master copy, stage 2 also gradients, stage 3 also weights.")
    if level == "hard":
        full = mem.training_state_bytes(n, per_param.total)
        chained = (Part(_("How much do the training states take unsharded? (GB)"), full, "bytes",
                        (_("training_state_bytes(N, 16) = {n} × 16 bytes = {states}; {cite}").format(
                            n=_size(n), states=format_bytes(full), cite=_(S21)),)),
                   Part(_("How much does each GPU hold under ZeRO stage {stage} over {dp} GPUs? (GB)").format(
                       stage=stage, dp=dp), answer, "bytes",
                        (_("sharded_state_bytes(N, per_param, {stage}, {dp}): {shards} = {per_gpu}; {cite}").format(
                            stage=stage, dp=dp, shards=", ".join(f"{part} {value}" for part, value in shards),
                            per_gpu=format_bytes(answer), cite=_(S_PARALLEL)),)))
        return _chained("zero-per-gpu", level,
                        _("{Model} model trains with mixed-precision AdamW (16 bytes a parameter) over {dp} "
                          "data-parallel GPUs.").format(Model=_A(_size(n)), dp=dp),
                        dict(n=n, zero=stage, dp=dp), chained, hint)
    return _problem(
        "zero-per-gpu", level,
        _("{Model} model trains with mixed-precision AdamW (16 bytes a parameter) and ZeRO stage {stage} over {dp} "
          "data-parallel GPUs. How much state does each GPU hold, before activations? (GB)").format(
            Model=_A(_size(n)), stage=stage, dp=dp),
        dict(n=n, zero=stage, dp=dp), answer, "bytes",
        [_(ZERO_SHARDS[stage]).format(stage=stage, dp=dp),
         *(_("{part}: {size}").format(part=part, size=value) for part, value in shards),
         _("Per GPU: {per_gpu}").format(per_gpu=format_bytes(answer))],
        hint)


@template("gpus-for-states", "memory")
def _gpus_for_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H200"], ["H100 SXM", "H200", "B200"])
    margin = _pick(rng, level, [0.0], [0.0, mem.MEMORY_MARGIN], [mem.MEMORY_MARGIN])
    if level == "hard":  # a model from a budget, then its states, then the GPUs that hold them
        return _gpus_for_states_chained(rng, level, gpu, margin)
    answer = plans.state_gpus(n, 16, gpu, margin)
    if answer < 2:
        raise _Regenerate  # one GPU is no question: the states fit a single card
    usable = plans.usable_bytes(gpu, margin)
    kept = _(", keeping {margin} of each free").format(margin=format_percent(margin, 0)) if margin else ""
    states, usable_text = format_bytes(16 * n), format_bytes(usable)
    return _problem(
        "gpus-for-states", level,
        _("How many {gpu} GPUs ({memory}) just hold the 16-bytes-a-parameter training states of {model} model, "
          "sharded evenly{kept}?").format(gpu=gpu, memory=hardware.gpu(gpu).memory_text, model=_a(_size(n)),
                                          kept=kept),
        dict(n=n, gpu=gpu, margin=margin), answer, "GPUs",
        [_("States: {n} × 16 bytes = {states}").format(n=_size(n), states=states),
         _("Usable per GPU: {usable}").format(usable=usable_text),
         _("{states} / {usable} = {ratio}, rounded up: {gpus}").format(
             states=states, usable=usable_text, ratio=f"{16 * n / usable:.2f}", gpus=_n(answer, "GPU"))],
        _("Divide 16·N bytes by the usable memory of one GPU and round up."), minimum=True)


def _gpus_for_states_chained(rng, level, gpu, margin):
    gpus, days, mfu = rng.choice(CLUSTER[2]), rng.choice([21, 45]), rng.choice(MFUS[2])
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    n = cluster.chinchilla()[0]
    states = mem.training_state_bytes(n, 16)
    answer = plans.state_gpus(n, 16, gpu, margin)
    usable = plans.usable_bytes(gpu, margin)
    parts = (Part(_("Which model size is compute-optimal by the 20-tokens-per-parameter rule?"), n, "count",
                  (_("compute_budget = {budget}; chinchilla_params_for_flops(C) = √(C / 120) = {n}; {cite}").format(
                      budget=format_flops(cluster.flops), n=format_count(n), cite=_(S41)),)),
             Part(_("How much memory do its mixed-precision AdamW states take (16 bytes a parameter)? (GB)"), states,
                  "bytes", (_("training_state_bytes(N, 16) = {n} × 16 bytes = {states}; {cite}").format(
                      n=format_count(n), states=format_bytes(states), cite=_(S21)),)),
             Part(_("How many GPUs at least hold them, sharded evenly, keeping {margin} of each free?").format(
                 margin=format_percent(margin, 0)), answer, "GPUs",
                  (_("state_gpus(N, 16, gpu, margin) = {states} / {usable} usable = {ratio}, rounded up: {gpus}; "
                     "{cite}").format(states=format_bytes(states), usable=format_bytes(usable),
                                      ratio=f"{states / usable:.2f}", gpus=_n(answer, "GPU"), cite=_(S_PARALLEL)),),
                  minimum=True))
    return _chained("gpus-for-states", level,
                    _("{gpus} {gpu} GPUs ({peak} BF16, {memory}) for {days} days at {mfu} MFU.").format(
                        gpus=f"{gpus:,}", gpu=gpu, peak=tflops_text(gpu), memory=hardware.gpu(gpu).memory_text,
                        days=days, mfu=format_percent(mfu, 0)),
                    dict(n=n, gpu=gpu, margin=margin, gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu), parts,
                    _("N = √(C / 120); states = 16·N bytes; GPUs = states / usable memory, rounded up."))


@template("kv-cache", "memory")
def _kv_cache(rng, level):
    name = rng.choice(KV_MODELS[level])
    cfg = m.preset(name)
    seq_len = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [8192, 32768])
    batch = _pick(rng, level, [1, 32], [8, 16, 32], [16, 64])
    answer = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, seq_len, batch)
    per_token = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, 1)
    shape = dict(name=name, layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim,
                 requests=_n(batch, "request"), seq_len=f"{seq_len:,}", per_token=format_int(per_token),
                 cache=format_bytes(answer))
    inputs = dict(layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim, seq_len=seq_len,
                  batch=batch)
    if level == "hard":
        parts = (Part(_("How many bytes of BF16 KV cache does one token take?"), per_token, "count",
                      (_("kv_cache_bytes(L, kv_heads, head_dim, 1) = 2 × {layers} × {kv_heads} × {head_dim} × 2 bytes "
                         "= {per_token} bytes; {cite}").format(**shape, cite=_(S2_KV)),)),
                 Part(_("How much do {requests} of {seq_len} tokens each need? (GB)").format(**shape), answer,
                      "bytes", (_("kv_cache_bytes(L, kv_heads, head_dim, seq_len, batch) = {per_token} × {seq_len} × "
                                  "{batch} = {cache}; {cite}").format(**shape, batch=batch, cite=_(S2_KV)),)))
        return _chained("kv-cache", level,
                        _("The model {name} has {layers} layers and {kv_heads} key/value heads of width "
                          "{head_dim}.").format(**shape), inputs, parts,
                        _("2 · layers · KV heads · head width · 2 bytes, per token."))
    return _problem(
        "kv-cache", level,
        _("The model {name} has {layers} layers and {kv_heads} key/value heads of width {head_dim}. How much BF16 KV "
          "cache do {requests} of {seq_len} tokens each need? (GB)").format(**shape),
        inputs, answer, "bytes",
        [_("Per token: 2 (K and V) × {layers} layers × {kv_heads} × {head_dim} × 2 bytes = {per_token} "
           "bytes").format(**shape),
         _("× {seq_len} tokens × {requests} = {cache}").format(**shape)],
        _("2 · layers · KV heads · head width · 2 bytes, per token of every request."))


@template("qlora-memory", "memory")
def _qlora_memory(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [7e9, 13e9, 70e9], [8e9, 34e9, 70e9])
    # LoRA adds 0.1% (rank 16 on Q and V) to 1.2% (rank 64 on all seven projections) of the base
    adapters = float(f"{n * _pick(rng, level, [0.006], [0.003, 0.006], [0.0012, 0.012]):.2g}")
    activations = _pick(rng, level, [4e9], [4e9, 10e9], [6e9, 18e9])
    adapter_bytes = mem.state_bytes_per_param("fp32", "adamw").total
    base = mem.weight_bytes(n, 0.5)
    answer = base + adapters * adapter_bytes + activations
    sizes = dict(model=_a(_size(n)), n=_size(n), adapters=_size(adapters), activations=format_bytes(activations),
                 base=format_bytes(base), adapter_bytes=f"{adapter_bytes:g}",
                 trained=format_bytes(adapters * adapter_bytes), total=format_bytes(answer))
    inputs = dict(n=n, adapters=adapters, activations=activations)
    stem = _("QLoRA of {model} model: a 4-bit base (0.5 bytes a parameter), {adapters} adapter parameters trained in "
             "fp32 with AdamW, and {activations} of activations.").format(**sizes)
    if level == "hard":
        parts = (Part(_("How much does the 4-bit base take? (GB)"), base, "bytes",
                      (_("weight_bytes(N, 0.5) = {n} × 0.5 = {base}; {cite}").format(**sizes, cite=_(S2_LORA)),)),
                 Part(_("How much do the adapters take with their gradients and AdamW moments? (GB)"),
                      adapters * adapter_bytes, "bytes",
                      (_("state_bytes_per_param('fp32', 'adamw') = {adapter_bytes} bytes × {adapters} = {trained}; "
                         "{cite}").format(**sizes, cite=_(S2_LORA)),)),
                 Part(_("Total memory, with the activations? (GB)"), answer, "bytes",
                      (_("{base} + {trained} + {activations} = {total}; {cite}").format(**sizes, cite=_(S2_LORA)),)))
        return _chained("qlora-memory", level, stem, inputs, parts,
                        _("Base at 0.5 bytes a parameter; adapters carry weights, gradients and AdamW moments."))
    return _problem(
        "qlora-memory", level, _("{stem} Total memory? (GB)").format(stem=stem), inputs, answer, "bytes",
        [_("Base: {n} × 0.5 bytes = {base}").format(**sizes),
         _("Adapters: weights 4 + gradients 4 + moments 8 = {adapter_bytes} bytes each → {trained}").format(**sizes),
         _("Activations: {activations}").format(**sizes),
         _("Total: {total}").format(**sizes)],
        _("Base at 0.5 bytes a parameter; adapters carry weights, gradients and AdamW moments; add the activations."))


@template("activations-rule", "memory")
def _activations_rule(rng, level):
    layers, hidden, _shape = rng.choice(SHAPES[level])
    batch = _pick(rng, level, [1, 8], [1, 4, 8], [2, 6, 16])
    seq = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [4096, 16384])
    factor = _pick(rng, level, [40], [30, 40, 60], [34, 50])
    answer = mem.activation_bytes_rule(layers, batch, seq, hidden, 2, factor)
    rule = dict(factor=factor, model=_a(_("{layers}-layer").format(layers=layers)), hidden=f"{hidden:,}",
                sequences=_n(batch, "sequence"), seq=f"{seq:,}", layers=layers, batch=batch,
                total=format_bytes(answer))
    inputs = dict(layers=layers, batch=batch, seq=seq, hidden=hidden, factor=factor)
    stem = _("By the rule L·B·S·H·2 bytes·factor with factor {factor}: activations of {model}, hidden-{hidden} model "
             "for a batch of {sequences} of {seq} tokens, no recomputation").format(**rule)
    if level == "hard":
        per_layer = mem.activation_bytes_rule(1, batch, seq, hidden, 2, factor)
        parts = (Part(_("How much does one layer keep? (GB)"), per_layer, "bytes",
                      (_("activation_bytes_rule(1, B, S, H, 2, factor) = {batch} × {seq} × {hidden} × 2 × {factor} = "
                         "{per_layer}; {cite}").format(**rule, per_layer=format_bytes(per_layer), cite=_(S22)),)),
                 Part(_("How much do all {layers} layers keep? (GB)").format(layers=layers), answer, "bytes",
                      (_("activation_bytes_rule(L, B, S, H, 2, factor) = {layers} × {per_layer} = {total}; "
                         "{cite}").format(**rule, per_layer=format_bytes(per_layer), cite=_(S22)),)))
        return _chained("activations-rule", level, _("{stem}.").format(stem=stem), inputs, parts,
                        _("Multiply all six numbers."))
    return _problem(
        "activations-rule", level, _("{stem}? (GB)").format(stem=stem), inputs, answer, "bytes",
        [_("{layers} × {batch} × {seq} × {hidden} × 2 × {factor} = {total}").format(**rule)],
        _("Multiply all six numbers."))
