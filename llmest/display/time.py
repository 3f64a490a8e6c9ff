"""How a training-time estimate shows itself (``plans.estimate_time``): FLOPs, GPU-hours, days with the margin, and
cost, with the chain that links them in one line."""

from __future__ import annotations

from ..catalog import hardware
from ..formulas.compute import TIME_MARGIN
from ..core.i18n import N_, _, speaking
from ..core.units import UNITS, format_bytes, format_flops
from .common import price_text
from .memory import breakdown_block
from ..core.report import Report


FITS = {True: N_("True"), False: N_("False")}   # as the material's function printed whether it fits


def _number(value, unit: str) -> str:
    return UNITS[unit].format(value)


def _shown(value, unit: str) -> str:
    return UNITS[unit].show(value)


def derivation(est) -> str:
    """"6 × 7B × 1T = 4.2e22 FLOPs → ÷ (312 TFLOPS × 40%) = 93,483 GPU-hours → ÷ 256 GPUs = 15.2 days"; the
    product is shown where the FLOPs are 6·N·D alone (no attention term, no fine-tuning's count)."""
    total = _shown(est.flops, "FLOPs")
    if abs(est.flops - 6 * est.n_params * est.tokens) <= 1e-9 * est.flops:
        with speaking("en"):  # a formula's counts without their Chinese reading beside them
            n, d = _number(est.n_params, "parameters"), _number(est.tokens, "tokens")
        total = f"6 × {n} × {d} = {total}"
    return _("{flops} → ÷ ({peak} × {mfu}) = {hours} → ÷ {gpus} = {days}").format(
        flops=total, peak=_shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"), mfu=_shown(est.mfu, "fraction"),
        hours=_shown(est.gpu_hours, "GPU-hours"), gpus=_shown(est.gpus, "GPUs"), days=_shown(est.days, "days"))


def mfu_report(est) -> Report:
    """The MFU a run implies: its 6·N·D over what its GPU-hours do at the peak."""
    fields = [(_("FLOPs (6·N·D)"), _number(est.flops, "FLOPs")),
              (_("GPU-hours"), _number(est.gpu_hours, "GPU-hours")),
              ("MFU", _("{flops} ÷ ({hours} × 3,600 s × {peak}) = {mfu}").format(
                  flops=_shown(est.flops, "FLOPs"), hours=_shown(est.gpu_hours, "GPU-hours"),
                  peak=_shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"), mfu=_shown(est.mfu, "fraction")))]
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu_hours": est.gpu_hours,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu}
    return Report("", tuple(fields), data)


def training_report(est) -> Report:
    """The material's estimate_training: FLOPs, days with the margin, GPU-hours, memory per GPU, whether it fits."""
    low, high = est.days_with_margin
    title = _("{flops} FLOPs, {days} days ({low}-{high} with margin), {hours} GPU-hours").format(
        flops=format_flops(est.total_flops), days=f"{est.days:.1f}", low=f"{low:.1f}", high=f"{high:.1f}",
        hours=f"{est.gpu_hours:,.0f}")
    fits = _("fits in {usable} usable: {fits}").format(usable=format_bytes(est.usable_bytes), fits=_(FITS[est.fits]))
    data = {"flops": est.total_flops, "days": est.days, "days_with_margin": list(est.days_with_margin),
            "gpu_hours": est.gpu_hours, "memory_parts": est.memory.parts, "memory_per_gpu_bytes": est.memory.total,
            "usable_bytes": est.usable_bytes, "fits": est.fits}
    return Report(title, data=data, blocks=(breakdown_block(est.memory),), lines=(fits,))


def time_report(est) -> Report:
    low, high = est.days_with_margin
    margin = "-".join(_number(share, "fraction") for share in TIME_MARGIN)
    if est.seq_len is None:
        flops = [(_("FLOPs (6·N·D)"), _number(est.flops, "FLOPs"))]
        mfu_note = ""
    else:
        flops = [(_("FLOPs"), _("{flops}: 6·N·D {matmuls} + attention at {seq_len} tokens {attention}").format(
            flops=_number(est.flops, "FLOPs"), matmuls=_number(est.matmul_flops, "FLOPs"),
            seq_len=f"{est.seq_len:,}", attention=_number(est.attention_flops, "FLOPs")))]
        mfu_note = _(" (attention counted; on 6·N·D alone that is {mfu})").format(
            mfu=_shown(est.mfu_without_attention, "fraction"))
    fields = [
        (_("parameters (N)"), est.n_params_from or _number(est.n_params, "parameters")),
        (_("tokens (D)"), _number(est.tokens, "tokens")),
        *flops,
        ("GPU", _("{gpus} × {gpu}, {peak} at {mfu} MFU").format(
            gpus=f"{est.gpus:,}", gpu=est.gpu, peak=_shown(est.peak_flops_per_s / hardware.TERA, "TFLOPS"),
            mfu=_shown(est.mfu, "fraction")) + mfu_note),
        (_("GPU-hours"), _number(est.gpu_hours, "GPU-hours")),
        (_("days"), _("{days} ({low}-{high} with a {margin} margin for checkpoints, evaluation and restarts)").format(
            days=_number(est.days, "days"), low=_number(low, "days"), high=_number(high, "days"), margin=margin)),
        (_("cost"), _("{cost} at {price}").format(
            cost=_shown(est.cost_usd, "USD"), price=price_text(est.price_per_gpu_hour, est.gpu, est.price_listed))),
        (_("derivation"), derivation(est)),
    ]
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu": est.gpu,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu, "gpus": est.gpus, "gpu_hours": est.gpu_hours,
            "days": est.days, "days_with_margin": [low, high], "cost_usd": est.cost_usd,
            "price_per_gpu_hour": est.price_per_gpu_hour, "price_listed": est.price_listed, "seq_len": est.seq_len,
            "matmul_flops": est.matmul_flops, "attention_flops": est.attention_flops,
            "mfu_counts_attention": est.seq_len is not None, "mfu_without_attention": est.mfu_without_attention}
    return Report("", tuple(fields), data)
