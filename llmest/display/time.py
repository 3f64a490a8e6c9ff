"""How a training-time estimate shows itself (``plans.estimate_time``): FLOPs, GPU-hours, days with the margin, and
cost, with the chain that links them in one line."""

from __future__ import annotations

from ..catalog import hardware
from ..formulas.compute import TIME_MARGIN
from ..formulas.precision import RECIPES
from ..core.i18n import _, speaking
from ..core.units import format_bytes, format_flops, format_int, read_in_chinese
from .common import TRUE_FALSE, no_price_text, number, price_text, shown
from .memory import breakdown_block
from ..core.report import Report


def derivation(est) -> str:
    """"6 × 7B × 1T = 4.2e22 FLOPs → ÷ (312 TFLOPS × 40%) = 93,483 GPU-hours → ÷ 256 GPUs = 15.2 days"; the
    product is shown where the FLOPs are 6·N·D alone (no attention term, no fine-tuning's count)."""
    total = shown(est.flops, "FLOPs")
    if abs(est.flops - 6 * est.n_params * est.tokens) <= 1e-9 * est.flops:
        with speaking("en"):  # a formula's counts without their Chinese reading beside them
            n, d = number(est.n_params, "parameters"), number(est.tokens, "tokens")
        total = f"6 × {n} × {d} = {total}"
    return _("{flops} → ÷ ({peak} × {mfu}) = {hours} → ÷ {gpus} = {days}").format(
        flops=total, peak=shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"), mfu=shown(est.mfu, "fraction"),
        hours=shown(est.gpu_hours, "GPU-hours"), gpus=shown(est.gpus, "GPUs"), days=shown(est.days, "days"))


def mfu_report(est) -> Report:
    """The MFU a run implies: its 6·N·D over what its GPU-hours do at the peak."""
    fields = [(_("FLOPs (6·N·D)"), number(est.flops, "FLOPs")),
              (_("GPU-hours"), number(est.gpu_hours, "GPU-hours")),
              ("MFU", _("{flops} ÷ ({hours} × 3,600 s × {peak}) = {mfu}").format(
                  flops=shown(est.flops, "FLOPs"), hours=shown(est.gpu_hours, "GPU-hours"),
                  peak=shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"), mfu=shown(est.mfu, "fraction")))]
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu_hours": est.gpu_hours,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu}
    return Report("", tuple(fields), data)


def training_report(est) -> Report:
    """The material's estimate_training: FLOPs, days with the margin, GPU-hours, memory per GPU, whether it fits."""
    low, high = est.days_with_margin
    title = _("{flops} FLOPs, {days} days ({low}-{high} with margin), {hours} GPU-hours").format(
        flops=format_flops(est.total_flops), days=f"{est.days:.1f}", low=f"{low:.1f}", high=f"{high:.1f}",
        hours=read_in_chinese(format_int)(est.gpu_hours))
    fits = _("fits in {usable} usable: {fits}").format(usable=format_bytes(est.usable_bytes),
                                                         fits=_(TRUE_FALSE[est.fits]))
    data = {"flops": est.total_flops, "days": est.days, "days_with_margin": list(est.days_with_margin),
            "gpu_hours": est.gpu_hours, "memory_parts": est.memory.parts, "memory_per_gpu_bytes": est.memory.total,
            "usable_bytes": est.usable_bytes, "fits": est.fits}
    return Report(title, data=data, blocks=(breakdown_block(est.memory),), lines=(fits,))


def time_report(est) -> Report:
    low, high = est.days_with_margin
    margin = "-".join(number(share, "fraction") for share in TIME_MARGIN)
    if est.seq_len is None:
        flops = [(_("FLOPs (6·N·D)"), number(est.flops, "FLOPs"))]
        mfu_note = ""
    else:
        flops = [(_("FLOPs"), _("{flops}: 6·N·D {matmuls} + attention at {seq_len} tokens {attention}").format(
            flops=number(est.flops, "FLOPs"), matmuls=number(est.matmul_flops, "FLOPs"),
            seq_len=f"{est.seq_len:,}", attention=number(est.attention_flops, "FLOPs")))]
        mfu_note = _(" (attention counted; on 6·N·D alone that is {mfu})").format(
            mfu=shown(est.mfu_without_attention, "fraction"))
    fields = [
        (_("parameters (N)"), est.n_params_from or number(est.n_params, "parameters")),
        (_("tokens (D)"), number(est.tokens, "tokens")),
        *flops,
        ("GPU", _("{gpus} × {gpu}, {peak} at {mfu} MFU").format(
            gpus=f"{est.gpus:,}", gpu=est.gpu or "GPU", peak=shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"),
            mfu=shown(est.mfu, "fraction")) + (_(" (against the BF16 peak)") if est.precision else "") + mfu_note),
        *precision_fields(est),
        (_("GPU-hours"), number(est.gpu_hours, "GPU-hours")),
        (_("days"), _("{days} ({low}-{high} with a {margin} margin for checkpoints, evaluation and restarts)").format(
            days=number(est.days, "days"), low=number(low, "days"), high=number(high, "days"), margin=margin)),
        (_("cost"), no_price_text(est.gpu) if est.cost_usd is None else _("{cost} at {price}").format(
            cost=shown(est.cost_usd, "USD"), price=price_text(est.price_per_gpu_hour, est.gpu, est.price_listed))),
        (_("derivation"), derivation(est)),
    ]
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu": est.gpu or None,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu, "gpus": est.gpus, "gpu_hours": est.gpu_hours,
            "days": est.days, "days_with_margin": [low, high], "cost_usd": est.cost_usd,
            "price_per_gpu_hour": est.price_per_gpu_hour, "price_listed": est.price_listed, "seq_len": est.seq_len,
            "matmul_flops": est.matmul_flops, "attention_flops": est.attention_flops,
            "mfu_counts_attention": est.seq_len is not None, "mfu_without_attention": est.mfu_without_attention,
            "precision": est.precision or None, "bf16_mfu": est.bf16_mfu, "gemm_speedup": est.gemm_speedup,
            "low_precision_flops": est.low_precision_flops, "low_peak_flops_per_s": est.low_peak_flops_per_s,
            "mfu_against_low_peak": (est.mfu * est.peak_flops_per_s / est.low_peak_flops_per_s
                                     if est.low_peak_flops_per_s else None)}
    return Report("", tuple(fields), data)


def precision_fields(est) -> list:
    """Under a precision recipe: what runs in low precision, how much faster, and the MFU in both conventions."""
    if not est.precision:
        return []
    low_mfu = est.mfu * est.peak_flops_per_s / est.low_peak_flops_per_s
    return [(_("precision"), _("{recipe}: {flops} of matmuls {speedup}× as fast as in BF16 (at {low_peak}); the "
                               "rest (attention, the output layer) in BF16").format(
        recipe=est.precision, flops=number(est.low_precision_flops, "FLOPs"), speedup=f"{est.gemm_speedup:.2f}",
        low_peak=shown(est.low_peak_flops_per_s / hardware.TERA, "TFLOPS"))),
        (_("MFU"), _("{mfu} against the BF16 peak, {low_mfu} against the {rate} peak; {bf16_mfu} with BF16 "
                     "matmuls").format(mfu=shown(est.mfu, "fraction"), low_mfu=shown(low_mfu, "fraction"),
                                       rate=RECIPES[est.precision].matmul.upper(),
                                       bf16_mfu=shown(est.bf16_mfu, "fraction")))]
