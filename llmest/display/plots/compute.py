"""Chapter 3's figures: days against GPUs, published MFUs, decode speed and the roofline."""

from __future__ import annotations

import numpy as np

from ...formulas import model as m
from ...core._validate import InputError, quote
from ...core.i18n import _
from ...core.units import format_int, format_percent
from ..serving import BOUNDS
from .base import axes as _axes




def days_vs_gpus(flops, gpu="A100 80GB", mfus=(0.3, 0.4, 0.5), ax=None, marks=(), peak_flops_per_s=None):
    """Training days against GPU count for a FLOP budget, one line per MFU; ``marks``: (gpus, label) points at the
    middle MFU. ``peak_flops_per_s`` overrides the GPU's peak (and ``gpu`` then only names the card)."""
    from ...formulas import compute as cp
    from ...catalog import hardware

    ax = _axes(ax, (7, 4))
    peak = hardware.gpu(gpu).bf16_flops_per_s if peak_flops_per_s is None else peak_flops_per_s
    counts = np.logspace(3, 14, 23, base=2)
    for mfu in mfus:
        ax.plot(counts, cp.training_days(flops, counts, peak, mfu),
                label=_("MFU {mfu}").format(mfu=format_percent(mfu, 0)))
    for gpus, label in marks:
        days = cp.training_days(flops, gpus, peak, mfus[len(mfus) // 2])
        ax.plot(gpus, days, "o", color="black")
        ax.annotate(label, (gpus, days), textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(_("GPUs ({peak} TFLOPS each)").format(peak=f"{peak / 1e12:g}"))
    ax.set_ylabel(_("days"))
    ax.legend(fontsize=8)
    return ax


def published_mfu(ax=None):
    """The MFU each published run implies (runs.mfu_range, 6·N FLOPs per token), coloured by how it is known, against
    the material's 30-50% (seed 000) and 40-60% (seed 004)."""
    from ...catalog import runs

    span = runs.mfu_range()
    ax = _axes(ax, (7, 0.32 * len(span.runs) + 2.2))
    colors = dict(zip(dict.fromkeys(r.basis for r in span.runs), ("#4c72b0", "#c44e52", "#55a868", "#8172b2")))
    ax.axvspan(30, 50, color="#dd8452", alpha=0.18, label=_("seed 000: 30-50%"))
    ax.axvspan(40, 60, color="#937860", alpha=0.10, label=_("seed 004: 40-60%"))
    labelled = set()
    for y, run in enumerate(span.runs):
        label = None if run.basis in labelled else _("from {basis}").format(basis=_(run.basis))
        labelled.add(run.basis)
        ax.barh(y, run.mfu * 100, color=colors[run.basis], label=label)
        ax.text(run.mfu * 100, y, f" {format_percent(run.mfu, 0)}", va="center", fontsize=8)
    ax.set_yticks(range(len(span.runs)), [r.name for r in span.runs])
    ax.invert_yaxis()
    ax.set_xlim(0, 70)
    ax.set_xlabel(_("implied MFU, % (6·N FLOPs per token)"))
    ax.set_title(_("published runs: {low} ({low_name}) to {high} ({high_name}), median {median}").format(
        low=format_percent(span.low.mfu, 0), low_name=span.low.name, high=format_percent(span.high.mfu, 0),
        high_name=span.high.name, median=format_percent(span.median, 0)), fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.45, -0.18))
    return ax


def decode_speed(model, gpus, batch=1, seq_len=1024, weights="bf16", ax=None):
    """Decode tokens/s of ``batch`` sequences at ``seq_len`` tokens on each GPU (``plans.decode_estimate``, one
    GPU each), coloured by what bounds it."""
    from ...catalog import hardware
    from ... import plans

    if isinstance(gpus, str) or not np.iterable(gpus) or not list(gpus):
        raise InputError("gpus", _("gpus == {value}, must be a list of GPU names such as {example}.").format(
            value=quote(gpus), example="['A100 80GB']"))
    names = [hardware.gpu(g).name for g in gpus]
    estimates = [plans.decode_estimate(model, g, batch=batch, seq_len=seq_len, weights=weights) for g in gpus]
    ax = _axes(ax, (7, 0.4 * len(names) + 1.4))
    colors = {"memory": "#4c72b0", "compute": "#c44e52"}
    for bound, color in colors.items():
        rows = [i for i, e in enumerate(estimates) if e.bound == bound]
        if rows:
            ax.barh(rows, [estimates[i].tokens_per_s for i in rows], color=color,
                    label=_(BOUNDS[bound]))
    for y, e in enumerate(estimates):
        ax.text(e.tokens_per_s, y, f" {format_int(e.tokens_per_s)}", va="center", fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlim(0, max(e.tokens_per_s for e in estimates) * 1.15)
    ax.set_xlabel(_("tokens/s per GPU"))
    name = m.config_from(model).name or model
    ax.set_title(_("{name} in {weights}: decode speed, batch {batch}, {seq_len}-token context").format(
        name=name, weights=weights, batch=batch, seq_len=f"{seq_len:,}"), fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return ax


def mfu_by_year(ax=None):
    """The implied MFU of every published run against its year, a marker and colour per kind of chip, with the middle
    half of the runs (runs.mfu_range().assume) shaded as the range to assume."""
    from ...catalog import runs

    span = runs.mfu_range()
    ax = _axes(ax, (8, 4.4))
    ax.axhspan(span.assume[0] * 100, span.assume[1] * 100, color="#dd8452", alpha=0.18,
               label=_("middle half: {low} to {high}").format(low=format_percent(span.assume[0], 0),
                                                              high=format_percent(span.assume[1], 0)))
    kinds = list(dict.fromkeys(r.hardware for r in runs.RUNS))
    style = {kind: (marker, color) for kind, marker, color in
             zip(kinds, "osD^vP*X", ("#8c8c8c", "#4c72b0", "#55a868", "#8172b2", "#c44e52", "#dd8452", "#937860"))}
    in_year, labelled = {}, set()
    for run in runs.RUNS:
        offset = in_year[run.year] = in_year.get(run.year, -1) + 1
        x = run.year - 0.3 + 0.1 * offset  # the runs of one year side by side
        marker, color = style[run.hardware]
        ax.scatter(x, run.mfu * 100, marker=marker, s=40, color=color,
                   label=None if run.hardware in labelled else run.hardware)
        labelled.add(run.hardware)
        ax.annotate(run.name, (x, run.mfu * 100), fontsize=6, rotation=35, xytext=(2, 3), textcoords="offset points")
    ax.set_xticks(sorted({r.year for r in runs.RUNS}))
    ax.set_xlim(min(in_year) - 0.5, max(in_year) + 0.9)
    ax.set_ylim(0, 62)
    ax.set_xlabel(_("year of the run"))
    ax.set_ylabel(_("implied MFU, % (6·N FLOPs per token)"))
    ax.set_title(_("{n} published runs: median {median}").format(n=len(runs.RUNS),
                                                                  median=format_percent(span.median, 0)), fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return ax


def roofline(model, gpu, seq_len=2048, weights="bf16", ax=None):
    """Decode tokens/s against batch: the memory-bandwidth bound, the compute bound, and their minimum, for the
    batches whose weights and KV cache fit the GPU with 20% kept free."""
    from ... import plans

    ax = _axes(ax, (7, 4))
    batches = np.array([b for b in (2 ** k for k in range(0, 13))
                        if plans.fits(plans.inference_memory(model, weights=weights, seq_len=seq_len, batch=b),
                                      gpu)])
    estimates = [plans.decode_estimate(model, gpu, batch=int(b), seq_len=seq_len, weights=weights)
                 for b in batches]
    ax.plot(batches, [b / e.memory_seconds for b, e in zip(batches, estimates)], "--", label=_("memory bound"))
    ax.plot(batches, [b / e.compute_seconds for b, e in zip(batches, estimates)], "--", label=_("compute bound"))
    ax.plot(batches, [e.tokens_per_s for e in estimates], "o-", color="black", label=_("roofline"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(_("batch (sequences decoded together)"))
    ax.set_ylabel("tokens/s")
    ax.set_title(_("{model} on {gpu}, {seq_len}-token context, {weights}").format(
        model=model, gpu=gpu, seq_len=f"{seq_len:,}", weights=weights), fontsize=10)
    ax.legend(fontsize=8)
    return ax
