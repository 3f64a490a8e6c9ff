"""Chapter 4's figures: compute-optimal curves and tokens per parameter."""

from __future__ import annotations

import numpy as np

from ...core.i18n import N_, _
from .base import axes as _axes


KINDS = {"english": N_("english"), "chinese": N_("chinese"), "code": N_("code")}  # the kinds of text measured


def isoflop_curves(budgets=(1e19, 1e20, 1e21, 1e22, 1e23, 1e24), fit_name="besiroglu", ax=None):
    """Loss against model size at fixed FLOPs (D = C / 6N), one curve per budget, the optimum of each marked."""
    from ...formulas import data as dt

    ax = _axes(ax, (7, 4.2))
    law = dt.fit(fit_name)
    for budget in budgets:
        n_opt = law.optimal(budget)[0]
        sizes = n_opt * np.logspace(-1.3, 1.3, 60)
        ax.plot(sizes, law.loss(sizes, budget / (6 * sizes)), label=f"C = {budget:.0e}")
        ax.plot(n_opt, law.loss(n_opt, budget / (6 * n_opt)), "o", color="black", ms=4)
    ax.set_xscale("log")
    ax.set_xlabel(_("parameters N"))
    ax.set_ylabel(_("fitted loss"))
    ax.set_title(_("isoFLOP curves, {fit} fit; dots: the optimum of each").format(fit=fit_name), fontsize=10)
    ax.legend(fontsize=7)
    return ax


def tokens_per_param(ax=None):
    """Tokens per parameter of published models against Chinchilla's 20."""
    from ...formulas import data as dt

    ax = _axes(ax, (7, 3.4))
    names = [t.name for t in dt.TRAINED]
    values = [t.tokens_per_param for t in dt.TRAINED]
    ax.barh(names, values, color="#4c72b0")
    ax.axvline(dt.TOKENS_PER_PARAM, color="#c44e52", lw=1.5, label=_("Chinchilla's 20"))
    ax.set_xscale("log")
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:,.0f}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(_("training tokens per parameter"))
    ax.legend(fontsize=8)
    return ax


def fit_optima(axes=None, budgets=None):
    """The compute-optimal N (left) and D (right) of each loss fit and of the 20× rule against the FLOP budget, with
    Chinchilla's Table 3 (its Approach 1) as points. ``axes``: a pair of Axes, or None for a new figure."""
    import matplotlib.pyplot as plt

    from ...formulas import data as dt

    if axes is None:
        axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")[1]
    budgets = np.logspace(19, 28, 60) if budgets is None else np.asarray(budgets)
    lines = {name: law.optimal(budgets) for name, law in dt.FITS.items()}
    rule_n = dt.chinchilla_params_for_flops(budgets)
    rule = _("20× rule")
    lines[rule] = (rule_n, dt.chinchilla_tokens(rule_n))
    styles = {"hoffmann": "-", "hoffmann-unrounded": ":", "besiroglu": "-", rule: "--"}
    for ax, index, label in ((axes[0], 0, _("compute-optimal parameters N")),
                             (axes[1], 1, _("compute-optimal tokens D"))):
        for name, optimum in lines.items():
            ax.plot(budgets, optimum[index], styles[name], label=name, lw=1.6)
        table = [(flops, (params, tokens)[index]) for params, flops, tokens in dt.TABLE3]
        ax.plot(*zip(*table), "o", color="black", ms=5, label=_("Table 3 (Approach 1)"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(_("training budget C (FLOPs)"))
        ax.set_ylabel(label)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[0].set_title(_("N of each fit against the budget"), fontsize=10)
    axes[1].set_title(_("D of each fit against the budget"), fontsize=10)
    return axes


def tokens_per_gb_spread(ax=None):
    """Tokens per GB measured per kind of text and tokenizer (llmest/catalog/corpora/measured.json): each whole
    sample's rate, the range of its ten sub-samples as a bar, the material's range shaded, and the workbook's rate as
    a line."""
    from ...formulas import data as dt

    ax = _axes(ax, (8, 3.8))
    kinds = list(dt.MEASURED)
    width = 0.8 / len(dt.TOKENIZERS)
    colors = ("#4c72b0", "#dd8452", "#55a868")
    for k, kind in enumerate(kinds):
        low, high = dt.TOKENS_PER_GB[kind]
        ax.fill_between([k - 0.45, k + 0.45], low, high, color="#cccccc", alpha=0.5,
                        label=_("the material's range") if k == 0 else None)
        ax.hlines(dt.tokens_per_gb(kind), k - 0.45, k + 0.45, color="black", lw=2,
                  label=_("the workbook's rate") if k == 0 else None)
        for t, (tokenizer, color) in enumerate(zip(dt.TOKENIZERS, colors)):
            x = k - 0.4 + width * (t + 0.5)
            rate = dt.measured_tokens_per_gb(kind, tokenizer)
            spread_low, spread_high = dt.measured_spread(kind, tokenizer)
            ax.errorbar(x, rate, yerr=[[rate - spread_low], [spread_high - rate]], fmt="o", color=color, capsize=3,
                        label=tokenizer if k == 0 else None)
    ax.set_xticks(range(len(kinds)),
                  [f"{_(KINDS.get(kind, kind))}\n{dt.MEASURED[kind]['bytes'] / 1e6:.2f} MB" for kind in kinds])
    ax.set_ylabel(_("tokens per GB (1e9 bytes)"))
    ax.set_title(_("measured rate of each whole sample; bars: its ten sub-samples"), fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    return ax
