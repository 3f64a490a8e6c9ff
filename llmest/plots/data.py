"""Chapter 4's figures: compute-optimal curves and tokens per parameter."""

from __future__ import annotations

import numpy as np

from .base import axes as _axes


def isoflop_curves(budgets=(1e19, 1e20, 1e21, 1e22, 1e23, 1e24), fit_name="besiroglu", ax=None):
    """Loss against model size at fixed FLOPs (D = C / 6N), one curve per budget, the optimum of each marked."""
    from .. import data as dt

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
    from .. import data as dt

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
