"""Chapter 4's findings: the loss fits and their optimum, what real models were trained on, the material's and the
measured tokens per GB, the text and crawl a token count takes, and the figures to remember
(``llmest.display.findings.data`` writes them)."""

from __future__ import annotations

from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import data as shown
from ...formulas import data as dt
from ...formulas.compute import affordable_params, training_flops
from ..corpus_plan import CorpusEstimate


def _trained(model) -> dt.TrainedModel:
    if isinstance(model, dt.TrainedModel):
        return model
    return v.lookup("model", model, {m.name: m for m in dt.TRAINED})


def _rows(name, rows):
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, (list, tuple)) and len(r) == 2
                                                                  for r in rows):
        raise v.InputError(name, f"rows == {v.quote(rows)}, must be a list of (parameters, tokens).")
    for params, tokens in rows:
        v.check_positive(name, params)
        v.check_positive(name, tokens)
    return rows


@v.checked(rows=_rows)
def against_rule(rows, section="§3.3") -> Finding:
    """Rows of (parameters, tokens) from the material against the 20-tokens-per-parameter rule: each row's tokens
    as a share of the rule's; ``section``: where in the material the rows are."""
    if not isinstance(section, str):
        raise v.InputError("section", f"section == {v.quote(section)}, must be text.")
    out = [dict(params=params, tokens=tokens, rule=dt.chinchilla_tokens(params),
                share=tokens / dt.chinchilla_tokens(params)) for params, tokens in rows]
    return Finding(dict(section=section, tokens_per_param=dt.TOKENS_PER_PARAM, rows=out), shown.against_rule)


def closed_form_checks(root, optimal, spends) -> Finding:
    """The three checks of the derivation of N_opt, each with its outcome (True when SymPy proved it)."""
    for name, ok in zip(("root", "optimal", "spends"), (root, optimal, spends)):
        v.check_bool(name, ok)
    return Finding(dict(root=bool(root), optimal=bool(optimal), spends=bool(spends)), shown.closed_form_checks)


@v.checked
def fits_table(flops=dt.CHINCHILLA_FLOPS) -> Finding:
    """Each loss fit's constants and the compute-optimal N and D it gives for a budget of ``flops``."""
    rows = []
    for name, law in dt.FITS.items():
        n, d = law.optimal(flops)
        rows.append(dict(fit=name, E=law.E, A=law.A, B=law.B, alpha=law.alpha, beta=law.beta, n_opt=float(n),
                         d_opt=float(d), tokens_per_param=float(d / n)))
    return Finding(dict(flops=flops, fits=rows), shown.fits_table)


def _model_figures(model: dt.TrainedModel) -> dict:
    return dict(model=model.name, params=model.params, tokens=model.tokens, tokens_per_param=model.tokens_per_param)


def trained(model, name=None) -> Finding:
    """What a model of ``llmest.data.TRAINED`` (or its name there) was trained on; ``name``: how the sentence names
    it (its name in TRAINED by default)."""
    model = _trained(model)
    if name is not None and not isinstance(name, str):
        raise v.InputError("name", f"name == {v.quote(name)}, must be text or None.")
    return Finding(dict(_model_figures(model), name=name or model.name), shown.trained)


@v.checked
def rounding(flops=dt.CHINCHILLA_FLOPS) -> Finding:
    """Hoffmann et al.'s compute-optimal N for ``flops`` with the constants as printed and unrounded."""
    rounded, unrounded = (float(dt.fit(name).optimal(flops)[0]) for name in ("hoffmann", "hoffmann-unrounded"))
    return Finding(dict(flops=flops, rounded=rounded, unrounded=unrounded), shown.rounding)


def trained_table() -> Finding:
    """What the models of ``llmest.data.TRAINED`` were trained on: parameters, tokens and tokens per parameter."""
    return Finding(dict(models=[_model_figures(m) for m in dt.TRAINED]), shown.trained_table)


def optimal_instead(model, fit="besiroglu") -> Finding:
    """The compute-optimal model (by ``fit``) for a trained model's own budget 6·N·D, and how many times its
    inference per token that one would cost."""
    model = _trained(model)
    budget = training_flops(model.params, model.tokens)
    n, d = dt.fit(fit).optimal(budget)
    return Finding(dict(model=model.name, model_params=model.params, model_tokens=model.tokens, fit=fit,
                        budget_flops=budget, params=float(n), tokens=float(d), ratio=float(n / model.params)),
                   shown.optimal_instead)


def rates() -> Finding:
    """The material's tokens per GB by kind of text against the workbook's rates, and its cleaning yield."""
    kinds = [dict(kind=kind, low=low, high=high, rate=dt.tokens_per_gb(kind))
             for kind, (low, high) in dt.TOKENS_PER_GB.items()]
    return Finding(dict(kinds=kinds, cleaning_yield=list(dt.CLEANING_YIELD)), shown.rates)


def measured() -> Finding:
    """Each measured text (its source, size and licence) and its tokens per GB under each tokenizer, with the
    spread of its sub-samples and the workbook's rate."""
    kinds = []
    for kind, row in dt.MEASURED.items():
        tokenizers = [dict(tokenizer=t, rate=dt.measured_tokens_per_gb(kind, t),
                           low=dt.measured_spread(kind, t)[0], high=dt.measured_spread(kind, t)[1])
                      for t in dt.TOKENIZERS]
        kinds.append(dict(kind=kind, name=dict.__getitem__(row, "name"), version=row["version"], bytes=row["bytes"],
                          files=row["files"], licence=dict.__getitem__(row, "licence"), cjk_share=row["cjk_share"],
                          tokenizers=tokenizers, rate=dt.tokens_per_gb(kind)))
    return Finding(dict(kinds=kinds), shown.measured)


def _estimates(name, estimates):
    if not isinstance(estimates, (list, tuple)) or not estimates \
            or not all(isinstance(est, CorpusEstimate) for est in estimates):
        raise v.InputError(name, f"estimates == {v.quote(estimates)}, must be a list of corpus estimates "
                                 "(plans.estimate_corpus).")
    return estimates


@v.checked(estimates=_estimates)
def crawls(estimates) -> Finding:
    """The raw crawl of each corpus estimate (``plans.estimate_corpus``) worked out side by side, as for several
    cleaning yields: tokens / tokens per GB = cleaned, / yield = raw."""
    rows = [dict(cleaning_yield=est.cleaning_yield, tokens=est.tokens, mix=dict(est.mix),
                 tokens_per_gb=next(iter(est.rates.values())) if len(est.rates) == 1 else None,
                 cleaned_bytes=est.cleaned_bytes, raw_bytes=est.raw_bytes) for est in estimates]
    return Finding(dict(crawls=rows), shown.crawls)


def _yield_range(name, value):
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise v.InputError(name, f"cleaning_yield == {v.quote(value)}, must be (low, high).")
    return [v.check_fraction(name, share) for share in value]


@v.checked(cleaning_yield=_yield_range)
def tokenizers_crawl(tokens, kind="chinese", cleaning_yield=dt.CLEANING_YIELD) -> Finding:
    """The cleaned text and the raw crawl for ``tokens`` tokens of one kind of text at each tokenizer's measured
    rate, the crawl over the range ``cleaning_yield`` (low, high)."""
    low, high = cleaning_yield
    rows = []
    for t in dt.TOKENIZERS:
        rate = dt.measured_tokens_per_gb(kind, t)
        cleaned = dt.cleaned_bytes(tokens, rate)
        rows.append(dict(tokenizer=t, tokens_per_gb=rate, cleaned_bytes=cleaned,
                         raw_low=dt.raw_bytes(cleaned, high), raw_high=dt.raw_bytes(cleaned, low)))
    return Finding(dict(tokens=tokens, kind=kind, cleaning_yield=[low, high], tokenizers=rows),
                   shown.tokenizers_crawl)


def _with_budget(name, estimate):
    if not isinstance(estimate, CorpusEstimate) or estimate.budget_flops is None:
        raise v.InputError(name, f"{name} == {v.quote(estimate)}, must be a corpus estimate with a budget "
                                 "(give plans.estimate_corpus gpus): no model to afford on other tokens.")
    return estimate


@v.checked(estimate=_with_budget)
def material_tokens(estimate, tokens) -> Finding:
    """The model a corpus estimate's budget affords on the material's token count instead (N = C / 6D), and its
    tokens per parameter."""
    n_params = affordable_params(estimate.budget_flops, tokens)
    return Finding(dict(budget_flops=estimate.budget_flops, tokens=tokens, params=n_params,
                        tokens_per_param=tokens / n_params), shown.material_tokens)


def recap() -> Finding:
    """The chapter's figures to remember: Chinchilla's tokens for a 7B and a 70B, the compute-optimal N for 10²⁴
    FLOPs, Llama 3 8B's tokens per parameter and the workbook's tokens per GB."""
    return Finding(dict(tokens={"7B": dt.chinchilla_tokens(7e9), "70B": dt.chinchilla_tokens(70e9)},
                        flops=1e24, params_for_flops=dt.chinchilla_params_for_flops(1e24),
                        llama_3_8b_tokens_per_param=_trained("Llama 3 8B").tokens_per_param,
                        tokens_per_gb={kind: dt.tokens_per_gb(kind) for kind in ("english", "chinese", "code")}),
                   shown.recap)
