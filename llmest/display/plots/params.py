"""Chapter 1's figures: where parameters go, and how far the rule misses."""

from __future__ import annotations

import numpy as np

from ...formulas import model as m
from ...core.i18n import _
from ...core.units import format_percent
from .base import PART_COLORS, axes as _axes, part_label


def part_shares(names, ax=None):
    """Stacked bars: the share of each part in several models' totals."""
    ax = _axes(ax, (7, 0.45 * len(names) + 1.2))
    counts = [m.count_params(m.preset(n)) for n in names]
    left = np.zeros(len(names))
    for part in m.PARTS:
        shares = np.array([c.parts[part] / c.total for c in counts])
        if shares.any():
            ax.barh(names, shares, left=left, color=PART_COLORS[part], label=part_label(part))
            left += shares
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel(_("share of all parameters"))
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
    ax.set_xlabel(_("rule − exact, % of exact"))
    ax.set_title(_("the rule L·12·H² + V·H against each model's exact count"), fontsize=10)
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
    ax.set_xlabel(_("hidden size H"))
    ax.set_ylabel(_("parameters (billions)"))
    ax.set_title(_("dots: the rule at the table's L and H; bands: the table's stated range"), fontsize=9)
    ax.legend(fontsize=8)
    return ax

