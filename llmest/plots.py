"""Figures for the chapters. Each function draws on an Axes (a new figure when none is given) and returns it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import model as m
from ._validate import InputError, quote
from .units import format_bytes, format_int, format_number, format_percent

PART_COLORS = {
    "embeddings": "#4c72b0", "positions": "#64b5cd", "embedding_projections": "#8172b2", "attention": "#dd8452",
    "ffn": "#55a868", "experts": "#55a868", "shared_experts": "#8fbc8f", "router": "#c44e52", "norms": "#937860",
    "output_head": "#da8bc3",
}


def _axes(ax, size):
    if ax is None:
        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def part_shares(names, ax=None):
    """Stacked bars: the share of each part in several models' totals."""
    ax = _axes(ax, (7, 0.45 * len(names) + 1.2))
    counts = [m.count_params(m.preset(n)) for n in names]
    left = np.zeros(len(names))
    for part in m.PARTS:
        shares = np.array([c.parts[part] / c.total for c in counts])
        if shares.any():
            ax.barh(names, shares, left=left, color=PART_COLORS[part], label=part.replace("_", " "))
            left += shares
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of all parameters")
    ax.legend(ncol=4, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(names) < 6 else -0.15))
    return ax


def rule_error(names, ax=None):
    """How far the material's L·12H² + V·H rule lands from each real model's exact count."""
    ax = _axes(ax, (7, 0.4 * len(names) + 1))
    errors = []
    for name in names:
        cfg = m.preset(name)
        exact = m.count_params(cfg).total
        errors.append(m.rule_params(cfg.hidden_size, cfg.num_layers, cfg.vocab_size) / exact - 1)
    errors = np.array(errors)
    ax.barh(names, errors * 100, color=np.where(errors < 0, "#c44e52", "#4c72b0"))
    ax.axvline(0, color="black", lw=0.8)
    ax.invert_yaxis()
    for y, e in enumerate(errors):
        ax.text(e * 100, y, f" {format_percent(e, 1, signed=True)} ", va="center", ha="left" if e >= 0 else "right",
                fontsize=8)
    span = max(abs(errors).max() * 100 * 1.4, 5)
    ax.set_xlim(-span, span)
    ax.set_xlabel("rule − exact, % of exact")
    ax.set_title("the rule L·12·H² + V·H against each model's exact count", fontsize=10)
    return ax


def size_table_curves(rows, vocab_size=32000, ax=None):
    """Rule parameters against hidden size for each row's layer count, with the rows' stated ranges marked.

    ``rows``: (label, layers, hidden, (low, high)) tuples, e.g. the material's size table."""
    ax = _axes(ax, (7, 4))
    hidden = np.linspace(1024, 9216, 200)
    for label, layers, h, (low, high) in rows:
        line, = ax.plot(hidden, m.rule_params(hidden, layers, vocab_size) / 1e9, lw=1, label=f"L = {layers}")
        ax.plot([h, h], [low / 1e9, high / 1e9], color=line.get_color(), lw=6, alpha=0.35)
        ax.plot(h, m.rule_params(h, layers, vocab_size) / 1e9, "o", color=line.get_color())
        ax.annotate(label, (h, high / 1e9), textcoords="offset points", xytext=(-10, 6), fontsize=8)
    ax.set_xlabel("hidden size H")
    ax.set_ylabel("parameters (billions)")
    ax.set_title("dots: the rule at the table's L and H; bands: the table's stated range", fontsize=9)
    ax.legend(fontsize=8)
    return ax


MEMORY_COLORS = {"weights": "#4c72b0", "master": "#8172b2", "gradients": "#dd8452", "optimizer": "#c44e52",
                 "adapters": "#937860", "activations": "#55a868", "kv_cache": "#64b5cd", "overhead": "#8c8c8c"}


def memory_stacks(breakdowns: dict, gpu=None, ax=None, margin=None, xmax=None):
    """One stacked bar per MemoryBreakdown (GB per GPU), its total written at its end, with a GPU's memory and its
    usable part (``plans.usable_bytes``) marked. ``xmax`` (GB) cuts the axis: a longer bar says its total there."""
    from . import hardware, plans
    from .memory import MEMORY_MARGIN

    margin = MEMORY_MARGIN if margin is None else margin
    if not isinstance(breakdowns, dict) or not breakdowns:
        raise InputError("breakdowns", f"breakdowns == {quote(breakdowns)}, must be a non-empty dict of label: "
                                       "MemoryBreakdown.")
    ax = _axes(ax, (8.5, 0.5 * len(breakdowns) + 1.5))
    labels = list(breakdowns)
    left = np.zeros(len(labels))
    for part, color in MEMORY_COLORS.items():
        values = np.array([b.parts.get(part, 0) / 1e9 for b in breakdowns.values()])
        if values.any():
            ax.barh(labels, values, left=left, color=color, label=part.replace("_", " "))
            left += values
    if gpu is not None:
        card = hardware.gpu(gpu)
        ax.axvline(card.memory_bytes / 1e9, color="black", lw=1,
                   label=f"{card.name}: {card.memory_text}")
        ax.axvline(plans.usable_bytes(gpu, margin) / 1e9, color="black", lw=1, ls="--",
                   label=f"usable ({format_percent(1 - margin, 0)})")
    # room for the totals' labels beyond the longest bar (or the GPU's line)
    ax.set_xlim(0, xmax if xmax is not None else 1.15 * max(ax.get_xlim()[1], left.max()))
    end = ax.get_xlim()[1]
    for y, b in enumerate(breakdowns.values()):
        over = b.total / 1e9 > end
        ax.text(end if over else b.total / 1e9, y, f" {format_bytes(b.total)}{' →' if over else ''} ", va="center",
                ha="right" if over else "left", fontsize=8, color="white" if over else "black",
                bbox=None if over else dict(facecolor="white", edgecolor="none", pad=0.3, alpha=0.8))
    ax.invert_yaxis()
    ax.set_xlabel("GB per GPU")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return ax


def _plans_by(param: str, labelled: dict, build, own: tuple):
    """{label: build(value)} for a dict of label: value. A bad value (an error about one of the ``own`` parameters
    it supplies) is refused under ``param``; an error about anything else keeps its own name."""
    if not isinstance(labelled, dict) or not labelled:
        raise InputError(param, f"{param} == {quote(labelled)}, must be a non-empty dict.")
    found = {}
    for label, value in labelled.items():
        try:
            found[label] = build(value)
        except InputError as err:
            if err.param not in own:
                raise
            raise InputError(param, f"{param}[{label!r}]: {err}") from None
        except (TypeError, ValueError) as err:   # not the shape asked for
            raise InputError(param, f"{param}[{label!r}] == {quote(value)}: {err}") from None
    return found


def memory_by_zero_stage(model, gpu="A100 80GB", stages=(0, 1, 2, 3), ax=None, **settings):
    """Memory per GPU of training ``model`` at each ZeRO stage (``plans.training_memory`` with ``settings``:
    dp, tp, micro_batch, ...), stacked by part, against the GPU's memory and its usable part."""
    from . import plans

    if isinstance(stages, (str, bytes)) or not np.iterable(stages):
        raise InputError("stages", f"stages == {quote(stages)}, must be ZeRO stages such as (0, 1, 2, 3).")
    plan = _plans_by("stages", {f"ZeRO-{z}": z for z in stages},
                     lambda zero: plans.training_memory(model, zero=zero, **settings), own=("zero",))
    ax = memory_stacks(plan, gpu=gpu, ax=ax)
    ax.set_title(f"{m.config_from(model).name or model}: memory per GPU by ZeRO stage", fontsize=10)
    return ax


def parallel_layouts(model, layouts: dict, gpu="A100 80GB", ax=None, xmax=None, **settings):
    """Memory per GPU of training ``model`` in each layout, ``layouts`` a dict of name: (zero, dp, tp, pp)
    (``plans.training_memory`` with ``settings``), against the GPU. ``xmax`` defaults to twice the GPU's memory."""
    from . import hardware, plans

    def plan(layout):
        zero, dp, tp, pp = layout
        return plans.training_memory(model, zero=zero, dp=dp, tp=tp, pp=pp, **settings)

    found = _plans_by("layouts", layouts, plan, own=("zero", "dp", "tp", "pp"))
    xmax = 2 * hardware.gpu(gpu).memory_bytes / 1e9 if xmax is None else xmax
    ax = memory_stacks(found, gpu=gpu, ax=ax, xmax=xmax)
    ax.set_title(f"{m.config_from(model).name or model}: memory per GPU by layout", fontsize=10)
    ax.set_yticks(range(len(found)), [f"{name}, {b.gpus} GPUs" for name, b in found.items()])
    return ax


def bytes_per_param(optimizers=None, conventions=None, axes=None):
    """Bytes per parameter of each training state (weights, master copy, gradients, optimizer states), stacked, one
    bar per convention and one panel per optimizer (``memory.state_bytes_per_param``). Returns the panels."""
    from . import memory as mem

    optimizers = list(mem.OPTIMIZERS) if optimizers is None else list(optimizers)
    conventions = list(mem.CONVENTIONS) if conventions is None else list(conventions)
    for param, names in (("optimizers", optimizers), ("conventions", conventions)):
        if not names:
            raise InputError(param, f"{param} == [], must name at least one.")
    states = {o: [mem.state_bytes_per_param(c, o) for c in conventions] for o in optimizers}
    if axes is None:
        _, axes = plt.subplots(1, len(optimizers), figsize=(10, 0.4 * len(conventions) + 1.6), sharex=True,
                               sharey=True, layout="constrained", squeeze=False)
        axes = axes[0]
    parts = (("weights", "weights"), ("master", "master"), ("grads", "gradients"), ("optimizer", "optimizer"))
    for ax, optimizer in zip(axes, optimizers):
        left = np.zeros(len(conventions))
        for field, part in parts:
            values = np.array([getattr(s, field) for s in states[optimizer]])
            ax.barh(conventions, values, left=left, color=MEMORY_COLORS[part], label=part)
            left += values
        for y, s in enumerate(states[optimizer]):
            ax.text(s.total, y, f" {format_number(s.total)}", va="center", fontsize=8)
        ax.set_title(optimizer, fontsize=10)
        ax.set_xlabel("bytes per parameter")
    axes[0].invert_yaxis()
    axes[0].set_xlim(0, max(s.total for row in states.values() for s in row) * 1.25)
    axes[0].legend(fontsize=7, loc="lower right")
    return axes


def decode_speed(model, gpus, batch=1, seq_len=1024, weights="bf16", ax=None):
    """Decode tokens/s of ``batch`` sequences at ``seq_len`` tokens on each GPU (``plans.decode_estimate``, one
    GPU each), coloured by what bounds it."""
    from . import hardware, plans

    if isinstance(gpus, str) or not np.iterable(gpus) or not list(gpus):
        raise InputError("gpus", f"gpus == {quote(gpus)}, must be a list of GPU names such as ['A100 80GB'].")
    names = [hardware.gpu(g).name for g in gpus]
    estimates = [plans.decode_estimate(model, g, batch=batch, seq_len=seq_len, weights=weights) for g in gpus]
    ax = _axes(ax, (7, 0.4 * len(names) + 1.4))
    colors = {"memory": "#4c72b0", "compute": "#c44e52"}
    for bound, color in colors.items():
        rows = [i for i, e in enumerate(estimates) if e.bound == bound]
        if rows:
            ax.barh(rows, [estimates[i].tokens_per_s for i in rows], color=color,
                    label=f"{bound}-bound")
    for y, e in enumerate(estimates):
        ax.text(e.tokens_per_s, y, f" {format_int(e.tokens_per_s)}", va="center", fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlim(0, max(e.tokens_per_s for e in estimates) * 1.15)
    ax.set_xlabel("tokens/s per GPU")
    name = m.config_from(model).name or model
    ax.set_title(f"{name} in {weights}: decode speed, batch {batch}, {seq_len:,}-token context", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return ax


def activations_vs_sequence(cfg, micro_batch=1, ax=None):
    """Activations of a model's layers against sequence length, by recomputation setting (log scale)."""
    from . import memory as mem

    ax = _axes(ax, (7, 4))
    seqs = np.array([512, 1024, 2048, 4096, 8192, 16384, 32768])
    settings = [("no recomputation", dict(recompute="none", flash=False)),
                ("FlashAttention (= selective)", dict(recompute="none", flash=True)),
                ("full recomputation", dict(recompute="full", flash=True))]
    for label, kw in settings:
        values = [mem.activations_per_gpu(cfg, micro_batch, int(s), **kw) / 1e9 for s in seqs]
        ax.plot(seqs, values, "o-", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel(f"activations, GB (micro-batch {micro_batch})")
    ax.set_title(f"{cfg.name}: the S² attention scores dominate without FlashAttention", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def kv_cache_vs_tokens(models, batch=1, ax=None):
    """KV cache against context length for several models (their real KV heads)."""
    from . import memory as mem

    ax = _axes(ax, (7, 4))
    tokens = np.linspace(0, 32768, 65)[1:]
    for name in models:
        cfg = m.preset(name)
        ax.plot(tokens, [mem.kv_cache_bytes_for(cfg, t, batch) / 1e9 for t in tokens],
                label=f"{name} ({cfg.attention_kind}, {cfg.num_kv_heads} KV heads)")
    ax.set_xlabel("tokens in context")
    ax.set_ylabel(f"KV cache, GB (batch {batch}, BF16)")
    ax.legend(fontsize=8)
    return ax


def days_vs_gpus(flops, gpu="A100 80GB", mfus=(0.3, 0.4, 0.5), ax=None, marks=(), peak_flops_per_s=None):
    """Training days against GPU count for a FLOP budget, one line per MFU; ``marks``: (gpus, label) points at the
    middle MFU. ``peak_flops_per_s`` overrides the GPU's peak (and ``gpu`` then only names the card)."""
    from . import compute as cp
    from . import hardware

    ax = _axes(ax, (7, 4))
    peak = hardware.gpu(gpu).bf16_flops_per_s if peak_flops_per_s is None else peak_flops_per_s
    counts = np.logspace(3, 14, 23, base=2)
    for mfu in mfus:
        ax.plot(counts, cp.training_days(flops, counts, peak, mfu), label=f"MFU {format_percent(mfu, 0)}")
    for gpus, label in marks:
        days = cp.training_days(flops, gpus, peak, mfus[len(mfus) // 2])
        ax.plot(gpus, days, "o", color="black")
        ax.annotate(label, (gpus, days), textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(f"GPUs ({peak / 1e12:g} TFLOPS each)")
    ax.set_ylabel("days")
    ax.legend(fontsize=8)
    return ax


def published_mfu(ax=None):
    """The MFU each published run implies (runs.mfu_range, 6·N FLOPs per token), coloured by how it is known, against
    the material's 30-50% (seed 000) and 40-60% (seed 004)."""
    from . import runs

    span = runs.mfu_range()
    ax = _axes(ax, (7, 0.32 * len(span.runs) + 2.2))
    colors = dict(zip(dict.fromkeys(r.basis for r in span.runs), ("#4c72b0", "#c44e52", "#55a868", "#8172b2")))
    ax.axvspan(30, 50, color="#dd8452", alpha=0.18, label="seed 000: 30-50%")
    ax.axvspan(40, 60, color="#937860", alpha=0.10, label="seed 004: 40-60%")
    labelled = set()
    for y, run in enumerate(span.runs):
        label = None if run.basis in labelled else f"from {run.basis}"
        labelled.add(run.basis)
        ax.barh(y, run.mfu * 100, color=colors[run.basis], label=label)
        ax.text(run.mfu * 100, y, f" {format_percent(run.mfu, 0)}", va="center", fontsize=8)
    ax.set_yticks(range(len(span.runs)), [r.name for r in span.runs])
    ax.invert_yaxis()
    ax.set_xlim(0, 70)
    ax.set_xlabel("implied MFU, % (6·N FLOPs per token)")
    ax.set_title(f"published runs: {format_percent(span.low.mfu, 0)} ({span.low.name}) to "
                 f"{format_percent(span.high.mfu, 0)} ({span.high.name}), "
                 f"median {format_percent(span.median, 0)}", fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.45, -0.18))
    return ax


def roofline(model, gpu, seq_len=2048, weights="bf16", ax=None):
    """Decode tokens/s against batch: the memory-bandwidth bound, the compute bound, and their minimum, for the
    batches whose weights and KV cache fit the GPU with 20% kept free."""
    from . import plans

    ax = _axes(ax, (7, 4))
    batches = np.array([b for b in (2 ** k for k in range(0, 13))
                        if plans.fits(plans.inference_memory(model, weights=weights, seq_len=seq_len, batch=b),
                                      gpu)])
    estimates = [plans.decode_estimate(model, gpu, batch=int(b), seq_len=seq_len, weights=weights)
                 for b in batches]
    ax.plot(batches, [b / e.memory_seconds for b, e in zip(batches, estimates)], "--", label="memory bound")
    ax.plot(batches, [b / e.compute_seconds for b, e in zip(batches, estimates)], "--", label="compute bound")
    ax.plot(batches, [e.tokens_per_s for e in estimates], "o-", color="black", label="roofline")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch (sequences decoded together)")
    ax.set_ylabel("tokens/s")
    ax.set_title(f"{model} on {gpu}, {seq_len:,}-token context, {weights}", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def isoflop_curves(budgets=(1e19, 1e20, 1e21, 1e22, 1e23, 1e24), fit_name="besiroglu", ax=None):
    """Loss against model size at fixed FLOPs (D = C / 6N), one curve per budget, the optimum of each marked."""
    from . import data as dt

    ax = _axes(ax, (7, 4.2))
    law = dt.fit(fit_name)
    for budget in budgets:
        n_opt, _ = law.optimal(budget)
        sizes = n_opt * np.logspace(-1.3, 1.3, 60)
        ax.plot(sizes, law.loss(sizes, budget / (6 * sizes)), label=f"C = {budget:.0e}")
        ax.plot(n_opt, law.loss(n_opt, budget / (6 * n_opt)), "o", color="black", ms=4)
    ax.set_xscale("log")
    ax.set_xlabel("parameters N")
    ax.set_ylabel("fitted loss")
    ax.set_title(f"isoFLOP curves, {fit_name} fit; dots: the optimum of each", fontsize=10)
    ax.legend(fontsize=7)
    return ax


def tokens_per_param(ax=None):
    """Tokens per parameter of published models against Chinchilla's 20."""
    from . import data as dt

    ax = _axes(ax, (7, 3.4))
    names = [t.name for t in dt.TRAINED]
    values = [t.tokens_per_param for t in dt.TRAINED]
    ax.barh(names, values, color="#4c72b0")
    ax.axvline(dt.TOKENS_PER_PARAM, color="#c44e52", lw=1.5, label="Chinchilla's 20")
    ax.set_xscale("log")
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:,.0f}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("training tokens per parameter")
    ax.legend(fontsize=8)
    return ax
