"""Drill templates on memory (chapter 2)."""

from __future__ import annotations

from .. import hardware
from .. import memory as mem
from .. import model as m
from .. import plans
from ..units import format_bytes, format_int, format_percent
from ..units import format_count, format_flops
from .problem import (CLUSTER, KV_MODELS, MFUS, PARAMS, SHAPES, Part, _A, _Regenerate, _a, _chained, _n, _pick,
                      _problem, _size, gpu_peak, template, tflops_text)

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S21 = "chapter 2, §2.1 (02_memory.ipynb#cell-id=d633d166)"
S22 = "chapter 2, §2.2 (02_memory.ipynb#cell-id=a5a119c9)"
S_PARALLEL = "chapter 2, Parallel strategies (02_memory.ipynb#cell-id=58be6083)"
S2_SERVING = "chapter 2, Serving: weights and quantisation (02_memory.ipynb#cell-id=cc59844e)"
S2_LORA = "chapter 2, LoRA and QLoRA (02_memory.ipynb#cell-id=11f2a9f5)"
S41 = "chapter 4, §4.1 (04_data_and_tokens.ipynb#cell-id=9d9488e5)"


@template("weight-memory", "memory")
def _weight_memory(rng, level):
    n = _pick(rng, level, *PARAMS)
    fmt = _pick(rng, level, ["bf16", "int4-plain"], ["bf16", "int8", "int4-plain"], ["int4", "nf4-dq", "fp32"])
    per_param = 0.5 if fmt == "int4-plain" else mem.WEIGHT_FORMATS[fmt].bytes_per_param
    described = {"int4-plain": "4 bits per parameter (ignore the scales)",
                 "int4": "4 bits with an fp16 scale and a 4-bit zero point per group of 128",
                 "nf4-dq": "NF4 with double quantisation (an 8-bit constant per block of 64, an fp32 one per 256 "
                           "blocks)"}.get(fmt, fmt.upper())
    answer = mem.weight_bytes(n, per_param)
    if level == "hard":
        parts = (Part("How many bytes a parameter is that, scales included?", per_param, "bytes/param",
                      (f"WEIGHT_FORMATS[{fmt!r}].bytes_per_param = {per_param:.4g}; {S2_SERVING}",), tolerance=0.1),
                 Part("How much memory do the weights take? (GB)", answer, "bytes",
                      (f"weight_bytes(N, bytes_per_param) = {_size(n)} × {per_param:.4g} = {format_bytes(answer)}; "
                       f"{S2_SERVING}",)))
        return _chained("weight-memory", level, f"{_A(_size(n))}-parameter model is stored in {described}.",
                        dict(n=n, bytes_per_param=per_param), parts,
                        "Bytes = parameters × bytes per parameter (BF16 2, INT8 1, 4-bit 0.5, plus any scales).")
    return _problem(
        "weight-memory", level,
        f"How much memory do the weights of {_a(_size(n))}-parameter model take in {described}? (GB)",
        dict(n=n, bytes_per_param=per_param), answer, "bytes",
        [f"Bytes per parameter: {per_param:.4g}",
         f"{_size(n)} × {per_param:.4g} bytes = {format_bytes(answer)}"],
        "Bytes = parameters × bytes per parameter (BF16 2, INT8 1, 4-bit 0.5, plus any scales).")


@template("training-states", "memory")
def _training_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    convention = _pick(rng, level, ["mixed"], ["mixed", "fp32", "bf16"], ["megatron-bf16", "bf16-fp32-states"])
    per_param = mem.state_bytes_per_param(convention, "adamw")
    answer = mem.training_state_bytes(n, per_param.total)
    if level == "hard":
        parts = (Part("How many bytes a parameter do the weights, master copy, gradients and moments take?",
                      per_param.total, "count",
                      (f"state_bytes_per_param(convention, 'adamw'): weights {per_param.weights:g} + master copy "
                       f"{per_param.master:g} + gradients {per_param.grads:g} + moments {per_param.optimizer:g} = "
                       f"{per_param.total:g}; {S21}",)),
                 Part("How much memory is that for the whole model, unsharded? (GB)", answer, "bytes",
                      (f"training_state_bytes(N, bytes_per_param) = {_size(n)} × {per_param.total:g} bytes = "
                       f"{format_bytes(answer)}; {S21}",)))
        return _chained("training-states", level,
                        f"Training {_a(_size(n))} model with AdamW in the '{convention}' setup "
                        f"({mem.CONVENTIONS[convention].used_by}).", dict(n=n, convention=convention), parts,
                        "Add the bytes of each copy, then multiply by the parameters.")
    return _problem(
        "training-states", level,
        f"Training {_a(_size(n))} model with AdamW in the '{convention}' setup "
        f"({mem.CONVENTIONS[convention].used_by}). How much memory do the weights, gradients and optimizer states "
        "take before activations, unsharded? (GB)",
        dict(n=n, convention=convention), answer, "bytes",
        [f"Weights {per_param.weights:g} + master copy {per_param.master:g} + gradients {per_param.grads:g} + "
         f"moments {per_param.optimizer:g} = {per_param.total:g} bytes per parameter",
         f"{_size(n)} × {per_param.total:g} bytes = {format_bytes(answer)}"],
        "Add the bytes of each copy: weights, master copy (if any), gradients, and AdamW's two moments.")


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
    if level == "hard":
        full = mem.training_state_bytes(n, per_param.total)
        chained = (Part("How much do the training states take unsharded? (GB)", full, "bytes",
                        (f"training_state_bytes(N, 16) = {_size(n)} × 16 bytes = {format_bytes(full)}; {S21}",)),
                   Part(f"How much does each GPU hold under ZeRO stage {stage} over {dp} GPUs? (GB)", answer, "bytes",
                        (f"sharded_state_bytes(N, per_param, {stage}, {dp}): "
                         + ", ".join(f"{part} {format_bytes(value)}" for part, value in parts.items())
                         + f" = {format_bytes(answer)}; {S_PARALLEL}",)))
        return _chained("zero-per-gpu", level, f"{_A(_size(n))} model trains with mixed-precision AdamW (16 bytes a "
                                               f"parameter) over {dp} data-parallel GPUs.",
                        dict(n=n, zero=stage, dp=dp), chained,
                        "Stage 1 shards optimizer states + master copy, stage 2 also gradients, stage 3 also weights.")
    return _problem(
        "zero-per-gpu", level,
        f"{_A(_size(n))} model trains with mixed-precision AdamW (16 bytes a parameter) and ZeRO stage {stage} "
        f"over {dp} data-parallel GPUs. How much state does each GPU hold, before activations? (GB)",
        dict(n=n, zero=stage, dp=dp), answer, "bytes",
        [f"ZeRO-{stage} shards " + {1: "the optimizer states and the master copy (12 bytes)",
                                    2: "the optimizer states, the master copy and the gradients (14 bytes)",
                                    3: "all 16 bytes, the weights too,"}[stage] + f" over {dp} GPUs",
         *(f"{part}: {format_bytes(value)}" for part, value in parts.items()),
         f"Per GPU: {format_bytes(answer)}"],
        "Stage 1 shards optimizer states + master copy, stage 2 also gradients, stage 3 also weights.")


@template("gpus-for-states", "memory")
def _gpus_for_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H200"], ["H100 SXM", "H200", "B200"])
    margin = _pick(rng, level, [0.0], [0.0, mem.MEMORY_MARGIN], [mem.MEMORY_MARGIN])
    if level == "hard":  # a model from a budget, then its states, then the GPUs that hold them
        return _gpus_for_states_chained(rng, level, gpu, margin)
    answer = plans.state_gpus(n, 16, gpu, margin)
    usable = plans.usable_bytes(gpu, margin)
    kept = f", keeping {format_percent(margin, 0)} of each free" if margin else ""
    return _problem(
        "gpus-for-states", level,
        f"How many {gpu} GPUs ({hardware.gpu(gpu).memory_text}) just hold the 16-bytes-a-parameter "
        f"training states of {_a(_size(n))} model, sharded evenly{kept}?",
        dict(n=n, gpu=gpu, margin=margin), answer, "GPUs",
        [f"States: {_size(n)} × 16 bytes = {format_bytes(16 * n)}",
         f"Usable per GPU: {format_bytes(usable)}",
         f"{format_bytes(16 * n)} / {format_bytes(usable)} = {16 * n / usable:.2f}, rounded up: {_n(answer, 'GPU')}"],
        "Divide 16·N bytes by the usable memory of one GPU and round up.", minimum=True)


def _gpus_for_states_chained(rng, level, gpu, margin):
    gpus, days, mfu = rng.choice(CLUSTER[2]), rng.choice([21, 45]), rng.choice(MFUS[2])
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    n, _ = cluster.chinchilla()
    states = mem.training_state_bytes(n, 16)
    answer = plans.state_gpus(n, 16, gpu, margin)
    usable = plans.usable_bytes(gpu, margin)
    parts = (Part("Which model size is compute-optimal by the 20-tokens-per-parameter rule?", n, "count",
                  (f"compute_budget = {format_flops(cluster.flops)}; chinchilla_params_for_flops(C) = √(C / 120) = "
                   f"{format_count(n)}; {S41}",)),
             Part("How much memory do its mixed-precision AdamW states take (16 bytes a parameter)? (GB)", states,
                  "bytes", (f"training_state_bytes(N, 16) = {format_count(n)} × 16 bytes = {format_bytes(states)}; "
                            f"{S21}",)),
             Part(f"How many GPUs at least hold them, sharded evenly, keeping {format_percent(margin, 0)} of each "
                  "free?", answer, "GPUs",
                  (f"state_gpus(N, 16, gpu, margin) = {format_bytes(states)} / {format_bytes(usable)} usable = "
                   f"{states / usable:.2f}, rounded up: {_n(answer, 'GPU')}; {S_PARALLEL}",), minimum=True))
    return _chained("gpus-for-states", level,
                    f"{gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16, {hardware.gpu(gpu).memory_text}) for {days} days "
                    f"at {format_percent(mfu, 0)} MFU.",
                    dict(n=n, gpu=gpu, margin=margin, gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu), parts,
                    "N = √(C / 120); states = 16·N bytes; GPUs = states / usable memory, rounded up.")


@template("kv-cache", "memory")
def _kv_cache(rng, level):
    name = rng.choice(KV_MODELS[level])
    cfg = m.preset(name)
    seq_len = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [8192, 32768])
    batch = _pick(rng, level, [1, 32], [8, 16, 32], [16, 64])
    answer = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, seq_len, batch)
    per_token = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, 1)
    if level == "hard":
        parts = (Part("How many bytes of BF16 KV cache does one token take?", per_token, "count",
                      (f"kv_cache_bytes(L, kv_heads, head_dim, 1) = 2 × {cfg.num_layers} × {cfg.num_kv_heads} × "
                       f"{cfg.head_dim} × 2 bytes = {format_int(per_token)} bytes; {S2_SERVING}",)),
                 Part(f"How much do {_n(batch, 'request')} of {seq_len:,} tokens each need? (GB)", answer, "bytes",
                      (f"kv_cache_bytes(L, kv_heads, head_dim, seq_len, batch) = {format_int(per_token)} × "
                       f"{seq_len:,} × {batch} = {format_bytes(answer)}; {S2_SERVING}",)))
        return _chained("kv-cache", level, f"The model {name} has {cfg.num_layers} layers and {cfg.num_kv_heads} "
                                           f"key/value heads of width {cfg.head_dim}.",
                        dict(layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim, seq_len=seq_len,
                             batch=batch), parts, "2 · layers · KV heads · head width · 2 bytes, per token.")
    return _problem(
        "kv-cache", level,
        f"The model {name} has {cfg.num_layers} layers and {cfg.num_kv_heads} key/value heads of width "
        f"{cfg.head_dim}. How much "
        f"BF16 KV cache do {_n(batch, 'request')} of {seq_len:,} tokens each need? (GB)",
        dict(layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim, seq_len=seq_len, batch=batch),
        answer, "bytes",
        [f"Per token: 2 (K and V) × {cfg.num_layers} layers × {cfg.num_kv_heads} × {cfg.head_dim} × 2 bytes = "
         f"{format_int(per_token)} bytes",
         f"× {seq_len:,} tokens × {_n(batch, 'request')} = {format_bytes(answer)}"],
        "2 · layers · KV heads · head width · 2 bytes, per token of every request.")


@template("qlora-memory", "memory")
def _qlora_memory(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [7e9, 13e9, 70e9], [8e9, 34e9, 70e9])
    # LoRA adds 0.1% (rank 16 on Q and V) to 1.2% (rank 64 on all seven projections) of the base
    adapters = float(f"{n * _pick(rng, level, [0.006], [0.003, 0.006], [0.0012, 0.012]):.2g}")
    activations = _pick(rng, level, [4e9], [4e9, 10e9], [6e9, 18e9])
    adapter_bytes = mem.state_bytes_per_param("fp32", "adamw").total
    base = mem.weight_bytes(n, 0.5)
    answer = base + adapters * adapter_bytes + activations
    if level == "hard":
        parts = (Part("How much does the 4-bit base take? (GB)", base, "bytes",
                      (f"weight_bytes(N, 0.5) = {_size(n)} × 0.5 = {format_bytes(base)}; {S2_LORA}",)),
                 Part("How much do the adapters take with their gradients and AdamW moments? (GB)",
                      adapters * adapter_bytes, "bytes",
                      (f"state_bytes_per_param('fp32', 'adamw') = {adapter_bytes:g} bytes × {_size(adapters)} = "
                       f"{format_bytes(adapters * adapter_bytes)}; {S2_LORA}",)),
                 Part("Total memory, with the activations? (GB)", answer, "bytes",
                      (f"{format_bytes(base)} + {format_bytes(adapters * adapter_bytes)} + "
                       f"{format_bytes(activations)} = {format_bytes(answer)}; {S2_LORA}",)))
        return _chained("qlora-memory", level,
                        f"QLoRA of {_a(_size(n))} model: a 4-bit base (0.5 bytes a parameter), {_size(adapters)} "
                        f"adapter parameters trained in fp32 with AdamW, and {format_bytes(activations)} of "
                        "activations.", dict(n=n, adapters=adapters, activations=activations), parts,
                        "Base at 0.5 bytes a parameter; adapters carry weights, gradients and AdamW moments.")
    return _problem(
        "qlora-memory", level,
        f"QLoRA of {_a(_size(n))} model: a 4-bit base (0.5 bytes a parameter), {_size(adapters)} adapter "
        f"parameters trained in fp32 with AdamW, and {format_bytes(activations)} of activations. Total memory? (GB)",
        dict(n=n, adapters=adapters, activations=activations), answer, "bytes",
        [f"Base: {_size(n)} × 0.5 bytes = {format_bytes(base)}",
         f"Adapters: weights 4 + gradients 4 + moments 8 = {adapter_bytes:g} bytes each → "
         f"{format_bytes(adapters * adapter_bytes)}",
         f"Activations: {format_bytes(activations)}",
         f"Total: {format_bytes(answer)}"],
        "Base at 0.5 bytes a parameter; adapters carry weights, gradients and AdamW moments; add the activations.")


@template("activations-rule", "memory")
def _activations_rule(rng, level):
    layers, hidden, _ = rng.choice(SHAPES[level])
    batch = _pick(rng, level, [1, 8], [1, 4, 8], [2, 6, 16])
    seq = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [4096, 16384])
    factor = _pick(rng, level, [40], [30, 40, 60], [34, 50])
    answer = mem.activation_bytes_rule(layers, batch, seq, hidden, 2, factor)
    if level == "hard":
        per_layer = mem.activation_bytes_rule(1, batch, seq, hidden, 2, factor)
        parts = (Part("How much does one layer keep? (GB)", per_layer, "bytes",
                      (f"activation_bytes_rule(1, B, S, H, 2, factor) = {batch} × {seq:,} × {hidden:,} × 2 × {factor} "
                       f"= {format_bytes(per_layer)}; {S22}",)),
                 Part(f"How much do all {layers} layers keep? (GB)", answer, "bytes",
                      (f"activation_bytes_rule(L, B, S, H, 2, factor) = {layers} × {format_bytes(per_layer)} = "
                       f"{format_bytes(answer)}; {S22}",)))
        return _chained("activations-rule", level,
                        f"By the rule L·B·S·H·2 bytes·factor with factor {factor}: activations of "
                        f"{_a(f'{layers}-layer')}, hidden-{hidden:,} model for a batch of {_n(batch, 'sequence')} of "
                        f"{seq:,} tokens, no recomputation.",
                        dict(layers=layers, batch=batch, seq=seq, hidden=hidden, factor=factor), parts,
                        "Multiply all six numbers.")
    return _problem(
        "activations-rule", level,
        f"By the rule L·B·S·H·2 bytes·factor with factor {factor}: activations of {_a(f'{layers}-layer')}, "
        f"hidden-{hidden:,} model for a batch of {_n(batch, 'sequence')} of {seq:,} tokens, no recomputation? (GB)",
        dict(layers=layers, batch=batch, seq=seq, hidden=hidden, factor=factor), answer, "bytes",
        [f"{layers} × {batch} × {seq:,} × {hidden:,} × 2 × {factor} = {format_bytes(answer)}"],
        "Multiply all six numbers.")
