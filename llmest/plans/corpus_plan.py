"""The data plan: a model's training tokens and the text they take (``estimate_corpus``), and the compute-optimal
model a cluster affords (``chinchilla_for_budget``). Each checks every input it takes."""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..catalog import hardware
from ..formulas.data import (TOKENS_PER_PARAM, WORKING_CLEANING_YIELD, chinchilla_tokens, mixture_bytes, raw_bytes,
                             tokens_per_gb)
from ..display.corpus import corpus_report
from ..core.report import Report, Shows
from ..core.i18n import _
from .budget_plan import estimate_budget



@v.checked(**v.WHOLE)
def chinchilla_for_budget(gpus, days, peak_flops_per_s, mfu, tokens_per_param=TOKENS_PER_PARAM):
    """The 20-tokens-per-parameter model a cluster affords: chapter 3's budget, then N = √(C / 120)."""
    return estimate_budget(gpus, days, peak_flops_per_s=peak_flops_per_s, mfu=mfu).chinchilla(tokens_per_param)


@dataclass(frozen=True)
class CorpusEstimate(Shows):
    """Training tokens for a model and the cleaned text and raw crawl they take, with every input it assumed."""

    n_params: float
    tokens: float
    mix: dict                   # language: share of the tokens
    rates: dict                 # language: tokens per GB of cleaned text
    cleaned: dict               # language: bytes of cleaned text
    cleaning_yield: float
    budget_flops: float | None  # a cluster's FLOPs, when one was given
    budget_optimal: tuple | None  # the (N, D) that budget affords at tokens_per_param
    peak_flops_per_s: float | None  # the peak of the cluster's GPUs
    budget_mfu: float | None = None  # the cluster's MFU
    cluster: tuple | None = None     # (GPUs, days, the GPU's name or None where a peak was given)

    def report(self) -> Report:
        return corpus_report(self)

    @property
    def tokens_per_param(self) -> float:
        return self.tokens / self.n_params

    @property
    def cleaned_bytes(self) -> float:
        return sum(self.cleaned.values())

    @property
    def raw_bytes(self) -> float:
        return raw_bytes(self.cleaned_bytes, self.cleaning_yield)



@v.checked(**v.WHOLE)
def estimate_corpus(n_params=None, *, tokens=None, tokens_per_param=TOKENS_PER_PARAM, mix=None,
                    cleaning_yield=WORKING_CLEANING_YIELD, gpus=None, days=30, gpu="A100 80GB", peak_flops_per_s=None,
                    mfu=0.4) -> CorpusEstimate:
    """The tokens of a model (``tokens``, or tokens_per_param × N) and the text they take for a language ``mix``
    (shares of the tokens; all English by default) at the workbook's rates. Given ``gpus``, also the model that
    cluster affords for ``days`` at ``mfu`` (chinchilla_for_budget); without ``n_params``, that model is the one
    planned. ``peak_flops_per_s`` overrides the GPU's dense BF16 peak."""
    g = hardware.gpu(gpu)
    peak = g.bf16_flops_per_s if peak_flops_per_s is None else v.check_positive("peak_flops_per_s", peak_flops_per_s)
    budget = optimal = None
    if gpus is not None:
        cluster = estimate_budget(gpus, days, peak_flops_per_s=peak, mfu=mfu)
        budget, optimal = cluster.flops, cluster.chinchilla(tokens_per_param)
    if n_params is None:
        if optimal is None:
            raise v.InputError("n_params", _("give n_params, or gpus (with days) for the model a cluster affords: "
                                             "neither was given."))
        n_params = optimal[0]
    tokens = chinchilla_tokens(n_params, tokens_per_param) if tokens is None else tokens
    mix = {"english": 1.0} if mix is None else mix
    cleaned = mixture_bytes(tokens, mix)
    mix = dict(mix)  # the estimate keeps its own copy
    rates = {language: tokens_per_gb(language) for language in cleaned}
    return CorpusEstimate(n_params, tokens, mix, rates, cleaned, cleaning_yield, budget, optimal,
                          peak if gpus is not None else None, mfu if gpus is not None else None,
                          None if gpus is None else (gpus, days, g.name if peak_flops_per_s is None else None))
