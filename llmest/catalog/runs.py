"""Published training runs, as data, and the MFU each implies.

GPU-hours, tokens and parameters are the sources' own; where llmest has the model's exact shape (``model``), its
FLOP-carrying parameter count (``compute.flops_params``) is used beside the published size, and for a mixture of
experts the active parameters. A run that publishes a rate instead of hours (PaLM, MT-NLG) gets its MFU from the rate.
``recalled`` names the figures of a run not read in its primary source (read only in a secondary copy or summary,
remembered, or computed here from what the source gives): check them before relying on them. Every MFU is counted
against the chip's dense BF16 (FP16 on the V100) peak, whatever precision the run used. ``mfu_range`` gives the range
over every run here; every text that quotes "the published range" calls it.
"""

from __future__ import annotations

import statistics
from dataclasses import KW_ONLY, dataclass

from ..core import _validate as v
from ..formulas import compute
from . import hardware
from ..core.i18n import N_, _
from ..formulas.model import preset
from ..core.units import format_count, format_flops, format_int, format_percent, show

A100 = hardware.gpu("A100 80GB").bf16_flops_per_s   # the A100 40GB has the same 312 TFLOPS
H100 = hardware.gpu("H100 SXM").bf16_flops_per_s
H800 = hardware.gpu("H800")  # the H100 SXM's compute with less NVLink

HOURS = N_("reported GPU-hours")
GPU_DAYS = N_("GPUs × days (the source gives no GPU-hours)")
THROUGHPUT = N_("its measured throughput (tokens per second on its chips)")


# A Run's figures as a reader names them, for its ``recalled`` fields.
FIGURE_WORDS = {"params": N_("size"), "tokens": N_("tokens"), "gpu_hours": N_("GPU-hours"),
                "phases": N_("hours by phase"), "tokens_per_s": N_("throughput"), "published_mfu": N_("stated MFU")}


@dataclass(frozen=True)
class Run:
    name: str
    params: float              # as published (all experts, for a mixture of experts)
    tokens: float
    gpu_hours: float | None     # GPU-hours (chip-hours for TPUs), the whole run as published
    peak_flops_per_s: float     # dense BF16/FP16 peak of one chip
    hardware: str
    source: str
    model: str | None = None    # an llmest preset with the same shape
    _: KW_ONLY
    year: int
    active_params: float | None = None   # a mixture of experts: the parameters each token uses, for 6·N·D
    phases: tuple = ()          # (phase, GPU-hours) where the source splits the run; the first is pre-training
    tokens_per_s: float | None = None    # a measured rate on ``chips``, where the source gives one and no hours
    chips: int | None = None
    published_mfu: tuple = ()   # (low, high): the source's MFU, or its per-GPU FLOP/s over the peak
    basis: str = HOURS          # how the MFU is known
    stated_hfu: bool = False    # the stated figure is a peak of hardware FLOPs (recomputation counted), not MFU
    recalled: tuple = ()        # figures not read in the primary source (names in FIGURE_WORDS)

    @property
    def recalled_words(self) -> str:
        """The figures not read in a primary source, as a reader names them ("-" when none), in the language shown."""
        return _(", ").join(_(FIGURE_WORDS[field]) for field in self.recalled) or "-"

    @property
    def n_params(self) -> float:
        """Parameters for 6·N·D: the preset's matmul weights when there is one, else the active or published size."""
        if self.model:
            return compute.flops_params(preset(self.model))
        return self.active_params or self.params

    @property
    def pretraining_gpu_hours(self) -> float | None:
        """The GPU-hours of pre-training: the first phase where the source splits the run, else the whole run."""
        return self.phases[0][1] if self.phases else self.gpu_hours

    @property
    def flops(self) -> float:
        return compute.training_flops(self.n_params, self.tokens)

    @property
    def mfu(self) -> float:
        """6·N·D over the pre-training GPU-hours at the peak, or the measured rate × 6·N over the chips' peak."""
        if self.tokens_per_s:
            return compute.mfu_from_throughput(self.tokens_per_s, compute.training_flops_per_token(self.n_params),
                                               self.chips, self.peak_flops_per_s)
        return compute.implied_mfu(self.n_params, self.tokens, self.pretraining_gpu_hours, self.peak_flops_per_s)


# GPT-3 175B (Brown et al. 2020, Appendix D, Table D.1): 3.14e23 training FLOPs for 174.6B parameters and 300B tokens.
# The paper gives no GPU-hours; Patterson et al. 2021 (arXiv 2104.10350, Table 4) estimate 10,000 V100s for 14.8 days,
# so its MFU rests on an estimate. 125 TFLOPS is the V100's FP16 tensor peak (it has no BF16).
GPT3 = Run("GPT-3 175B", 174.6e9, 300e9, 10_000 * 14.8 * 24, hardware.gpu("V100").bf16_flops_per_s, "V100",
           "Brown et al. 2020 Table D.1; GPU-hours estimated by Patterson et al. 2021", year=2020,
           basis=N_("Patterson et al.'s estimate of its V100-hours (the paper gives none)"))
GPT3_PUBLISHED_FLOPS = 3.14e23

# PaLM 540B (Chowdhery et al. 2022, Appendix B): 238.3K tokens/s on 6,144 TPU v4 chips of 275 TFLOPS, sequences
# of 2,048 tokens, 118 layers, 48 heads of width 256; MFU 45.7% without the attention term, 46.2% with it (the
# paper's own figure, its published MFU here; the run's implied MFU counts 6·N only, as every other run does).
PALM = dict(params=540.35e9, tokens_per_s=238.3e3, chips=6144, peak_flops_per_s=275e12, layers=118, heads=48,
            head_dim=256, seq_len=2048, published_mfu=(0.457, 0.462))
PALM_RUN = Run("PaLM 540B", PALM["params"], 780e9, None, PALM["peak_flops_per_s"], "TPU v4",
               "Chowdhery et al. 2022 (arXiv 2204.02311), Appendix B; 780B tokens from its abstract", year=2022,
               tokens_per_s=PALM["tokens_per_s"], chips=PALM["chips"], published_mfu=(PALM["published_mfu"][1],) * 2,
               basis=THROUGHPUT, recalled=("tokens",))


@v.checked
def palm_mfu(with_attention: bool) -> float:
    per_token = compute.training_flops_per_token(PALM["params"])
    if with_attention:
        per_token += compute.attention_flops_per_token(PALM["layers"], PALM["heads"], PALM["head_dim"],
                                                       PALM["seq_len"])
    return compute.mfu_from_throughput(PALM["tokens_per_s"], per_token, PALM["chips"], PALM["peak_flops_per_s"])


def palm_mfu_text() -> str:
    """PaLM 540B's MFU from its measured throughput, without and with the attention FLOPs."""
    return _("PaLM MFU without the attention term {plain}, with it {attention}").format(
        plain=format_percent(palm_mfu(False), 1), attention=format_percent(palm_mfu(True), 1))


def gpt3_text() -> str:
    """GPT-3's 6·N·D against the paper's FLOPs, and the MFU that Patterson et al.'s estimate of its hours implies."""
    return _("GPT-3: 6·N·D = {flops} against the paper's {published};\non Patterson et al.'s estimate of {hours} "
             "V100-hours that is an MFU of {mfu}").format(
        flops=format_flops(GPT3.flops), published=format_flops(GPT3_PUBLISHED_FLOPS),
        hours=format_int(GPT3.gpu_hours), mfu=format_percent(GPT3.mfu, 0))


_LLAMA = "LLaMA (Touvron et al. 2023, arXiv 2302.13971), Table 15 and §2"
_LLAMA2 = "Llama 2 (Touvron et al. 2023), Table 2; meta-llama/llama MODEL_CARD.md"
_LLAMA3 = ("meta-llama/llama3 MODEL_CARD.md, 'Hardware and Software' (GPU-hours of pre-training, H100-80GB) and "
           "'Training Data' ('over 15 trillion' tokens)")
_LLAMA31 = ("meta-llama/llama-models models/llama3_1/MODEL_CARD.md, 'Hardware and Software' (GPU-hours of training, "
            "H100-80GB, not said to be pre-training only) and 'Training Data' (~15 trillion tokens)")
_DEEPSEEK = ("DeepSeek-V3 Technical Report (arXiv 2412.19437): Abstract (671B parameters, 37B activated, 14.8T tokens, "
             "2.788M H800 GPU-hours for its full training); §1 and Table 1 (2,664K pre-training + 119K context "
             "extension + 5K post-training, on 2,048 H800s, $2 per GPU-hour), read in a verbatim quotation only")

RUNS = [
    GPT3,
    # MT-NLG §2.4: a global batch of 1,920 sequences of 2,048 tokens in 60.1 s per iteration on 280 DGX A100 (2,240
    # GPUs), quoted in cli99/llm-analysis examples/megatron-turing-nlg/README.md. It publishes no GPU-hours.
    Run("MT-NLG 530B", 530e9, 270e9, None, A100, "A100 80GB",
        "Smith et al. 2022 (arXiv 2201.11990), §2.4 (1,920 × 2,048 tokens per 60.1 s iteration on 2,240 A100s) and "
        "270B training tokens; 29.7% MFU as PaLM's Table 3 lists it", year=2022,
        tokens_per_s=1920 * 2048 / 60.1, chips=2240, published_mfu=(0.297, 0.297), basis=THROUGHPUT,
        recalled=("tokens", "tokens_per_s", "published_mfu")),
    PALM_RUN,
    # The LLaMA paper's Table 15 (its carbon footprint of other models): "For OPT, we assume training required 34 days
    # on 992 A100-80B (see their logs)", 34 × 24 × 992 = 809,472 GPU-hours; OPT itself gives only its restarts' span.
    Run("OPT-175B", 175e9, 180e9, 809_472, A100, "A100 80GB",
        "GPU-hours from Touvron et al. 2023 (LLaMA, arXiv 2302.13971) Table 15, 34 days on 992 A100s read in OPT's "
        "logs; Zhang et al. 2022 (arXiv 2205.01068) §2.4 ('up to 147 TFLOP/s per GPU', a peak of hardware FLOPs) and "
        "'roughly 180B tokens' (§2.3, the corpus)", year=2022, published_mfu=(147e12 / A100,) * 2,
        stated_hfu=True, recalled=("tokens",)),
    Run("BLOOM-176B", 176.247e9, 366e9, 1_082_990, A100, "A100 80GB",
        "BigScience 2022 (arXiv 2211.05100), §3.4.1 (1,082,990 compute hours on 384 80GB A100s); 366B tokens seen "
        "(the model card says 350B); ~156 TFLOP/s per GPU at its fastest, counting the recomputed forward "
        "(Megatron-DeepSpeed's 'checkpoint_activations_factor = 4')", year=2022,
        published_mfu=(156e12 / A100,) * 2, stated_hfu=True, recalled=("params", "tokens", "published_mfu")),
    Run("LLaMA-7B", 6.7e9, 1.0e12, 82_432, A100, "A100 80GB", _LLAMA, "llama-2-7b", year=2023),
    Run("LLaMA-13B", 13.0e9, 1.0e12, 135_168, A100, "A100 80GB", _LLAMA, "llama-2-13b", year=2023),
    Run("LLaMA-33B", 32.5e9, 1.4e12, 530_432, A100, "A100 80GB", _LLAMA, "llama-33b", year=2023),
    Run("LLaMA-65B", 65.2e9, 1.4e12, 1_022_362, A100, "A100 80GB", _LLAMA, "llama-65b", year=2023),
    Run("Llama 2 7B", 7e9, 2.0e12, 184_320, A100, "A100 80GB", _LLAMA2, "llama-2-7b", year=2023),
    Run("Llama 2 13B", 13e9, 2.0e12, 368_640, A100, "A100 80GB", _LLAMA2, "llama-2-13b", year=2023),
    Run("Llama 2 34B", 34e9, 2.0e12, 1_038_336, A100, "A100 80GB", _LLAMA2, "llama-2-34b", year=2023),
    Run("Llama 2 70B", 70e9, 2.0e12, 1_720_320, A100, "A100 80GB", _LLAMA2, "llama-2-70b", year=2023),
    Run("MPT-7B", 6.7e9, 1e12, 440 * 9.5 * 24, A100, "A100 40GB",
        "huggingface.co/mosaicml/mpt-7b, 'Training Configuration' ('440 A100-40GBs for about 9.5 days'); GPU-hours "
        "computed here as 440 × 9.5 days × 24, not published; 1T tokens (model card, MosaicML's announcement)",
        year=2023, basis=GPU_DAYS, recalled=("params", "tokens", "gpu_hours")),
    Run("Falcon-180B", 180e9, 3.5e12, 7e6, A100, "A100 40GB",
        "huggingface.co/tiiuae/falcon-180B, 'Training Data' (3,500B tokens) and 'Training Procedure' (up to 4,096 "
        "A100 40GB); ~7,000,000 GPU-hours from huggingface.co/blog/falcon-180b (one significant figure)", year=2023),
    Run("Llama 3 8B", 8e9, 15e12, 1.3e6, H100, "H100 80GB", _LLAMA3, "llama-3-8b", year=2024),
    Run("Llama 3 70B", 70e9, 15e12, 6.4e6, H100, "H100 80GB", _LLAMA3, "llama-3.1-70b", year=2024),
    Run("Llama 3.1 8B", 8e9, 15e12, 1.46e6, H100, "H100 80GB", _LLAMA31, "llama-3-8b", year=2024),
    Run("Llama 3.1 70B", 70e9, 15e12, 7.0e6, H100, "H100 80GB", _LLAMA31, "llama-3.1-70b", year=2024),
    # The card's hours include more than Table 4's steady pre-training: long context, restarts, post-training.
    Run("Llama 3.1 405B", 405e9, 15.6e12, 30.84e6, H100, "H100 80GB",
        _LLAMA31 + "; 15.6T pre-training tokens from Llama 3 paper (arXiv 2407.21783) §3; 38-43% BF16 MFU from its "
                   "§3.3.2, Table 4", year=2024, published_mfu=(0.38, 0.43), recalled=("tokens",)),
    Run("DeepSeek-V3", 671e9, 14.8e12, 2.788e6, H800.bf16_flops_per_s, "H800", _DEEPSEEK, year=2024,
        active_params=37e9, phases=(("pre-training", 2664e3), ("context extension", 119e3), ("post-training", 5e3)),
        recalled=("phases",)),
]

DEEPSEEK_V3 = next(r for r in RUNS if r.name == "DeepSeek-V3")
DEEPSEEK_V3_PRICE = 2.0   # dollars per H800-hour, the report's own assumed rental price


@dataclass(frozen=True)
class DeepSeekV3Example:
    cost_usd: float
    n_params: float
    mfu_bf16: float     # against the dense BF16 peak, the convention of every other run here
    mfu_fp8: float      # against the dense FP8 peak, the precision of its matmuls

    def __str__(self) -> str:
        text = _("cost: {cost} for {hours} H800-hours\npre-training MFU with N = {n}: {bf16} of the dense BF16 peak, "
                 "{fp8} of the dense FP8 peak").format(
            cost=show(self.cost_usd, "USD"), hours=format_int(DEEPSEEK_V3.gpu_hours), n=format_count(self.n_params),
            bf16=format_percent(self.mfu_bf16, 1), fp8=format_percent(self.mfu_fp8, 1))
        if self.n_params == DEEPSEEK_V3.n_params:
            return text
        # the table of runs counts the report's N: say which N gives which MFU, so the two figures do not disagree
        return text + "\n" + _("with the report's N = {n}: {bf16} of the dense BF16 peak, as the table of published "
                               "runs counts it").format(n=format_count(DEEPSEEK_V3.n_params),
                                                        bf16=format_percent(DEEPSEEK_V3.mfu, 1))


@v.checked
def deepseek_v3_example(n_params=None, price_per_gpu_hour=DEEPSEEK_V3_PRICE) -> DeepSeekV3Example:
    """DeepSeek-V3's cost (all its GPU-hours at the report's $2 per H800-hour: $5.576M) and its pre-training MFU with
    the active parameters (37B, or ``n_params``, e.g. llmest's count of its config) against both dense peaks. FP8
    matmuls run at twice the BF16 rate, so against the FP8 peak the same work is half the utilisation."""
    run = DEEPSEEK_V3
    n = n_params or run.n_params
    hours = run.pretraining_gpu_hours
    return DeepSeekV3Example(compute.cost(run.gpu_hours, price_per_gpu_hour), n,
                             compute.implied_mfu(n, run.tokens, hours, H800.bf16_flops_per_s),
                             compute.implied_mfu(n, run.tokens, hours, H800.fp8_flops_per_s))


@dataclass(frozen=True)
class PublishedMFU:
    name: str
    mfu: float     # counting 6·N FLOPs per token, no attention term
    basis: str     # where the figure comes from (English, a key: ``_(basis)`` where shown)


def published_mfus() -> list[PublishedMFU]:
    """The MFU of every run in this module, each counting 6·N FLOPs per token only (PaLM without its attention term,
    as the other runs have no figure for it)."""
    return [PublishedMFU(r.name, r.mfu, r.basis) for r in RUNS]


@dataclass(frozen=True)
class MFURange:
    low: PublishedMFU
    high: PublishedMFU
    median: float
    runs: tuple
    assume: tuple = ()     # (low, high): the middle half of the runs, the range to assume

    @property
    def covers(self) -> str:
        """What the range is drawn from, in a phrase; each run and how its MFU is known is in ``mfu_table``."""
        return _("{n} published runs, each counting 6·N FLOPs per token, no attention term").format(n=len(self.runs))

    def __str__(self) -> str:
        return _("{low} ({low_run}) to {high} ({high_run}), middle half {q1} to {q3}, median {median}, over "
                 "{covers}").format(low=format_percent(self.low.mfu, 0), low_run=self.low.name,
                                    high=format_percent(self.high.mfu, 0), high_run=self.high.name,
                                    q1=format_percent(self.assume[0], 0), q3=format_percent(self.assume[1], 0),
                                    median=format_percent(self.median, 0), covers=self.covers)


def mfu_table():
    """Each run's MFU and how it is known, PaLM's again with the attention FLOPs as its paper counts them, and the
    range over the runs (``mfu_range``), as a table."""
    from ..display.table import Table

    span = mfu_range()
    rows = [(run.name, format_percent(run.mfu, 1), _(run.basis)) for run in span.runs]
    rows.append(("PaLM 540B", format_percent(palm_mfu(with_attention=True), 1),
                 _("with the attention FLOPs, as the paper counts them")))
    return Table((_("run"), "MFU", _("from")), rows,
                 notes=[_("range: {low} ({low_run}) to {high} ({high_run}), median {median}").format(
                     low=format_percent(span.low.mfu, 0), low_run=span.low.name, high=format_percent(span.high.mfu, 0),
                     high_run=span.high.name, median=format_percent(span.median, 0))])


def runs_table():
    """Every run's year, chips, N for 6·N·D, tokens, pre-training GPU-hours, the MFU they imply, the MFU its source
    states, and the figures not read in a primary source, as a table."""
    from ..display.table import Table

    rows = []
    for r in RUNS:
        hours = "-" if r.pretraining_gpu_hours is None else format_int(r.pretraining_gpu_hours)
        stated = "-".join(dict.fromkeys(format_percent(x, 0) for x in r.published_mfu)) or "-"
        stated = _("{mfu} HFU, peak").format(mfu=stated) if r.stated_hfu else stated
        rows.append((r.name, str(r.year), r.hardware, format_count(r.n_params), format_count(r.tokens), hours,
                     format_percent(r.mfu, 0), stated, r.recalled_words))
    return Table((_("run"), _("year"), _("chips"), "N", _("tokens"), _("GPU-hours"), "MFU", _("stated"),
                  _("not read in a primary source")), rows,
                 caption=_("published runs: pre-training GPU-hours, the MFU they imply, and the MFU the source "
                           "states"))


def mfu_range() -> MFURange:
    """The MFU that the published runs imply: the runs at either end, the median, and the range a reader should
    assume, the middle half of the runs (their lower and upper quartiles, ``statistics.quantiles`` inclusive).

    The middle half, not the extremes nor a hand-picked subset: the ends are the runs least like a plan's, and
    dropping runs by judgement would be a second source of error. Each run counts once."""
    rows = published_mfus()
    low, high = min(rows, key=lambda r: r.mfu), max(rows, key=lambda r: r.mfu)
    q1, _median, q3 = statistics.quantiles([r.mfu for r in rows], n=4, method="inclusive")
    return MFURange(low, high, statistics.median(r.mfu for r in rows), tuple(rows), (q1, q3))
