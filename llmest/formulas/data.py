"""Data and tokens: Chinchilla's rule and its loss fits, compute-optimal N and D, tokens per parameter of real
models, repeated data, and corpus size from tokens (by language, cleaning yield, raw crawl).

Formulas use + - * / and ** only and work on numbers, NumPy arrays and SymPy symbols. The reverse budget (what a
cluster affords) is ``llmest.formulas.compute.compute_budget`` and friends: the same functions as chapter 3.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from ..core import _validate as v
from ..core.i18n import _

TOKENS_PER_PARAM = 20   # Chinchilla's rule of thumb: compute-optimal D ≈ 20·N


# ----------------------------------------------------------------------------------------------------------------
# Chinchilla
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def chinchilla_tokens(n_params, tokens_per_param=TOKENS_PER_PARAM):
    """The rule: D ≈ 20·N."""
    return tokens_per_param * n_params


@v.checked
def chinchilla_params_for_flops(flops, tokens_per_param=TOKENS_PER_PARAM):
    """With D = 20·N, C = 6·N·D = 120·N², so N = √(C / 120)."""
    return (flops / (6 * tokens_per_param)) ** 0.5


@dataclass(frozen=True)
class LossFit:
    """A fitted loss L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022, Approach 3)."""

    name: str
    E: float
    A: float
    B: float
    alpha: float
    beta: float
    source: str

    def loss(self, n_params, tokens):
        return self.E + self.A / n_params**self.alpha + self.B / tokens**self.beta

    @property
    def G(self):
        """G = (αA / (βB))^(1/(α+β)): the constant of the optimal allocation."""
        return (self.alpha * self.A / (self.beta * self.B)) ** (1 / (self.alpha + self.beta))

    def optimal(self, flops):
        """The (N, D) that minimise the loss for C = 6·N·D: N = G·(C/6)^(β/(α+β)), D = G⁻¹·(C/6)^(α/(α+β))."""
        v.check_positive("flops", flops)
        a = self.beta / (self.alpha + self.beta)
        b = self.alpha / (self.alpha + self.beta)
        return self.G * (flops / 6) ** a, (flops / 6) ** b / self.G


FITS = {fit.name: fit for fit in [
    LossFit("hoffmann", 1.69, 406.4, 410.7, 0.34, 0.28,
            "Hoffmann et al. 2022 (Chinchilla), Appendix D.2, eq. 10, as printed (rounded)"),
    LossFit("hoffmann-unrounded", 1.6934, 406.4, 410.7, 0.3392, 0.2849,
            "the same fit with the unrounded values of the paper's TeX source"),
    LossFit("besiroglu", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
            "Besiroglu et al. 2024 (arXiv 2404.10102), a replication from Chinchilla's own data"),
]}


@v.checked
def fit(name) -> LossFit:
    return v.lookup("fit", name, FITS)


# Chinchilla's Table 3 (Approach 1): compute-optimal parameters, FLOPs and tokens, as published.
TABLE3 = [  # (parameters, FLOPs, tokens)
    (400e6, 1.92e19, 8.0e9), (1e9, 1.21e20, 20.2e9), (10e9, 1.23e22, 205.1e9), (67e9, 5.76e23, 1.5e12),
    (175e9, 3.85e24, 3.7e12), (280e9, 9.90e24, 5.9e12), (520e9, 3.43e25, 11.0e12), (1e12, 1.27e26, 21.2e12),
    (10e12, 1.30e28, 216.2e12),
]
CHINCHILLA_FLOPS = 5.76e23   # the budget of Gopher, which Chinchilla (70B, 1.4T tokens) was trained with


# ----------------------------------------------------------------------------------------------------------------
# Beyond compute-optimal
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainedModel:
    name: str
    params: float
    tokens: float
    source: str

    @property
    def tokens_per_param(self) -> float:
        return self.tokens / self.params


TRAINED = [
    TrainedModel("GPT-3 175B", 174.6e9, 300e9, "Brown et al. 2020"),
    TrainedModel("Chinchilla 70B", 70e9, 1.4e12, "Hoffmann et al. 2022"),
    # LLaMA-7B's shapes are Llama 2 7B's (32 layers, hidden 4,096, FFN 11,008, 32,000 tokens): the same count, which
    # the paper rounds to 6.7B
    TrainedModel("LLaMA-7B", 6.74e9, 1.0e12, "Touvron et al. 2023"),
    TrainedModel("LLaMA-65B", 65.2e9, 1.4e12, "Touvron et al. 2023"),
    TrainedModel("Llama 2 7B", 6.74e9, 2.0e12, "Touvron et al. 2023 (Llama 2)"),
    TrainedModel("Llama 2 70B", 68.98e9, 2.0e12, "Touvron et al. 2023 (Llama 2)"),
    TrainedModel("Llama 3 8B", 8.03e9, 15e12, "Meta 2024: over 15T tokens"),
    TrainedModel("Llama 3 70B", 70.55e9, 15e12, "Meta 2024: over 15T tokens"),
]


@v.checked
def epochs(training_tokens, unique_tokens):
    """How many times each token is seen."""
    return training_tokens / unique_tokens


# Muennighoff et al. 2023 (Scaling Data-Constrained Language Models, models up to 9B): "training with up to 4 epochs
# of repeated data yields negligible changes to loss compared to having unique data"; with more repetition the value
# of the added compute decays towards zero.
EPOCHS_NEARLY_FREE = 4


# ----------------------------------------------------------------------------------------------------------------
# Corpus size
# ----------------------------------------------------------------------------------------------------------------

# The material's table (seed 004 §4.2): tokens per GB (1e9 bytes) of cleaned text.
TOKENS_PER_GB = {"english": (2.5e8, 3e8), "chinese": (3e8, 4e8), "code": (2e8, 3e8)}
# The material's cleaning yield: usable text is 20-30% of the raw crawl.
CLEANING_YIELD = (0.2, 0.3)
WORKING_CLEANING_YIELD = 0.25  # the middle of the material's range, the workbook's default


# Tokens per GB measured on 1.5 MB of text per kind with three offline tokenizers (llmest/catalog/corpora/measured.json,
# written by ``python -m llmest.catalog.corpora.measure`` from Debian's man pages and Python's standard library).
TOKENIZERS = ("cl100k_base", "o200k_base", "voyage3_base")  # GPT-4's, GPT-4o's, voyage-3's: compiled into bpe-openai


class _MeasuredText(dict):
    """A row of measured.json: its text's name and licence read in the language shown (the file keeps English)."""

    def __getitem__(self, key):
        value = super().__getitem__(key)
        return _(value) if key in ("name", "licence") else value


MEASURED = {kind: _MeasuredText(row) for kind, row in json.loads(
    resources.files("llmest").joinpath("catalog", "corpora", "measured.json").read_text(encoding="utf-8")).items()}


def _working_rate(kind) -> float:
    """The median over the tokenizers of a kind's measured rate, to two significant figures: an estimate's rate."""
    rates = sorted(MEASURED[kind]["tokenizers"][t]["tokens_per_gb"] for t in TOKENIZERS)
    return float(f"{rates[len(rates) // 2]:.2g}")


# The one rate per language that the workbook works with, in the chapter, the planner, the CLI, the drills and the
# material's boxes.
WORKING_TOKENS_PER_GB = {kind: _working_rate(kind) for kind in ("english", "chinese", "code")}


@v.checked
def tokens_per_gb(language) -> float:
    """The workbook's rate for a language: the median of the three tokenizers' measured rates
    (``measured_tokens_per_gb``), to two significant figures."""
    return v.lookup("language", language, WORKING_TOKENS_PER_GB)


@v.checked
def cleaned_bytes(tokens, tokens_per_gb_):
    """Bytes of cleaned text holding ``tokens`` at a tokens-per-GB rate."""
    return tokens / tokens_per_gb_ * 1e9


@v.checked
def raw_bytes(cleaned, cleaning_yield):
    """The raw crawl that cleans down to ``cleaned`` bytes."""
    return cleaned / cleaning_yield


@v.checked
def mixture_bytes(tokens, mix: dict, rates: dict | None = None) -> dict:
    """Cleaned bytes per language for a token budget split by ``mix`` (shares summing to 1)."""
    for name, table in (("mix", mix), ("rates", rates or {})):
        if not isinstance(table, dict):
            raise v.InputError(name, _("{name} == {value}, must be a dict of language -> number, e.g. {example}.")
                               .format(name=name, value=v.quote(table), example="{'english': 0.7, 'code': 0.3}"))
        for language, value in table.items():
            v.check_choice(name, language, TOKENS_PER_GB)
            if name == "mix":
                v.check_number(f"mix[{language!r}]", value, low=0, high=1)
            else:
                v.check_positive(f"rates[{language!r}]", value)
    total = sum(mix.values())
    if abs(total - 1) > 1e-9:
        raise v.InputError("mix", _("mix shares sum to {total}, must sum to 1.").format(total=f"{total:g}"))
    rates = rates or {}
    return {language: cleaned_bytes(tokens * share, rates.get(language) or tokens_per_gb(language))
            for language, share in mix.items() if share > 0}


# ----------------------------------------------------------------------------------------------------------------
# Measuring tokens per byte with a real tokenizer
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def tokens_per_byte(text: str, tokenizer: str = "cl100k_base") -> float:
    """Tokens per UTF-8 byte of ``text`` under a real BPE tokenizer (the bpe-openai package, offline)."""
    v.check_choice("tokenizer", tokenizer, TOKENIZERS)
    import bpe_openai  # the tokenizer tables are compiled into the package: nothing is downloaded

    n_bytes = len(text.encode("utf-8"))
    if n_bytes == 0:
        raise v.InputError("text", _("text is empty: nothing to measure."))
    return len(bpe_openai.get_encoding(tokenizer).encode_ordinary(text)) / n_bytes


@v.checked
def measured_tokens_per_gb(kind: str, tokenizer: str = "cl100k_base") -> float:
    """Tokens per GB of a kind's sample (llmest/catalog/corpora/measured.json) under a tokenizer."""
    v.check_choice("kind", kind, MEASURED)
    v.check_choice("tokenizer", tokenizer, TOKENIZERS)
    return MEASURED[kind]["tokenizers"][tokenizer]["tokens_per_gb"]


@v.checked
def measured_spread(kind: str, tokenizer: str = "cl100k_base") -> tuple:
    """(lowest, highest) tokens per GB of the ten sub-samples of a kind's sample under a tokenizer."""
    v.check_choice("kind", kind, MEASURED)
    v.check_choice("tokenizer", tokenizer, TOKENIZERS)
    chunks = MEASURED[kind]["tokenizers"][tokenizer]["chunks"]
    return min(chunks), max(chunks)
