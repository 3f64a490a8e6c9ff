"""Drill templates on data and tokens (chapter 4)."""

from __future__ import annotations

from ...formulas import data as dt
from ... import plans
from ...core.i18n import N_, _
from ...core.units import format_bytes, format_count, format_flops, format_percent
from .problem import (CLUSTER, MFUS, PARAMS, TRAINING_GPUS, Part, _a, _A, _chained, _pick, _problem, _size, gpu_peak,
                      template, tflops_text)

# Where each formula is taught, as a worked step links to it (the notebook and the cell of the section's heading).
S41 = N_("chapter 4, §4.1 (04_data_and_tokens.ipynb#cell-id=9d9488e5)")
S42 = N_("chapter 4, §4.2 (04_data_and_tokens.ipynb#cell-id=563a3572)")
S41_BEYOND = N_("chapter 4, Beyond compute-optimal (04_data_and_tokens.ipynb#cell-id=534a4b65)")
S3_BUDGET = N_("chapter 3, The reverse budget (03_flops_and_time.ipynb#cell-id=303ea96b)")
KINDS = {"english": N_("English"), "chinese": N_("Chinese"), "code": N_("code")}   # the text a corpus is of


@template("chinchilla-tokens", "data")
def _chinchilla_tokens(rng, level):
    past = _pick(rng, level, [1], [1], [5, 10, 20])  # hard: trained past the optimum, to serve a smaller model
    n = _pick(rng, level, *PARAMS) if past == 1 else rng.choice([1e9, 3e9, 8e9])
    tokens_per_param = dt.TOKENS_PER_PARAM * past
    answer = dt.chinchilla_tokens(n, tokens_per_param)
    rule = dict(rule=dt.TOKENS_PER_PARAM, model=_a(_size(n)), past=past)
    steps = [_("chinchilla_tokens(N) = {per_param} × {n} = {tokens}; {cite}").format(
        per_param=tokens_per_param, n=_size(n), tokens=format_count(answer), cite=_(S41))]
    if past > 1:
        stem = _("To serve it cheaply, a team trains {model} model on {past} times the tokens of Chinchilla's "
                 "{rule}-per-parameter rule.").format(**rule)
        parts = (Part(_("How many tokens per parameter is that?"), tokens_per_param, "count",
                      (_("tokens_per_param = {past} × {rule} = {per_param}; {cite}").format(
                          **rule, per_param=tokens_per_param, cite=_(S41)),)),
                 Part(_("How many training tokens?"), answer, "count", tuple(steps)))
        return _chained("chinchilla-tokens", level, stem, dict(n=n, tokens_per_param=tokens_per_param), parts,
                        _("Chinchilla's rule of thumb: D ≈ 20·N; more tokens per parameter multiply it."))
    return _problem("chinchilla-tokens", level,
                    _("By the {rule}-tokens-per-parameter rule, how many tokens should {model} model train "
                      "on?").format(**rule),
                    dict(n=n, tokens_per_param=tokens_per_param), answer,
                    "count", steps, _("Chinchilla's rule of thumb: D ≈ 20·N."))


@template("chinchilla-for-budget", "data")
def _chinchilla_for_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 90], [45, 120])
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    budget, (answer, tokens) = cluster.flops, cluster.chinchilla()
    have = dict(gpus=f"{gpus:,}", gpu=gpu, peak=tflops_text(gpu), days=days, mfu=format_percent(mfu, 0),
                rule=dt.TOKENS_PER_PARAM)
    budget_step = _("compute_budget(gpus, days, peak, mfu) = {gpus} × {peak} × {mfu} × {days} days × 86,400 s = "
                    "{budget}; {cite}").format(**have, budget=format_flops(budget), cite=_(S3_BUDGET))
    size_step = _("chinchilla_params_for_flops(C): C = 6·N·(20·N) = 120·N², so N = √(C / 120) = {n} (on {tokens} "
                  "tokens); {cite}").format(n=format_count(answer), tokens=_size(tokens), cite=_(S41))
    inputs = dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu)
    if level == "hard":
        stem = _("{gpus} {gpu} GPUs ({peak} BF16) for {days} days at {mfu} MFU.").format(**have)
        parts = (Part(_("How many FLOPs can they spend?"), budget, "FLOPs", (budget_step,)),
                 Part(_("Which model size is compute-optimal by the {rule}-tokens-per-parameter rule?").format(**have),
                      answer, "count", (size_step,)))
        return _chained("chinchilla-for-budget", level, stem, inputs, parts,
                        _("The budget is GPUs × peak × MFU × seconds; then put D = 20N into C = 6ND."))
    return _problem(
        "chinchilla-for-budget", level,
        _("{gpus} {gpu} GPUs ({peak} BF16), {days} days, {mfu} MFU: which model size is compute-optimal by the "
          "{rule}-tokens-per-parameter rule?").format(**have),
        inputs, answer, "count", [budget_step, size_step], _("Put D = 20N into C = 6ND and solve for N."))


def _corpus_steps(tokens, rate, cleaned, cleaning_yield, answer) -> list:
    shown = dict(tokens=_size(tokens), rate=format_count(rate), cleaned=format_bytes(cleaned), raw=format_bytes(answer),
                 cite=_(S42), yield_=format_percent(cleaning_yield or 0, 0))
    steps = [_("cleaned_bytes(tokens, rate) = {tokens} / {rate} tokens per GB = {cleaned}; {cite}").format(**shown)]
    if cleaning_yield is not None:
        steps.append(_("raw_bytes(cleaned, yield) = {cleaned} / {yield_} = {raw}; {cite}").format(**shown))
    return steps


@template("corpus-size", "data")
def _corpus_size(rng, level):
    tokens = _pick(rng, level, [140e9, 1e12], [140e9, 300e9, 1.4e12], [250e9, 2e12, 15e12])
    language = _pick(rng, level, ["english"], ["english", "chinese", "code"], ["english", "chinese", "code"])
    rate = dt.tokens_per_gb(language)
    cleaned = dt.cleaned_bytes(tokens, rate)
    cleaning_yield = _pick(rng, level, [None], [None, 0.25], [0.2, 0.3])
    answer = cleaned if cleaning_yield is None else dt.raw_bytes(cleaned, cleaning_yield)
    corpus = dict(kind=_(KINDS[language]), rate=format_count(rate), yield_=format_percent(cleaning_yield or 0, 0))
    if level == "hard":  # the model's tokens, then the text, then the crawl
        n = rng.choice(PARAMS[2])
        tokens = dt.chinchilla_tokens(n)
        cleaned = dt.cleaned_bytes(tokens, rate)
        answer = dt.raw_bytes(cleaned, cleaning_yield)
        cleaned_step, raw_step = _corpus_steps(tokens, rate, cleaned, cleaning_yield, answer)
        parts = (Part(_("How many training tokens by the {rule}-tokens-per-parameter rule?").format(
                          rule=dt.TOKENS_PER_PARAM), tokens,
                      "count", (_("chinchilla_tokens(N) = {rule} × {n} = {tokens}; {cite}").format(
                          rule=dt.TOKENS_PER_PARAM, n=_size(n), tokens=_size(tokens), cite=_(S41)),)),
                 Part(_("How many GB of cleaned text?"), cleaned, "bytes", (cleaned_step,)),
                 Part(_("How much raw crawl at a {yield_} cleaning yield?").format(**corpus), answer, "bytes",
                      (raw_step,)))
        return _chained("corpus-size", level,
                        _("{Model} model is trained on {kind} text at {rate} tokens per GB.").format(
                            **corpus, Model=_A(_size(n))),
                        dict(n=n, tokens=tokens, rate=rate, cleaning_yield=cleaning_yield), parts,
                        _("D = 20·N; GB = tokens / (tokens per GB); raw = cleaned / yield."))
    question = (_("{tokens} tokens of {kind} at {rate} tokens per GB of cleaned text: how many GB? (give the cleaned "
                  "size)") if cleaning_yield is None else
                _("{tokens} tokens of {kind} at {rate} tokens per GB of cleaned text: how many GB, and how much raw "
                  "crawl at a {yield_} cleaning yield? (give the raw size)"))
    return _problem(
        "corpus-size", level, question.format(**corpus, tokens=_size(tokens)),
        dict(tokens=tokens, rate=rate, cleaning_yield=cleaning_yield), answer, "bytes",
        _corpus_steps(tokens, rate, cleaned, cleaning_yield, answer),
        _("GB = tokens / (tokens per GB); raw = cleaned / yield."))


@template("epochs", "data")
def _epochs(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = dt.chinchilla_tokens(n)
    unique = float(f"{tokens / _pick(rng, level, [2, 4], [1.5, 3, 6], [2.7, 7, 12]):.2g}")  # a round stock
    answer = dt.epochs(tokens, unique)
    stock = dict(model=_a(_size(n)), n=_size(n), tokens=_size(tokens), unique=_size(unique), epochs=f"{answer:.3g}",
                 rule=dt.TOKENS_PER_PARAM)
    if level == "hard":
        parts = (Part(_("How many training tokens by the {rule}-tokens-per-parameter rule?").format(**stock), tokens,
                      "count", (_("chinchilla_tokens(N) = {rule} × {n} = {tokens}; {cite}").format(
                          **stock, cite=_(S41)),)),
                 Part(_("How many epochs is that?"), answer, "epochs",
                      (_("epochs(training_tokens, unique_tokens) = {tokens} / {unique} = {epochs}; Muennighoff et al. "
                         "2023 found up to about 4 nearly as good as fresh data, the material says at most 2; "
                         "{cite}").format(**stock, cite=_(S41_BEYOND)),)))
        return _chained("epochs", level,
                        _("You train {model} model Chinchilla-optimally but have only {unique} unique "
                          "tokens.").format(**stock), dict(n=n, unique=unique), parts,
                        _("Training tokens = 20·N; epochs = training tokens / unique tokens."))
    return _problem(
        "epochs", level,
        _("You train {model} model Chinchilla-optimally (20 tokens per parameter) but have only {unique} unique "
          "tokens. How many epochs is that?").format(**stock),
        dict(n=n, unique=unique), answer, "epochs",
        [_("chinchilla_tokens(N) = 20 × {n} = {tokens}; {cite}").format(**stock, cite=_(S41)),
         _("epochs(training_tokens, unique_tokens) = {tokens} / {unique} = {epochs} (Muennighoff et al. 2023 found up "
           "to about 4 nearly as good as fresh data; the material says at most 2)").format(**stock)],
        _("Training tokens / unique tokens."))
