"""The reverse budget: the FLOPs a cluster delivers in a number of days, and what they buy (``estimate_budget``):
the largest model for a number of tokens, the tokens for a model, the compute-optimal pair. It checks every input."""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..catalog import hardware
from ..formulas.compute import affordable_params, affordable_tokens, compute_budget
from ..formulas.data import TOKENS_PER_PARAM, chinchilla_params_for_flops
from ..core.report import Report, Shows
from ..display.corpus import budget_report


@dataclass(frozen=True)
class BudgetEstimate(Shows):
    """A cluster's FLOPs for ``days``, with every input it assumed."""

    gpus: int
    days: float
    peak_flops_per_s: float
    mfu: float
    flops: float

    def report(self) -> Report:
        return budget_report(self)

    def affordable_params(self, tokens) -> float:
        """The largest N the budget trains on ``tokens``: C / (6·D)."""
        return affordable_params(self.flops, tokens)

    def affordable_tokens(self, n_params) -> float:
        """The tokens the budget buys a model of ``n_params``: C / (6·N)."""
        return affordable_tokens(self.flops, n_params)

    def chinchilla(self, tokens_per_param=TOKENS_PER_PARAM) -> tuple:
        """The compute-optimal (N, D) at ``tokens_per_param``: N = √(C / (6 · tokens_per_param))."""
        n = chinchilla_params_for_flops(self.flops, tokens_per_param)
        return n, tokens_per_param * n


@v.checked(**v.WHOLE)
def estimate_budget(gpus, days, *, gpu="A100 80GB", peak_flops_per_s=None, mfu=0.4) -> BudgetEstimate:
    """The FLOPs of ``gpus`` GPUs for ``days`` at ``mfu``: gpus × peak × MFU × days × 86,400.
    ``peak_flops_per_s`` overrides the GPU's dense BF16 peak."""
    card = hardware.gpu(gpu)  # checked even where a peak is given instead of its own
    peak = card.bf16_flops_per_s if peak_flops_per_s is None else peak_flops_per_s
    return BudgetEstimate(gpus, days, peak, mfu, compute_budget(gpus, days, peak, mfu))
