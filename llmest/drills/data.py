"""Drill templates on data and tokens (chapter 4)."""

from __future__ import annotations

from .. import data as dt
from .. import plans
from ..units import format_bytes, format_count, format_flops, format_percent
from .problem import (CLUSTER, MFUS, PARAMS, TRAINING_GPUS, Part, _a, _A, _chained, _pick, _problem, _size, gpu_peak,
                      template, tflops_text)

# Where each formula is taught, as a worked step links to it (the notebook and the cell of the section's heading).
S41 = "chapter 4, §4.1 (04_data_and_tokens.ipynb#cell-id=9d9488e5)"
S42 = "chapter 4, §4.2 (04_data_and_tokens.ipynb#cell-id=563a3572)"
S41_BEYOND = "chapter 4, Beyond compute-optimal (04_data_and_tokens.ipynb#cell-id=534a4b65)"
S3_BUDGET = "chapter 3, The reverse budget (03_flops_and_time.ipynb#cell-id=303ea96b)"


@template("chinchilla-tokens", "data")
def _chinchilla_tokens(rng, level):
    past = _pick(rng, level, [1], [1], [5, 10, 20])  # hard: trained past the optimum, to serve a smaller model
    n = _pick(rng, level, *PARAMS) if past == 1 else rng.choice([1e9, 3e9, 8e9])
    tokens_per_param = dt.TOKENS_PER_PARAM * past
    answer = dt.chinchilla_tokens(n, tokens_per_param)
    question = (f"By the {dt.TOKENS_PER_PARAM}-tokens-per-parameter rule, how many tokens should {_a(_size(n))} model "
                "train on?"
                if past == 1 else
                f"To serve it cheaply, a team trains {_a(_size(n))} model on {past} times the tokens of "
                f"Chinchilla's {dt.TOKENS_PER_PARAM}-per-parameter rule. How many tokens?")
    steps = [f"chinchilla_tokens(N) = {tokens_per_param} × {_size(n)} = {format_count(answer)}; {S41}"]
    if past > 1:
        stem = (f"To serve it cheaply, a team trains {_a(_size(n))} model on {past} times the tokens of Chinchilla's "
                f"{dt.TOKENS_PER_PARAM}-per-parameter rule.")
        parts = (Part("How many tokens per parameter is that?", tokens_per_param, "count",
                      (f"tokens_per_param = {past} × {dt.TOKENS_PER_PARAM} = {tokens_per_param}; {S41}",)),
                 Part("How many training tokens?", answer, "count", tuple(steps)))
        return _chained("chinchilla-tokens", level, stem, dict(n=n, tokens_per_param=tokens_per_param), parts,
                        "Chinchilla's rule of thumb: D ≈ 20·N; more tokens per parameter multiply it.")
    return _problem("chinchilla-tokens", level, question, dict(n=n, tokens_per_param=tokens_per_param), answer,
                    "count", steps, "Chinchilla's rule of thumb: D ≈ 20·N.")


@template("chinchilla-for-budget", "data")
def _chinchilla_for_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 90], [45, 120])
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    budget, (answer, tokens) = cluster.flops, cluster.chinchilla()
    budget_step = (f"compute_budget(gpus, days, peak, mfu) = {gpus:,} × {tflops_text(gpu)} × "
                   f"{format_percent(mfu, 0)} × {days} days × 86,400 s = {format_flops(budget)}; {S3_BUDGET}")
    size_step = (f"chinchilla_params_for_flops(C): C = 6·N·(20·N) = 120·N², so N = √(C / 120) = "
                 f"{format_count(answer)} (on {_size(tokens)} tokens); {S41}")
    if level == "hard":
        stem = f"{gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16) for {days} days at {format_percent(mfu, 0)} MFU."
        parts = (Part("How many FLOPs can they spend?", budget, "FLOPs", (budget_step,)),
                 Part(f"Which model size is compute-optimal by the {dt.TOKENS_PER_PARAM}-tokens-per-parameter rule?",
                      answer, "count", (size_step,)))
        return _chained("chinchilla-for-budget", level, stem, dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu),
                        parts, "The budget is GPUs × peak × MFU × seconds; then put D = 20N into C = 6ND.")
    return _problem(
        "chinchilla-for-budget", level,
        f"{gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16), {days} days, {format_percent(mfu, 0)} MFU: which model size "
        "is compute-optimal "
        f"by the {dt.TOKENS_PER_PARAM}-tokens-per-parameter rule?",
        dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu), answer, "count",
        [budget_step, size_step],
        "Put D = 20N into C = 6ND and solve for N.")


@template("corpus-size", "data")
def _corpus_size(rng, level):
    tokens = _pick(rng, level, [140e9, 1e12], [140e9, 300e9, 1.4e12], [250e9, 2e12, 15e12])
    language = _pick(rng, level, ["english"], ["english", "chinese", "code"], ["english", "chinese", "code"])
    rate = dt.tokens_per_gb(language)
    cleaned = dt.cleaned_bytes(tokens, rate)
    cleaning_yield = _pick(rng, level, [None], [None, 0.25], [0.2, 0.3])
    answer = cleaned if cleaning_yield is None else dt.raw_bytes(cleaned, cleaning_yield)
    raw = "" if cleaning_yield is None else \
        f", and how much raw crawl at a {format_percent(cleaning_yield, 0)} cleaning yield"
    steps = [f"cleaned_bytes(tokens, rate) = {_size(tokens)} / {format_count(rate)} tokens per GB = "
             f"{format_bytes(cleaned)}; {S42}"]
    if cleaning_yield is not None:
        steps.append(f"raw_bytes(cleaned, yield) = {format_bytes(cleaned)} / {format_percent(cleaning_yield, 0)} = "
                     f"{format_bytes(answer)}; {S42}")
    if level == "hard":  # the model's tokens, then the text, then the crawl
        n = rng.choice(PARAMS[2])
        tokens = dt.chinchilla_tokens(n)
        cleaned = dt.cleaned_bytes(tokens, rate)
        answer = dt.raw_bytes(cleaned, cleaning_yield)
        kind = "code" if language == "code" else language.capitalize()
        parts = (Part(f"How many training tokens by the {dt.TOKENS_PER_PARAM}-tokens-per-parameter rule?", tokens,
                      "count", (f"chinchilla_tokens(N) = {dt.TOKENS_PER_PARAM} × {_size(n)} = {_size(tokens)}; "
                                f"{S41}",)),
                 Part("How many GB of cleaned text?", cleaned, "bytes",
                      (f"cleaned_bytes(tokens, rate) = {_size(tokens)} / {format_count(rate)} tokens per GB = "
                       f"{format_bytes(cleaned)}; {S42}",)),
                 Part(f"How much raw crawl at a {format_percent(cleaning_yield, 0)} cleaning yield?", answer, "bytes",
                      (f"raw_bytes(cleaned, yield) = {format_bytes(cleaned)} / {format_percent(cleaning_yield, 0)} = "
                       f"{format_bytes(answer)}; {S42}",)))
        return _chained("corpus-size", level,
                        f"{_A(_size(n))} model is trained on {kind} text at {format_count(rate)} tokens per GB.",
                        dict(n=n, tokens=tokens, rate=rate, cleaning_yield=cleaning_yield), parts,
                        "D = 20·N; GB = tokens / (tokens per GB); raw = cleaned / yield.")
    return _problem(
        "corpus-size", level,
        f"{_size(tokens)} tokens of {'code' if language == 'code' else language.capitalize()} at {format_count(rate)} "
        "tokens per GB of cleaned "
        f"text: how many GB"
        f"{raw}? (give the {'raw' if cleaning_yield else 'cleaned'} size)",
        dict(tokens=tokens, rate=rate, cleaning_yield=cleaning_yield), answer, "bytes", steps,
        "GB = tokens / (tokens per GB); raw = cleaned / yield.")


@template("epochs", "data")
def _epochs(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = dt.chinchilla_tokens(n)
    unique = float(f"{tokens / _pick(rng, level, [2, 4], [1.5, 3, 6], [2.7, 7, 12]):.2g}")  # a round stock
    answer = dt.epochs(tokens, unique)
    if level == "hard":
        parts = (Part(f"How many training tokens by the {dt.TOKENS_PER_PARAM}-tokens-per-parameter rule?", tokens,
                      "count", (f"chinchilla_tokens(N) = {dt.TOKENS_PER_PARAM} × {_size(n)} = {_size(tokens)}; "
                                f"{S41}",)),
                 Part("How many epochs is that?", answer, "epochs",
                      (f"epochs(training_tokens, unique_tokens) = {_size(tokens)} / {_size(unique)} = {answer:.3g}; "
                       "Muennighoff et al. 2023 found up to about 4 nearly as good as fresh data, the material says "
                       f"at most 2; {S41_BEYOND}",)))
        return _chained("epochs", level, f"You train {_a(_size(n))} model Chinchilla-optimally but have only "
                                         f"{_size(unique)} unique tokens.", dict(n=n, unique=unique), parts,
                        "Training tokens = 20·N; epochs = training tokens / unique tokens.")
    return _problem(
        "epochs", level,
        f"You train {_a(_size(n))} model Chinchilla-optimally (20 tokens per parameter) but have only "
        f"{_size(unique)} unique tokens. How many epochs is that?",
        dict(n=n, unique=unique), answer, "epochs",
        [f"chinchilla_tokens(N) = 20 × {_size(n)} = {_size(tokens)}; {S41}",
         f"epochs(training_tokens, unique_tokens) = {_size(tokens)} / {_size(unique)} = {answer:.3g} "
         "(Muennighoff et al. 2023 found up "
         "to about 4 nearly as good as fresh data; the material says at most 2)"],
        "Training tokens / unique tokens.")
