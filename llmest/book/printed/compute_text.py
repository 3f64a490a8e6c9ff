"""Chapter 3's compute figures as a reader reads them, in the language shown: where attention takes a share of the
training FLOPs, the time margin and HFU, checkpoint storage, the rate a run must be fed, and decoding's roofline
worked by hand. Each figure comes from ``llmest.formulas.compute`` (or a plan); these only say them."""

from __future__ import annotations

import re

from ...core import _validate as v
from ...formulas import compute as c
from ...catalog import hardware, runs
from ... import plans
from ...core.i18n import _, display_width
from ...formulas.kv_cache import BYTES_PER_VALUE
from ...formulas.memory import kv_cache_bytes_for, model_weight_bytes
from ...formulas.model import config_from
from ...core.units import (DAYS_PER_YEAR, format_bytes, format_count, format_flops, format_int, format_number,
                           format_percent)


def _size(n_params) -> str:
    """A parameter count in as few figures as say it to three (70e9 -> 70B, 6.74e9 -> 6.74B)."""
    digits = next(d for d in (1, 2, 3) if float(f"{n_params:.{d}g}") == float(f"{n_params:.3g}"))
    return format_count(n_params, digits)


@v.checked
def attention_share_text(model) -> str:
    """The sequence lengths at which attention is a quarter and a half of a model's training FLOPs
    (``compute.seq_len_for_attention_share``)."""
    cfg = config_from(model)
    n = c.flops_params(cfg)
    quarter, half = (c.seq_len_for_attention_share(n, cfg.num_layers, cfg.num_heads, cfg.head_dim, share)
                     for share in (0.25, 0.5))
    return _("{model}: attention is a quarter of the FLOPs at {quarter} tokens, half at {half}").format(
        model=cfg.name or _("the model"), quarter=format_int(quarter), half=format_int(half))


@v.checked
def attention_flops_text(models, seq_len) -> str:
    """A line per model: its 6N matmul FLOPs a training token, the attention's at ``seq_len`` tokens of context
    (``compute.attention_flops_per_token_for``), and the attention's share of the two."""
    if not isinstance(models, (list, tuple)) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a list of presets or configs.")
    lines = []
    for i, model in enumerate(models):
        try:
            cfg = config_from(model)
        except v.InputError as err:
            raise v.InputError("models", f"models[{i}]: {err}") from None
        matmuls = c.training_flops_per_token(c.flops_params(cfg))
        attention = c.attention_flops_per_token_for(cfg, seq_len)
        lines.append(_("{model:<14} 6N {matmuls:>8}   attention {attention:>8}   ({share} of all)").format(
            model=cfg.name or _("the model"), matmuls=format_flops(matmuls), attention=format_flops(attention),
            share=format_percent(attention / (matmuls + attention), 0)))
    return "\n".join(lines)


@v.checked
def training_cost_text(n_params, tokens, gpus, gpu="A100 80GB", mfu=0.4, price_low=2, price_high=3) -> str:
    """Training ``n_params`` on ``tokens`` (6·N·D) at ``mfu``: the FLOPs, GPU-seconds and GPU-hours, the days and
    years on one GPU (named without its memory: "A100"), the days on ``gpus``, and the cost at ``price_low`` to
    ``price_high`` dollars a GPU-hour."""
    low, high = (v.check_nonnegative(name, price) for name, price in (("price_low", price_low),
                                                                      ("price_high", price_high)))
    flops, peak = c.training_flops(n_params, tokens), hardware.gpu(gpu).bf16_flops_per_s
    hours = c.gpu_hours(flops, peak, mfu)
    return "\n".join([
        _("FLOPs {flops}; GPU-seconds {seconds}; GPU-hours {hours}").format(
            flops=format_flops(flops), seconds=f"{c.gpu_seconds(flops, peak, mfu):,.0f}", hours=f"{hours:,.0f}"),
        _("one {gpu}: {days} days = {years} years; {gpus} {gpu}s: {cluster} days; at ${low}-{high} an hour: "
          "{cost_low} to {cost_high}").format(
            gpu=re.sub(r" \d+GB$", "", gpu), days=f"{hours / 24:,.0f}",
            years=f"{hours / 24 / DAYS_PER_YEAR:.1f}", gpus=gpus,
            cluster=f"{c.training_days(flops, gpus, peak, mfu):.1f}", low=format_number(low), high=format_number(high),
            cost_low=f"${c.cost(hours, low):,.0f}", cost_high=f"${c.cost(hours, high):,.0f}")])


def remember_text() -> str:
    """The chapter's figures to remember: a 7B on 1T tokens in FLOPs and A100-hours at 40% MFU, the A100's and H100
    SXM's dense BF16 peaks, and the range and median of the published runs' MFU (``runs.mfu_range``)."""
    a100, h100 = (hardware.gpu(name).bf16_flops_per_s for name in ("A100 80GB", "H100 SXM"))
    flops, span = c.training_flops(7e9, 1e12), runs.mfu_range()
    rows = [
        (_("7B on 1T tokens"), _("{flops} FLOPs").format(flops=format_flops(flops))),
        (_("… on A100s at 40% MFU"), _("{hours} GPU-hours").format(hours=f"{c.gpu_hours(flops, a100, 0.4):,.0f}")),
        (_("A100 / H100 SXM dense BF16"), f"{a100 / 1e12:.0f} / {h100 / 1e12:.0f} TFLOPS"),
        (_("published MFU ({runs} runs, 6·N only)").format(runs=len(span.runs)),
         _("{low} to {high}, median {median}").format(low=format_percent(span.low.mfu, 0),
                                                       high=format_percent(span.high.mfu, 0),
                                                       median=format_percent(span.median, 0)))]
    width = max(38, *(display_width(label) + 1 for label, _value in rows))
    return "\n".join(label + " " * (width - display_width(label)) + " " + value for label, value in rows)


def time_margin_text() -> str:
    """The margin a plan adds to the ideal training time (``compute.TIME_MARGIN``)."""
    low, high = c.TIME_MARGIN
    return _("time margin: +{low} to +{high}").format(low=format_percent(low, 0), high=format_percent(high, 0))


@v.checked
def hfu_text(mfu) -> str:
    """The hardware FLOPs utilisation of a run at ``mfu`` with full recomputation (``compute.hfu_from_mfu``)."""
    return _("MFU {mfu} with full recomputation is HFU {hfu}").format(
        mfu=format_percent(mfu), hfu=format_percent(c.hfu_from_mfu(mfu), 1))


def resume_checkpoint_text() -> str:
    """The bytes a parameter of a checkpoint to resume mixed-precision AdamW from."""
    return _("resume checkpoint: {bytes} bytes a parameter").format(bytes=c.RESUME_CHECKPOINT_BYTES_PER_PARAM)


@v.checked
def checkpoint_storage_text(n_params, run_hours, interval_hours, keep=None) -> str:
    """The disk for a run's resume checkpoints saved every ``interval_hours``, all of them or the ``keep`` most
    recent (``compute.checkpoint_storage_bytes``)."""
    interval = (_("{minutes} min").format(minutes=format_number(interval_hours * 60)) if interval_hours < 1
                else _("{hours} h").format(hours=format_number(interval_hours)))
    text = (_("{params}, {days} days, every {interval}, keep all: {size}") if keep is None
            else _("{params}, {days} days, every {interval}, keep {keep}: {size}"))
    return text.format(params=_size(n_params), days=format_number(run_hours / 24), interval=interval, keep=keep,
                       size=format_bytes(c.checkpoint_storage_bytes(n_params, run_hours, interval_hours, keep)))


@v.checked
def feed_rate_text(n_params, tokens, days, gpus) -> str:
    """The tokens a second each GPU must be fed to train a model of ``n_params`` (named in the sentence) on
    ``tokens`` in ``days`` (``compute.tokens_per_second_per_gpu``)."""
    return _("feeding a {params} run of {tokens} tokens in {days} days on {gpus} GPUs: {rate} tokens/s per "
             "GPU").format(params=_size(n_params), tokens=_size(tokens), days=format_number(days),
                           gpus=format_int(gpus), rate=format_int(c.tokens_per_second_per_gpu(tokens, days, gpus)))


def decode_roofline_text(model, gpu) -> str:
    """Decoding a model in BF16 on a GPU, worked by hand: the weights, bandwidth and peak; the batch-1 step as weights
    over bandwidth (and ``plans.decode_estimate``'s); the KV cache a token; the ridge; and where decoding turns
    compute-bound (``compute.compute_bound_batch``, ``compute.kv_context_limit_for``)."""
    cfg, g = config_from(model), hardware.gpu(gpu)
    weights, n = model_weight_bytes(cfg), c.flops_params(cfg)
    bandwidth, peak = g.bandwidth_bytes_per_s, g.bf16_flops_per_s
    step = plans.decode_estimate(cfg, gpu, batch=1, seq_len=1).step_seconds
    batch = format_int(c.compute_bound_batch(weights, n, bandwidth, peak))
    limit = c.kv_context_limit_for(cfg, bandwidth, peak)
    lines = [
        _("weights {weights}, bandwidth {bandwidth} GB/s, peak {peak} TFLOPS").format(
            weights=format_bytes(weights), bandwidth=f"{bandwidth / 1e9:,.0f}", peak=f"{peak / 1e12:g}"),
        _("batch-1 step: weights / bandwidth = {ms} ms, {rate} tokens/s").format(
            ms=f"{weights / bandwidth * 1e3:.2f}", rate=f"{bandwidth / weights:,.0f}"),
        "  " + _("decode_estimate at 1 token of context: {ms} ms").format(ms=f"{step * 1e3:.2f}"),
        _("KV cache: {kv} a token (K and V · {layers} layers · {kv_heads} KV heads · {head_dim} wide · {bytes} "
          "bytes)").format(kv=format_bytes(kv_cache_bytes_for(cfg, 1), binary=True), layers=cfg.num_layers,
                           kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim, bytes=BYTES_PER_VALUE["bf16"]),
        _("ridge: peak / bandwidth = {ridge} FLOPs per byte").format(ridge=f"{peak / bandwidth:,.0f}"),
        _("compute-bound from batch {batch} with no KV cache, and with a batch large enough at any context (every "
          "layer windowed)").format(batch=batch) if limit == float("inf") else
        _("compute-bound from batch {batch} with no KV cache, but past {context} tokens of context at no "
          "batch").format(batch=batch, context=format_int(limit))]
    return "\n".join(lines)
