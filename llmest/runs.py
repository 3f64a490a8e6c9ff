"""Published training runs, as data, and the MFU each implies.

GPU-hours, tokens and parameters are the papers' own; where llmest has the model's exact shape (``model``), its
FLOP-carrying parameter count (``compute.flops_params``) is used beside the published size. ``mfu_range`` gives the
range over every run here; every text that quotes "the published range" calls it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from . import _validate as v
from . import compute
from . import hardware
from .model import preset
from .units import format_percent

A100 = hardware.gpu("A100 80GB").bf16_flops_per_s


@dataclass(frozen=True)
class Run:
    name: str
    params: float              # as published
    tokens: float
    gpu_hours: float | None     # GPU-hours (chip-hours for TPUs)
    peak_flops_per_s: float     # dense BF16/FP16 peak of one chip
    hardware: str
    source: str
    model: str | None = None    # an llmest preset with the same shape

    @property
    def n_params(self) -> float:
        """Parameters for 6·N·D: the preset's matmul weights when there is one, else the published size."""
        return compute.flops_params(preset(self.model)) if self.model else self.params

    @property
    def flops(self) -> float:
        return compute.training_flops(self.n_params, self.tokens)

    @property
    def mfu(self) -> float:
        return compute.implied_mfu(self.n_params, self.tokens, self.gpu_hours, self.peak_flops_per_s)


_LLAMA = "LLaMA (Touvron et al. 2023, arXiv 2302.13971), Table 15 and §2"
_LLAMA2 = "Llama 2 (Touvron et al. 2023), Table 2; meta-llama/llama MODEL_CARD.md"

RUNS = [
    Run("LLaMA-7B", 6.7e9, 1.0e12, 82_432, A100, "A100 80GB", _LLAMA, "llama-2-7b"),
    Run("LLaMA-13B", 13.0e9, 1.0e12, 135_168, A100, "A100 80GB", _LLAMA, "llama-2-13b"),
    Run("LLaMA-33B", 32.5e9, 1.4e12, 530_432, A100, "A100 80GB", _LLAMA, "llama-33b"),
    Run("LLaMA-65B", 65.2e9, 1.4e12, 1_022_362, A100, "A100 80GB", _LLAMA, "llama-65b"),
    Run("Llama 2 7B", 7e9, 2.0e12, 184_320, A100, "A100 80GB", _LLAMA2, "llama-2-7b"),
    Run("Llama 2 13B", 13e9, 2.0e12, 368_640, A100, "A100 80GB", _LLAMA2, "llama-2-13b"),
    Run("Llama 2 34B", 34e9, 2.0e12, 1_038_336, A100, "A100 80GB", _LLAMA2, "llama-2-34b"),
    Run("Llama 2 70B", 70e9, 2.0e12, 1_720_320, A100, "A100 80GB", _LLAMA2, "llama-2-70b"),
]

# GPT-3 175B (Brown et al. 2020, Appendix D, Table D.1): 3.14e23 training FLOPs for 174.6B parameters and 300B tokens.
# The paper gives no GPU-hours; Patterson et al. 2021 (arXiv 2104.10350, Table 4) estimate 10,000 V100s for 14.8 days,
# so its MFU rests on an estimate. 125 TFLOPS is the V100's FP16 tensor peak (it has no BF16).
GPT3 = Run("GPT-3 175B", 174.6e9, 300e9, 10_000 * 14.8 * 24, hardware.gpu("V100").bf16_flops_per_s, "V100",
           "Brown et al. 2020 Table D.1; GPU-hours estimated by Patterson et al. 2021")
GPT3_PUBLISHED_FLOPS = 3.14e23

# PaLM 540B (Chowdhery et al. 2022, Appendix B): 238.3K tokens/s on 6,144 TPU v4 chips of 275 TFLOPS, sequences
# of 2,048 tokens, 118 layers, 48 heads of width 256; MFU 45.7% without the attention term, 46.2% with it.
PALM = dict(params=540.35e9, tokens_per_s=238.3e3, chips=6144, peak_flops_per_s=275e12, layers=118, heads=48,
            head_dim=256, seq_len=2048, published_mfu=(0.457, 0.462))


@v.checked
def palm_mfu(with_attention: bool) -> float:
    per_token = compute.training_flops_per_token(PALM["params"])
    if with_attention:
        per_token += compute.attention_flops_per_token(PALM["layers"], PALM["heads"], PALM["head_dim"],
                                                       PALM["seq_len"])
    return compute.mfu_from_throughput(PALM["tokens_per_s"], per_token, PALM["chips"], PALM["peak_flops_per_s"])


@dataclass(frozen=True)
class PublishedMFU:
    name: str
    mfu: float     # counting 6·N FLOPs per token, no attention term
    basis: str     # where the figure comes from


def published_mfus() -> list[PublishedMFU]:
    """The MFU of every run in this module, each counting 6·N FLOPs per token only (PaLM without its attention term,
    as the other runs have no figure for it)."""
    rows = [PublishedMFU(r.name, r.mfu, "reported GPU-hours") for r in RUNS]
    rows.append(PublishedMFU(GPT3.name, GPT3.mfu,
                             "Patterson et al.'s estimate of its V100-hours (the paper gives none)"))
    rows.append(PublishedMFU("PaLM 540B", palm_mfu(False), "its measured throughput (Chowdhery et al. 2022, App. B)"))
    return rows


@dataclass(frozen=True)
class MFURange:
    low: PublishedMFU
    high: PublishedMFU
    median: float
    runs: tuple

    @property
    def covers(self) -> str:
        """Which runs the range is drawn from, grouped by how each MFU is known."""
        bases = {}
        for run in self.runs:
            bases.setdefault(run.basis, []).append(run.name)
        groups = "; ".join(f"{', '.join(names)} from {basis}" for basis, names in bases.items())
        return f"{len(self.runs)} published runs ({groups}), each counting 6·N FLOPs per token, no attention term"

    def __str__(self) -> str:
        return (f"{format_percent(self.low.mfu, 0)} ({self.low.name}) to {format_percent(self.high.mfu, 0)} "
                f"({self.high.name}), "
                f"median {format_percent(self.median, 0)}, over {self.covers}")


def mfu_range() -> MFURange:
    """The range of MFU that the published runs imply, with the runs at either end."""
    rows = published_mfus()
    low, high = min(rows, key=lambda r: r.mfu), max(rows, key=lambda r: r.mfu)
    return MFURange(low, high, statistics.median(r.mfu for r in rows), tuple(rows))
