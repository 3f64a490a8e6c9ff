"""Chapter 6's figure: what autograd keeps for backward, measured, beside chapter 2's formula."""

from __future__ import annotations

from ...core.i18n import _
from .base import axes as _axes

ATTENTION_COLORS = {"sdpa": "C0", "eager": "C3"}
ATTENTION_MARKERS = {"sdpa": "o", "eager": "s"}


def saved_for_backward(cfg, batch: int, measured: dict, ax=None):
    """Bytes saved for backward against sequence length: chapter 2's formula as a dashed line for each attention
    (``sdpa``: FlashAttention, ``eager``: none) and the ``measured`` bytes, keyed (attention, sequence length), as
    points."""
    from ...formulas import memory as mem

    ax = _axes(ax, (7, 4))
    for attention in ATTENTION_COLORS:
        lengths = sorted(seq for kind, seq in measured if kind == attention)
        if not lengths:
            continue
        flash = attention == "sdpa"
        formula_lengths = range(64, lengths[-1] + 1, 32)
        ax.plot(formula_lengths, [mem.activations_per_gpu(cfg, batch, seq, flash=flash) / 1e6
                                  for seq in formula_lengths], "--", color=ATTENTION_COLORS[attention],
                label=_("chapter 2's formula, FlashAttention") if flash else _("chapter 2's formula, no "
                                                                             "FlashAttention"))
        ax.plot(lengths, [measured[attention, seq] / 1e6 for seq in lengths], ATTENTION_MARKERS[attention],
                color=ATTENTION_COLORS[attention],
                label=_("measured, {attention} attention").format(attention=attention))
    ax.set(xlabel=_("sequence length (tokens)"), ylabel=_("saved for backward (MB)"),
           title=_("The tiny model in BF16, {batch} sequences: what autograd keeps").format(batch=batch))
    ax.legend()
    return ax
