"""Chapter 2's figures: memory per GPU by plan, bytes per parameter, activations and the KV cache."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...formulas import model as m
from ...core._validate import InputError, quote
from ...core.i18n import _
from ...core.units import format_bytes, format_number, format_percent
from .base import MEMORY_COLORS, axes as _axes, part_label


def memory_stacks(breakdowns: dict, gpu=None, ax=None, margin=None, xmax=None):
    """One stacked bar per MemoryBreakdown (GB per GPU), its total written at its end, with a GPU's memory and its
    usable part (``plans.usable_bytes``) marked. ``xmax`` (GB) cuts the axis: a longer bar says its total there."""
    from ...catalog import hardware
    from ... import plans
    from ...formulas.memory import MEMORY_MARGIN

    margin = MEMORY_MARGIN if margin is None else margin
    if not isinstance(breakdowns, dict) or not breakdowns:
        raise InputError("breakdowns", _("breakdowns == {value}, must be a non-empty dict of label: "
                                         "MemoryBreakdown.").format(value=quote(breakdowns)))
    ax = _axes(ax, (8.5, 0.5 * len(breakdowns) + 1.5))
    labels = list(breakdowns)
    left = np.zeros(len(labels))
    for part, color in MEMORY_COLORS.items():
        values = np.array([b.parts.get(part, 0) / 1e9 for b in breakdowns.values()])
        if values.any():
            ax.barh(labels, values, left=left, color=color, label=part_label(part))
            left += values
    if gpu is not None:
        card = hardware.gpu(gpu)
        ax.axvline(card.memory_bytes / 1e9, color="black", lw=1,
                   label=f"{card.name}: {card.memory_text}")
        ax.axvline(plans.usable_bytes(gpu, margin) / 1e9, color="black", lw=1, ls="--",
                   label=_("usable ({share})").format(share=format_percent(1 - margin, 0)))
    # room for the totals' labels beyond the longest bar (or the GPU's line)
    ax.set_xlim(0, xmax if xmax is not None else 1.15 * max(ax.get_xlim()[1], left.max()))
    end = ax.get_xlim()[1]
    for y, b in enumerate(breakdowns.values()):
        over = b.total / 1e9 > end
        ax.text(end if over else b.total / 1e9, y, f" {format_bytes(b.total)}{' →' if over else ''} ", va="center",
                ha="right" if over else "left", fontsize=8, color="white" if over else "black",
                bbox=None if over else dict(facecolor="white", edgecolor="none", pad=0.3, alpha=0.8))
    ax.invert_yaxis()
    ax.set_xlabel(_("GB per GPU"))
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return ax


def _plans_by(param: str, labelled: dict, build, own: tuple):
    """{label: build(value)} for a dict of label: value. A bad value (an error about one of the ``own`` parameters
    it supplies) is refused under ``param``; an error about anything else keeps its own name."""
    if not isinstance(labelled, dict) or not labelled:
        raise InputError(param, _("{name} == {value}, must be a non-empty dict.").format(name=param,
                                                                                      value=quote(labelled)))
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
    from ... import plans

    if isinstance(stages, (str, bytes)) or not np.iterable(stages):
        raise InputError("stages", _("stages == {value}, must be ZeRO stages such as (0, 1, 2, 3).").format(
            value=quote(stages)))
    plan = _plans_by("stages", {f"ZeRO-{z}": z for z in stages},
                     lambda zero: plans.training_memory(model, zero=zero, **settings), own=("zero",))
    ax = memory_stacks(plan, gpu=gpu, ax=ax)
    ax.set_title(_("{model}: memory per GPU by ZeRO stage").format(model=m.config_from(model).name or model),
                 fontsize=10)
    return ax


def parallel_layouts(model, layouts, gpu="A100 80GB", ax=None, xmax=None, **settings):
    """Memory per GPU of training ``model`` in each layout, ``layouts`` a dict of name: (zero, dp, tp, pp), or a
    list of (zero, dp, tp, pp) named as a table names them (``layout_name``), with ``plans.training_memory`` and
    ``settings``, against the GPU. ``xmax`` defaults to twice the GPU's memory."""
    from ...catalog import hardware
    from ... import plans
    from ..layout import layout_name

    def named(layout) -> str:
        try:
            return layout_name(*layout)
        except (InputError, TypeError):  # not a layout: refused below, under "layouts"
            return repr(layout)

    if isinstance(layouts, (list, tuple)):
        layouts = {named(layout): layout for layout in layouts}

    def plan(layout):
        zero, dp, tp, pp = layout
        return plans.training_memory(model, zero=zero, dp=dp, tp=tp, pp=pp, **settings)

    found = _plans_by("layouts", layouts, plan, own=("zero", "dp", "tp", "pp"))
    xmax = 2 * hardware.gpu(gpu).memory_bytes / 1e9 if xmax is None else xmax
    ax = memory_stacks(found, gpu=gpu, ax=ax, xmax=xmax)
    ax.set_title(_("{model}: memory per GPU by layout").format(model=m.config_from(model).name or model), fontsize=10)
    ax.set_yticks(range(len(found)), [_("{name}, {gpus} GPUs").format(name=name, gpus=b.gpus)
                                      for name, b in found.items()])
    return ax


def bytes_per_param(optimizers=None, conventions=None, axes=None):
    """Bytes per parameter of each training state (weights, master copy, gradients, optimizer states), stacked, one
    bar per convention and one panel per optimizer (``memory.state_bytes_per_param``). Returns the panels."""
    from ...formulas import memory as mem

    optimizers = list(mem.OPTIMIZERS) if optimizers is None else list(optimizers)
    conventions = list(mem.CONVENTIONS) if conventions is None else list(conventions)
    for param, names in (("optimizers", optimizers), ("conventions", conventions)):
        if not names:
            raise InputError(param, _("{name} == [], must name at least one.").format(name=param))
    states = {o: [mem.state_bytes_per_param(c, o) for c in conventions] for o in optimizers}
    if axes is None:
        axes = plt.subplots(1, len(optimizers), figsize=(10, 0.4 * len(conventions) + 1.6), sharex=True,
                            sharey=True, layout="constrained", squeeze=False)[1][0]
    parts = (("weights", "weights"), ("master", "master"), ("grads", "gradients"), ("optimizer", "optimizer"))
    for ax, optimizer in zip(axes, optimizers):
        left = np.zeros(len(conventions))
        for field, part in parts:
            values = np.array([getattr(s, field) for s in states[optimizer]])
            ax.barh(conventions, values, left=left, color=MEMORY_COLORS[part], label=part_label(part))
            left += values
        for y, s in enumerate(states[optimizer]):
            ax.text(s.total, y, f" {format_number(s.total)}", va="center", fontsize=8)
        ax.set_title(optimizer, fontsize=10)
        ax.set_xlabel(_("bytes per parameter"))
    axes[0].invert_yaxis()
    axes[0].set_xlim(0, max(s.total for row in states.values() for s in row) * 1.25)
    axes[0].legend(fontsize=7, loc="lower right")
    return axes


def activations_vs_sequence(cfg, micro_batch=1, ax=None):
    """Activations of a model's layers against sequence length, by recomputation setting (log scale)."""
    from ...formulas import memory as mem

    ax = _axes(ax, (7, 4))
    seqs = np.array([512, 1024, 2048, 4096, 8192, 16384, 32768])
    settings = [(_("no recomputation"), dict(recompute="none", flash=False)),
                (_("FlashAttention (= selective)"), dict(recompute="none", flash=True)),
                (_("full recomputation"), dict(recompute="full", flash=True))]
    for label, kw in settings:
        values = [mem.activations_per_gpu(cfg, micro_batch, int(s), **kw) / 1e9 for s in seqs]
        ax.plot(seqs, values, "o-", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(_("sequence length (tokens)"))
    ax.set_ylabel(_("activations, GB (micro-batch {micro_batch})").format(micro_batch=micro_batch))
    ax.set_title(_("{name}: the S² attention scores dominate without FlashAttention").format(name=cfg.name),
                 fontsize=10)
    ax.legend(fontsize=8)
    return ax


def _kv_label(name, cfg) -> str:
    if cfg.is_hybrid:
        from ...formulas.hybrid_cache import state_bytes_per_sequence

        return _("{name} (hybrid: KV on {attention} of {layers} layers, {state} of constant state)").format(
            name=name, attention=cfg.attention_layers, layers=cfg.num_layers,
            state=format_bytes(state_bytes_per_sequence(cfg)))
    if cfg.is_mla:
        return _("{name} (MLA: latent {rank} + rotary {rope} a layer)").format(name=name, rank=cfg.kv_lora_rank,
                                                                                rope=cfg.qk_rope_head_dim)
    window = (_(", {local} of {layers} layers in a {window}-token window").format(
        local=cfg.local_layers, layers=cfg.num_layers, window=f"{cfg.local_window:,}") if cfg.local_layers else "")
    return _("{name} ({kind}, {kv_heads} KV heads{window})").format(name=name, kind=cfg.attention_kind,
                                                                    kv_heads=cfg.num_kv_heads, window=window)


def kv_cache_vs_tokens(models, batch=1, ax=None, max_tokens=32768):
    """KV cache against context length for several models, each as it is built (KV heads, MLA, windows; a hybrid's
    attention layers only, with the constant state of its other layers)."""
    from ...formulas.hybrid_cache import hybrid_cache_bytes_for

    ax = _axes(ax, (7, 4))
    tokens = np.linspace(0, max_tokens, 65)[1:]
    for name in models:
        cfg = m.preset(name)
        ax.plot(tokens, [hybrid_cache_bytes_for(cfg, t, batch) / 1e9 for t in tokens], label=_kv_label(name, cfg))
    ax.set_xlabel(_("tokens in context"))
    ax.set_ylabel(_("KV cache, GB (batch {batch}, BF16)").format(batch=batch))
    ax.legend(fontsize=8)
    return ax
