"""The tables a reader asks for (the training conventions, bytes per parameter by optimizer, the GPU catalog, where
decoding turns compute-bound), every figure from a library call, each a ``Table`` (``llmest.display.table``)."""

from __future__ import annotations

from ...core import _validate as v
from ...core.i18n import N_, _
from ...display.table import TEXT_WIDTH, Table, _pad, _width  # noqa: F401  (the names the chapters and tests use)


# ----------------------------------------------------------------------------------------------------------------
# The tables a reader asks for
# ----------------------------------------------------------------------------------------------------------------

def conventions(optimizer: str = "adamw") -> Table:
    """Bytes per parameter of each training state under each convention, for one optimizer, and who uses it."""
    from ...formulas import memory as mem

    rows = []
    for name, convention in mem.CONVENTIONS.items():
        s = mem.state_bytes_per_param(name, optimizer)
        rows.append((name, s.weights, s.master, s.grads, s.optimizer, s.total, _(convention.used_by)))
    return Table((_("convention"), _("weights"), _("master"), _("gradients"), _("optimizer"), _("total"),
                  _("used by")), rows,
                 caption=_("bytes per parameter of each training state, {optimizer}").format(optimizer=optimizer))


def state_bytes_by_optimizer(optimizers=None, conventions=None) -> Table:
    """Bytes per parameter of all training states: one row per convention, one column per optimizer."""
    from ...formulas import memory as mem

    optimizers = list(mem.OPTIMIZERS) if optimizers is None else list(optimizers)
    conventions = list(mem.CONVENTIONS) if conventions is None else list(conventions)
    rows = [(c, *(mem.state_bytes_per_param(c, o).total for o in optimizers)) for c in conventions]
    return Table((_("convention"), *optimizers), rows,
                 caption=_("bytes per parameter, all training states, by convention and optimizer"))


def weight_formats(model="llama-2-70b") -> Table:
    """Bytes per parameter of each weight format, constants included, and a model's weights in each."""
    from ...formulas import memory as mem
    from ...formulas.model import config_from
    from ...core.units import format_bytes

    cfg = config_from(model)
    rows = [(name, f"{fmt.bytes_per_param:.4f}", format_bytes(mem.model_weight_bytes(cfg, name)), _(fmt.note))
            for name, fmt in mem.WEIGHT_FORMATS.items()]
    return Table((_("format"), _("bytes/param"), cfg.name or _("model"), _("note")), rows,
                 caption=_("weight formats; {model} in each (embeddings, head and norms in 16 bits)").format(
                     model=cfg.name or _("the model")))


def _tflops(flops_per_s) -> str:
    from ...catalog.hardware import TERA

    return "-" if not flops_per_s else f"{flops_per_s / TERA:.1f}"


def gpu_catalog() -> Table:
    """The GPU catalog: dense peaks (no 2:4 sparsity), memory as the device exposes it, bandwidth and interconnect."""
    from ...catalog import hardware

    rows = [(g.name, _tflops(g.bf16_flops_per_s), _tflops(g.fp8_flops_per_s), _tflops(g.tf32_flops_per_s),
             _tflops(g.fp32_flops_per_s), f"{g.memory_gib:.1f}", f"{g.memory_gb:.1f}",
             f"{g.bandwidth_bytes_per_s / hardware.TERA:.2f}", _(g.interconnect)) for g in hardware.CATALOG.values()]
    bandwidth = _("bandwidth")
    return Table(("GPU", "BF16", "FP8", "TF32", "FP32", "GiB", "GB", bandwidth, _("interconnect")), rows,
                 caption=_("dense peaks in TFLOPS (FP32: CUDA cores, not tensor cores); memory as the device exposes "
                           "it, in GiB (2^30 bytes) and GB (1e9 bytes)"),
                 units={bandwidth: "TB/s"})


def gpu_sources() -> Table:
    """Where each catalog row comes from, its caveat, where its exposed memory was read, and the fields not found in
    a stored copy of the source."""
    from ...catalog import hardware

    rows = [(g.name, _("{source}; exposed memory: {memory_source}").format(source=_(g.source),
                                                                         memory_source=g.memory_source_shown),
             _(g.note), ", ".join(_(field) for field in g.recalled) or "-") for g in hardware.CATALOG.values()]
    return Table(("GPU", _("source"), _("note"), _("not found in a stored copy")), rows)


_BOUNDS = {"memory": N_("memory"), "compute": N_("compute")}  # what bounds a decoding step


def _tokens(limit: float) -> str:
    from ...core.units import format_int

    return _("none (every layer windowed)") if limit == float("inf") else format_int(limit)


def decode_limits(model, gpus, seq_len: int = 1024, batch: int = 1, weights: str = "bf16") -> Table:
    """Where decoding a model turns compute-bound on each GPU: the batch (no KV cache), the context past which no
    batch is, and the decode speed of ``batch`` sequences at ``seq_len`` tokens (``plans.decode_estimate``)."""
    from ...formulas import compute as c
    from ...catalog import hardware
    from ... import plans
    from ...formulas.memory import model_weight_bytes
    from ...formulas.model import config_from
    from ...core.units import format_int

    cfg = config_from(model)
    weight_bytes, n = model_weight_bytes(cfg, weights), c.flops_params(cfg)
    rows = []
    for name in gpus:
        g = hardware.gpu(name)
        speed = plans.decode_estimate(cfg, name, batch=batch, seq_len=seq_len, weights=weights)
        rows.append((g.name,
                     format_int(c.compute_bound_batch(weight_bytes, n, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
                     _tokens(c.kv_context_limit_for(cfg, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
                     format_int(speed.tokens_per_s), _(_BOUNDS.get(speed.bound, speed.bound))))
    never, speed = _("never past"), _("speed at batch {batch}").format(batch=batch)
    caption = (_("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequence at {seq_len} tokens")
               if batch <= 1 else
               _("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequences at {seq_len} tokens"))
    return Table(("GPU", _("compute-bound from batch"), never, speed, _("bound")), rows,
                 caption=caption.format(model=cfg.name or _("the model"), weights=weights, batch=batch,
                                        seq_len=f"{seq_len:,}"),
                 units={never: _("tokens"), speed: "tokens/s"})


def parameter_counts(models) -> Table:
    """Each model's parameters, all of them, beside the N of 6·N·D (``compute.flops_params``: the matmul weights, a
    mixture of experts' active ones)."""
    from ...formulas import compute as c
    from ...formulas.model import config_from, count_params
    from ...core.units import format_count

    if not isinstance(models, (list, tuple)) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a list of presets or configs.")
    configs = [config_from(m) for m in models]
    rows = [(cfg.name or _("model"), format_count(count_params(cfg).total), format_count(c.flops_params(cfg)))
            for cfg in configs]
    return Table((_("model"), _("all parameters"), _("N for 6·N·D")), rows)


def largest_batches(model, gpu, prompts, output_tokens: int) -> Table:
    """For each prompt length, serving ``output_tokens`` more (``plans.estimate_request``): the largest batch that
    fits, the TTFT of one request, the attention's share of its prefill FLOPs and the TPOT."""
    from ...formulas import compute as c
    from ... import plans
    from ...core.units import format_int

    if not isinstance(prompts, (list, tuple)) or not prompts:
        raise v.InputError("prompts", f"prompts == {v.quote(prompts)}, must be a list of prompt lengths in tokens.")
    rows = []
    for prompt in prompts:
        est = plans.estimate_request(model, gpu, prompt_tokens=prompt, output_tokens=output_tokens)
        share = c.prefill_attention_flops_for(model, prompt) / est.prefill_flops
        rows.append((format_int(prompt), format_int(est.max_batch), f"{est.ttft_s * 1e3:.1f}", f"{share * 100:.1f}",
                     f"{est.tpot_s * 1e3:.2f}"))
    ttft, share, tpot = _("TTFT, 1 request"), _("attention share"), "TPOT"
    return Table((_("prompt"), _("largest batch"), ttft, share, tpot), rows,
                 units={ttft: "ms", share: "%", tpot: "ms"})


def micro_batch_memory(model, *, zero=3, dp=8, seq_len=4096, sizes=(1, 2, 4, 8)) -> Table:
    """Memory per GPU by micro-batch of ``sizes`` (``training_memory`` with ZeRO ``zero`` over ``dp`` GPUs): eager
    attention, FlashAttention, and FlashAttention with full recomputation; above, what does not grow with the
    micro-batch."""
    from ...formulas.model import config_from
    from ...plans import training_memory
    from ...core.units import format_bytes

    cfg = config_from(model)

    def per_gpu(micro_batch, flash, recompute="none"):
        return training_memory(cfg, zero=zero, dp=dp, micro_batch=v.check_whole("sizes", micro_batch),
                               seq_len=seq_len, flash=flash, recompute=recompute)

    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise v.InputError("sizes", f"sizes == {v.quote(sizes)}, must be a list of micro-batch sizes.")
    static = sum(b for part, b in per_gpu(1, True).parts.items() if part != "activations")
    rows = [(str(b), *(format_bytes(plan.total) for plan in (per_gpu(b, False), per_gpu(b, True),
                                                            per_gpu(b, True, "full")))) for b in sizes]
    caption = _("static (states, ZeRO-{zero}'s buffers, runtime) per GPU: {static}").format(
        zero=zero, static=format_bytes(static))
    return Table((_("micro-batch"), _("eager attention"), "FlashAttention", _("+ checkpointing")), rows,
                 caption=caption)
